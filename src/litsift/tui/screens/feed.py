"""The feed: papers ``litsift sync`` brought in since the last look, ranked by the learning
order trained on the kept papers against the discarded ones (``litsift feed``'s view; opened
from the command palette). Loading runs in a worker thread; Esc closes."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from litsift.errors import LitsiftError
from litsift.tui.widgets.footer import KeyFooter
from litsift.tui.widgets.safe_text import Part, safe_content

if TYPE_CHECKING:
    from litsift.service.api import LitsiftAPI
    from litsift.types.reviews import FeedResult

__all__ = ["FeedScreen"]

#: Papers listed.
FEED_ROWS = 50


class FeedScreen(ModalScreen[None]):
    """New papers from syncs, best first (see the module docstring)."""

    #: Esc closes; F1 / ? and q work here as everywhere (a modal screen runs no app binding
    #: but priority ones: they did nothing, and the footer below showed the main screen's keys)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="feed_close"),
        Binding("f1,question_mark", "app.help", "Help", show=True),
        Binding("q", "app.quit", "Quit", show=True),
    ]

    def __init__(self, service: LitsiftAPI, collection: str | None = None) -> None:
        super().__init__(classes="litsift-modal")
        self.service, self.collection = service, collection
        self.result: FeedResult | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box") as box:
            box.border_title = "Feed"
            box.border_subtitle = "Esc close"
            yield Label("ranking the papers synced since your last look…", id="feed-head")
            with VerticalScroll():
                yield Static("", id="feed-list")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.load()

    @property
    def busy(self) -> bool:
        """True until the feed is ranked (tests wait on this)."""
        return self.result is None

    @work(thread=True, exclusive=True, group="feed", exit_on_error=False)
    def load(self) -> None:
        try:
            got = self.service.reviews.feed(self.collection)
        except LitsiftError as err:
            self.app.call_from_thread(self._failed, err)
            return
        self.app.call_from_thread(self._show, got)

    def _failed(self, err: LitsiftError) -> None:
        msg = err.message + (f"; {err.hint}" if err.hint else "")
        self.query_one("#feed-head", Label).update(safe_content([msg]))

    def _show(self, got: FeedResult) -> None:
        self.result = got
        when = got.since[:16].replace("T", " ") if got.since else "the start"
        head = (
            f"{len(got.papers):,} new paper{'s' if len(got.papers) != 1 else ''} since {when}, "
            f"ranked by {got.model} ({got.liked:,} kept, {got.disliked:,} discarded)"
        )
        self.query_one("#feed-head", Label).update(safe_content([head]))
        parts: list[Part] = []
        for i, p in enumerate(got.papers[:FEED_ROWS], 1):
            parts += [f"{i:>3}. ", (p.title, "bold"), f" ({p.year or 'n.d.'})", "\n"]
        if not got.papers:
            parts = ["Nothing new: litsift sync brings papers in (litsift sync --help)."]
        self.query_one("#feed-list", Static).update(safe_content(parts, keep_newlines=True))

    def action_close(self) -> None:
        self.dismiss(None)
