"""The history dialog lists each query once: the history is a log, and a query run again
between others was listed as often as it ran (``neural machine translation`` twice among five
lines at 60x20), pushing older queries out of sight."""

from __future__ import annotations

from typing import Any

from textual.widgets import OptionList

from litsift.tui.app import create_app
from litsift.tui.screens.modals import HistoryScreen
from litsift.types import Kind, Query, YearRange
from tests.tui.conftest import search, settle


async def open_history(app: Any, pilot: Any) -> None:
    """``h`` from the results, until the history dialog is on screen."""
    await settle(pilot)
    app.search_screen.table().focus()
    await pilot.press("h")
    for _ in range(100):
        await settle(pilot)
        if isinstance(app.screen, HistoryScreen):
            break
    assert isinstance(app.screen, HistoryScreen)


async def test_a_query_run_twice_is_listed_once_its_newest_run_first(tiny_service: Any) -> None:
    any_year = YearRange(None, None)
    for text in ("dialogue state tracking", "literal brackets", "dialogue state tracking"):
        tiny_service.save_query(Query(text, Kind.PAPER, any_year))
    tiny_service.save_query(Query("literal brackets", Kind.PAPER, YearRange(2019, 2020)))
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_history(app, pilot)
        listed = app.screen.query_one(OptionList)
        lines = [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
        assert lines == [
            "literal brackets  (papers, 2019:2020)",  # another year range: another search
            "dialogue state tracking  (papers)",
            "literal brackets  (papers)",
        ]
        await pilot.press("down", "enter")  # the second line re-runs that query
        await settle(pilot)
        assert app.search_screen.text == "dialogue state tracking"


async def test_save_search_proposes_the_query_s_first_whole_words(tiny_service: Any) -> None:
    """``s`` proposes a name of whole words (``text[:40]`` cut one: "... low-resource ne");
    Enter saves the search under it."""
    from textual.widgets import Input

    from litsift.tui.screens.modals import PromptScreen

    text = "dialogue state tracking across domains with literal brackets"
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await search(pilot, text)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen)
        name = app.screen.query_one(Input).value
        assert name == "dialogue state tracking across domains"
        await pilot.press("enter")
        await settle(pilot)
        assert [e.name for e in tiny_service.history(saved=True)] == [name]


async def test_q_in_the_history_quits_as_everywhere_outside_text(tiny_service: Any) -> None:
    """README's key table: ``q`` quits anywhere outside text. Over a dialog the app's own
    ``q`` is not active, and in the history (a list, nothing to type into) it did nothing."""
    tiny_service.save_query(Query("dialogue state tracking", Kind.PAPER, YearRange(None, None)))
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_history(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_q_in_a_dataset_s_papers_quits() -> None:
    """The other list dialog, a dataset's papers (``C`` on a dataset): ``q`` quits too."""
    from litsift.tui.screens.dataset_users import DatasetUsersScreen
    from litsift.types import Paper
    from litsift.types.citations import DatasetUsers
    from tests.tui.test_markup_sinks import _Host

    users = DatasetUsers("d1", total=1, papers=(Paper(id="p1", title="A paper", year=2020),))
    screen = DatasetUsersScreen("SQuAD", users)
    app = _Host(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
