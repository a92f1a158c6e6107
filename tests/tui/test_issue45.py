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
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.screens.indexing import Meter
from litsift.tui.widgets import ResultsTable, StatusLine
from litsift.tui.widgets.footer import KeyFooter
from litsift.types import Kind, Query, SearchResult
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


@pytest.mark.parametrize("total", [600, 19_639])
async def test_build_progress_fits_80_columns_with_the_result(
    empty_service: Any, total: int
) -> None:
    """A BM25-only result while its dense part is built: count, kind, years, why and the
    build's progress with its ETA fit one line of 80 columns (the store's counts are cut)."""
    app = create_app(empty_service)  # with timings, as the app runs
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("escape")  # the empty-store screen
        status = app.query_one("#status", StatusLine)
        status.show_result(
            SearchResult(
                Query("dialogue", Kind.PAPER),
                (),
                0.066,
                signals_used=("bm25",),
                partial=f"dense index: 0 / {total:,} embedded",
            )
        )
        meter = Meter(Kind.PAPER)
        meter.text("embed", 0, total, 100.0)
        status.set_build_state(meter.text("embed", total // 2, total, 112.0))
        await pilot.pause()
        shown = status.render_line(0).text.strip()
        assert shown.startswith("0 results · 66 ms · papers · any year · BM25 only, dense ")
        assert "ETA 12 s" in shown, shown
        assert "store:" in status.text and "store:" not in shown
        app.search_screen.on_mount()  # the prompt, before any query: the build first
        await pilot.pause()
        shown = status.render_line(0).text.strip()
        assert shown.startswith("building dense ") and "ETA 12 s · Type a query" in shown


async def test_a_background_error_names_its_job_and_stays_until_read(
    small_service: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An index build's error says which job failed and what to do (with the service's log
    file), and stays in the status line across searches until ^o shows it."""
    from litsift.tui.messages import IndexFailed
    from litsift.tui.screens.indexing import IndexBuilder
    from litsift.tui.screens.job_errors import JobErrorScreen

    log = small_service.log_path  # litsift.logs: the home's log file
    assert log is not None
    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = app.query_one(KeyFooter)
        assert "Read error" not in footer.text
        builder = app.query_one(IndexBuilder)
        builder.post_message(IndexFailed(Kind.PAPER, RuntimeError("disk went away")))
        await pilot.pause()
        await search(pilot, "neural machine translation")
        await search(pilot, "dialogue")
        status = app.query_one("#status", StatusLine)
        assert status.text.startswith("✖ building the papers index failed · ^o read · ")
        assert "report it with the query" not in status.text
        await pilot.pause()
        assert "^o Read error" in footer.text
        await pilot.press("ctrl+o")
        await pilot.pause()
        shown = app.screen
        assert isinstance(shown, JobErrorScreen)
        assert "Building the papers index failed" in shown.text
        assert "RuntimeError: disk went away" in shown.text
        assert "litsift index" in shown.text and str(log) in shown.text
        assert "RuntimeError: disk went away" in log.read_text()  # kept after it is read
        await pilot.press("escape")
        await pilot.pause()
        assert "✖" not in status.text and "Read error" not in footer.text


async def test_detail_says_dense_did_not_run_for_a_bm25_only_result(small_service: Any) -> None:
    from dataclasses import replace

    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        screen = app.search_screen
        result = screen.tab().result
        assert result is not None and result.signals_used == ("bm25", "dense")
        hits = tuple(
            replace(h, signals={"bm25": h.signals["bm25"]})
            for h in result.hits
            if "bm25" in h.signals
        )
        why = "dense index: 0 / 40 embedded"
        bm25_only = replace(result, hits=hits, signals_used=("bm25",), partial=why)
        assert hits and "dense" in result.hits[0].signals
        screen.tab().show_result(bm25_only, {})
        screen.refresh_detail()
        await pilot.pause()
        text = screen.detail.text
        assert f"did not run ({why})" in text
        assert "not among this retriever's candidates" not in text


async def test_answer_without_an_llm_says_what_to_configure(small_service: Any) -> None:
    """``w`` (and the other LLM keys) without an endpoint: the CLI's explanation, not nothing."""
    assert not small_service.glance().llm_configured
    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        footer = app.query_one(KeyFooter)
        assert "w Answer" in footer.text
        for key in ("w", "r"):
            app.search_screen.status.show_message("")
            await pilot.press(key)
            await settle(pilot)
            status = app.query_one("#status", StatusLine).text
            assert "no LLM endpoint configured" in status, key
            assert "set [llm] base_url and model in " in status and "config.toml" in status
        assert app.screen is app.search_screen  # no answer screen opened


async def test_fulltext_key_without_full_text_says_there_is_none(small_service: Any) -> None:
    """T in a library without indexed full text turns nothing on: it says so and how to add
    full text; no full-text mode appears."""
    assert not small_service.glance().passages
    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        await pilot.press("T")
        await settle(pilot)
        status = app.query_one("#status", StatusLine).text
        assert "no full text in this library" in status and "litsift ingest papers" in status
        assert "[full text" not in status
        assert not app.search_screen.fulltext
        result = table(app, Kind.PAPER).result
        assert result is not None and not result.query.fulltext


async def test_undo_names_the_title(small_service: Any) -> None:
    from litsift.tui.screens.triage import TITLE_CHARS, short_title

    app = create_app(small_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        hit = table(app, Kind.PAPER).highlighted_hit
        assert hit is not None
        await pilot.press("plus")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        status = app.query_one("#status", StatusLine).text
        title = short_title(hit.record.display_title)
        assert f"undone: {title} is unlabelled" in status
        assert hit.docid not in status
    hostile = short_title("a\x1b[31m b\n c" * 20)
    assert hostile.endswith("…") and "\x1b" not in hostile and "\n" not in hostile
    assert len(short_title("x" * 200)) == TITLE_CHARS


def test_scores_fit_their_column() -> None:
    """BM25-only scores (13.7562) and the re-ranker's (-1.0297) are never cut."""
    from litsift.tui.widgets.results_table import SCORE_WIDTH, score_text

    assert score_text(0.95481) == "0.9548" and score_text(-1.02968) == "-1.0297"
    assert score_text(13.75623) == "13.7562" and score_text(105.12345) == "105.123"
    assert all(len(score_text(s)) <= SCORE_WIDTH for s in (-12345.6, 99999.99, 123456.7))
