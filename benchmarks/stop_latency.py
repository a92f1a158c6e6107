"""Ctrl+Q to the shell prompt, in a real terminal (tmux), while the app builds its dense index.

A home of ``--papers`` real papers (the shared sample) is ingested, not indexed; ``litsift`` is
started in a tmux pane of 160 x 40 with two embedding workers and a fresh embedding cache, a
query is typed, and once the status line shows the dense build under way (``building dense``)
Ctrl+Q is sent; the time runs from the key to the exit status file the pane's shell writes.
The peer, measured in the same run: the same home once indexed (``litsift index``), where
Ctrl+Q stops nothing but the app itself -- the floor of a quit. ``--load N`` runs N busy
processes beside it (a loaded laptop, a CI machine running tests).

Usage::

    python benchmarks/stop_latency.py [--papers 1500] [--runs 5] [--load 0]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.terminal.conftest import LITSIFT, Terminal, papers_file, run_litsift


def _busy() -> None:
    while True:
        pass


def _one(home: Path, cache: Path, work: Path, building: bool) -> float:
    """Seconds from Ctrl+Q to the exit of ``litsift`` on ``home``."""
    term = Terminal(work)
    env = {
        "LITSIFT_HOME": str(home),
        "LITSIFT_EMBED_CACHE_DIR": str(cache),
        "LITSIFT_EMBED_WORKERS": "2",
    }
    try:
        term.start(LITSIFT, env)
        term.wait_for("Search: a full sentence or keyphrases", timeout=120)
        term.type("neural machine translation")
        if building:
            term.wait_for(
                r"dense (?:[1-9][\d,]*/|[1-9]\d*%)", timeout=180
            )  # building dense 4%, or BM25 only, dense 4%
        else:
            term.wait_for(r"\b\d+ results? · ", timeout=60)
            time.sleep(1.0)  # the first results' aspect scoring under way
        term.keys("C-q")
        return term.wait_exit(60)
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--papers", type=int, default=1500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--load", type=int, default=0, help="busy processes beside it")
    args = parser.parse_args()
    busy = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.load)]
    for p in busy:
        p.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            source = papers_file(work, args.papers)
            building, idle = [], []
            indexed = work / "indexed"
            run_litsift(indexed, "ingest", "papers", str(source))
            run_litsift(indexed, "index", "--quiet", env={"LITSIFT_EMBED_CACHE_DIR": tmp})
            for i in range(args.runs):  # alternate, so both see the same load
                home = work / f"fresh-{i}"
                run_litsift(home, "ingest", "papers", str(source))
                building.append(_one(home, work / f"cache-{i}", work, building=True))
                idle.append(_one(indexed, Path(tmp), work, building=False))
    finally:
        for p in busy:
            p.terminate()
    med_b, med_i = statistics.median(building), statistics.median(idle)
    print(f"{args.papers} papers, {args.runs} runs, {args.load} busy processes, pid {os.getpid()}")
    print(f"{'Ctrl+Q -> exit (s)':40s} {'median':>8s} {'max':>8s}")
    print(f"{'during the dense build':40s} {med_b:8.2f} {max(building):8.2f}")
    print(f"{'peer: indexed home, nothing building':40s} {med_i:8.2f} {max(idle):8.2f}")
    print(f"ratio (build / peer, medians): {med_b / med_i:.2f}")


if __name__ == "__main__":
    main()
