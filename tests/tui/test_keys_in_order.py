"""Editing keys act in the order typed (Textual issue #6605), in litsift's text inputs.

A terminal delivers a fast typist's keys, a paste of keys or a key macro as one burst. Textual
inserts a printable key where it lands, while a bound key (Backspace, Ctrl+A, Ctrl+K) bubbles
to the app first, so the printable keys behind it were applied before it. Here each burst is
posted to the app in one go, with no wait between keys, as the terminal driver does; the real
terminal's version of this check is in tests/terminal/test_real_terminal.py.
"""

from __future__ import annotations

from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen

from litsift.tui.screens.modals import NoteScreen, PromptScreen
from litsift.tui.widgets.query_bar import BarInput, QueryBar
from litsift.tui.widgets.results_table import ResultsTable
from litsift.tui.widgets.text_inputs import InOrderInput, InOrderTextArea
from litsift.types import Kind
from tests.tui.conftest import burst, key_events


class BarApp(App[None]):
    """The query bar, nested as on the search screen."""

    def compose(self) -> ComposeResult:
        with Vertical(), Horizontal(), Vertical():
            yield QueryBar(id="bar")


@pytest.mark.parametrize(
    ("before", "typed", "expected"),
    [
        ("abc", ("ctrl+a", "ctrl+k", "neural machine translation"), "neural machine translation"),
        ("", ("graph networkz", "backspace", "s"), "graph networks"),
        ("", ("retrieval", "home", "dense ", "end", " models"), "dense retrieval models"),
        ("query", ("left", "left", "backspace", "X"), "quXry"),
    ],
)
async def test_a_burst_of_keys_edits_the_query_in_typing_order(
    before: str, typed: tuple[str, ...], expected: str
) -> None:
    app = BarApp()
    async with app.run_test(size=(100, 10)) as pilot:
        query = app.query_one("#query", BarInput)
        query.focus()
        for key in key_events(before):
            await pilot.press(key.key)
        await pilot.pause()
        assert query.value == before
        await burst(app, *typed)
        await pilot.pause(0.2)
        assert query.value == expected


async def test_tab_moves_on_before_the_keys_typed_after_it() -> None:
    """Tab is the screen's binding (focus next): the year typed after it goes to the year."""
    app = BarApp()
    async with app.run_test(size=(100, 10)) as pilot:
        app.query_one("#query", BarInput).focus()
        await burst(app, "parsing", "tab", "2015", "tab", "2020")
        await pilot.pause(0.2)
        values = [
            app.query_one(f"#{name}", BarInput).value for name in ("query", "year-from", "year-to")
        ]
        assert values == ["parsing", "2015", "2020"]


async def test_down_leaves_the_query_bar_and_the_keys_after_it_follow() -> None:
    """Up/Down are refused by the bar's inputs (no scrolling), so the screen's Down runs: here,
    as on the search screen, it focuses another widget. The keys typed after Down go there."""

    class Screenful(App[None]):
        BINDINGS: ClassVar[list[BindingType]] = [("down", "into_results", "")]

        def compose(self) -> ComposeResult:
            with Vertical(), Horizontal(), Vertical():
                yield QueryBar(id="bar")
            yield InOrderInput(id="results")

        def action_into_results(self) -> None:
            self.screen.set_focus(self.query_one("#results", InOrderInput))

    app = Screenful()
    async with app.run_test(size=(100, 10)) as pilot:
        app.query_one("#query", BarInput).focus()
        await pilot.pause()
        await burst(app, "abc", "down", "m+")
        await pilot.pause(0.2)
        assert app.query_one("#query", BarInput).value == "abc"
        assert app.query_one("#results", InOrderInput).value == "m+"


async def test_the_note_and_prompt_editors_keep_typing_order() -> None:
    app: App[None] = App()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(NoteScreen("A paper", "old note", ("tag",)))
        await pilot.pause()
        note = app.screen.query_one("#note-text", InOrderTextArea)
        note.focus()
        await pilot.pause()
        await burst(app, "ctrl+a", "ctrl+k", "new notz", "backspace", "e", "enter", "line 2")
        await burst(app, "tab", "ctrl+a", "ctrl+k", "a, b")
        await pilot.pause(0.2)
        assert note.text == "new note\nline 2"  # Enter stays the text area's newline
        assert app.screen.query_one("#note-tags", InOrderInput).value == "a, b"
        app.pop_screen()
        app.push_screen(PromptScreen("Collection", "Name", "old"))
        await pilot.pause()
        name = app.screen.query_one("#prompt-input", InOrderInput)
        name.focus()
        await pilot.pause()
        await burst(app, "ctrl+a", "ctrl+k", "reading lisr", "backspace", "t")
        await pilot.pause(0.2)
        assert name.value == "reading list"


