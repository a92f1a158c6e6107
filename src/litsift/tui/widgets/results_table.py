"""The results table of one kind (papers or datasets), driven by the keyboard.

Columns are declared per kind in :data:`COLUMNS`; each cell is computed from the hit and its
:class:`RowInfo` (triage annotation, aspect coverage). Cell text is always a ``rich.text.Text``:
titles are never read as markup, and data text passes through :func:`litsift.text.for_terminal`
(one line: escape sequences removed, control characters visible, newlines as spaces).

What is shown is the table's ``result`` (the current order: fused, "more like this" or LLM
reranked), then filtered by label (:data:`~litsift.types.LABEL_FILTERS`) and, when
``by_coverage`` is on, sorted by aspect coverage. Rows are keyed by doc id. The coverage column
is shown only when it carries information (``show_coverage``: the query has more than one
aspect, or the user edited its aspects) or orders the rows (``by_coverage``); for a one-clause
query every row would read the same, and the title gets the width.

The table is a :class:`~litsift.tui.widgets.cached_table.CachedTable`: a new result, the "…"
of a running aspect scoring or a label change only what they change, and a cell seen before
(the same rank, title, year or venue on the next key's result) is not rendered again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.widgets import DataTable, Input

from litsift.text import for_terminal
from litsift.tui.messages import ResultHighlighted
from litsift.tui.widgets.cached_table import CachedTable
from litsift.tui.widgets.text_inputs import InOrderKeys
from litsift.types import (
    Annotation,
    Coverage,
    Dataset,
    Hit,
    Kind,
    Label,
    LabelFilter,
    Paper,
    SearchResult,
    filter_by_label,
)

#: glyph and style of each label in the label column
LABEL_GLYPH: dict[Label, tuple[str, str]] = {
    Label.KEEP: ("✓", "bold green"),
    Label.MAYBE: ("?", "bold yellow"),
    Label.DISCARD: ("✗", "bold red"),
}
#: how a label filter is named in the status line
FILTER_NAME: dict[str, str] = {
    "all": "all",
    "unlabelled": "unlabelled",
    "keep": "kept",
    "maybe": "maybe",
    "discard": "discarded",
    "hide-discard": "hide discarded",
}
_BLOCKS = " ▏▎▍▌▋▊▉█"


@dataclass(frozen=True)
class RowInfo:
    """What the table knows about a hit beside the hit: its annotation and coverage.

    ``coverage`` None with ``scoring`` True means the aspect worker is still running.
    """

    annotation: Annotation
    coverage: Coverage | None = None
    scoring: bool = False


def _cell(text: str) -> Text:
    """A one-line cell of data text (sanitised, never markup)."""
    return Text(for_terminal(text, keep_newlines=False), no_wrap=True, overflow="ellipsis")


#: the longest section heading a row's passage marker shows (the detail pane shows it whole)
MARKER_SECTION_CHARS = 16


def passage_marker(hit: Hit) -> str:
    """Where the full-text passage of ``hit`` is, short enough for a row: ``"§ Results p.4"``,
    ``"§ Experimental set… p.4"``, ``"¶ 7"`` (no heading, no page: the passage number), or
    ``""`` when the hit carries no passage (not a full-text search, or no full text)."""
    p = hit.passage
    if p is None:
        return ""
    section = for_terminal(p.section, keep_newlines=False).strip()
    if len(section) > MARKER_SECTION_CHARS:
        section = section[: MARKER_SECTION_CHARS - 1].rstrip() + "…"
    parts = [f"§ {section}"] if section else []
    if p.page is not None:
        parts.append(f"p.{p.page}")
    return " ".join(parts) or f"¶ {p.idx + 1}"


def _title(hit: Hit, info: RowInfo) -> Text:
    """The title, after the matching passage's place when a full-text search found one (first,
    so a long title's ellipsis never hides it)."""
    cell = _cell(hit.record.display_title)
    marker = passage_marker(hit)
    if marker:
        cell = Text.assemble((marker, "cyan"), " ", cell, no_wrap=True, overflow="ellipsis")
    return cell


#: cells of the Score column: 0.9548, 13.756 (BM25 alone), -1.0297 (the dataset re-ranker)
SCORE_WIDTH = 7


