"""A year range that leaves no result says how to clear it: the line read "0 results · papers ·
≥2030" over an empty table, and a first-time user (a store of 2021 papers, a "from 2022" typed)
did not see that the years were why."""

from __future__ import annotations

from typing import Any

from litsift.tui.app import create_app
from litsift.tui.widgets import StatusLine
from tests.tui.conftest import search


async def test_no_result_in_the_years_says_how_to_clear_them(tiny_service: Any) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        status = app.query_one("#status", StatusLine)
        await search(pilot, "dialogue state tracking", years=("2030", ""))
        assert not app.search_screen.table().hits
        assert status.text.startswith("0 results · papers · ≥2030 · ^l clears the years"), (
            status.text
        )
        await search(pilot, "dialogue state tracking")
        assert app.search_screen.table().hits and "clears the years" not in status.text
