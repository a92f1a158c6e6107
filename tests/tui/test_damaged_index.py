"""A damaged index part in the TUI (issue 34, item 3): search answers from the intact part
and the status line says so; at start the app rebuilds the damaged part in the background,
like rows the index lacks, and the query runs again, hybrid."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from textual.widgets import Input

from litsift.paths import get_paths
from litsift.search.build.index_pair import open_indexes
from litsift.search.build.layout import index_dir_for
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.widgets import StatusLine
from litsift.types import Kind
from tests.conftest import DATASETS_GZ, read_jsonl_gz
from tests.tui.test_background_index import N_ROWS, SIZE, GatedEncoder, wait_for


async def test_a_truncated_dense_part_is_searched_around_then_rebuilt(
    tmp_path: Path, encoder: Any
) -> None:
    rows = list({r["id"]: r for r in read_jsonl_gz(DATASETS_GZ)[: N_ROWS + 5]}.values())
    src = tmp_path / "datasets.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows[:N_ROWS]), encoding="utf-8")
    paths = get_paths(tmp_path / "home")
    with LitsiftService(paths, encoder=encoder) as svc:
        assert svc.ingest(Kind.DATASET, src).ok
        svc.build_index(Kind.DATASET)
    dense = index_dir_for(paths.index_dir, Kind.DATASET) / "dense.bin"
    dense.write_bytes(dense.read_bytes()[: dense.stat().st_size // 2])

    gate = threading.Event()
    with LitsiftService(paths, encoder=GatedEncoder(encoder, gate)) as svc:
        assert svc.needs_index(Kind.DATASET)  # the app rebuilds it at start
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=SIZE) as pilot:
            status = app.query_one("#status", StatusLine)
            screen = app.search_screen
            try:
                screen.action_show_kind(Kind.DATASET.value)
                app.query_one("#query", Input).value = rows[3]["id"]
                await pilot.press("enter")
                await wait_for(pilot, lambda: screen.tab(Kind.DATASET).result is not None, "hits")
                result = screen.tab(Kind.DATASET).result
                assert result is not None and result.hits
                assert result.signals_used == ("bm25",) and result.partial is not None
                # BM25 only, and why: the damaged part (a search before the rebuild dropped
                # it) or the rebuild's progress; at most one progress counter, never doubled
                assert "BM25 only" in status.text
                assert any(w in status.text for w in ("damaged", "embedded", "dataset dense"))
                assert status.text.count("embedded") + status.text.count("dataset dense") <= 1
            finally:
                gate.set()

            def hybrid() -> bool:
                r = screen.tab(Kind.DATASET).result
                return r is not None and r.signals_used == ("bm25", "dense")

            await wait_for(pilot, hybrid, "the hybrid result")
            result = screen.tab(Kind.DATASET).result
            assert result is not None and result.partial is None
            assert "BM25 only" not in status.text
            await app.workers.wait_for_complete()
        open_indexes(paths.index_dir, Kind.DATASET, encoder)  # repaired: opens whole
