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
from tests.tui.test_snapshot import screen_lines

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


@pytest.mark.parametrize("size", [(80, 24), (120, 30), (160, 40)])
async def test_layout_keeps_titles_readable_and_the_score_visible(
    small_service: Any, size: tuple[int, int]
) -> None:
    """At 80 columns the detail pane makes way for the results (Enter shows it in their
    place, Esc brings them back); wider terminals show both. Titles get 30+ cells and the
    Score column is on screen at every size; a 4-digit year is shown whole."""
    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=size) as pilot:
        await search(pilot, "neural machine translation", ("2020", ""))
        papers = table(app, Kind.PAPER)
        hit = papers.highlighted_hit
        assert hit is not None
        lines = screen_lines(app.export_screenshot())
        header = next(line for line in lines if " # " in line and "Title" in line)
        assert "Score" in header
        assert f"{hit.score:.4f}" in next(line for line in lines if line.startswith("   1 "))
        title = next(c for c in papers.columns.values() if c.key == "title")
        assert title.width >= 30
        assert "2020" in "".join(lines[:3])  # the from-year box
        narrow = size[0] < 100
        assert app.search_screen.detail.display is not narrow
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert app.focused is app.search_screen.detail
        kinds = app.query_one("#kinds")
        assert app.search_screen.detail.display and kinds.display is not narrow
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert app.focused is papers and kinds.display
        assert app.search_screen.detail.display is not narrow


async def test_year_boxes_show_four_digits(empty_service: Any) -> None:
    """A typed year is shown whole, the cursor after it (it showed ``020``)."""
    app = create_app(empty_service, show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("escape")  # the empty-store screen
        for side in ("from", "to"):
            year = app.query_one(f"#year-{side}", Input)
            year.focus()
            await pilot.pause()
            for digit in "2020":
                await pilot.press(digit)
            await pilot.pause()
            assert year.render_line(0).text.strip() == "2020"
