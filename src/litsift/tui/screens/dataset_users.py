"""``C`` on a dataset: the papers of the library that name it (those its detail lists: the
query's first, then the newest), in a dialog; Enter opens one in the detail pane, as a
reference of an answer opens (its own row when the papers tab is not shown).

The list is the one the detail pane's worker read (:mod:`litsift.tui.widgets.dataset_users`):
nothing is read here, so the key never waits on the store.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from litsift.text import for_terminal
from litsift.tui.screens.modals import LIST_QUIT, _Modal, _save_key
from litsift.tui.screens.navigation import NavScreen
from litsift.tui.widgets.footer import KeyFooter
from litsift.tui.widgets.safe_text import safe_title
from litsift.types import Hit, Kind, Paper
from litsift.types.citations import DatasetUsers

__all__ = ["DatasetUsersScreen", "open_users"]

#: C with nothing highlighted
_NOTHING = ("select a paper or a dataset first", "C shows a paper's citations, a dataset's users")


class DatasetUsersScreen(_Modal[Paper]):
    """The papers naming one dataset; Enter dismisses the highlighted one (Esc: None)."""

    BINDINGS: ClassVar[list[BindingType]] = [*_save_key("Open"), *LIST_QUIT]

    def __init__(self, name: str, users: DatasetUsers) -> None:
        super().__init__(classes="litsift-modal")
        self.name_shown = for_terminal(name, keep_newlines=False)
        self.users = users
        self.options = [
            Option(
                for_terminal(f"{p.title} ({p.year})" if p.year else p.title, keep_newlines=False),
                id=str(i),
            )
            for i, p in enumerate(users.papers)
        ]

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box") as box:
            n = self.users.total
            box.border_title = safe_title(
                f"{self.name_shown}: {len(self.options)} of {n} papers naming it"
            )
            box.border_subtitle = "Enter open · Esc close"
            yield OptionList(*self.options, id="users-list", markup=False)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(self.users.papers[int(event.option.id)])

    def action_save(self) -> None:
        option = self.query_one("#users-list", OptionList).highlighted_option
        if option is not None and option.id is not None:
            self.dismiss(self.users.papers[int(option.id)])


def open_users(screen: NavScreen, hit: Hit | None) -> None:
    """``C`` on dataset ``hit``: its users in a dialog, the one picked in the detail pane."""
    if hit is None or hit.kind is not Kind.DATASET:
        screen.status.show_error(_NOTHING, notice=True)
        return
    detail = screen.detail
    users = detail.extras.users if detail.hit == hit else None
    if users is None:
        screen.status.show_message("reading the papers that name it…", notice=True)
        return
    if not users.papers:
        screen.status.show_message("none of your papers names it", notice=True)
        return

    def opened(paper: Paper | None) -> None:
        if paper is not None:
            detail.show_hit(Hit(record=paper, rank=0, score=0.0))
            screen.open_detail()

    screen.app.push_screen(DatasetUsersScreen(hit.record.display_title, users), opened)
