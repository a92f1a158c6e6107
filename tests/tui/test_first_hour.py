"""The first hour in the TUI (issue 29, items 1-3): Down/Up between the query and the results,
a footer that says where the focus is and how to quit, one status segment per fact, and aspect
coverage only when the query has more than one aspect. Pilot tests over a writable copy of the
real session store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.widgets import DetailPane, ResultsTable, StatusLine
from litsift.tui.widgets.footer import KeyFooter
from litsift.types import Kind, Label, Query, SearchResult
from tests.conftest import copy_home
from tests.tui.conftest import search, settle

SIZE = (120, 40)


def table(app: Any) -> ResultsTable:
    return app.search_screen.table(Kind.PAPER)


def query_input(app: Any) -> Input:
    return app.query_one("#query", Input)


@pytest.fixture
def wservice(built_home: Path, tmp_path: Path, encoder: Any) -> Iterator[LitsiftService]:
    home = tmp_path / "home"
    copy_home(built_home, home)
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        yield svc


async def test_down_moves_into_the_results_plus_labels_and_up_comes_back(
    wservice: LitsiftService,
) -> None:
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        await pilot.press(*"dialogue")  # typed key by key: the search is debounced
        await settle(pilot)
        t = table(app)
        assert t.hits and app.focused is query_input(app)
        assert footer.where == "query"
        assert "^q Quit" in footer.text and "↓ Results" in footer.text
        await pilot.press("down")
        assert app.focused is t and footer.where == "results"
        assert "↓ Results" not in footer.text  # in the table, Down moves the cursor
        first = t.hits[0].docid
        await pilot.press("plus")
        await settle(pilot)
        assert query_input(app).value == "dialogue"  # "+" labelled, not typed
        assert wservice.annotations(Kind.PAPER, [first])[first].label is Label.KEEP
        await pilot.press("down", "down")
        assert t.cursor_row == 2
        await pilot.press("up", "up")
        assert app.focused is t and t.cursor_row == 0
        await pilot.press("up")  # on the first row: back to the query
        assert app.focused is query_input(app) and footer.where == "query"
        await pilot.press("ctrl+n")  # the other key into the results
        assert app.focused is t
        await pilot.press("enter")
        assert isinstance(app.focused, DetailPane) and footer.where == "detail"


async def test_plus_and_q_in_the_query_are_text_and_ctrl_q_quits(
    wservice: LitsiftService,
) -> None:
    app = create_app(wservice)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"C++ q")
        await settle(pilot)
        assert query_input(app).value == "C++ q" and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


async def test_a_bm25_only_answer_and_the_build_progress_are_one_counter(
    wservice: LitsiftService,
) -> None:
    app = create_app(wservice, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = app.query_one("#status", StatusLine)
        result = SearchResult(
            Query("dialogue", Kind.PAPER),
            (),
            0.001,
            signals_used=("bm25",),
            partial="dense index: 0 / 19,639 embedded",
        )
        status.show_result(result)
        assert "BM25 only — dense index: 0 / 19,639 embedded" in status.text
        status.set_build_state("dense index: papers 320 / 19,639 embedded (1%)")
        assert status.text.count("embedded") == 1 and "BM25 only" in status.text
        assert "320 / 19,639" in status.text
        status.set_build_state("")  # the build ended: the result says why it is partial again
        assert "BM25 only — dense index: 0 / 19,639 embedded" in status.text


async def test_coverage_column_and_aspect_panel_only_for_several_aspects(
    wservice: LitsiftService,
) -> None:
    app = create_app(wservice, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        t = table(app)
        detail = app.query_one(DetailPane)
        await search(pilot, "dialogue state tracking")  # one aspect
        assert t.hits and "coverage" not in [k.value for k in t.columns]
        assert "Aspects" not in detail.text
        await search(
            pilot, "retrieval-augmented generation, knowledge graphs and question answering"
        )
        assert app.search_screen.tab().aspects and len(app.search_screen.tab().aspects) == 2
        assert "coverage" in [k.value for k in t.columns]
        assert "Aspects" in detail.text
        await search(pilot, "question answering")  # back to one: the title gets the width
        assert "coverage" not in [k.value for k in t.columns]
        await pilot.press("o")  # ordering by coverage asks for it
        await settle(pilot)
        assert "coverage" in [k.value for k in t.columns]
