"""The citation signal in search (``[search] citation_signal``), measured before it is a default.

Usage (from the repository root, with ../shared/data beside it)::

    LITSIFT_EMBED_CACHE_DIR=/path/to/cache python benchmarks/citation_search.py --seeds 10

On each screening set that carries references (``referenced_works``: the four OpenAlex-built
sets of ``shared/data/eval/screening``) a home is made of the set's records (``litsift review
new``, which keeps their citation edges) and indexed (BM25 + dense). Per seed: one random
included record is the query (query by example: its title), 1-3 other random included records
are kept (label keep), and the remaining included records are the relevant ones; the query
record and the kept ones are left out of the run. The same query runs through the home's
pipeline without the signal and with it at each weight of ``--weights``; Recall@20, Recall@50
and nDCG@10 are compared paired over sets x seeds (:func:`litsift.eval.measures.paired_test`).

The weight is chosen on the tune seeds (``--tune-seeds``, 100 and up) and reported on the test
seeds (0 and up), both on the same four sets: the test seeds draw other queries and kept sets,
not other reviews. ``--mixed`` puts all four sets in one library and keeps 1-3 includes of the
query's set (``on``) or of another set (``off``: kept papers of another topic). It prints
numbers (and ``--json``) and asserts nothing.

Measured 2026-11-26 (default pipeline: BM25 + MiniLM interpolation, k0 100, k 50; 4 sets x 10
test seeds = 40 pairs; percent):

=============  =====  =====  =======
system         R@20   R@50   nDCG@10
=============  =====  =====  =======
baseline       15.0   29.9   24.9
w=0.25         18.2   36.4   31.7
w=0.5          24.0   37.2   35.1
w=1 (default)  24.9   37.4   37.3
=============  =====  =====  =======

w=1 against the baseline: +9.9 (p 0.0002, 21 wins / 4 losses), +7.5 (p 0.0002, 26/7), +12.4
(p 0.0004, 29/7). Tune seeds: w=1 over w=0.5 R@20 +1.3 (p 0.014), R@50 +0.2, nDCG@10 +0.2.
Mixed library (2,458 records), w=1: kept on the topic R@20 15.9 -> 24.3, R@50 31.0 -> 37.3,
nDCG@10 25.7 -> 37.3 (p <= 0.0006); kept off the topic: no change at any weight (none of their
linked papers reached the query's 100 candidates).

2026-11-30, the signal gated by the query (``--gate``; docs/EVALUATION.md, "Citations"), w=1,
test seeds: ungated (``--gate off``) 24.9 / 37.2 / 37.8, gated 0.5 (the default) 23.0 / 35.8 /
35.0, 0.75 23.5 / 36.0 / 35.2, 0 (linear) 22.2 / 35.6 / 34.8; search alone 15.4 / 30.0 / 24.9.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from litsift.eval.measures import paired_test, per_query
from litsift.paths import get_paths, shared_data_dir
from litsift.search.pipeline import SearchPipeline
from litsift.search.retrieval import citation_stage
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Label, Query

SETS = ("Donners_2021", "Meijboom_2021", "Nelson_2002", "Oud_2018")
MEASURES = ("R@20", "R@50", "nDCG@10")
#: hits per search (the TUI lists 50)
K = 50


def _read_set(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _doc_ids(svc: LitsiftService) -> dict[str, str]:
    """OpenAlex W-id -> stored paper id."""
    rows = svc.store._conn.execute(
        "SELECT value, doc_id FROM record_ids WHERE kind = 'paper' AND scheme = 'openalex'"
    ).fetchall()
    return {str(w): str(d) for w, d in rows}


def _draw(included: list[str], seed: int) -> tuple[str, list[str], set[str]]:
    """(query record, kept records, relevant records) of one seed."""
    rng = np.random.default_rng(seed)
    order = [included[int(i)] for i in rng.permutation(len(included))]
    n_kept = int(rng.integers(1, 4))
    query, kept = order[0], order[1 : 1 + n_kept]
    return query, kept, set(order[1 + n_kept :])


def run_set(
    name: str, data: Path, home: Path, weights: list[float], seeds: list[int]
) -> dict[str, Any]:
    """Per seed: ``{system: {measure: value}}`` for ``baseline`` and each ``w=…``."""
    path = data / "eval" / "screening" / f"{name}.jsonl.gz"
    records = _read_set(path)
    with LitsiftService(get_paths(home / name)) as svc:
        t = time.perf_counter()
        svc.reviews.create(name.lower().replace("_", "-"), [path], labels="none")
        svc.build_index(Kind.PAPER)
        built = time.perf_counter() - t
        ids = _doc_ids(svc)
        title = {ids[r["openalex_id"]]: r["title"] for r in records if r["openalex_id"] in ids}
        included = sorted(
            {
                ids[r["openalex_id"]]
                for r in records
                if int(r["label_included"]) and r["openalex_id"] in ids
            }
        )
        base = svc.config.search
        systems = {"baseline": replace(base, citation_signal=False)}
        for w in weights:
            systems[f"w={w:g}"] = replace(base, citation_signal=True, citation_weight=w)
        pipelines = {
            s: SearchPipeline(cfg, svc.searchers, svc.store, lambda: None, svc.rq.search)
            for s, cfg in systems.items()
        }
        runs: dict[str, dict[str, dict[str, float]]] = {s: {} for s in systems}
        qrels: dict[str, dict[str, int]] = {}
        linked_in_top: list[int] = []
        for seed in seeds:
            query_id, kept, relevant = _draw(included, seed)
            for doc_id in svc.triage.labelled_ids(Kind.PAPER):
                svc.set_label(Kind.PAPER, doc_id, None)
            for doc_id in kept:
                svc.set_label(Kind.PAPER, doc_id, Label.KEEP)
            qid = f"{name}/{seed}"
            qrels[qid] = {d: 1 for d in relevant}
            out = {query_id, *kept}
            for s, pipeline in pipelines.items():
                hits = pipeline.search(Query(title[query_id], Kind.PAPER, k=K)).hits
                shown = [h for h in hits if h.docid not in out]
                runs[s][qid] = {h.docid: float(K - i) for i, h in enumerate(shown)}
                if s != "baseline":
                    linked_in_top.append(sum("kept" in h.signals for h in hits[:20]))
        qids = list(qrels)
        values = {s: per_query(MEASURES, qrels, run, qids) for s, run in runs.items()}
    return {
        "qids": qids,
        "values": {s: {m: v.tolist() for m, v in vals.items()} for s, vals in values.items()},
        "records": len(records),
        "included": len(included),
        "index_s": round(built, 1),
        "linked_in_top20_mean": float(np.mean(linked_in_top)) if linked_in_top else 0.0,
    }


def run_mixed(
    names: list[str], data: Path, home: Path, weights: list[float], seeds: list[int]
) -> dict[str, Any]:
    """One library of every set's records (several topics, like a user's store). Per set and
    seed, the query and the relevant records as in :func:`run_set`, searched twice: with 1-3
    kept records of the query's own set (``on``) and of another random set (``off``: the
    user kept papers of another topic); ``baseline`` is the search with nothing kept."""
    paths = [data / "eval" / "screening" / f"{n}.jsonl.gz" for n in names]
    records = {n: _read_set(p) for n, p in zip(names, paths, strict=True)}
    with LitsiftService(get_paths(home / "mixed")) as svc:
        t = time.perf_counter()
        svc.reviews.create("mixed", paths, labels="none")
        svc.build_index(Kind.PAPER)
        built = time.perf_counter() - t
        ids = _doc_ids(svc)
        title: dict[str, str] = {}
        included: dict[str, list[str]] = {}
        for n, recs in records.items():
            title |= {ids[r["openalex_id"]]: r["title"] for r in recs if r["openalex_id"] in ids}
            included[n] = sorted(
                {
                    ids[r["openalex_id"]]
                    for r in recs
                    if int(r["label_included"]) and r["openalex_id"] in ids
                }
            )
        base = svc.config.search
        systems = {"baseline": replace(base, citation_signal=False)}
        for w in weights:
            systems[f"w={w:g}"] = replace(base, citation_signal=True, citation_weight=w)
        pipelines = {
            s: SearchPipeline(cfg, svc.searchers, svc.store, lambda: None, svc.rq.search)
            for s, cfg in systems.items()
        }
        runs: dict[str, dict[str, dict[str, float]]] = {}
        qrels: dict[str, dict[str, int]] = {}
        linked: dict[str, list[int]] = {}  # hits carrying the signal among the top K
        for n in names:
            for seed in seeds:
                query_id, kept, relevant = _draw(included[n], seed)
                rng = np.random.default_rng(10_000 + seed)
                other = [m for m in names if m != n][int(rng.integers(len(names) - 1))]
                off_kept = [included[other][int(i)] for i in rng.permutation(len(included[other]))]
                qid = f"{n}/{seed}"
                qrels[qid] = {d: 1 for d in relevant}
                for cond, keep in (("on", kept), ("off", off_kept[: len(kept)])):
                    for doc_id in svc.triage.labelled_ids(Kind.PAPER):
                        svc.set_label(Kind.PAPER, doc_id, None)
                    for doc_id in keep:
                        svc.set_label(Kind.PAPER, doc_id, Label.KEEP)
                    out = {query_id, *kept, *keep}
                    for s, pipeline in pipelines.items():
                        name = s if s == "baseline" else f"{s} {cond}"
                        if s == "baseline" and cond == "off":
                            continue
                        hits = pipeline.search(Query(title[query_id], Kind.PAPER, k=K)).hits
                        shown = [h for h in hits if h.docid not in out]
                        moved = sum("kept" in h.signals for h in hits)
                        linked.setdefault(name, []).append(moved)
                        run = runs.setdefault(name, {})
                        run[qid] = {h.docid: float(K - i) for i, h in enumerate(shown)}
        qids = list(qrels)
        values = {s: per_query(MEASURES, qrels, run, qids) for s, run in runs.items()}
    return {
        "qids": qids,
        "values": {s: {m: v.tolist() for m, v in vals.items()} for s, vals in values.items()},
        "records": sum(len(r) for r in records.values()),
        "index_s": round(built, 1),
        "linked_in_top50_mean": {s: float(np.mean(v)) for s, v in linked.items()},
    }


def compare(
    per_set: dict[str, dict[str, Any]], systems: list[str], seeds: list[int]
) -> dict[str, Any]:
    """Means (percent) and paired tests against ``baseline`` over every set x seed of
    ``seeds``."""

    def column(s: str, m: str) -> np.ndarray:
        parts = []
        for r in per_set.values():
            keep = [int(q.rsplit("/", 1)[1]) in seeds for q in r["qids"]]
            parts.append(np.asarray(r["values"][s][m])[keep])
        return np.concatenate(parts)

    out: dict[str, Any] = {}
    for s in ["baseline", *systems]:
        out[s] = {}
        for m in MEASURES:
            vals = column(s, m)
            out[s][m] = round(100 * float(vals.mean()), 1)
            if s != "baseline":
                t = paired_test(vals, column("baseline", m))
                out[s][f"{m} diff"] = round(100 * t.diff, 1)
                out[s][f"{m} p"] = round(t.p_value, 4)
                out[s][f"{m} wins/losses"] = f"{t.wins}/{t.losses}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="test seeds 0..N-1")
    parser.add_argument("--tune-seeds", type=int, default=10, help="tune seeds 100..100+N-1")
    parser.add_argument("--weights", default="0.25,0.5,1")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--data", type=Path, default=shared_data_dir())
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--mixed", action="store_true", help="one library of all sets, kept on / off topic"
    )
    parser.add_argument(
        "--gate",
        default=None,
        help="the kept papers' full share of the candidates (citation_stage.KEPT_FULL_SHARE; "
        "default: the code's), or 'off': every linked candidate at full weight (before 11-30)",
    )
    args = parser.parse_args()
    if args.gate == "off":
        citation_stage.kept_strength = lambda pool, links, full=None: dict.fromkeys(links, 1.0)
    elif args.gate is not None:
        citation_stage.KEPT_FULL_SHARE = float(args.gate)
    weights = [float(w) for w in args.weights.split(",")]
    systems = [f"w={w:g}" for w in weights]
    tune_seeds = list(range(100, 100 + args.tune_seeds))
    test_seeds = list(range(args.seeds))
    t0 = time.perf_counter()
    report: dict[str, Any] = {"sets": {}}
    if args.mixed:
        with tempfile.TemporaryDirectory() as tmp:
            mixed = run_mixed(args.sets.split(","), args.data, Path(tmp), weights, test_seeds)
        names = [f"{s} {c}" for s in systems for c in ("on", "off")]
        report = {"mixed": mixed, "test_summary": compare({"mixed": mixed}, names, test_seeds)}
        report["elapsed_s"] = round(time.perf_counter() - t0, 1)
        for s, row in report["test_summary"].items():
            print(f"  {s:<13} " + "  ".join(f"{k} {v}" for k, v in row.items()))
        print("hits with the signal in the top 50:", mixed["linked_in_top50_mean"])
        if args.json is not None:
            args.json.write_text(json.dumps(report, indent=1))
        return
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sets.split(","):
            seeds = tune_seeds + test_seeds
            report["sets"][name] = run_set(name, args.data, Path(tmp), weights, seeds)
            print(f"{name}: done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    report["tune_summary"] = compare(report["sets"], systems, tune_seeds)
    report["test_summary"] = compare(report["sets"], systems, test_seeds)
    report["elapsed_s"] = round(time.perf_counter() - t0, 1)
    for part in ("tune_summary", "test_summary"):
        print(part)
        for s, row in report[part].items():
            print(f"  {s:<9} " + "  ".join(f"{k} {v}" for k, v in row.items()))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
