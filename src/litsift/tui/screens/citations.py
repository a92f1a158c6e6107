"""The citations screen (key ``C`` on a paper): its references and the papers citing it, and
snowball rounds from the kept papers.

* ``1`` references (works the paper cites), ``2`` cited by (works citing it): stored papers
  first with their labels, then works not stored, by the name their source gave them (a
  GROBID or PDF reference: title, first author, year) or by their identifier (``openalex:W…``,
  ``doi:…``) -- ``F`` fetches the paper's trail from OpenAlex, else Semantic Scholar
  (``litsift refs fetch``), which stores them. ``j``/``k``/``g``/``G`` move the cursor as in
  the results (same binding ids, so a ``[keymap]`` entry moves both). ``Enter`` follows the
  trail: the highlighted stored paper's own references and citing works, on a screen of
  their own (``Esc`` comes back).
* ``S`` a snowball round: the references and citing works of every kept paper that carry no
  label yet, ranked by how many kept papers they link to, bibliographic coupling, co-citation
  and hybrid relevance to the current query (:meth:`litsift.service.api.TrailAPI.snowball`);
  label them with the usual keys (``+``/``y`` keep, ``m`` maybe, ``-``/``x`` discard) and press
  ``S`` again for the next round, until nothing new is linked.

Every service call runs in a thread worker under the search screen's service lock (the UI never
waits; ``F`` holds it around each page's writes only: searches go on meanwhile); every string
shown (titles, keys, errors) goes through :func:`litsift.text.for_terminal` and is never parsed
as markup. A person reads titles: a work is named by its title wherever text mentions it
(status, errors); internal keys (``key:…`` of a stored paper without identifiers, ``title:…`` of
a reference without any) are never shown, external identifiers (``doi:…``) only beside a work
that is not stored.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from litsift.errors import LitsiftError
from litsift.text import for_terminal
from litsift.tui.messages import AnnotationsChanged
from litsift.tui.screens.citation_rows import NOUNS, cells, count, plain
from litsift.tui.screens.citation_rows import name as work_name
from litsift.tui.screens.keys import TRIAGE_BINDINGS
from litsift.tui.widgets.fixed_rows import RowsTable
from litsift.tui.widgets.footer import KeyFooter
from litsift.types import Kind, Label
from litsift.types.citations import Neighbour, Neighbours, SnowballRound, TrailFetch

if TYPE_CHECKING:
    from litsift.service.api import LitsiftAPI

__all__ = ["CitationsScreen"]

_LABEL_IDS = {"label_keep", "label_maybe", "label_discard"}
#: what the rows of a mode are, singular and plural
#: the cells beside the title: label, year, identifier or evidence, padding, scroll bar
_OTHER_COLUMNS = 60
#: j/k share one footer entry
_MOVE = Binding.Group("Move")
Done = Callable[[object], None]  # what a worker's result is handed to, on the UI thread
_KEY_HINT = "1: references · 2: cited by · Enter: open · F: fetch the trail · S: snowball round"


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
        # the results' keys and ids (widgets/results_table.py): one [keymap] entry moves both
        Binding("j", "cursor_down", "Down", id="cursor_down", group=_MOVE, tooltip="Next row"),
        Binding("k", "cursor_up", "Up", id="cursor_up", group=_MOVE, tooltip="Previous row"),
        Binding("g", "first_row", "First", show=False, id="first_result", tooltip="First row"),
        Binding("G", "last_row", "Last", show=False, id="last_result", tooltip="Last row"),
        Binding(
            "enter",
            "follow",
            "Open",
            id="citations_follow",
            tooltip="This work's own references and citing works (Esc comes back)",
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
            tooltip="Fetch this paper's references and citing works (OpenAlex, else S2)",
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
        super().__init__(classes="citations-screen")  # no id: Enter stacks one on another
        self.service = service
        self.doc_id = doc_id
        self.service_lock = lock
        self.query_text = query_text
        self.post_back = post_back
        self.mode = "references"
        self.neighbours: Neighbours | None = None
        self.round: SnowballRound | None = None
        self.rounds = 0
        #: the last F found every walk fetched before: the next F walks them again
        self.refresh_next = False
        #: what the last F fetched, said once the reload after it has shown the rows
        self.fetch_note: str | None = None
        #: the rows shown, in order
        self.rows: list[Neighbour] = []
        #: a service call is running (tests wait on this instead of sleeping)
        self.busy = False
        #: the status line shows a notice (:meth:`say`)
        self._notice = False

    def compose(self) -> ComposeResult:
        yield Static(id="cite-title", markup=False)
        table: DataTable[Text] = RowsTable(id="cite-table", cursor_type="row")
        table.add_columns("Label", "Year", "Title", "Why / id")
        yield table
        yield Static(id="cite-status", markup=False)
        yield KeyFooter()  # a narrow line keeps ^q Quit and f1 Help

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#cite-table", DataTable)

    def say(self, text: str, *, notice: bool = False) -> None:
        """Show ``text`` in the status line; a ``notice`` (a label written, a row refused)
        gives way to the counts and keys on the next key (:meth:`expire_notice`)."""
        self._notice = notice
        self.query_one("#cite-status", Static).update(for_terminal(text, keep_newlines=False))

    def expire_notice(self) -> None:
        """A key or click after a notice: the counts and keys come back (they stayed hidden)."""
        if self._notice:
            self.say(self._summary())

    def on_mount(self) -> None:
        self.say("loading the citations…")
        self.load()

    # -- workers ---------------------------------------------------------------------------
    def _call(self, fn: Callable[[], object], done: Done, lock: bool = True) -> None:
        """Run ``fn`` (under the service lock, unless it takes it itself) in this (worker)
        thread; hand the result, or the error's message, back to the UI thread."""
        try:
            with self.service_lock if lock else nullcontext():
                result = fn()
        except LitsiftError as err:
            self.app.call_from_thread(self._failed, f"{err.message}; {err.hint}")
            return
        except Exception as err:  # reported, never a crash
            self.app.call_from_thread(self._failed, f"failed: {err}")
            return
        self.app.call_from_thread(self._done, done, result)

    def _done(self, done: Done, result: object) -> None:
        self.busy = False
        done(result)

    def _failed(self, text: str) -> None:
        """Say what failed; an error naming this paper by its key names it by its title."""
        self.busy = False
        if self.neighbours is not None and self.neighbours.title:
            text = text.replace(
                self.doc_id, work_name(Neighbour(self.doc_id, self.neighbours.title))
            )
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
                f"{result.title} — {count(len(result.references), NOUNS['references'])}, "
                f"{count(len(result.cited_by), NOUNS['cited_by'])}",
                keep_newlines=False,
            )
        )
        self.show_mode(self.mode if self.mode != "snowball" or self.round else "references")
        if self.fetch_note is not None:
            self.say(self.fetch_note, notice=True)
            self.fetch_note = None

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
        """Fetch this paper's trail (both ways; OpenAlex, else Semantic Scholar), then reload;
        the lock is held around each page's writes only (searches go on meanwhile)."""
        self.busy = True
        refresh, self.refresh_next = self.refresh_next, False

        def fetched(result: object) -> None:
            assert isinstance(result, TrailFetch)
            if result.cached:  # F said "fetched: 0 new citation links" and could do no more
                self.refresh_next = True
                self.fetch_note = (
                    "the trail was fetched before and is stored (nothing asked) · "
                    "F again: walk it anew for citing works since"
                )
            else:
                self.fetch_note = f"fetched: {result.added:,} new citation links"
            self.load()  # its rows' summary took the place of what was said at once

        def progress(direction: str, works: int) -> None:
            what = "references" if direction == "backward" else "citing works"
            self.app.call_from_thread(self.say, f"fetching the trail… {what}: {works:,} so far")

        fetch = self.service.refs.fetch_trail
        self._call(lambda: fetch(self.doc_id, self.service_lock, progress, refresh), fetched, False)

    # -- showing ---------------------------------------------------------------------------
    def show_mode(self, mode: str) -> None:
        self.mode = mode
        table = self.table
        table.clear()
        # the title gets the width the other columns leave (an identifier or the snowball's
        # evidence beside it stays readable)
        width = max(30, self.size.width - _OTHER_COLUMNS)
        why: dict[str, str] = {}
        if mode == "snowball" and self.round is not None:
            self.rows = [c.neighbour for c in self.round.candidates]
            why = {c.neighbour.key: c.why() for c in self.round.candidates}
        elif self.neighbours is not None:
            self.rows = list(getattr(self.neighbours, mode))
        else:
            self.rows = []
        for n in self.rows:
            table.add_row(*cells(n, why.get(n.key, ""), width), key=n.key)
        self.say(self._summary())

    def _summary(self) -> str:
        """The status line: what is shown (true counts), then the keys as ``key: action``."""
        if self.mode == "snowball":
            if self.round is None:
                return "S: a snowball round from the kept papers"
            kept = count(self.round.seeds, ("kept paper", "kept papers"))
            if not self.round.candidates:
                return (
                    f"round {self.rounds}: nothing new linked to the {kept} · "
                    "F: fetch more of the trail · 1: references · 2: cited by"
                )
            return (
                f"round {self.rounds}: {count(len(self.rows), ('candidate', 'candidates'))} "
                f"from {kept} · +: keep · m: maybe · -: discard · S: next round · "
                "1: references · 2: cited by"
            )
        stubs = sum(1 for n in self.rows if not n.stored)
        shown = count(len(self.rows), NOUNS[self.mode])
        return f"showing {shown} ({stubs:,} not stored) · {_KEY_HINT}"

    def highlighted(self) -> Neighbour | None:
        row = self.table.cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    # -- actions ---------------------------------------------------------------------------
    def action_show(self, mode: str) -> None:
        self.show_mode(mode)

    def action_cursor_down(self) -> None:
        self.table.action_cursor_down()

    def action_cursor_up(self) -> None:
        self.table.action_cursor_up()

    def action_first_row(self) -> None:
        self.table.action_scroll_top()

    def action_last_row(self) -> None:
        self.table.action_scroll_bottom()

    def action_snowball(self) -> None:
        self.say("snowball round…")
        self.run_snowball()

    def action_fetch_trail(self) -> None:
        self.say("fetching the citation trail…")
        self.fetch()

    def action_close(self) -> None:
        self.app.pop_screen()

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # Enter on a row: the table's own binding, not the screen's
        self.action_follow()

    def action_follow(self) -> None:
        """The highlighted stored paper's citations, on a screen of their own (Esc: back)."""
        n = self.highlighted()
        if n is None:
            return
        if not n.stored:
            self.say(
                f"{work_name(n)} is not stored: F fetches this paper's trail, which stores it",
                notice=True,
            )
            return
        self.app.push_screen(
            CitationsScreen(self.service, n.key, self.service_lock, self.query_text, self.post_back)
        )

    def action_label(self, label: str) -> None:
        n = self.highlighted()
        if n is None:
            return
        if not n.stored:
            self.say(
                f"{work_name(n)} is not stored, so it cannot be labelled (F: fetch the trail)",
                notice=True,
            )
            return
        new = None if n.label == Label(label) else Label(label)
        self._relabel(n.key, new)
        self.busy = True
        self.run_worker(
            lambda: self._write_label(n, new),
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
            table.update_cell(
                key, table.ordered_columns[0].key, plain(label.value if label else "")
            )

    def _write_label(self, n: Neighbour, label: Label | None) -> None:
        def write() -> object:
            self.service.annotate(Kind.PAPER, n.key, label=label)
            return self.service.annotations(Kind.PAPER, [n.key])

        def written(annotations: object) -> None:
            self.say(f"{work_name(n)}: {label.value if label else 'label cleared'}", notice=True)
            if self.post_back is not None and isinstance(annotations, dict):
                self.post_back(AnnotationsChanged(Kind.PAPER, annotations))

        self._call(write, written)
