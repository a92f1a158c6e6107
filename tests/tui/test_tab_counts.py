"""The kind tabs show their whole count under a label filter: the tabs' fixed width had room
for "Datasets (100)", and "Papers (49 of 50)" read "Papers (49 of" (at every terminal width)."""

from __future__ import annotations

from typing import Any

from textual.widgets import TabbedContent

from litsift.tui.app import create_app
from litsift.types import Kind
from tests.tui.conftest import search, settle


async def test_a_filtered_count_is_shown_whole_in_the_tab(tiny_service: Any) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(pilot, "dialogue state tracking")
        await pilot.press("x", "f")  # discard the first; show the unlabelled ones
        await settle(pilot)
        tabs = app.query_one(TabbedContent)
        tab = tabs.get_tab(app.search_screen.tab(Kind.PAPER))
        assert tab.label.plain == "Papers (1 of 2)"
        assert tab.render_line(0).text.strip() == "Papers (1 of 2)"
        widest = "Datasets (100 of 100)"  # k up to 999: the widest count
        assert tab.region.width - 2 >= len(widest)
