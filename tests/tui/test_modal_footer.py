"""A window over the search screen (help, a note, the history, an answer...) shows its own keys
in the footer. Before, the footer of the screen below stayed in sight, offering Keep, Maybe,
Discard and Export, none of which does anything while the window is open, and never the
window's own Esc."""

from __future__ import annotations

from typing import Any

import pytest

from litsift.tui.app import create_app
from litsift.tui.screens.help import HelpScreen
from litsift.tui.screens.modals import ExportScreen, HistoryScreen, NoteScreen
from tests.tui.conftest import search, settle
from tests.tui.test_narrow_footer import bottom_line


@pytest.mark.parametrize(
    ("key", "screen", "own"), [("f1", HelpScreen, "Close help"), ("n", NoteScreen, "esc Cancel")]
)
async def test_a_window_shows_its_own_keys(
    tiny_service: Any, key: str, screen: type, own: str
) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await search(pilot, "dialogue")
        await settle(pilot)
        assert "+ Keep" in bottom_line(app)
        await pilot.press(key)
        await settle(pilot)
        assert isinstance(app.screen, screen)
        await pilot.pause()
        line = bottom_line(app)
        assert own in line, line
        assert "Keep" not in line and "Discard" not in line, line


@pytest.mark.parametrize(
    ("key", "screen", "save"),
    [
        (("plus", "e"), ExportScreen, "^s Export"),
        ("h", HistoryScreen, "^s Re-run"),
        ("n", NoteScreen, "^s Save"),
    ],
)
async def test_a_dialog_names_what_its_ctrl_s_does(
    tiny_service: Any, key: str | tuple[str, ...], screen: type, save: str
) -> None:
    """The footer offered "^s Save" in the history (where ctrl+s re-runs the query) and in
    the export dialog (where it exports), beside a border that said otherwise."""
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await search(pilot, "dialogue")
        await pilot.press("down")
        await settle(pilot)
        await pilot.press(*((key,) if isinstance(key, str) else key))
        await settle(pilot)
        assert isinstance(app.screen, screen)
        await pilot.pause()
        line = bottom_line(app)
        assert save in line, line