def score_text(score: float, width: int = SCORE_WIDTH) -> str:
    """``score`` with as many decimals (at most four) as fit in ``width`` cells."""
    for decimals in (4, 3, 2, 1):
        text = f"{score:.{decimals}f}"
        if len(text) <= width:
            return text
    return f"{score:.0f}"


def _score(hit: Hit, info: RowInfo) -> Text:
    return Text(score_text(hit.score), justify="right")


def _rank(hit: Hit, info: RowInfo) -> Text:
    return Text(str(hit.rank), justify="right")


def _year(hit: Hit, info: RowInfo) -> Text:
    year = hit.record.year
    return Text("—" if year is None else str(year), justify="right")


def _venue(hit: Hit, info: RowInfo) -> Text:
    rec = hit.record
    return _cell(rec.venue if isinstance(rec, Paper) else "")


def _aliases(hit: Hit, info: RowInfo) -> Text:
    rec = hit.record
    return _cell(", ".join(rec.other_names) if isinstance(rec, Dataset) else "")


def _label(hit: Hit, info: RowInfo) -> Text:
    ann = info.annotation
    glyph, style = LABEL_GLYPH[ann.label] if ann.label is not None else (" ", "")
    text = Text(glyph, style=style)
    if ann.note or ann.tags or ann.collections:
        text.append("✎", style="dim")
    return text


def coverage_bar(normalised: float, width: int = 4) -> str:
    """A bar of ``width`` cells for a 0–2 coverage (eighth-block resolution)."""
    eighths = round(max(0.0, min(2.0, normalised)) / 2.0 * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (_BLOCKS[part] if part else "")).ljust(width)


def _coverage(hit: Hit, info: RowInfo) -> Text:
    if info.coverage is None:
        return Text("…" if info.scoring else "", style="dim", justify="right")
    value = info.coverage.normalised
    style = "green" if value >= 1.5 else "yellow" if value >= 1.0 else "dim"
    if info.coverage.provisional:  # from the passage vector: dim until its sentences grade it
        return Text.assemble((f"{value:.1f} ", "dim"), (coverage_bar(value), "dim"))
    return Text.assemble((f"{value:.1f} ", "bold"), (coverage_bar(value), style))


@dataclass(frozen=True)
class Column:
    """One column: ``width`` None means "take the remaining width" (at most one per kind)."""

    key: str
    label: str
    width: int | None
    cell: Callable[[Hit, RowInfo], Text]


COLUMNS: dict[Kind, tuple[Column, ...]] = {
    Kind.PAPER: (
        Column("rank", "#", 3, _rank),
        Column("label", "L", 2, _label),
        Column("title", "Title", None, _title),
        Column("year", "Year", 4, _year),
        Column("venue", "Venue", 10, _venue),
        Column("coverage", "Cover", 8, _coverage),
        Column("score", "Score", SCORE_WIDTH, _score),
    ),
    Kind.DATASET: (
        Column("rank", "#", 3, _rank),
        Column("label", "L", 2, _label),
        Column("title", "Name", None, _title),
        Column("year", "Year", 4, _year),
        Column("aliases", "Aliases", 16, _aliases),
        Column("coverage", "Cover", 8, _coverage),
        Column("score", "Score", SCORE_WIDTH, _score),
    ),
}

#: the flexible column never gets narrower than this
MIN_TITLE_WIDTH = 16
#: left out, in this order, while the title would be narrower than :data:`MIN_TITLE_WIDTH` (a
#: split pane of 50 columns): the table ran past its right edge and cut the scores off
NARROW_DROPS = ("venue", "aliases", "year")


@runtime_checkable
class FocusesQuery(Protocol):
    """A screen with a query the results table hands the focus back to (Up on the first row)."""

    def action_focus_query(self) -> None:
        """Focus the query input at once (``Screen.set_focus``)."""


