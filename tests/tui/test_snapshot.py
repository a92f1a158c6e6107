"""What the TUI shows, checked two ways.

* SVG snapshots (pytest-textual-snapshot) of the screens whose every character is independent
  of the encoder: the start screen over the session store and the help screen. Regenerate the
  baselines after an intended UI change with ``pytest tests/tui/test_snapshot.py
  --snapshot-update`` and review them.
* The rendered text of the result screens (paper search; dataset search with a year range),
  read from the same SVG export. Their scores come from the int8 encoder, whose kernels differ
  by CPU (AVX2 vs AVX-512 VNNI) in the third decimal, so an exact snapshot of them is
  machine-bound; these tests check the layout, the ordering against ``service.search`` and the
  detail pane instead, on any CPU. The SVG is written next to the test's tmp dir for a look.

Timings are hidden (``show_timings=False``) so the status line is deterministic.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from litsift.tui.app import create_app
from litsift.types import Kind, Query, YearRange
from tests.tui.conftest import search, settle

SIZE = (120, 40)


def screen_lines(svg: str) -> list[str]:
    """The text rows of a Textual SVG export, top to bottom (spaces restored)."""
    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for x, y, text in re.findall(r'<text[^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows[float(y)].append((float(x), html.unescape(text).replace("\xa0", " ")))
    return ["".join(t for _, t in sorted(rows[y])) for y in sorted(rows)]


def test_snapshot_start_screen(service: Any, snap_compare: Callable[..., bool]) -> None:
    """The app over the session store before any query: bars, empty tabs, status, keys."""

    async def run_before(pilot: Pilot[object]) -> None:
        await pilot.pause()
        await settle(pilot)

    app = create_app(service, show_timings=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_help_screen(service: Any, snap_compare: Callable[..., bool]) -> None:
    """F1: the keys table."""

    async def run_before(pilot: Pilot[object]) -> None:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()

    app = create_app(service, show_timings=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_paper_search_screen(service: Any, tmp_path: Path) -> None:
    """Papers tab after a keyphrase query: table in ``service.search`` order, detail of the
    first hit with its scores and aspects, status line."""
    text = "low-resource neural machine translation"
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, text)
        svg = app.export_screenshot()
    (tmp_path / "paper_search.svg").write_text(svg)
    lines = screen_lines(svg)
    expected = service.search(Query(text, Kind.PAPER, k=service.config.search.tui_k))
    n = len(expected.hits)
    assert n == 50
    assert any("Papers (50)" in line for line in lines)
    header = next(i for i, line in enumerate(lines) if " # " in line and "Title" in line)
    for column in ("Year", "Venue", "Score"):
        assert column in lines[header]
    assert "Cover" not in lines[header]  # one aspect: every row's coverage would be the same
    # visible rows: rank, the title's start, year, in the order service.search gives
    for offset, hit in enumerate(expected.hits[:20], start=1):
        row = lines[header + offset]
        table = row.split("▏")[0]
        assert re.match(rf"\s*{offset}\s", table), row
        assert hit.record.title[:20] in table and str(hit.record.year) in table, row
        assert f"{hit.score:.4f}" in table or f"{hit.score:.3f}" in table, row
    detail = "\n".join(line.split("▏", 1)[1] for line in lines if "▏" in line)
    top = expected.hits[0]
    assert top.record.title.split()[0] in detail
    assert "Aspects" not in detail and "Scores" in detail
    assert re.search(r"fused\s+\d\.\d{4}\s+rank 1", detail)
    assert re.search(r"bm25\s+\d+\.\d{4}\s+rank \d+", detail)
    assert re.search(r"dense\s+0\.\d{4}\s+rank \d+", detail)
    status = next(line for line in lines if "results ·" in line)
    assert "50 results · papers · any year · store: 1,964 papers, 3,294 datasets" in status


async def test_dataset_search_screen(service: Any, tmp_path: Path) -> None:
    """Datasets tab (ctrl+t) after a full-sentence query with a year range: only datasets of
    those years (or none), in ``service.search`` order, the ranker's signals in the detail."""
    text = "multi-domain task-oriented dialogue dataset"
    years = YearRange(2015, 2019, include_missing=True)
    # The re-ranker reads each dataset's stored aspect sentences, which aspect scoring stores on
    # first use: score this query's hits first, so the app's search and ``expected`` below see
    # the same stored state whatever ran before (alone, the order differed at rank 5).
    warm = service.search(Query(text, Kind.DATASET, years, k=service.config.search.tui_k))
    service.score_aspects(service.decompose(text), warm.hits)
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+t")
        await search(pilot, text, ("2015", "2019"))
        svg = app.export_screenshot()
    (tmp_path / "dataset_search.svg").write_text(svg)
    lines = screen_lines(svg)
    expected = service.search(Query(text, Kind.DATASET, years, k=service.config.search.tui_k))
    assert expected.hits
    status = next(line for line in lines if "results ·" in line)
    assert f"{len(expected.hits)} results · datasets · 2015" in status
    header = next(i for i, line in enumerate(lines) if " # " in line and "Name" in line)
    for offset, hit in enumerate(expected.hits[:10], start=1):
        table = lines[header + offset].split("▏")[0]
        assert re.match(rf"\s*{offset}\s", table), table
        assert hit.record.id[:12] in table, table
        assert f"{hit.score:.4f}" in table, table  # negative ranker scores are not cut
    detail = "\n".join(line.split("▏", 1)[1] for line in lines if "▏" in line)
    assert expected.hits[0].record.id in detail
    # re-ranked pool: the ranker's score first, the fused score kept as "hybrid"
    assert re.search(r"ranker\s+-?\d+\.\d{4}\s+rank 1", detail)
    assert re.search(r"hybrid\s+\d\.\d{4}\s+rank \d+", detail)
    assert "papers" in detail and "name it" in detail
