"""The command palette opened from the query runs the results' commands: its "Keep" or
"Export", picked while the cursor was in the query, did nothing (their keys type text there, so
the screen refused the action the palette ran), with no word said."""

from __future__ import annotations

from typing import Any

from textual.command import CommandPalette
from textual.widgets import Input

from litsift.tui.app import create_app
from litsift.tui.screens.modals import ExportScreen
from litsift.types import Kind, Label
from tests.tui.conftest import settle


async def _palette(pilot: Any, command: str) -> None:
    await pilot.press("ctrl+p")
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*command)
    await pilot.pause(0.5)  # the palette searches its providers asynchronously
    await pilot.press("enter")
    await settle(pilot)


async def test_keep_and_export_from_the_palette_opened_in_the_query(tiny_service: Any) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        query = app.query_one("#query", Input)
        query.focus()
        await pilot.press(*"dialogue state tracking")  # typed: the cursor stays in the query
        await settle(pilot)
        assert app.focused is query
        first = app.search_screen.table().highlighted_hit
        assert first is not None
        await _palette(pilot, "Keep")
        assert tiny_service.triage.label(Kind.PAPER, first.docid) is Label.KEEP
        assert query.value == "dialogue state tracking"  # nothing typed into the query
        await pilot.press("slash")  # back in the query
        await _palette(pilot, "Export")
        for _ in range(100):
            if isinstance(app.screen, ExportScreen):
                break
            await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