class ResultsTable(InOrderKeys, CachedTable):
    """Hits of one kind; posts :class:`ResultHighlighted` as the cursor moves. Its keys act in
    the order typed (:mod:`.text_inputs`): the letters typed right behind ``/`` go to the
    query, not to the table's triage keys; the keys typed right behind Down, while the rows
    are still an older query's, wait for the new rows (:meth:`~.InOrderKeys.hold_keys`)."""

    TYPES_PRINTABLE = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="cursor_down", tooltip="Next result"),
        Binding("k", "cursor_up", "Up", show=False, id="cursor_up", tooltip="Previous result"),
        Binding("g", "scroll_top", "First", show=False, id="first_result", tooltip="First result"),
        Binding("G", "scroll_bottom", "Last", show=False, id="last_result", tooltip="Last result"),
    ]

    #: where the key footer says the focus is
    focus_label = "results"

    def __init__(self, kind: Kind, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.kind = kind
        self.result: SearchResult | None = None
        self.annotations: dict[str, Annotation] = {}
        self.coverages: dict[str, Coverage] = {}
        self.scoring = False
        #: show the coverage column (the tab decides, from the query's aspects)
        self.show_coverage = False
        self.label_filter: LabelFilter = "all"
        self.by_coverage = False
        #: sorts hits by coverage (the screen passes ``service.aspects.order``)
        self.coverage_sort: Callable[[list[Hit], list[Coverage]], list[Hit]] | None = None
        self._shown: tuple[Hit, ...] = ()
        #: the doc id highlighted before a view that shows no row (a label filter), to return to
        self._place: str | None = None
        self._title_width = 0
        self._keys: list[str] = []  # the columns of the last rebuild

    def action_cursor_up(self) -> None:
        """Up (or k): the previous row; on the first row, back to the query (search-as-you-type
        lists do the same: fzf, a browser's address bar, VS Code's palette). The focus moves
        at once, while this key is handled (not by a message the screen reads later), so keys
        typed right behind Up go to the query, not to the table's shortcuts
        (tui/widgets/text_inputs.py)."""
        if self.cursor_row <= 0:
            if isinstance(self.screen, FocusesQuery):
                self.screen.action_focus_query()
            return
        super().action_cursor_up()

    # -- what is shown ---------------------------------------------------------------------
    @property
    def hits(self) -> tuple[Hit, ...]:
        """The rows shown, top to bottom (after the label filter and coverage order)."""
        return self._shown

    @property
    def all_hits(self) -> tuple[Hit, ...]:
        """Every hit of the current result, unfiltered, in the result's order."""
        return self.result.hits if self.result is not None else ()

    @property
    def highlighted_hit(self) -> Hit | None:
        hits = self._shown
        return hits[self.cursor_row] if 0 <= self.cursor_row < len(hits) else None

    def info(self, hit: Hit) -> RowInfo:
        """The annotation and coverage of ``hit``."""
        return RowInfo(
            self.annotations.get(hit.docid, Annotation()),
            self.coverages.get(hit.docid),
            self.scoring,
        )

    def _visible(self) -> tuple[Hit, ...]:
        hits = list(self.all_hits)
        if self.by_coverage and self.coverages and self.coverage_sort is not None:
            hits = self.coverage_sort(hits, list(self.coverages.values()))
        labels = {d: a.label for d, a in self.annotations.items() if a.label is not None}
        return tuple(filter_by_label(hits, labels, self.label_filter))

    # -- updates ---------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._rebuild()

    def show_result(
        self, result: SearchResult, annotations: dict[str, Annotation], scoring: bool = False
    ) -> None:
        """Replace the rows with ``result``'s hits and put the cursor on the first one, or,
        when ``result`` answers the query shown again (the search re-run after the dense
        index landed, after ``R`` stored research questions, with full text turned on) while
        the user is on the rows (this table, the detail, a dialog over them), on the paper it
        was on: a result arriving while the user triages must not move the row the next key
        labels. From the query bar, or with keys held behind Down, the first row: there the
        cursor followed the old first hit to its new row (3rd, 9th once the dense part had
        landed) and Down from the query landed on it.

        Coverage of the previous result is dropped (the aspect worker fills it again);
        ``scoring``: show "…" in the coverage column until it does.
        """
        shown = self.result.query if self.result is not None else None
        again = shown is not None and (shown.text, shown.years) == (
            result.query.text,
            result.query.years,
        )
        on_rows = not self.holding and not isinstance(self.screen.focused, Input)
        current = self.highlighted_hit if again and on_rows else None
        self.result = result
        self.annotations = dict(annotations)
        self.coverages = {}
        self.scoring = scoring
        self._place = None
        self._rebuild(cursor=0, keep=current.docid if current else None)
        self.post_message(ResultHighlighted(self.kind, self.highlighted_hit))

    def reorder(self, result: SearchResult) -> None:
        """Show the same hits in a new order, keeping the annotations, the coverage and the
        highlighted hit (an LLM reranking lands while the user triages)."""
        current = self.highlighted_hit
        self.result = result
        self._rebuild(cursor=0, keep=current.docid if current else None)
        self.post_message(ResultHighlighted(self.kind, self.highlighted_hit))

    def update_annotations(self, annotations: dict[str, Annotation]) -> None:
        """Merge fresh annotations (after a label or note change); the cursor stays put."""
        self.annotations.update(annotations)
        self._refresh_rows()

    def set_coverage(
        self,
        coverages: dict[str, Coverage] | None,
        scoring: bool = False,
        show: bool | None = None,
    ) -> None:
        """Show aspect coverage (None clears it); ``scoring`` shows "…" while it runs;
        ``show`` shows or hides the coverage column (None: as it was). Nothing is rebuilt
        when none of them changes (no coverage before or after, the same "…" and column)."""
        if (
            not coverages
            and not self.coverages
            and scoring == self.scoring
            and (show is None or show == self.show_coverage)
        ):
            return
        self.coverages = dict(coverages or {})
        self.scoring = scoring
        if show is not None:
            self.show_coverage = show
        self._refresh_rows()

    def set_view(
        self, label_filter: LabelFilter | None = None, by_coverage: bool | None = None
    ) -> None:
        """Change the label filter and/or the coverage ordering."""
        if label_filter is not None:
            self.label_filter = label_filter
        if by_coverage is not None:
            self.by_coverage = by_coverage
        self._refresh_rows()

    def _refresh_rows(self) -> None:
        """Rebuild after a change that keeps the result, keeping the highlighted hit if shown."""
        current = self.highlighted_hit
        keep = current.docid if current is not None else self._place
        self._rebuild(cursor=self.cursor_row, keep=keep)
        # an empty view (no maybe labels yet) keeps the place: the filters cycled back to
        # "all" highlighted the first row, not the one the user had
        self._place = None if self._shown else keep
        if self.highlighted_hit is not current:
            self.post_message(ResultHighlighted(self.kind, self.highlighted_hit))

    @property
    def columns_shown(self) -> tuple[Column, ...]:
        """The columns of this kind, without coverage unless it is worth showing, and in a
        narrow table without those of :data:`NARROW_DROPS` the title has no room for."""
        cover = self.show_coverage or self.by_coverage
        cols = tuple(c for c in COLUMNS[self.kind] if c.key != "coverage" or cover)
        for key in NARROW_DROPS:
            if not self.size.width or self._room(cols) >= MIN_TITLE_WIDTH:
                break
            cols = tuple(c for c in cols if c.key != key)
        return cols

    def _room(self, cols: tuple[Column, ...]) -> int:
        """The width left to the title beside ``cols``' fixed columns."""
        fixed = sum(c.width or 0 for c in cols) + 2 * len(cols) + 2  # cell padding + scrollbar
        return self.size.width - fixed

    def _flex_width(self) -> int:
        return max(MIN_TITLE_WIDTH, self._room(self.columns_shown))

    def _rebuild(self, cursor: int | None = None, keep: str | None = None) -> None:
        """Show :meth:`_visible` in :attr:`columns_shown` (only what changed is rendered again,
        :meth:`CachedTable.show_rows`); the cursor goes to row ``cursor`` (default: where it
        is), or to the row of doc id ``keep`` when it is shown."""
        cursor = self.cursor_row if cursor is None else cursor
        self._title_width = self._flex_width()
        self._shown = self._visible()
        columns = self.columns_shown
        self._keys = [c.key for c in columns]
        self.show_rows(
            [(col.key, col.label, col.width or self._title_width) for col in columns],
            [
                (hit.docid, [col.cell(hit, self.info(hit)) for col in columns])
                for hit in self._shown
            ],
        )
        if keep is not None:
            at = [h.docid for h in self._shown]
            if keep in at:
                cursor = at.index(keep)
        if self._shown:
            self.move_cursor(row=min(max(cursor, 0), len(self._shown) - 1), animate=False)

    def on_resize(self, event: Resize) -> None:
        if self._flex_width() != self._title_width or self._keys != [
            c.key for c in self.columns_shown
        ]:
            self._rebuild()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(ResultHighlighted(self.kind, self.highlighted_hit))
