"""A ``DataTable`` of one-line ``Text`` cells whose renders survive updates.

Textual's ``DataTable`` keys every render cache (cells, rows, lines) by a counter that any change
bumps: after a new result, the "…" of a running aspect scoring or a label, it renders every
visible cell again through Rich (``Styled(Padding(cell))``), walks the DOM for the table's
styles on every line, and measures each cell of each new row. Between a keystroke and the
painted results that was most of the main loop's time (``benchmarks/tui_latency.py``).

:class:`CachedTable` keeps the look (its lines equal ``DataTable``'s, segment for segment:
``tests/tui/test_results_render.py``) and does less:

* :meth:`CachedTable.show_rows` changes only what differs: the columns when their keys, labels
  or widths change; every row when the row keys or their order change; else only the cells
  whose content changed (and nothing when none did);
* a cell's Rich rendering is cached by its content (text, spans, style) and width, across
  updates; a one-line cell is rendered by :func:`one_line_cell` (Rich's steps for one
  unwrapped line, without its renderable protocol: about a quarter of the time); the row's
  style (zebra stripe, cursor, hover, the row/column meta that mouse clicks read) is applied
  to the cached segments as Rich's ``Styled`` applies it;
* a cell styled for its place (the row/column meta that mouse clicks read, the zebra stripe,
  the cursor/hover styles) is cached by its content, place and those styles: a new result set
  styles its new titles, venues and scores, not the ranks, empty labels or headers that are
  the same in the same place;
* a row's line is cached by its cells' contents, its index and the cursor/hover state, so a
  change elsewhere (the cursor moving, one cell updated) renders only the rows it touched; its
  strip (cut to the scroll offset, measured, simplified) is kept with it;
* the cursor/hover styles are read once per row and the mouse's meta once per place, not once
  per cell;
* the table's and its components' styles, and the settings every line reads (reactive
  attributes, the columns' widths: :class:`FrameSettings`), are read once per frame, not once
  per line or cell;
* new rows are not measured: every column has a fixed width and every row is one line
  (:class:`~litsift.tui.widgets.fixed_rows.FixedRowsTable`).

Anything else (fixed rows or columns, row labels, a cell or column cursor, multi-line rows,
cells that are not ``Text``) is rendered by ``DataTable`` itself.

Why a private override and a pin (issue 41): Textual's public API has no seam between a row's
cells and a painted line; overriding ``_render_line``, ``_render_line_in_row``, ``_render_cell``
and ``_get_row_style`` (and ``FixedRowsTable._update_dimensions``) keeps ``DataTable``'s own
cursor, hover, zebra, header and mouse meta (``tests/tui/test_results_render.py``). A release may
change them, so ``textual`` is pinned to the tested range (``>=8.2.8,<8.3``) and
``tests/tui/test_cached_table_pin.py`` fails, naming the pin, when Textual leaves it or those
methods change; raise the pin only with both test files green on the new version.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from rich.cells import cell_len
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._segment_tools import line_crop
from textual.cache import LRUCache
from textual.coordinate import Coordinate
from textual.geometry import Offset, Region
from textual.strip import Strip
from textual.widgets.data_table import ColumnKey, RowKey

from litsift.tui.widgets.cell_lines import cell_signature, one_line_cell
from litsift.tui.widgets.fixed_rows import FixedRowsTable

__all__ = ["CachedTable", "FrameSettings", "cell_signature", "one_line_cell"]

#: one rendered cell: its lines, each a list of segments
CellLines = list[list[Segment]]
#: one rendered line of a row: the fixed cells' lines and the scrollable cells' lines
RowLines = tuple[list[list[Segment]], list[list[Segment]]]

#: cell renderings kept (350 cells in 50 rows; typing refines a query, so the titles, years and
#: venues of the previous keys' results come back)
CELL_CACHE_SIZE = 4096
#: row lines kept
ROW_CACHE_SIZE = 1024
#: cells kept with their row's style (350 places in 50 rows, zebra and cursor variants)
STYLED_CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class FrameSettings:
    """What every line of a frame reads from the table (reactive attributes, the columns'
    widths), read once per frame instead of once per cell."""

    #: every line is rendered by :class:`CachedTable` (see the module docstring)
    plain: bool
    cell_padding: int
    header_height: int
    show_header: bool
    show_cursor: bool
    hover_cursor: bool
    #: the cursor's foreground / background follow the CSS
    css_foreground: bool
    css_background: bool
    zebra_stripes: bool
    #: render width of each column, left to right (padding included)
    widths: tuple[int, ...]
    #: the table's content width and its row labels' width
    width: int
    label_width: int
    pseudo_classes: Hashable


class CachedTable(FixedRowsTable):
    """A row-cursor ``DataTable`` of one-line ``Text`` cells, filled by :meth:`show_rows`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: (key, label, width) of the columns built, and the keys of the rows built, in order
        self._layout: tuple[tuple[str, str, int], ...] = ()
        self._row_ids: tuple[str, ...] = ()
        #: a cell's padded Rich rendering without its row's style, by (signature, width, height)
        self._cell_lines: LRUCache[tuple[Hashable, int, int, int], CellLines] = LRUCache(
            CELL_CACHE_SIZE
        )
        self._row_lines: LRUCache[tuple[Hashable, ...], RowLines] = LRUCache(ROW_CACHE_SIZE)
        #: a cell's lines with its row's style, by content, place and the styles applied
        self._styled_lines: LRUCache[tuple[Hashable, ...], CellLines] = LRUCache(STYLED_CACHE_SIZE)
        #: a line's strip, by the row lines it was cut from (identity), crop and width
        self._strips: LRUCache[tuple[int, int, int, int, Style], tuple[RowLines, Strip]] = LRUCache(
            ROW_CACHE_SIZE
        )
        #: the mouse's row/column meta of each place
        self._meta: dict[tuple[int, int], Style] = {}
        #: styles read during the frame being rendered (None outside :meth:`render_lines`)
        self._frame_styles: dict[str, Style] | None = None
        #: the settings of the frame being rendered (None outside :meth:`render_lines`)
        self._frame: FrameSettings | None = None
        #: the scroll offset of the frame being rendered (None outside :meth:`render_lines`)
        self._frame_scroll: Offset | None = None
        #: callbacks waiting for the next frame that renders this table (:meth:`when_painted`)
        self._paint_waiters: list[Callable[[], None]] = []

    def when_painted(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` after the next frame that renders this table (its lines as they are
        now): once per call, after the frame is written. A table never rendered again (hidden,
        or a screen pushed over it) never runs it: give it a timer too
        (:func:`litsift.tui.screens.jobs.after_paint`)."""
        self._paint_waiters.append(callback)

    # -- contents --------------------------------------------------------------------------
    def show_rows(
        self,
        columns: Sequence[tuple[str, str, int]],
        rows: Sequence[tuple[str, Sequence[Text]]],
    ) -> bool:
        """Show ``rows`` in ``columns``, changing only what differs.

        Args:
            columns: ``(key, label, width)`` of each column, left to right; width in cells,
                without the cell padding.
            rows: ``(key, cells)`` of each row, top to bottom; one cell per column.

        Returns:
            True when the rows were replaced (the cursor and scroll went back to the top, as
            after ``clear``), False when the same rows were kept and only changed cells updated.
        """
        layout = tuple(columns)
        if layout != self._layout:
            self.clear(columns=True)
            for key, label, width in layout:
                self.add_column(label, width=width, key=key)
            self._layout, self._row_ids = layout, ()
        ids = tuple(key for key, _ in rows)
        if ids != self._row_ids:
            self.clear()
            for key, cells in rows:
                self.add_row(*cells, key=key)
            self._row_ids = ids
            return True
        for key, cells in rows:
            row = self._data[RowKey(key)]
            for (column, _, _), cell in zip(layout, cells, strict=True):
                old = row.get(ColumnKey(column))
                if not isinstance(old, Text) or cell_signature(old) != cell_signature(cell):
                    self.update_cell(key, column, cell)
        return False

    # -- rendering -------------------------------------------------------------------------
    @property
    def rich_style(self) -> Style:
        """The table's style (a walk up the DOM), read once per frame."""
        frame = self._frame_styles
        if frame is None or not self.cached:
            return super().rich_style
        style = frame.get("")
        if style is None:
            style = frame[""] = super().rich_style
        return style

    def _component_style(self, name: str) -> Style:
        """A component class's Rich style, read once per frame."""
        frame = self._frame_styles
        if frame is None or not self.cached:
            return self.get_component_styles(name).rich_style
        style = frame.get(name)
        if style is None:
            style = frame[name] = self.get_component_styles(name).rich_style
        return style

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame_styles, self._frame, self._frame_scroll = {}, None, None
        try:
            return super().render_lines(crop)
        finally:
            self._frame_styles = self._frame = self._frame_scroll = None
            waiters, self._paint_waiters = self._paint_waiters, []
            for callback in waiters:  # called inside the frame: they run after it
                self.call_after_refresh(callback)

    def _settings(self) -> FrameSettings:
        """The settings of the frame being rendered (read at its first line, after
        ``DataTable.render_lines`` updated the pseudo classes), or read now outside a frame."""
        if self._frame is not None:
            return self._frame
        settings = FrameSettings(
            plain=(
                self.cached
                and self.cursor_type == "row"
                and not self.fixed_columns
                and not self.fixed_rows
                and not self._should_render_row_labels
            ),
            cell_padding=self.cell_padding,
            header_height=self.header_height,
            show_header=self.show_header,
            show_cursor=self.show_cursor,
            hover_cursor=self._show_hover_cursor,
            css_foreground=self.cursor_foreground_priority == "css",
            css_background=self.cursor_background_priority == "css",
            zebra_stripes=self.zebra_stripes,
            widths=tuple(column.get_render_width(self) for column in self.ordered_columns),
            width=self.size.width,
            label_width=self._row_label_column_width,
            pseudo_classes=self._pseudo_class_state,
        )
        if self._frame_styles is not None:  # inside render_lines
            self._frame = settings
        return settings

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        if row_index == -1:
            return self._component_style("datatable--header")
        if row_index < self.fixed_rows:
            return self._component_style("datatable--fixed")
        if self._settings().zebra_stripes:
            return self._component_style(
                "datatable--odd-row" if row_index % 2 else "datatable--even-row"
            )
        return base_style

    def _plain_rows(self) -> bool:
        """True when every line is rendered here (see the module docstring)."""
        return self._settings().plain

    def _row_cells(self, row_index: int) -> list[Text] | None:
        """The ``Text`` cells of a one-line row (index -1: the header's labels), or None."""
        if row_index == -1:
            return [column.label for column in self.ordered_columns]
        row_key = self._row_locations.get_key(row_index)
        row = self.rows.get(row_key) if row_key is not None else None
        if row_key is None or row is None or row.height != 1:
            return None
        data = self._data[row_key]
        cells = [data.get(column.key) for column in self.ordered_columns]
        if not all(isinstance(cell, Text) for cell in cells):
            return None
        return cells  # type: ignore[return-value]

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> CellLines:
        """A cell's lines as ``DataTable._render_cell`` renders them, from the content cache."""
        cells = self._row_cells(row_index) if self._plain_rows() and column_index >= 0 else None
        if cells is None or column_index >= len(cells):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        cell = cells[column_index]
        styles = self._cell_styles(row_index == -1, cursor, hover)
        lines = self._styled_cell(
            cell, cell_signature(cell), row_index, column_index, base_style, width, styles
        )
        return [list(line) for line in lines]  # the caller may pad it: the cache keeps its own

    def _cell_styles(
        self, header: bool, cursor: bool, hover: bool, css: bool = True
    ) -> tuple[Style, Style]:
        """What ``DataTable`` gives rich's ``Styled`` for the cells of a row: the cursor/hover
        style before a cell's own styles and the one after (the same for every cell of a row);
        ``css`` False: without the cursor's CSS priorities (the row's "extend" segment)."""
        settings = self._settings()
        return self._get_styles_to_render_cell(
            header,
            False,
            False,
            hover,
            cursor,
            settings.show_cursor,
            settings.hover_cursor,
            css and settings.css_foreground,
            css and settings.css_background,
        )

    def _place_meta(self, row_index: int, column_index: int) -> Style:
        """The row/column meta mouse clicks read, one ``Style`` per place."""
        meta = self._meta.get((row_index, column_index))
        if meta is None:
            if len(self._meta) > STYLED_CACHE_SIZE:
                self._meta.clear()
            meta = Style.from_meta({"row": row_index, "column": column_index})
            self._meta[row_index, column_index] = meta
        return meta

    def _styled_cell(
        self,
        cell: Text,
        signature: Hashable,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        styles: tuple[Style, Style],
    ) -> CellLines:
        settings = self._settings()
        height = settings.header_height if row_index == -1 else 1
        padding = settings.cell_padding
        key = (signature, width, height, padding)
        lines = self._cell_lines.get(key)
        if lines is None:
            console, options = self.app.console, self.app.console_options
            one = one_line_cell(cell, width, padding, console, options)
            if height == 1 and one is not None:
                lines = [one]
            else:
                options = options.update_dimensions(width, height)
                if height == 1:
                    options = options.update(no_wrap=True)
                lines = console.render_lines(Padding(cell, (0, padding)), options)
            self._cell_lines[key] = lines
        # what DataTable gives rich's Styled: the mouse's meta, then the cursor/hover styles;
        # the styled lines depend on nothing else: the same rank, label, year or empty
        # coverage in the same place of the next result is not styled again
        component_style, post_style = styles
        styled_key = (key, row_index, column_index, base_style, component_style, post_style)
        styled = self._styled_lines.get(styled_key)
        if styled is None:
            pre_style = base_style + self._place_meta(row_index, column_index) + component_style
            styled = [list(Segment.apply_style(line, pre_style, post_style)) for line in lines]
            self._styled_lines[styled_key] = styled
        return styled

    def _render_line_in_row(
        self,
        row_key: RowKey,
        line_no: int,
        base_style: Style,
        cursor_location: Coordinate,
        hover_location: Coordinate,
    ) -> RowLines:
        """One line of a row as ``DataTable._render_line_in_row`` renders it (row cursor, no
        fixed cells, no labels), cached by the row's cell contents and cursor/hover state."""
        index = self._row_locations.get(row_key) if row_key in self._row_locations else None
        row_index = -1 if index is None else index
        settings = self._settings()
        cells = self._row_cells(row_index) if settings.plain else None
        if cells is None:
            return super()._render_line_in_row(
                row_key, line_no, base_style, cursor_location, hover_location
            )
        widths = settings.widths
        cursor, hover = cursor_location.row == row_index, hover_location.row == row_index
        signatures = tuple(cell_signature(cell) for cell in cells)
        key = (row_index, line_no, signatures, base_style, cursor, hover, settings)
        cached = self._row_lines.get(key)
        if cached is not None:
            return cached
        row_style = self._get_row_style(row_index, base_style)
        styles = self._cell_styles(row_index == -1, cursor, hover)
        scrollable = [
            self._styled_cell(cell, signature, row_index, index, row_style, width, styles)[line_no]
            for index, (cell, signature, width) in enumerate(
                zip(cells, signatures, widths, strict=True)
            )
        ]
        # the rest of the width, styled like the row (DataTable's "extend" segment)
        remaining = max(0, settings.width - sum(widths) - settings.label_width)
        extend_style, _ = self._cell_styles(row_index == -1, cursor, hover, css=False)
        extend_style = row_style + extend_style
        extend_style += Style.from_meta({"row": row_index, "column": 0, "out_of_bounds": True})
        scrollable.append([Segment(" " * remaining, extend_style)])
        lines: RowLines = ([], scrollable)
        self._row_lines[key] = lines
        return lines

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the table as ``DataTable.render_line`` renders it; in a table of plain
        rows (no fixed rows) with the frame's scroll offset and style read once."""
        settings = self._settings()
        if not settings.plain:
            return super().render_line(y)
        scroll = self._frame_scroll
        if scroll is None:
            scroll = self.scroll_offset
            if self._frame_styles is not None:  # inside render_lines: read once per frame
                self._frame_scroll = scroll
        scroll_x, scroll_y = scroll
        if y >= (settings.header_height if settings.show_header else 0):
            y += scroll_y
        return self._render_line(y, scroll_x, scroll_x + settings.width, self.rich_style)

    def _render_line(self, y: int, x1: int, x2: int, base_style: Style) -> Strip:
        """A (cropped) line as ``DataTable._render_line`` renders it, cached by the row lines it
        is cut from: a line whose row did not change is not cut and measured again."""
        settings = self._settings()
        if not settings.plain:
            return super()._render_line(y, x1, x2, base_style)
        try:
            row_key, line_no = self._get_offsets(y)
        except LookupError:
            return Strip.blank(settings.width, base_style)
        row_lines = self._render_line_in_row(
            row_key, line_no, base_style, self.cursor_coordinate, self.hover_coordinate
        )
        key = (id(row_lines), x1, x2, settings.width, base_style)
        cached = self._strips.get(key)
        if cached is not None and cached[0] is row_lines:
            return cached[1]
        segments = list(chain.from_iterable(row_lines[1]))
        total = sum(cell_len(segment.text) for segment in segments)
        cropped = segments if x1 == 0 and x2 >= total else line_crop(segments, x1, x2, total)
        strip = Strip(cropped).adjust_cell_length(settings.width, base_style).simplify()
        self._strips[key] = (row_lines, strip)
        return strip

    def notify_style_update(self) -> None:
        """A style changed (focus moved in or out, a theme): rows are styled again. A cell's
        content rendering keeps: it depends on its text and width, not on the CSS (moving
        the focus into the table when Enter searches must not render every cell again)."""
        super().notify_style_update()
        self._row_lines.clear()
