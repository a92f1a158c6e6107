"""The editors fit an 80x24 terminal: a query, title or collection list longer than the box is
wrapped at word boundaries, never cut at the border mid-word, and the buttons stay on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Label, TextArea

import litsift.tui
from litsift.tui.app import create_app
from litsift.tui.screens.modals import (
    AspectEditScreen,
    ExportScreen,
    NoteScreen,
    PromptScreen,
)
from tests.tui.conftest import search, settle

QUERY = (
    "transformer attention for low-resource neural machine translation with pretrained "
    "multilingual encoders and dialogue state tracking"
)


def shown(widget: Widget) -> str:
    """The words ``widget`` draws on screen, one space between them."""
    lines = (widget.render_line(y).text for y in range(widget.region.height))
    return " ".join(" ".join(lines).split())


def assert_fits(screen: Screen[Any], label: Label, text: str) -> None:
    """``text`` is drawn whole by ``label``, inside the box, and every button is on screen."""
    box = screen.query_one(".modal-box")
    assert screen.region.contains_region(box.region), (box.region, screen.region)
    assert box.region.contains_region(label.region), (label.region, box.region)
    assert shown(label) == " ".join(text.split())
    for button in screen.query(Button):
        assert box.region.contains_region(button.region), (button.region, box.region)
    for editor in screen.query(TextArea):  # room to write: four lines inside its border
        assert editor.region.height >= 6 and box.region.contains_region(editor.region)


async def test_the_aspect_editor_shows_the_query_whole_at_80_columns(
    markup_service: Any,
) -> None:
    """`a` on a result of a query wider than the box: the query is wrapped in the editor (it was
    one line cut at the border: "... with pretr")."""
    app = create_app(markup_service)
    async with app.run_test(size=(80, 24)) as pilot:
        await search(pilot, QUERY)
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AspectEditScreen)
        assert_fits(screen, screen.query_one(".modal-record", Label), QUERY)


class _Host(App[None]):
    """The app's own style sheet, and nothing else: a dialog alone on the screen."""

    CSS_PATH = Path(litsift.tui.__file__).parent / "litsift.tcss"


@pytest.mark.parametrize("which", ["note", "collection", "aspects"])
async def test_a_long_title_wraps_in_every_editor_and_the_buttons_stay(which: str) -> None:
    """A title (or query) of two box widths: wrapped whole in the note, collection and aspect
    editors, and their Save / OK buttons still inside an 80x24 terminal."""
    title = f"{QUERY} — {QUERY}"
    dialog: Screen[Any] = {
        "note": lambda: NoteScreen(title, "a note", ("tag",)),
        "collection": lambda: PromptScreen("Add to collection", title, "related work"),
        "aspects": lambda: AspectEditScreen(title, ["one", "two", "three", "four"]),
    }[which]()
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(dialog)
        await pilot.pause()
        label = dialog.query(Label).first()
        assert_fits(dialog, label, title)


async def test_the_export_dialog_wraps_the_collection_names() -> None:
    """Collections named in the export dialog are wrapped, not cut at the border."""
    names = [f"related work {i}" for i in range(6)]
    dialog = ExportScreen(names)
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(dialog)
        await pilot.pause()
        assert_fits(
            dialog, dialog.query_one(".modal-hint", Label), "Collections: " + ", ".join(names)
        )
