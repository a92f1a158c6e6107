"""How a query gets into the query bar and the history, as people do it in a terminal: a paste
of several lines (an abstract copied from a PDF) kept only its first line, and a query typed,
then entered with Down (the README's way into the results) and labelled, never reached the
history, which recorded Enter alone."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input

from litsift.tui.app import create_app
from tests.tui.conftest import settle

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