async def test_letters_typed_behind_slash_in_the_results_go_to_the_query() -> None:
    """In the results every letter is a key binding (``m`` maybe, ``+`` keep): the letters typed
    right behind ``/`` are the query's, and label nothing."""

    class Results(App[None]):
        BINDINGS: ClassVar[list[BindingType]] = [
            ("slash", "focus_query", ""),
            ("m", "label('maybe')", ""),
            ("plus", "label('keep')", ""),
        ]
        labels: ClassVar[list[str]] = []

        def compose(self) -> ComposeResult:
            with Vertical(), Horizontal(), Vertical():
                yield QueryBar(id="bar")
            yield ResultsTable(Kind.PAPER, id="results")

        def action_focus_query(self) -> None:
            self.screen.set_focus(self.query_one("#query", BarInput))

        def action_label(self, label: str) -> None:
            self.labels.append(label)

    app = Results()
    async with app.run_test(size=(100, 20)) as pilot:
        app.query_one(ResultsTable).focus()
        await pilot.pause()
        await burst(app, "+", "/", "machine m+")
        await pilot.pause(0.2)
        assert app.query_one("#query", BarInput).value == "machine m+"
        assert app.labels == ["keep"]


async def test_letters_typed_behind_up_on_the_first_row_go_to_the_query() -> None:
    """Up on the first result hands the focus back to the query while the key is handled, so
    the letters typed right behind it edit the query and label nothing (before, the screen
    moved the focus when it read a message, after the table had run ``m`` and ``+``)."""

    class Results(Screen[None]):
        BINDINGS: ClassVar[list[BindingType]] = [
            ("m", "label('maybe')", ""),
            ("plus", "label('keep')", ""),
        ]

        def __init__(self) -> None:
            super().__init__()
            self.labels: list[str] = []

        def compose(self) -> ComposeResult:
            with Vertical(), Horizontal(), Vertical():
                yield QueryBar(id="bar")
            yield ResultsTable(Kind.PAPER, id="results")

        def action_focus_query(self) -> None:
            self.set_focus(self.query_one("#query", BarInput))

        def action_label(self, label: str) -> None:
            self.labels.append(label)

    screen = Results()
    app: App[None] = App()
    async with app.run_test(size=(100, 20)) as pilot:
        app.push_screen(screen)
        await pilot.pause()
        table = screen.query_one(ResultsTable)
        table.add_column("title")
        table.add_rows([["first"], ["second"]])
        screen.set_focus(table)
        await pilot.pause()
        await burst(app, "down", "+", "up", "up", "m+ more")
        await pilot.pause(0.2)
        assert screen.query_one("#query", BarInput).value == "m+ more"
        assert screen.labels == ["keep"]


async def test_slash_in_a_year_goes_to_the_query_with_the_keys_behind_it() -> None:
    """A year holds digits only; ``/`` typed there is the screen's "to the query" (it was
    dropped by the year's restriction, and the query typed after it was lost)."""

    class Years(App[None]):
        BINDINGS: ClassVar[list[BindingType]] = [("slash", "focus_query", "")]

        def compose(self) -> ComposeResult:
            with Vertical(), Horizontal(), Vertical():
                yield QueryBar(id="bar")

        def action_focus_query(self) -> None:
            self.screen.set_focus(self.query_one("#query", BarInput))

    app = Years()
    async with app.run_test(size=(100, 10)) as pilot:
        app.query_one("#year-from", BarInput).focus()
        await pilot.pause()
        await burst(app, "20x1/", "5", "/", "sentiment analysis")
        await pilot.pause(0.2)
        assert app.query_one("#year-from", BarInput).value == "201"
        # in the query "/" is text again
        assert app.query_one("#query", BarInput).value == "5/sentiment analysis"
