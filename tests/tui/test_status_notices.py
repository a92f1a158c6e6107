"""The status line gives the result's line back after a notice has been seen: a label saved,
"nothing to undo", an export written, an action refused stayed until the next search, hiding
the count, the years in force and the kind (found in tmux: ``nothing to undo [show: unlabelled]``
long after the undo). A message that is the state (a query that cannot run, an LLM call in
progress) stays through later keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Input

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.screens.modals import ExportScreen
from litsift.tui.widgets import StatusLine
from litsift.types import Kind, Query, SearchResult, YearRange
from tests.tui.conftest import search, settle

SIZE = (120, 40)
RESULT_LINE = "2 results · papers · any year"


def status(app: Any) -> str:
    return str(app.query_one("#status", StatusLine).text)


async def test_a_label_notice_gives_the_result_line_back_on_the_next_key(
    tiny_service: LitsiftService,
) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "dialogue state tracking")
        assert status(app).startswith(RESULT_LINE)
        await pilot.press("plus")
        await settle(pilot)
        assert ": keep" in status(app)  # the confirmation is shown...
        await pilot.press("j")
        assert status(app).startswith(RESULT_LINE)  # ...and goes with the next key
        await pilot.press("u")
        await settle(pilot)
        assert status(app).startswith("undone: ")
        await pilot.press("u")
        await settle(pilot)
        assert status(app).startswith("nothing to undo")
        await pilot.press("f")  # the filter's mode is shown beside the result's line
        assert status(app).startswith(RESULT_LINE + " [show: unlabelled]")


async def test_an_export_notice_goes_on_the_next_key(
    tiny_service: LitsiftService, tmp_path: Path
) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "dialogue state tracking")
        await pilot.press("plus")
        await settle(pilot)
        await pilot.press("e")
        for _ in range(100):
            await settle(pilot)
            if isinstance(app.screen, ExportScreen):
                break
        assert isinstance(app.screen, ExportScreen)
        app.screen.query_one("#export-path", Input).value = str(tmp_path / "kept.bib")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert status(app).startswith("exported kept as bibtex: wrote ")
        await pilot.press("k")
        assert status(app).startswith(RESULT_LINE)


async def test_an_invalid_query_is_said_until_it_is_fixed(tiny_service: LitsiftService) -> None:
    """A year range that cannot run is the state, not a notice: it stays through keys."""
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "dialogue state tracking")
        app.query_one("#year-from", Input).value = "2019"
        app.query_one("#year-to", Input).value = "2015"
        await pilot.press("enter")
        await settle(pilot)
        said = status(app)
        assert said.startswith("✖") and "empty" in said, said
        await pilot.press("left", "right")
        assert status(app) == said


class _Line(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(show_timings=False, id="status")


def _result() -> SearchResult:
    return SearchResult(Query("q", Kind.PAPER, YearRange(None, None)), (), 0.0)


async def test_a_progress_message_stays_and_its_outcome_gives_the_result_back() -> None:
    """An LLM call in progress is not expired by a key; the notice of its outcome is, and
    what comes back is the result's line, not the finished call's progress."""
    app = _Line()
    async with app.run_test():
        line = app.query_one(StatusLine)
        line.show_result(_result())
        shown = line.text
        line.show_message("LLM reranking 50 results…", progress=True)
        line.expire()
        assert line.text.startswith("LLM reranking")
        line.show_message("LLM reranked 50 results · 1 call(s)", notice=True)
        line.expire()
        assert line.text == shown
        line.show_error(("select a paper first", "citations are papers' links"), notice=True)
        line.show_message("nothing to undo", notice=True)  # two notices: the line under both
        line.expire()
        assert line.text == shown
        line.show_message("Type a query")  # the state: no key takes it away
        line.expire()
        assert line.text == "Type a query"
