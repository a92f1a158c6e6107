"""The export dialog (``e``) with nothing kept: said at once, not after the user has filled
the dialog in and pressed ctrl+s. Over a real writable home (:func:`tiny_service`)."""

from __future__ import annotations

from typing import Any

from litsift.tui.app import create_app
from litsift.tui.screens.modals import ExportScreen
from litsift.tui.widgets import StatusLine
from litsift.types import Kind, Label
from tests.tui.conftest import search, settle

SIZE = (120, 40)


def _status(app: Any) -> str:
    return app.query_one("#status", StatusLine).text


async def test_export_with_nothing_labelled_says_so_without_a_dialog(tiny_service: Any) -> None:
    app = create_app(tiny_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "dialogue state tracking")
        await pilot.press("tab", "e")
        await settle(pilot)
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ExportScreen)
        assert "nothing to export yet" in _status(app)


async def test_export_dialog_says_nothing_is_kept_when_only_maybe(tiny_service: Any) -> None:
    tiny_service.annotate(Kind.PAPER, "markup-2", label=Label.MAYBE)
    app = create_app(tiny_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "dialogue state tracking")
        await pilot.press("tab", "e")
        for _ in range(100):
            await settle(pilot)
            if isinstance(app.screen, ExportScreen):
                break
            await pilot.pause(0.02)
        assert isinstance(app.screen, ExportScreen)
        warning = str(app.screen.query_one("#export-warning").render())
        assert "Nothing is kept yet" in warning
