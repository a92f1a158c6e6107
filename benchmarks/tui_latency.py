"""Keystroke to painted results in the TUI, measured with Textual's Pilot.

On the DataFinder eval home (19.6K papers + 3.3K datasets, both indexed; built by
``litsift eval datafinder`` or ``benchmarks/run_eval.py datafinder`` on first use), the app
(:func:`litsift.tui.app.create_app`, 160x50 headless terminal) goes through a scripted session of
real queries (DataFinder keyphrase queries, papers tab, default settings: ``tui_k`` 50 rows):

1. **typed** (with the debounce): each query is typed key by key (``Pilot.press``, no pause
   between keys, so the debounce timer restarts on every key); the time runs from the last key
   to the screen refresh that paints the query's results. It includes
   :data:`litsift.tui.widgets.query_bar.DEBOUNCE_S`.
2. **Enter** (without the debounce): the query is pasted into the bar (``Input.value``) and Enter
   is pressed; the time runs from the Enter key to the painted results.

"Painted" is the first frame the compositor writes (``Screen._compositor_refresh``) after the
search screen has shown the result (``SearchScreen._show``) and the results table has rendered
its lines again: the terminal has the new rows. Between queries the app
settles (search, aspect scoring of the 50 rows and any other worker finish), so each time starts
from an idle app; aspect scoring runs after the paint and is not in the figures. The peer is the
in-process ``service.search`` of the same queries measured in the same run (the floor the UI adds
to).

Usage::

    python benchmarks/tui_latency.py [--queries 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from textual.keys import _character_to_key
from textual.screen import Screen
from textual.widgets import Input

from litsift.eval.benchmarks import load_benchmark
from litsift.eval.cli_support import default_data_dir
from litsift.eval.runner import eval_home, prepare_home
from litsift.service import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.screens.search import SearchScreen
from litsift.tui.widgets import ResultsTable, query_bar
from litsift.types import Kind, Query, SearchResult


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


class PaintClock:
    """Records when results for a query text were painted: the first frame the compositor
    writes (``Screen._compositor_refresh``) after ``SearchScreen._show`` took the result and
    after the results table has rendered lines again (``ResultsTable.render_lines``)."""

    def __init__(self) -> None:
        self.painted: dict[str, float] = {}
        self._waiting: str | None = None
        self._table_drawn = False
        clock = self
        show, draw, frame = (
            SearchScreen._show,
            ResultsTable.render_lines,
            Screen._compositor_refresh,
        )

        def _show(screen: SearchScreen, result: SearchResult, annotations: Any) -> None:
            show(screen, result, annotations)
            clock._waiting, clock._table_drawn = result.query.text, False

        def render_lines(table: ResultsTable, crop: Any) -> Any:
            if clock._waiting is not None:
                clock._table_drawn = True
            return draw(table, crop)

        def _compositor_refresh(screen: Screen[Any]) -> None:
            frame(screen)
            if clock._waiting is not None and clock._table_drawn:
                clock.painted.setdefault(clock._waiting, time.perf_counter())
                clock._waiting = None

        SearchScreen._show = _show  # type: ignore[method-assign]
        ResultsTable.render_lines = render_lines  # type: ignore[method-assign]
        Screen._compositor_refresh = _compositor_refresh  # type: ignore[method-assign]


async def settle(pilot: Any) -> None:
    """Wait until the app has no search, debounce, aspect scoring or job left."""
    app = pilot.app
    for _ in range(6000):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not app.search_screen.busy:
            return
        await pilot.pause(0.02)
    raise RuntimeError("the app never settled")


async def wait_painted(pilot: Any, clock: PaintClock, text: str) -> float:
    for _ in range(20000):
        if text in clock.painted:
            return clock.painted[text]
        await pilot.pause(0.001)
    raise RuntimeError(f"results for {text!r} were never painted")


def keys_of(text: str) -> list[str]:
    return [_character_to_key(c) for c in text]


async def session(svc: LitsiftService, queries: list[str]) -> dict[str, list[float]]:
    clock = PaintClock()
    app = create_app(svc)
    typed: list[float] = []
    entered: list[float] = []
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        bar = app.query_one("#query", Input)
        bar.focus()
        for mode in ("typed", "enter"):
            for i, text in enumerate(queries):
                # a distinct text per mode and query, so a painted time is never a stale one
                text = f"{text} {mode}" if i % 2 else f"{mode} {text}"
                bar.value = ""
                await settle(pilot)
                clock.painted.clear()
                if mode == "typed":
                    keys = keys_of(text)
                    await pilot.press(*keys[:-1])
                    t0 = time.perf_counter()
                    await pilot.press(keys[-1])
                else:
                    bar.value = text
                    t0 = time.perf_counter()
                    await pilot.press("enter")
                painted = await wait_painted(pilot, clock, text)
                (typed if mode == "typed" else entered).append(1000 * (painted - t0))
                await settle(pilot)
                bar.focus()
    return {"typed": typed, "enter": entered}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=30, help="queries per mode")
    ap.add_argument("--data", type=Path, default=None)
    args = ap.parse_args()
    bench = load_benchmark("datafinder", args.data or default_data_dir())
    svc, _ = prepare_home(bench, eval_home(bench))
    keyphrase = next(s for s in bench.query_sets if "keyphrase" in s.name)
    queries = [q.text for q in keyphrase.queries[: args.queries]]
    times = asyncio.run(session(svc, queries))
    k0 = max(svc.config.search.k0, svc.config.search.tui_k)
    peer: list[float] = []
    for timed in (False, True):
        for text in queries:
            t0 = time.perf_counter()
            svc.search(Query(text, Kind.PAPER, k=svc.config.search.tui_k, k0=k0))
            if timed:
                peer.append(1000 * (time.perf_counter() - t0))
    svc.close()
    rows = {
        f"typed, last key -> paint (debounce {query_bar.DEBOUNCE_S * 1000:.0f} ms)": times["typed"],
        "Enter -> paint (no debounce)": times["enter"],
        "service.search alone (peer, in-process)": peer,
    }
    floor = statistics.median(peer)
    print(f"{len(queries)} DataFinder keyphrase queries per mode; papers tab, {svc_rows(svc)}")
    print(f"{'keystroke to painted results':48s} {'p50 ms':>8s} {'p95 ms':>8s} {'p50/peer':>9s}")
    for name, values in rows.items():
        p50 = statistics.median(values)
        print(f"{name:48s} {p50:8.1f} {pct(values, 95):8.1f} {p50 / floor:9.1f}")
    print(
        json.dumps(
            {
                "keystroke_p50_ms": round(statistics.median(times["typed"]), 1),
                "keystroke_p95_ms": round(pct(times["typed"], 95), 1),
                "keystroke_no_debounce_p50_ms": round(statistics.median(times["enter"]), 1),
                "keystroke_no_debounce_p95_ms": round(pct(times["enter"], 95), 1),
                "debounce_ms": round(query_bar.DEBOUNCE_S * 1000),
                "search_p50_ms": round(floor, 2),
            }
        )
    )


def svc_rows(svc: LitsiftService) -> str:
    counts = svc.counts()
    return f"{counts[Kind.PAPER]:,} papers, {counts[Kind.DATASET]:,} datasets"


if __name__ == "__main__":
    main()
