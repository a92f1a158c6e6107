"""A narrow terminal (a split pane of 50 columns) keeps the results' scores on screen: the
columns the title has no room beside are left out (venue, then year), and they come back
when the terminal is widened. The table used to run past its right edge, cutting the Score
column to "Sc" and its values to their first digit."""

from __future__ import annotations

from typing import Any

from litsift.tui.app import create_app
from litsift.tui.widgets.results_table import MIN_TITLE_WIDTH
from litsift.types import Kind
from tests.tui.conftest import search, settle


async def test_a_narrow_table_leaves_out_the_venue_and_keeps_the_scores(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=(50, 20)) as pilot:
        await search(pilot, "neural machine translation")
        table = app.search_screen.table(Kind.PAPER)
        keys = [c.key for c in table.columns_shown]
        assert "venue" not in keys and keys[-1] == "score" and "title" in keys
        widths = sum(c.width for c in table.columns.values()) + 2 * len(table.columns)
        assert widths <= table.size.width, (widths, table.size.width)  # nothing past the edge
        assert table.columns["title"].width >= MIN_TITLE_WIDTH
        scores = [table.get_cell(row, "score").plain for row in table.rows]
        assert scores and all(len(s) >= 6 for s in scores), scores  # "0.9921", whole
        await pilot.resize_terminal(120, 30)
        await settle(pilot)
        assert [c.key for c in table.columns_shown] == [
            "rank", "label", "title", "year", "venue", "score"
        ]  # fmt: skip
        assert "venue" in table.columns
