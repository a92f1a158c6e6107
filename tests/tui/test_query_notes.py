"""The TUI's status line says what a query excluded and why a year range found nothing, as the
CLI does (both read ``SearchResult.partial`` of ``service.search``; query audit)."""

from __future__ import annotations

from typing import Any

from litsift.tui.app import create_app
from litsift.tui.widgets import StatusLine
from tests.tui.conftest import search


async def test_the_status_line_says_what_was_excluded_and_the_empty_years(
    tiny_service: Any,
) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(200, 24)) as pilot:
        status = app.query_one("#status", StatusLine)
        await search(pilot, "dialogue state tracking -literal")
        line = status.render_line(0).text.strip()
        assert line.startswith("1 result · papers · any year"), line
        assert "excluded -literal (1 hit left out)" in line, line
        await search(pilot, "dialogue", years=("1990", "1995"))
        line = status.render_line(0).text.strip()
        assert "no papers from 1990–1995 in this store (its papers span 2019–2020)" in line, line


async def test_the_status_line_says_a_wildcard(tiny_service: Any) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(200, 24)) as pilot:
        status = app.query_one("#status", StatusLine)
        await search(pilot, "dial?gue state tracking")
        line = status.render_line(0).text.strip()
        assert "wildcards are not supported: 'dial?gue' read as 'dialgue'" in line, line
