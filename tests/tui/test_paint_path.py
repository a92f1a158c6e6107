"""What a new result draws between the keystroke and its painted rows (issue 29 item 5): the
aspect worker starts, and the detail pane draws, after the frame that paints the rows (a frame
later); the table is rebuilt once, the detail pane draws the new first row once, and the status
line and the tab label draw without a layout pass, or not at all when their text is the same.
And the behaviour stays: the coverage column fills once scoring ends, the detail shows the new
selection. Pilot tests over the real session store (2,000 papers), read-only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.content import Content
from textual.widgets import Input, Static, Tab, Tabs

from litsift.tui.app import create_app
from litsift.tui.widgets import DetailPane, ResultsTable, StatusLine, query_bar
from litsift.tui.widgets.kind_tab import PANE_ID
from litsift.types import Kind
from tests.tui.conftest import search, settle

SIZE = (120, 40)
#: two aspects: the coverage column is shown (tests/tui/test_first_hour.py)
TWO_ASPECTS = "retrieval-augmented generation, knowledge graphs and question answering"


def table(app: Any) -> ResultsTable:
    return app.search_screen.table(Kind.PAPER)


def counting(obj: Any, name: str, calls: list[Any], record: Callable[..., Any]) -> None:
    """Wrap ``obj.name`` (on the instance) so each call appends ``record(*args, **kwargs)``."""
    real = getattr(obj, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(record(*args, **kwargs))
        return real(*args, **kwargs)

    setattr(obj, name, wrapper)


async def test_the_aspect_worker_starts_after_the_rows_are_painted_and_fills_the_column(
    service: Any,
) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "dialogue state tracking")
        screen, t = app.search_screen, table(app)
        events: list[tuple[str, tuple[str, ...]]] = []  # in the order they happened
        rows = lambda: tuple(str(row.key.value) for row in t.ordered_rows)  # noqa: E731
        counting(screen, "_compositor_refresh", events, lambda: ("frame", rows()))
        # the scoring thread appends too (list.append is atomic)
        counting(screen.ranking, "_score_in_thread", events, lambda *a: ("scoring", ()))
        body = app.query_one("#detail-body", Static)
        counting(body, "update", events, lambda *a, **k: ("detail", ()))
        await search(pilot, TWO_ASPECTS)
        new = tuple(h.docid for h in t.hits)
        assert new and ("scoring", ()) in events
        first_paint = events.index(("frame", new))
        # the rows come first; the detail of the new first row and the scoring after them
        assert events.index(("scoring", ())) > first_paint
        assert events.index(("detail", ())) > first_paint
        # and the scoring still reaches the table and the detail
        assert "coverage" in [k.value for k in t.columns]
        cells = {t.get_cell(d, "coverage").plain for d in new}
        assert "…" not in cells and all(cell.strip() for cell in cells)
        assert "Aspects — coverage" in app.query_one(DetailPane).text


async def test_from_an_empty_table_the_detail_and_the_scoring_wait_for_the_rows_frame(
    service: Any,
) -> None:
    """0 -> 50 rows: the screen can go idle before the table's repaint reaches it, and Textual
    then runs after-refresh callbacks at once; the detail and the aspect worker must still
    start after the frame in which the table renders the new rows, not in it."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen, t = app.search_screen, table(app)
        assert not t.hits
        events: list[tuple[str, tuple[str, ...]]] = []
        rows = lambda *a: ("table", tuple(h.docid for h in t.hits))  # noqa: E731
        counting(t, "render_lines", events, rows)
        counting(screen.ranking, "_score_in_thread", events, lambda *a: ("scoring", ()))
        body = app.query_one("#detail-body", Static)
        counting(body, "update", events, lambda *a, **k: ("detail", ()))
        await search(pilot, "dialogue state tracking")
        new = tuple(h.docid for h in t.hits)
        assert new and ("table", new) in events
        rendered = events.index(("table", new))
        assert events.index(("detail", ())) > rendered
        assert events.index(("scoring", ())) > rendered
        assert screen.detail.hit == t.hits[0]


