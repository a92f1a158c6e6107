"""The TUI's start up to its first painted results (issue 32): nothing on that path imports
what it does not use (pandas, through sqlite-utils), and BM25's results paint before the dense
graph is loaded."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

#: opens the TUI headless on a home, searches once, waits for the hits, and prints which of
#: the heavy modules a start never needs were imported
_START_AND_SEARCH = """
import asyncio, sys
from pathlib import Path
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.types import Kind

async def main() -> None:
    with LitsiftService(get_paths(Path(sys.argv[1]))) as svc:
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=(120, 40)) as pilot:
            app.search_screen.query_bar.query_one("#query").value = "graph neural networks"
            await pilot.press("enter")
            for _ in range(2400):
                await pilot.pause(0.05)
                if app.search_screen.tab(Kind.PAPER).result is not None and not app.busy:
                    break
            assert app.search_screen.tab(Kind.PAPER).result.hits

asyncio.run(main())
print(sorted(m for m in ("pandas", "sqlite_utils") if m in sys.modules))
"""


def test_tui_start_and_first_search_import_no_pandas(built_home: Path) -> None:
    """sqlite-utils imports pandas (~0.7 s of a start); the store, the caches and the TUI
    import it only where its API is used."""
    proc = subprocess.run(
        [sys.executable, "-c", _START_AND_SEARCH, str(built_home)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "[]"


async def test_first_results_paint_before_the_dense_index_is_loaded(
    tmp_path: Path, encoder: Any, paper_slice_rows: list[dict[str, Any]], monkeypatch: Any
) -> None:
    """The dense graph's load grows with the library (~1 s per 100K papers): the TUI shows
    BM25's results first, says the dense index is loading, and searches again, hybrid, once it
    is in memory. The load waits for ``gate`` here so the test sees the app meanwhile."""
    from textual.widgets import Input

    from litsift.paths import get_paths
    from litsift.search.retrieval.dense import DenseIndex
    from litsift.service.facade import LitsiftService
    from litsift.tui.app import create_app
    from litsift.tui.widgets import StatusLine
    from litsift.types import Kind

    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:40]), encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER)
        svc.build_sentences(Kind.PAPER)
        svc.invalidate()
        gate, loads = threading.Event(), []
        real_open = DenseIndex.open.__func__  # type: ignore[attr-defined]

        def gated_open(cls: type[DenseIndex], path: Path) -> DenseIndex:
            loads.append(path)
            assert gate.wait(120), "the test never opened the gate"
            return real_open(cls, path)  # type: ignore[no-any-return]

        monkeypatch.setattr(DenseIndex, "open", classmethod(gated_open))
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=(140, 40)) as pilot:
            screen = app.search_screen
            status = app.query_one("#status", StatusLine)
            try:
                query = app.query_one("#query", Input)
                query.value = title = paper_slice_rows[7]["title"]
                await pilot.press("enter")
                for _ in range(400):  # not app.busy: the dense load keeps it busy
                    await pilot.pause(0.05)
                    first = screen.tab(Kind.PAPER).result
                    if first is not None and first.query.text == title:
                        break
                assert first is not None and first.query.text == title, (
                    "no results while the dense index loads"
                )
                assert first.signals_used == ("bm25",)
                assert first.hits[0].record.id == paper_slice_rows[7]["id"]
                assert "dense index loading" in status.text
                assert loads and app.busy  # loading, not done
            finally:
                gate.set()
            for _ in range(400):
                await pilot.pause(0.05)
                r = screen.tab(Kind.PAPER).result
                if r is not None and r.signals_used == ("bm25", "dense") and not app.busy:
                    break
            result = screen.tab(Kind.PAPER).result
            assert result is not None and result.signals_used == ("bm25", "dense")
            assert result.partial is None and "dense index loading" not in status.text
            assert any("dense" in h.signals for h in result.hits)
