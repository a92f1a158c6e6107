"""The results table of one kind (papers or datasets), driven by the keyboard.

Columns are declared per kind in :data:`COLUMNS` so later columns (triage label, aspect
coverage) slot in without touching the rendering. Cell text is always a ``rich.text.Text``:
titles are never read as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.widgets import DataTable

from litsift.tui.messages import ResultHighlighted
from litsift.types import Dataset, Hit, Kind, Paper, SearchResult


def _title(hit: Hit) -> Text:
    return Text(hit.record.display_title, no_wrap=True, overflow="ellipsis")


def _score(hit: Hit) -> Text:
    return Text(f"{hit.score:.4f}", justify="right")


def _year(hit: Hit) -> Text:
    year = hit.record.year
    return Text("—" if year is None else str(year), justify="right")


def _venue(hit: Hit) -> Text:
    rec = hit.record
    return Text(rec.venue if isinstance(rec, Paper) else "", overflow="ellipsis", no_wrap=True)


def _aliases(hit: Hit) -> Text:
    rec = hit.record
    text = ", ".join(rec.variants) if isinstance(rec, Dataset) else ""
    return Text(text, overflow="ellipsis", no_wrap=True)


@dataclass(frozen=True)
class Column:
    """One column: ``width`` None means "take the remaining width" (at most one per kind)."""

    key: str
    label: str
    width: int | None
    cell: Callable[[Hit], Text]


COLUMNS: dict[Kind, tuple[Column, ...]] = {
    Kind.PAPER: (
        Column("rank", "#", 3, lambda h: Text(str(h.rank), justify="right")),
        Column("title", "Title", None, _title),
        Column("year", "Year", 4, _year),
        Column("venue", "Venue", 10, _venue),
        Column("score", "Score", 6, _score),
    ),
    Kind.DATASET: (
        Column("rank", "#", 3, lambda h: Text(str(h.rank), justify="right")),
        Column("title", "Name", None, _title),
        Column("year", "Year", 4, _year),
        Column("aliases", "Aliases", 20, _aliases),
        Column("score", "Score", 6, _score),
    ),
}

#: the flexible column never gets narrower than this
MIN_TITLE_WIDTH = 16


class ResultsTable(DataTable[Text]):
    """Hits of one kind, best first; posts :class:`ResultHighlighted` as the cursor moves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="cursor_down", tooltip="Next result"),
        Binding("k", "cursor_up", "Up", show=False, id="cursor_up", tooltip="Previous result"),
        Binding("g", "scroll_top", "First", show=False, id="first_result", tooltip="First result"),
        Binding("G", "scroll_bottom", "Last", show=False, id="last_result", tooltip="Last result"),
    ]

    def __init__(self, kind: Kind, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.kind = kind
        self.result: SearchResult | None = None
        self._title_width = 0

    @property
    def hits(self) -> tuple[Hit, ...]:
        return self.result.hits if self.result is not None else ()

    @property
    def highlighted_hit(self) -> Hit | None:
        hits = self.hits
        return hits[self.cursor_row] if 0 <= self.cursor_row < len(hits) else None

    def on_mount(self) -> None:
        self._rebuild()

    def show_result(self, result: SearchResult) -> None:
        """Replace the rows with ``result``'s hits and put the cursor on the first one."""
        self.result = result
        self._rebuild(cursor=0)
        self.post_message(ResultHighlighted(self.kind, self.highlighted_hit))

    def _flex_width(self) -> int:
        cols = COLUMNS[self.kind]
        fixed = sum(c.width or 0 for c in cols) + 2 * len(cols) + 2  # cell padding + scrollbar
        return max(MIN_TITLE_WIDTH, self.size.width - fixed)

    def _rebuild(self, cursor: int | None = None) -> None:
        cursor = self.cursor_row if cursor is None else cursor
        self._title_width = self._flex_width()
        self.clear(columns=True)
        for col in COLUMNS[self.kind]:
            self.add_column(col.label, width=col.width or self._title_width, key=col.key)
        for hit in self.hits:
            self.add_row(*(col.cell(hit) for col in COLUMNS[self.kind]), key=str(hit.rank))
        if self.hits:
            self.move_cursor(row=min(max(cursor, 0), len(self.hits) - 1), animate=False)

    def on_resize(self, event: Resize) -> None:
        if self._flex_width() != self._title_width:
            self._rebuild()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(ResultHighlighted(self.kind, self.highlighted_hit))
