"""The results table changes only what changed (issue 29 item 5, keystroke -> paint): a second
search shows exactly its hits in order, a label re-renders one cell, a change under a hidden
column renders nothing, and every painted line equals what Textual's own DataTable paints.
Pilot tests over the real session store (2,000 papers), read-only."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Input

from litsift.tui.app import create_app
from litsift.tui.widgets import ResultsTable, cached_table
from litsift.tui.widgets.cached_table import one_line_cell
from litsift.types import Annotation, Kind, Label
from tests.tui.conftest import search, settle

SIZE = (120, 40)


def table(app: Any) -> ResultsTable:
    return app.search_screen.table(Kind.PAPER)


def paint(t: ResultsTable) -> list[Strip]:
    """Every line of the table, rendered now (as the compositor would after a refresh)."""
    t.refresh()
    return t.render_lines(Region(0, 0, *t.size))


def paint_uncached(t: ResultsTable) -> list[Strip]:
    """The same lines rendered by Textual's DataTable alone, without this table's caches."""
    t.cached = False
    t._clear_caches()
    try:
        return paint(t)
    finally:
        t.cached = True


@contextmanager
def rich_renders(t: ResultsTable) -> Iterator[Callable[[], int]]:
    """Count the table's cells rendered inside the block: each cell's ``Text`` goes once
    through :func:`~litsift.tui.widgets.cached_table.one_line_cell` or, for what it leaves to
    Rich, ``Console.render_lines`` (inside its padding); other widgets' renders are not counted.
    """
    console = t.app.console
    real, real_line = console.render_lines, cached_table.one_line_cell
    count = 0

    def table_cell(renderable: Any) -> bool:
        cells = [cell for row in t._data.values() for cell in row.values()]
        cells += [column.label for column in t.columns.values()]
        return any(renderable is cell for cell in cells)

    def counting(renderable: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal count
        count += table_cell(renderable)
        return real(renderable, *args, **kwargs)

    def counting_line(cell: Text, *args: Any) -> Any:
        nonlocal count
        line = real_line(cell, *args)
        count += line is not None and table_cell(cell)
        return line

    console.render_lines = counting  # type: ignore[method-assign]
    cached_table.one_line_cell = counting_line  # type: ignore[assignment]
    try:
        yield lambda: count
    finally:
        console.render_lines = real  # type: ignore[method-assign]
        cached_table.one_line_cell = real_line


def row_ids(t: ResultsTable) -> list[str]:
    return [str(row.key.value) for row in t.ordered_rows]


def assert_shows(t: ResultsTable, lines: list[Strip]) -> None:
    """The table's rows are its hits, in order, with their ranks and titles painted."""
    hits = t.hits
    assert row_ids(t) == [h.docid for h in hits]
    assert [t.get_cell(h.docid, "rank").plain for h in hits] == [str(h.rank) for h in hits]
    painted = [line.text for line in lines[1:]]  # line 0 is the header
    for hit, text in zip(hits, painted, strict=False):
        assert text.split()[0] == str(hit.rank)
        assert t.get_cell(hit.docid, "title").plain[:20] in text


async def test_a_second_search_shows_its_hits_in_order_and_paints_like_datatable(
    service: Any,
) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        seen: list[list[str]] = []
        # a refinement shares hits with the query before it; the third goes back to the first
        for text in ("dialogue state tracking", "dialogue state", "dialogue state tracking"):
            await search(pilot, text)
            assert t.hits, text
            lines = paint(t)
            assert_shows(t, lines)
            assert lines == paint_uncached(t)
            assert t.cursor_row == 0 and t.highlighted_hit == t.hits[0]
            seen.append(row_ids(t))
        assert seen[0] != seen[1] and set(seen[0]) & set(seen[1])
        assert seen[2] == seen[0]


async def test_a_label_renders_one_cell_and_keeps_the_cursor(service: Any) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        await search(pilot, "neural machine translation")
        assert len(t.hits) > 6
        t.move_cursor(row=5)
        await pilot.pause()
        hit = t.highlighted_hit
        assert hit is not None
        before = paint(t)
        with rich_renders(t) as renders:
            t.update_annotations({hit.docid: Annotation(label=Label.KEEP)})
            after = paint(t)
        await pilot.pause()
        assert renders() == 1  # the new label cell; every other cell comes from the cache
        assert t.cursor_row == 5 and t.highlighted_hit is hit
        assert t.get_cell(hit.docid, "label").plain == "✓"
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert changed == [1 + 5]  # the header, then rows 0..5: only the labelled row
        assert after == paint_uncached(t)


