"""Latency of dataset queries: each stage of the dataset pipeline, with bm25s as the peer.

On the DataFinder eval home (3,294 datasets + the 19.6K papers as evidence, embedded; built by
``litsift eval datafinder`` or ``benchmarks/run_eval.py datafinder`` on first use), the
DataFinder queries (full-sentence and keyphrase, with their year bounds) are run through
``service.search`` (k = 10, k0 = 100, query encoding included) under five settings:

1. ``hybrid``: BM25 + dense only (no evidence from papers);
2. ``+ papers``: + usage profiles + popularity prior (round 5 default);
3. ``+ ranker, pool 100``: + the learned re-ranker over the fused top 100 (rounds 6-12);
4. ``+ ranker``: the same over the top ``search.dataset_ranker_pool`` (300, round 13; the
   retrievers then fetch 300 each): the default;
5. the bm25s peer over the same dataset text (tokenise + score + top k, year filter as
   ``weight_mask``) -- the floor any lexical-only search pays.

Each setting runs every query once to warm up, then once timed; printed: p50 / p95 in ms and
the ratio of each p50 to the bm25s peer's, all measured in the same run.

Usage::

    python benchmarks/dataset_latency.py [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from litsift.config import Config
from litsift.eval.cli_support import default_data_dir
from litsift.eval.loaders import load_benchmark
from litsift.eval.peer import PeerBM25
from litsift.eval.runner import _years, eval_home, prepare_home
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=None, help="queries per query type")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    bench = load_benchmark("datafinder", args.data or default_data_dir())
    home = eval_home(bench)
    svc, _ = prepare_home(bench, home)
    queries = [q for s in bench.query_sets for q in s.queries[: args.limit]]
    base = Config()
    settings = {
        "hybrid": replace(
            base.search,
            dataset_usage_weight=0.0,
            dataset_popularity_weight=0.0,
            dataset_ranker=False,
        ),
        "+ papers": replace(base.search, dataset_ranker=False),
        "+ ranker, pool 100": replace(base.search, dataset_ranker_pool=100),
        "+ ranker (default)": base.search,
    }
    results: dict[str, dict[str, float]] = {}
    for name, search in settings.items():
        s = LitsiftService(
            get_paths(home), config=replace(base, search=search), encoder=svc.encoder
        )
        times: list[float] = []
        for timed in (False, True):
            for q in queries:
                t0 = time.perf_counter()
                s.search(Query(q.text, Kind.DATASET, _years(q), 10, 100))
                if timed:
                    times.append(1000 * (time.perf_counter() - t0))
        s.close()
        results[name] = {"p50": statistics.median(times), "p95": pct(times, 95)}
    peer = PeerBM25(svc.store, Kind.DATASET)
    times = []
    for timed in (False, True):
        for q in queries:
            t0 = time.perf_counter()
            peer.search(q.text, _years(q), 10)
            if timed:
                times.append(1000 * (time.perf_counter() - t0))
    results["bm25s peer"] = {"p50": statistics.median(times), "p95": pct(times, 95)}
    floor = results["bm25s peer"]["p50"]
    print(
        f"{len(queries)} DataFinder queries, {svc.counts()[Kind.DATASET]:,} datasets, "
        f"{svc.counts()[Kind.PAPER]:,} papers; k 10, k0 100"
    )
    print(f"{'setting':22s} {'p50 ms':>8s} {'p95 ms':>8s} {'p50 / bm25s':>12s}")
    for name, r in results.items():
        print(f"{name:22s} {r['p50']:8.2f} {r['p95']:8.2f} {r['p50'] / floor:12.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