async def test_a_first_result_set_is_painted_without_a_layout_pass(service: Any) -> None:
    """0 -> 50 rows: the tab's new count ("Papers (50)") and the table's new height are a
    repaint (fixed-width tabs, a scrollbar always shown), not a layout pass of the screen
    before the rows' frame; the scrollbar still follows the rows and the cursor still
    scrolls them into view."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen, t = app.search_screen, table(app)
        events: list[tuple[str, tuple[str, ...]]] = []
        counting(screen, "_refresh_layout", events, lambda *a, **k: ("layout", ()))
        counting(t, "render_lines", events, lambda *a: ("table", tuple(h.docid for h in t.hits)))
        await search(pilot, "dialogue state tracking")
        new = tuple(h.docid for h in t.hits)
        assert len(new) > t.size.height  # more rows than fit: the scrollbar has a thumb
        rendered = events.index(("table", new))
        assert ("layout", ()) not in events[:rendered]
        tab = app.query_one("#kinds").get_tab(screen.tab())  # type: ignore[attr-defined]
        assert tab.label.plain == f"Papers ({len(new)})"
        assert t.vertical_scrollbar.window_virtual_size == len(new) + 1  # rows + header
        await pilot.press("G")  # the last row: scrolled into view
        await pilot.pause()
        assert t.cursor_row == len(new) - 1 and t.scroll_y == t.max_scroll_y > 0


async def test_a_new_result_redraws_only_what_changed(service: Any) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        screen, t = app.search_screen, table(app)
        status = app.query_one(StatusLine)
        body = app.query_one("#detail-body", Static)
        tab = app.query_one("#kinds").get_tab(screen.tab())  # type: ignore[attr-defined]
        rebuilt: list[Any] = []
        drawn: list[Any] = []
        layouts: list[bool] = []
        tab_layouts: list[bool] = []
        counting(t, "show_rows", rebuilt, lambda *a, **k: 1)
        counting(body, "update", drawn, lambda *a, **k: 1)
        counting(status, "refresh", layouts, lambda *a, **k: bool(k.get("layout")))
        counting(tab, "refresh", tab_layouts, lambda *a, **k: bool(k.get("layout")))
        shown: list[int] = []

        def show(*args: Any) -> None:
            before = len(rebuilt)
            real_show(*args)
            shown.append(len(rebuilt) - before)

        real_show = screen._show
        screen._show = show
        await search(pilot, "statistical machine translation")  # one aspect, 50 rows again
        assert t.hits and shown == [1]  # the rows and the "…" of the scoring in one rebuild
        assert len(drawn) == 1  # the new first row, once (the scoring left its extras as they were)
        assert screen.detail.hit == t.hits[0]
        assert status.text.startswith(f"{len(t.hits)} results") and not any(layouts)
        modes = len(layouts)
        screen.show_modes()  # the same modes again: nothing to repaint
        assert len(layouts) == modes
        # a new count ("Papers (50)") repaints the tab: never a layout pass
        assert not any(tab_layouts) and tab.label.plain == f"Papers ({len(t.hits)})"


async def test_the_detail_follows_a_new_result_set(service: Any) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        detail = app.query_one(DetailPane)
        body = app.query_one("#detail-body", Static)
        await search(pilot, "graph neural networks")
        assert len(t.hits) > 4
        for _ in range(3):
            await pilot.press("down")  # Enter left the focus in the table
        await pilot.pause()
        assert t.cursor_row == 3 and detail.hit == t.hits[3]
        await search(pilot, "convolutional neural networks for image classification")
        first = t.hits[0]
        assert t.cursor_row == 0 and detail.hit == first
        painted = body.visual  # what the pane draws: the new first row
        assert isinstance(painted, Content) and painted.plain == detail.text
        assert painted.plain.startswith(first.record.title[:20])
        await search(pilot, "graph neural networks")  # back: the same hits, its first row again
        assert detail.hit == t.hits[0] and body.visual.plain == detail.text  # type: ignore[union-attr]


async def test_a_new_count_in_the_tab_label_moves_no_tab_and_no_underline(service: Any) -> None:
    """The tab label counts the hits ("Papers (50)"); the tabs have a fixed width, so a new
    count (from the empty query's "Papers") neither moves a tab nor starts the underline's
    0.3 s animation, whose frames would run into the next query's."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tabs = app.query_one("#kinds").query_one(Tabs)
        underline = tabs.query_one("Underline")
        papers, datasets = (tabs.query_one(f"#--content-tab-{k}", Tab) for k in PANE_ID.values())

        def where() -> tuple[Any, ...]:
            return (
                papers.region,
                datasets.region,
                underline.highlight_start,  # type: ignore[attr-defined]
                underline.highlight_end,  # type: ignore[attr-defined]
            )

        before = where()
        await search(pilot, "dialogue state tracking")
        assert papers.label.plain == f"Papers ({len(table(app).hits)})"
        animator = app.animator
        assert not animator.is_being_animated(underline, "highlight_start")
        assert not animator.is_being_animated(underline, "highlight_end")
        assert where() == before
        await search(pilot, "")  # back to "Papers"
        assert papers.label.plain == "Papers" and where() == before


async def test_typing_in_the_query_repaints_the_input_without_a_layout_pass(
    service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each key sets the input's virtual size (its text's width): a repaint of the input, not
    a layout pass of the screen per keystroke (Textual's Input asks for one on every key). The
    text still scrolls to show the cursor."""
    monkeypatch.setattr(query_bar, "DEBOUNCE_S", 60.0)  # no search while typing: keys only
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(40, 20)) as pilot:  # a query input of ~16 cells
        await pilot.pause()
        bar = app.query_one("#query", Input)
        bar.focus()
        layouts: list[bool] = []
        counting(bar, "refresh", layouts, lambda *a, **k: bool(k.get("layout")))
        text = "dense retrieval models"
        await pilot.press(*[c if c != " " else "space" for c in text])
        await pilot.pause()
        # one at most: when the text first overflows, the input's (hidden) horizontal
        # scrollbar state flips in a layout pass; not one per key
        assert bar.value == text and len(layouts) >= len(text) and sum(layouts) <= 1
        assert bar.virtual_size.width > bar.size.width and bar.scroll_x > 0
        assert bar.cursor_position == len(text)


async def test_enter_moves_into_the_results_and_records_the_query_after_the_rows_frame(
    service: Any,
) -> None:
    """Enter: the focus move (it redraws the key footer and the bindings) and the history write
    (it queues for the service's lock) come after the frame that paints the rows, not before
    the search; the results still get the focus and the query still reaches the history."""
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen, t = app.search_screen, table(app)
        events: list[tuple[str, tuple[str, ...]]] = []
        counting(t, "render_lines", events, lambda *a: ("table", tuple(h.docid for h in t.hits)))
        counting(t, "focus", events, lambda *a, **k: ("focus", ()))
        counting(screen.triage, "record_submitted", events, lambda q: ("history", (q.text,)))
        await search(pilot, "dialogue state tracking")
        new = tuple(h.docid for h in t.hits)
        assert new
        rendered = events.index(("table", new))
        assert events.index(("focus", ())) > rendered
        assert events.index(("history", ("dialogue state tracking",))) > rendered
        assert screen.focused is t
        # Enter again on the query the table already shows: no search to wait for
        events.clear()
        screen.query_one("#query", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert ("history", ("dialogue state tracking",)) in events and screen.focused is t