async def test_scoring_under_a_hidden_column_changes_nothing_and_the_column_toggles(
    service: Any,
) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        await search(pilot, "graph neural networks")
        ids = row_ids(t)
        assert ids and "coverage" not in [k.value for k in t.columns]
        before = paint(t)
        with rich_renders(t) as renders:
            t.set_coverage(None, scoring=True)  # the aspect worker started: "…" in a hidden column
            assert paint(t) == before
        assert renders() == 0
        await pilot.pause()
        t.set_coverage(None, scoring=True, show=True)
        await pilot.pause()
        assert "coverage" in [k.value for k in t.columns] and row_ids(t) == ids
        assert {t.get_cell(d, "coverage").plain for d in ids} == {"…"}
        shown = paint(t)
        assert "Cover" in shown[0].text and shown == paint_uncached(t)
        t.set_coverage(None, scoring=False, show=False)
        await pilot.pause()
        assert "coverage" not in [k.value for k in t.columns] and row_ids(t) == ids
        assert paint(t) == before


async def test_focus_moving_into_the_table_restyles_rows_without_rendering_cells(
    service: Any,
) -> None:
    """Enter searches and moves the focus into the table: the cursor's style changes, the
    cells' contents do not, so no cell goes through Rich again."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        await search(pilot, "question answering over knowledge bases")
        app.query_one("#query").focus()
        await pilot.pause()
        blurred = paint(t)
        with rich_renders(t) as renders:
            t.focus()
            await pilot.pause()  # the frame that shows the focus
            focused = paint(t)
        assert renders() == 0
        assert focused == paint_uncached(t)
        assert focused[1] != blurred[1]  # the cursor row shows the focus


def chars(lines: list[list[Segment]]) -> list[tuple[str, Style | None]]:
    """Each character with its style (a null style as None): what a terminal shows, whatever
    the segment boundaries."""
    return [
        (ch, None if seg.style is None or seg.style._null else seg.style)
        for line in lines
        for seg in line
        for ch in seg.text
    ]


def test_one_line_cells_render_as_rich_renders_them_padded() -> None:
    """:func:`one_line_cell` gives the characters and styles Rich gives for the padded cell,
    for the cells the table shows: ellipsis titles (wide and combining characters, a passage
    marker span), right-justified numbers, styled glyphs, empty cells, too narrow widths."""
    console = Console(width=160)
    title = "Graph Neural Networks for 图神经网络 — a Survey of Über-réseaux 😀 and more text"
    cells = [
        Text(title, no_wrap=True, overflow="ellipsis"),
        Text.assemble(
            ("§ Results p.4", "cyan"), " ", Text(title), no_wrap=True, overflow="ellipsis"
        ),
        Text("12", justify="right"),
        Text("-1.0297", justify="right"),
        Text("✓", style="bold green"),
        Text.assemble(("1.5 ", "bold"), ("██▌ ", "green")),
        Text("…", style="dim", justify="right"),
        Text(""),
        Text("e\u0301te\u0301", justify="center"),
        Text("ab  ", justify="left"),
    ]
    for cell in cells:
        for width in (3, 4, 6, 8, 10, 17, 60):
            options = console.options.update_dimensions(width, 1).update(no_wrap=True)
            expected = console.render_lines(Padding(cell, (0, 1)), options)
            got = one_line_cell(cell, width, 1, console, console.options)
            assert got is not None
            assert chars([got]) == chars(expected), (cell, width)
    # what it leaves to Rich
    assert one_line_cell(Text("a\nb"), 10, 1, console, console.options) is None
    assert one_line_cell(Text("a\tb"), 10, 1, console, console.options) is None
    assert one_line_cell(Text("ab"), 2, 1, console, console.options) is None


async def test_a_new_result_styles_only_the_cells_that_differ_in_their_place(service: Any) -> None:
    """A cell's styled lines depend on its content, its place (row, column: the mouse's meta,
    the zebra stripe) and the cursor styles: the ranks, empty labels and headers of a new
    result set are not styled again; the new titles are. The lines still equal DataTable's
    with the cursor moved (a cached cell never carries another place's style)."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        await search(pilot, "neural machine translation")
        first = row_ids(t)
        styled: list[tuple[int, int]] = []  # (row, column) of each cell styled
        real = t._place_meta  # a cell being styled reads its place's meta

        def place_meta(row: int, column: int) -> Style:
            styled.append((row, column))
            return real(row, column)

        query = app.query_one("#query", Input)
        query.focus()
        await pilot.pause()  # the table, blurred, is painted (its tint changes) before the count
        t._place_meta = place_meta  # type: ignore[method-assign]
        try:
            query.value = "statistical machine translation"  # one aspect, as the first
            await pilot.press("enter")  # the focus moves back into the table, as before
            await settle(pilot)
        finally:
            del t._place_meta
        assert row_ids(t) != first and len(t.hits) > 10
        columns = [c.key.value for c in t.ordered_columns]
        by_column = {key: {r for r, c in styled if c == i} for i, key in enumerate(columns)}
        assert by_column["title"]  # new titles are styled
        assert not by_column["rank"] and not by_column["label"]  # the same in the same place
        assert not [r for r, _ in styled if r == -1]  # nor the header
        await pilot.press("down", "down")
        await pilot.pause()
        assert t.cursor_row == 2
        assert paint(t) == paint_uncached(t)
