"""How a query gets into the query bar and the history, as people do it in a terminal: a paste
of several lines (an abstract copied from a PDF) kept only its first line, and a query typed,
then entered with Down (the README's way into the results) and labelled, never reached the
history, which recorded Enter alone."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input

from litsift.paths import get_paths
from litsift.search.engines.base import LocalEngine
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.types import Kind
from tests.tui.conftest import search, settle

SIZE = (120, 40)


async def test_a_pasted_multi_line_text_is_the_whole_query(tiny_service: Any) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        query = app.query_one("#query", Input)
        assert app.focused is query
        query.post_message(events.Paste("multi-domain dialogue\nstate   tracking\r\n\nstudy"))
        await settle(pilot)
        assert query.value == "multi-domain dialogue state tracking study"
        assert app.search_screen.text == query.value  # and searched


async def test_down_from_the_query_records_it_in_the_history(tiny_service: Any) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"dialogue")  # typed: searched as one types, nothing submitted
        await settle(pilot)
        assert app.search_screen.table().hits
        assert [e.text for e in tiny_service.history()] == []
        await pilot.press("down")
        await settle(pilot)
        assert app.focused is app.search_screen.table()
        assert [e.text for e in tiny_service.history()] == ["dialogue"]
        await pilot.press("up", *" state", "down")  # typed on, Down at once (debouncing)
        await settle(pilot)
        assert app.focused is app.search_screen.table()
        assert [e.text for e in tiny_service.history()] == ["dialogue state", "dialogue"]


async def test_down_while_the_query_is_being_searched_records_it_too(tiny_service: Any) -> None:
    """Down after the search had finished recorded the query; Down while its worker was still
    running (a large store, a loaded machine) did not: Down is Enter either way."""
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.search_screen
        lock = screen.calls.lock
        lock.acquire()  # the search worker waits for the service: still running at Down
        try:
            await pilot.press(*"dialogue")
            for _ in range(200):
                await pilot.pause(0.01)
                if not screen.query_bar.debouncing and screen._pending is not None:
                    break
            assert screen._pending is not None and not screen.query_bar.debouncing
            await pilot.press("down")
            assert app.focused is screen.table()
        finally:
            lock.release()
        await settle(pilot)
        assert app.focused is screen.table() and screen.table().hits
        assert [e.text for e in tiny_service.history()] == ["dialogue"]


# -- Down from the query lands on the first row ------------------------------------------------


async def test_down_from_the_query_lands_on_the_first_row_where_the_cursor_was_left(
    tiny_service: Any,
) -> None:
    """Down, Down, Esc back to the query, Down: the first row again (it went back to the
    second, where the cursor had been left)."""
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(*"dialogue state")
        await settle(pilot)
        table = app.search_screen.table()
        assert len(table.hits) == 2
        await pilot.press("down", "down")
        await settle(pilot)
        assert table.cursor_row == 1
        await pilot.press("escape")
        assert isinstance(app.focused, Input)
        await pilot.press("down")
        await settle(pilot)
        assert app.focused is table and table.cursor_row == 0
        await pilot.press("down")
        assert table.cursor_row == 1


@pytest.fixture
def slow_dense(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The dense part that the app loads in the background waits for the returned gate (a
    first start on a large store: the query typed meanwhile is searched by BM25 alone)."""
    gate = threading.Event()
    searcher = LocalEngine.searcher

    def gated(self: LocalEngine, *args: Any, load_dense: bool = True, **kwargs: Any) -> Any:
        if load_dense:
            assert gate.wait(60), "the test never opened the gate"
        return searcher(self, *args, load_dense=load_dense, **kwargs)

    monkeypatch.setattr(LocalEngine, "searcher", gated)
    return gate


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_down_from_the_query_after_the_dense_part_landed_lands_on_the_first_row(
    tmp_path: Path,
    encoder: Any,
    paper_slice_rows: list[dict[str, Any]],
    slow_dense: threading.Event,
    size: tuple[int, int],
) -> None:
    """Found in tmux (and only now and then: it depends on when the query is typed): the query
    typed while the dense part loads shows BM25's order; when the part lands the query runs
    again and the cursor followed BM25's first hit to its row in the hybrid order (the 4th
    here), so Down from the query landed there."""
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:300]), "utf-8")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER)
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=size) as pilot:
            screen = app.search_screen
            try:
                await pilot.press(*"question answering")
                for _ in range(200):
                    await pilot.pause(0.02)
                    if screen.tab().result is not None and not screen.rows_stale():
                        break
                result = screen.tab().result
                assert result is not None and result.signals_used == ("bm25",)
                bm25_first = screen.table().hits[0].docid
            finally:
                slow_dense.set()
            await settle(pilot)
            table = screen.table()
            result = screen.tab().result
            assert result is not None and result.signals_used == ("bm25", "dense")
            assert table.hits[0].docid != bm25_first  # the hybrid order has another first
            assert isinstance(app.focused, Input) and table.cursor_row == 0
            await pilot.press("down")
            await settle(pilot)
            assert app.focused is table and table.cursor_row == 0
            await pilot.press("down")
            assert table.cursor_row == 1


async def test_enter_on_a_query_without_hits_keeps_the_focus_in_the_query(
    tiny_service: Any,
) -> None:
    """Enter on a query that found nothing moved the focus into the empty results table, so
    the next word typed ran the table's keys: ``attention`` opened the export dialog, a word
    starting with ``q`` quit the app (found in tmux). The query keeps the focus; with hits,
    Enter still moves into them."""
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "dialogue", years=("1800", "1801"))  # no paper that old
        query = app.query_one("#query", Input)
        assert app.search_screen.table().row_count == 0
        assert app.focused is query
        await pilot.press("ctrl+a", "ctrl+k", *"quest")
        await settle(pilot)
        assert app.is_running and app.focused is query and query.value == "quest"
        await search(pilot, "dialogue")  # no years: hits
        assert app.search_screen.table().row_count
        assert app.focused is app.search_screen.table()
