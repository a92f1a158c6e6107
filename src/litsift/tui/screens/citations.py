"""The citations screen (key ``C`` on a paper): its references and the papers citing it, and
snowball rounds from the kept papers.

* ``1`` references (works the paper cites), ``2`` cited by (works citing it): stored papers
  first with their labels, then works known only by an identifier (``openalex:W…``,
  ``doi:…``) -- ``F`` fetches the paper's trail from OpenAlex (``litsift refs fetch``), which
  stores them.
* ``S`` a snowball round: the references and citing works of every kept paper that carry no
  label yet, ranked by how many kept papers they link to, bibliographic coupling, co-citation
  and hybrid relevance to the current query (:meth:`litsift.service.api.TrailAPI.snowball`);
  label them with the usual keys (``+``/``y`` keep, ``m`` maybe, ``-``/``x`` discard) and press
  ``S`` again for the next round, until nothing new is linked.

Every service call runs in a thread worker under the search screen's service lock (the UI never
waits); every string shown (titles, keys, errors) goes through :func:`litsift.text.for_terminal`
and is never parsed as markup.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from litsift.errors import LitsiftError
from litsift.text import for_terminal
from litsift.tui.messages import AnnotationsChanged
from litsift.tui.screens.keys import TRIAGE_BINDINGS
from litsift.types import Kind, Label
from litsift.types.citations import Neighbour, Neighbours, SnowballRound

if TYPE_CHECKING:
    from litsift.service.api import LitsiftAPI

__all__ = ["CitationsScreen"]

_LABEL_IDS = {"label_keep", "label_maybe", "label_discard"}
_MODES = {"references": "References", "cited_by": "Cited by", "snowball": "Snowball"}


class CitationsScreen(Screen[None]):
    """References, citing papers and snowball rounds around one paper (module docstring).

    Args:
        service: the only API this screen calls.
        doc_id: the paper whose citations are shown.
        lock: the search screen's service lock (one service call at a time).
        query_text: the current query (snowball candidates' relevance); may be empty.
        post_back: where label changes are announced (the search screen's ``post_message``),
            so its table shows them too.
    """

    DEFAULT_CSS = """
    CitationsScreen #cite-title { height: auto; padding: 0 1; text-style: bold; }
    CitationsScreen #cite-table { height: 1fr; }
    CitationsScreen #cite-status { height: auto; padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="citations_close", tooltip="Back to the results"),
        Binding(
            "1",
            "show('references')",
            "References",
            id="citations_references",
            tooltip="The works this paper cites",
        ),
        Binding(
            "2",
            "show('cited_by')",
            "Cited by",
            id="citations_cited_by",
            tooltip="The works citing this paper",
        ),
        Binding(
            "S",
            "snowball",
            "Snowball round",
            id="snowball",
            tooltip="Candidates linked to the kept papers, ranked (again: the next round)",
        ),
        Binding(
            "F",
            "fetch_trail",
            "Fetch trail",
            id="fetch_trail",
            tooltip="Fetch this paper's references and citing works from OpenAlex",
        ),
        *[b for b in TRIAGE_BINDINGS if isinstance(b, Binding) and b.id in _LABEL_IDS],
    ]

    def __init__(
        self,
        service: LitsiftAPI,
        doc_id: str,
        lock: threading.Lock,
        query_text: str = "",
        post_back: Callable[[Message], object] | None = None,
    ) -> None:
        super().__init__(id="citations-screen")
        self.service = service
        self.doc_id = doc_id
        self.service_lock = lock
        self.query_text = query_text
        self.post_back = post_back
        self.mode = "references"
        self.neighbours: Neighbours | None = None
        self.round: SnowballRound | None = None
        self.rounds = 0
        #: the rows shown, in order
        self.rows: list[Neighbour] = []
        #: a service call is running (tests wait on this instead of sleeping)
        self.busy = False

    def compose(self) -> ComposeResult:
        yield Static(id="cite-title", markup=False)
        table: DataTable[Text] = DataTable(id="cite-table", cursor_type="row")
        table.add_columns("Label", "Year", "Title", "Why / id")
        yield table
        yield Static(id="cite-status", markup=False)
        yield Footer()

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#cite-table", DataTable)

    def say(self, text: str) -> None:
        self.query_one("#cite-status", Static).update(for_terminal(text, keep_newlines=False))

    def on_mount(self) -> None:
        self.say("loading the citations…")
        self.load()

    # -- workers ---------------------------------------------------------------------------
    def _call(self, fn: Callable[[], object], done: Callable[[object], None]) -> None:
        """Run ``fn`` under the service lock in this (worker) thread; hand the result, or the
        error's message, back to the UI thread."""
        try:
            with self.service_lock:
                result = fn()
        except LitsiftError as err:
            self.app.call_from_thread(self._failed, f"{err.message}; {err.hint}")
            return
        except Exception as err:  # reported, never a crash
            self.app.call_from_thread(self._failed, f"failed: {err}")
            return
        self.app.call_from_thread(self._done, done, result)

    def _done(self, done: Callable[[object], None], result: object) -> None:
        self.busy = False
        done(result)

    def _failed(self, text: str) -> None:
        self.busy = False
        self.say(text)

    @work(thread=True, exclusive=True, group="citations", exit_on_error=False)
    def load(self) -> None:
        """The paper's references and citing works, off the UI thread."""
        self.busy = True
        self._call(lambda: self.service.refs.neighbours(self.doc_id), self._loaded)

    def _loaded(self, result: object) -> None:
        assert isinstance(result, Neighbours)
        self.neighbours = result
        self.query_one("#cite-title", Static).update(
            for_terminal(
                f"{result.title} — {len(result.references)} references, "
                f"{len(result.cited_by)} citing",
                keep_newlines=False,
            )
        )
        self.show_mode(self.mode if self.mode != "snowball" or self.round else "references")

    @work(thread=True, exclusive=True, group="citations", exit_on_error=False)
    def run_snowball(self) -> None:
        """One snowball round from the kept papers, off the UI thread."""
        self.busy = True
        self._call(lambda: self.service.refs.snowball(self.query_text), self._snowballed)

    def _snowballed(self, result: object) -> None:
        assert isinstance(result, SnowballRound)
        self.round = result
        self.rounds += 1
        self.show_mode("snowball")

    @work(thread=True, exclusive=True, group="citations", exit_on_error=False)
    def fetch(self) -> None:
        """Fetch this paper's trail (both directions, OpenAlex), then reload."""
        self.busy = True

        def fetched(added: object) -> None:
            self.say(f"fetched: {added if isinstance(added, int) else 0:,} new edges")
            self.load()

        self._call(lambda: self.service.refs.fetch_trail(self.doc_id), fetched)

    # -- showing ---------------------------------------------------------------------------
    def show_mode(self, mode: str) -> None:
        self.mode = mode
        table = self.table
        table.clear()
        why: dict[str, str] = {}
        if mode == "snowball" and self.round is not None:
            self.rows = [c.neighbour for c in self.round.candidates]
            why = {c.neighbour.key: c.why() for c in self.round.candidates}
        elif self.neighbours is not None:
            self.rows = list(getattr(self.neighbours, mode))
        else:
            self.rows = []
        for n in self.rows:
            table.add_row(*self._cells(n, why.get(n.key, "")), key=n.key)
        self.say(self._summary())

    @staticmethod
    def _cells(n: Neighbour, why: str) -> tuple[Text, Text, Text, Text]:
        """A row's cells as plain text (a DataTable parses ``str`` cells as markup)."""

        def plain(text: str) -> Text:
            return Text(for_terminal(text, keep_newlines=False), no_wrap=True, overflow="ellipsis")

        return (
            plain(n.label.value if n.label else ""),
            plain(str(n.year or "")),
            plain(n.display_title[:200]),
            plain(why or ("" if n.stored else n.key)),
        )

    def _summary(self) -> str:
        what = _MODES[self.mode]
        if self.mode == "snowball":
            if self.round is None:
                return "S: a snowball round from the kept papers"
            if not self.round.candidates:
                return (
                    f"round {self.rounds}: nothing new linked to the {self.round.seeds} kept "
                    "papers (F fetches more of the trail)"
                )
            return (
                f"round {self.rounds}: {len(self.rows)} candidates from {self.round.seeds} kept "
                "papers · + keep, m maybe, - discard · S next round"
            )
        stubs = sum(1 for n in self.rows if not n.stored)
        return (
            f"{what}: {len(self.rows)} ({stubs} not stored; F fetches the trail) · "
            "1 references · 2 cited by · S snowball"
        )

    def highlighted(self) -> Neighbour | None:
        row = self.table.cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    # -- actions ---------------------------------------------------------------------------
    def action_show(self, mode: str) -> None:
        self.show_mode(mode)

    def action_snowball(self) -> None:
        self.say("snowball round…")
        self.run_snowball()

    def action_fetch_trail(self) -> None:
        self.say("fetching the citation trail…")
        self.fetch()

    def action_close(self) -> None:
        self.app.pop_screen()

    def action_label(self, label: str) -> None:
        n = self.highlighted()
        if n is None:
            return
        if not n.stored:
            self.say(f"{n.key} is not stored: F fetches the trail, which stores it")
            return
        new = None if n.label == Label(label) else Label(label)
        self._relabel(n.key, new)
        self.busy = True
        self.run_worker(
            lambda: self._write_label(n.key, new),
            thread=True,
            group="citations-label",
            exit_on_error=False,
        )

    def _relabel(self, key: str, label: Label | None) -> None:
        """Show ``label`` on every row (and kept list) of ``key`` at once."""
        from dataclasses import replace

        def swap(items: tuple[Neighbour, ...]) -> tuple[Neighbour, ...]:
            return tuple(replace(x, label=label) if x.key == key else x for x in items)

        if self.neighbours is not None:
            self.neighbours = replace(
                self.neighbours,
                references=swap(self.neighbours.references),
                cited_by=swap(self.neighbours.cited_by),
            )
        if self.round is not None:
            self.round = replace(
                self.round,
                candidates=tuple(
                    replace(c, neighbour=replace(c.neighbour, label=label))
                    if c.neighbour.key == key
                    else c
                    for c in self.round.candidates
                ),
            )
        self.rows = [replace(x, label=label) if x.key == key else x for x in self.rows]
        table = self.table
        if key in table.rows:
            table.update_cell(key, table.ordered_columns[0].key, Text(label.value if label else ""))

    def _write_label(self, key: str, label: Label | None) -> None:
        def write() -> object:
            self.service.annotate(Kind.PAPER, key, label=label)
            return self.service.annotations(Kind.PAPER, [key])

        def written(annotations: object) -> None:
            self.say(f"{key}: {label.value if label else 'label cleared'}")
            if self.post_back is not None and isinstance(annotations, dict):
                self.post_back(AnnotationsChanged(Kind.PAPER, annotations))

        self._call(write, written)
