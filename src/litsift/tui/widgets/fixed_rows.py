"""A ``DataTable`` of fixed-width columns and one-line rows whose row count is not a layout.

Textual's ``DataTable`` measures every new row (each cell's width and height) and asks the screen
for a layout pass whenever its virtual size changes. With every column of a fixed width and
every row one line, nothing needs measuring; with the vertical scrollbar always shown (CSS
``overflow-y: scroll``), a new number of rows changes the scrollbar's thumb and the table's
lines, not the screen's layout. Base of :class:`~litsift.tui.widgets.cached_table.CachedTable`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Self

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

__all__ = ["FixedRowsTable", "RowsTable"]


class RowsTable(DataTable[Text]):
    """A ``DataTable`` read row by row: Home and End go to the first and last row. In
    ``DataTable`` they scroll sideways, which a table whose columns fit its width never does,
    so they did nothing (the help's key list, the results, the citation lists)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]


class FixedRowsTable(RowsTable):
    """A ``DataTable`` that measures no row and makes no layout pass for a new row count, when
    its columns have fixed widths and its rows one line (else it behaves as ``DataTable``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: False renders and sizes as ``DataTable`` alone (the tests compare the two)
        self.cached = True
        #: True while the virtual size is set without a layout pass (:meth:`_update_dimensions`)
        self._sizing = False

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """The virtual size; new rows are measured only when a column's width or a row's
        height depends on its contents. With the vertical scrollbar always shown (CSS
        ``overflow-y: scroll``), a new number of rows (0 -> 50 on a first search) changes
        the scrollbar's thumb and the table's lines, not the screen's layout: no layout pass,
        and the frame that paints the rows repaints what changed, not the whole screen."""
        rows = list(new_rows)
        fixed = (
            self.cached
            and all(not column.auto_width for column in self.columns.values())
            and all(
                (row := self.rows.get(key)) is None or (not row.auto_height and row.label is None)
                for key in rows
            )
        )
        if not (fixed and self.styles.overflow_y == "scroll"):
            super()._update_dimensions(() if fixed else rows)
            return
        # the scrollbar is always shown: a new row count is its thumb, not a layout pass
        before = self.virtual_size
        self._sizing = True
        try:
            super()._update_dimensions(())
        finally:
            self._sizing = False
        after = self.virtual_size
        if after.width != before.width:  # new columns: the horizontal scrollbar may change
            self.refresh(layout=True)
        elif after != before:
            self._scroll_update(after)
            self.refresh()

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        """As ``Widget.refresh``; no layout pass for a new virtual height (see
        :meth:`_update_dimensions`)."""
        return super().refresh(
            *regions, repaint=repaint, layout=layout and not self._sizing, recompose=recompose
        )
