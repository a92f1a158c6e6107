"""A query with no result says so in the detail pane, and what to try: the pane kept its
start-up hint "Nothing selected. Type a query…" under a typed query and an empty table, while
the status line said "0 results"."""

from __future__ import annotations

from typing import Any

from litsift.tui.app import create_app
from litsift.tui.widgets import StatusLine
from litsift.tui.widgets.detail_pane import DetailPane
from tests.tui.conftest import search


async def test_no_result_says_so_in_the_detail_and_what_to_try(tiny_service: Any) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        detail = app.query_one(DetailPane)
        assert detail.text.startswith("Nothing selected. Type a query")  # before any query
        await search(pilot, "dialogue state tracking", years=("2030", ""))
        assert not app.search_screen.table().hits
        status = app.query_one("#status", StatusLine).text
        assert status.startswith("0 results · papers · ≥2030 · ^l clears the years"), status
        text = " ".join(detail.text.split())
        assert "Nothing selected" not in text and "Type a query" not in text, text
        assert "No results for “dialogue state tracking” in papers, ≥2030." in text, text
        assert "^l clears the years" in text, text  # the status line's way out, the same key
        assert "fewer or other words" in text, text
        assert "^t the Datasets tab" in text, text
        # a query with results shows its first hit again
        await search(pilot, "dialogue state tracking")
        assert app.search_screen.table().hits
        assert "No results" not in detail.text
