"""The label filter (``f``) cycled back keeps the user's place: a view with no row (no maybe
labels yet) lost it, and back at "hide discarded" and "all" the cursor was on the first row,
not on the paper the user had highlighted."""

from __future__ import annotations

from typing import Any

from litsift.tui.app import create_app
from tests.tui.conftest import search, settle


async def test_cycling_the_filters_through_empty_views_keeps_the_highlighted_paper(
    tiny_service: Any,
) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await search(pilot, "dialogue state tracking")
        table = app.search_screen.table()
        assert app.focused is table and len(table.hits) == 2
        await pilot.press("j", "plus")  # keep the second paper
        await settle(pilot)
        kept = table.highlighted_hit
        assert kept is not None and table.cursor_row == 1
        seen = []
        for _ in range(5):  # unlabelled, kept, maybe (none), discarded (none), hide discarded
            await pilot.press("f")
            await settle(pilot)
            hit = table.highlighted_hit
            seen.append((table.label_filter, hit.docid if hit else None))
        assert seen[2][1] is None and seen[3][1] is None, seen  # the empty views
        assert seen[-1][1] == kept.docid, seen
        await pilot.press("f")  # all
        await settle(pilot)
        assert table.highlighted_hit == kept
