"""A focus change waiting for the narrow layout to change (Esc from the detail, Enter into
it) never takes the focus back from where a key typed right behind it put it: at 80x24, Esc
from the detail then ``/`` and a query at typing speed left the cursor in the results once
the layout had changed, and the query's letters ran there as keys (``y`` keep, ``x``
discard, ``q`` quit)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from litsift.tui.app import create_app
from litsift.tui.widgets.detail_pane import DetailPane
from litsift.tui.widgets.results_table import ResultsTable
from tests.tui.conftest import burst, search, settle


async def test_enter_and_esc_in_a_narrow_terminal_move_the_focus(tiny_service: Any) -> None:
    """The detail takes the table's place and gives it back, with the focus each time."""
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(pilot, "dialogue state tracking")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.focused, DetailPane)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.focused, ResultsTable)


async def test_slash_right_behind_esc_from_the_detail_keeps_the_query(tiny_service: Any) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(pilot, "dialogue state tracking")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.focused, DetailPane)
        await burst(app, "escape", "/", "ctrl+u", "dense retrieval")
        await settle(pilot)
        query = app.query_one("#query", Input)
        assert app.focused is query
        assert query.value == "dense retrieval"


async def test_slash_right_behind_enter_into_the_detail_keeps_the_query(
    tiny_service: Any,
) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(pilot, "dialogue state tracking")
        await pilot.press("down")
        await pilot.pause()
        assert isinstance(app.focused, ResultsTable)
        await burst(app, "enter", "/", "ctrl+u", "dense retrieval")
        await settle(pilot)
        query = app.query_one("#query", Input)
        assert app.focused is query
        assert query.value == "dense retrieval"
