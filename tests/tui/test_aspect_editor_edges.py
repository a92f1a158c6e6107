"""The aspect editor's edges, as a researcher hits them (found in QA): every line deleted, and
the same aspect typed twice."""

from __future__ import annotations

from typing import Any

from textual.widgets import TextArea

from litsift.tui.app import create_app
from litsift.tui.screens.modals import AspectEditScreen
from litsift.types import Kind
from tests.tui.conftest import search, settle

SIZE = (100, 30)
QUERY = (
    "low-resource machine translation with back-translation of monolingual text, "
    "evaluated on African languages"
)


async def _edit(pilot: Any, text: str) -> None:
    await pilot.press("a")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, AspectEditScreen)
    screen.query_one("#aspects-text", TextArea).load_text(text)
    await pilot.press("ctrl+s")
    await settle(pilot)


async def test_emptied_editor_brings_back_the_querys_own_aspects(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        tab = app.search_screen.tab(Kind.PAPER)
        own = [a.text for a in tab.aspects]
        assert len(own) >= 2
        await _edit(pilot, "\n  \n")
        # the query's own aspects again, not none: every row was graded 0.0 and `a` was off
        assert [a.text for a in tab.aspects] == own
        assert "the query's own aspects" in app.search_screen.status.text
        assert app.search_screen.check_action("edit_aspects", ()) is True
        table = app.search_screen.table(Kind.PAPER)
        assert any(table.coverages[h.docid].normalised > 0 for h in table.hits)


async def test_a_repeated_aspect_counts_once(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, QUERY)
        await _edit(pilot, "machine translation\nback-translation\nMachine  Translation")
        tab = app.search_screen.tab(Kind.PAPER)
        assert [a.text for a in tab.aspects] == ["machine translation", "back-translation"]
        assert "1 repeated aspect(s) count once" in app.search_screen.status.text
