"""Issue 45's TUI items: focus after a tab switch and a modal, the layout at 80 columns, the
footer's focus prefix, year boxes, the build segment, background errors, the detail's dense
line, ``w`` without an LLM, the empty-store formats, full-text wording, the feed and undo."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from litsift.paths import get_paths
from litsift.service import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.widgets import ResultsTable
from litsift.tui.widgets.footer import KeyFooter
from litsift.types import Kind
from tests.conftest import DATASETS_GZ, PAPERS_GZ
from tests.tui.conftest import search, settle

SIZE = (120, 30)


def first_rows(path: Path, n: int) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in islice(f, n)]


@pytest.fixture(scope="module")
def small_service(tmp_path_factory: pytest.TempPathFactory, encoder: Any) -> Iterator[Any]:
    """40 real papers and 20 real datasets, both indexed."""
    root = tmp_path_factory.mktemp("issue45")
    papers, datasets = root / "p.jsonl", root / "d.jsonl"
    for path, rows in (
        (papers, first_rows(PAPERS_GZ, 40)),
        (datasets, first_rows(DATASETS_GZ, 20)),
    ):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with LitsiftService(get_paths(root / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, papers).ok
        assert svc.ingest(Kind.DATASET, datasets).ok
        svc.build_index(Kind.PAPER)
        svc.build_index(Kind.DATASET)
        yield svc


def table(app: Any, kind: Kind) -> ResultsTable:
    return app.search_screen.table(kind)


async def test_tab_switch_from_the_results_keeps_the_focus_in_the_results(
    small_service: Any,
) -> None:
    """^t from the results: the new tab's results take the focus (j moves there), and the
    footer says so; a modal closed afterwards gives the focus back to the results."""
    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        papers = table(app, Kind.PAPER)
        assert app.focused is papers
        await pilot.press("ctrl+t")
        await settle(pilot)
        datasets = table(app, Kind.DATASET)
        assert app.focused is datasets
        assert app.query_one(KeyFooter).where == "results"
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.focused is papers
        await pilot.press("j")
        assert papers.cursor_row == 1
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is papers
        query = app.query_one("#query", Input)
        assert query.selected_text == ""
        await pilot.press("q")  # quits: it never reaches the query
        await pilot.pause()
        assert query.value == "neural machine translation"


async def test_tab_switch_from_the_query_stays_in_the_query(small_service: Any) -> None:
    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        query = app.query_one("#query", Input)
        assert app.focused is query
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.focused is query
        assert app.query_one(KeyFooter).where == "query"


async def test_focus_coming_back_to_the_query_selects_nothing(small_service: Any) -> None:
    """Esc from the results and ``/`` put the cursor in the query without selecting its text
    (a key typed next would replace the query)."""
    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "dialogue state tracking")
        query = app.query_one("#query", Input)
        for key in ("escape", "slash"):
            table(app, Kind.PAPER).focus()
            await pilot.pause()
            await pilot.press(key)
            await pilot.pause()
            assert app.focused is query
            assert query.selected_text == ""
