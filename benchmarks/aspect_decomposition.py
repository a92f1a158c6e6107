"""Aspect decomposition vs DORIS-MAE's expert aspects, grade calibration, and coverage re-ranking.

Prints (not a pass/fail test):

1. the calibration of the aspect grade thresholds (``aspect_calibration.calibrate``);
2. issue item 5: over the 40 dev queries, how many expert aspects are matched by an automatic
   aspect (``decompose``) at cosine >= the stated threshold, and how many automatic aspects
   match none; the same counts against another query's expert aspects show the chance level;
3. known-item search: for each dev query, the rank of its best candidate in a pool of the 99
   DORIS-MAE candidate abstracts + ``--papers`` papers sampled from
   ``papers/ml-nlp-papers.jsonl.gz`` (seeded), ranked by brute-force dense similarity of the
   whole query; then the top ``--depth`` re-ranked by aspect coverage (automatic aspects, and
   the expert aspects as a reference) at several blends. MRR@10 and R@10 by ir-measures.

Run: ``python benchmarks/aspect_decomposition.py [--papers 400] [--depth 20]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import time

import ir_measures
import numpy as np
from aspect_calibration import calibrate, load_doris_mae, match_expert_aspects  # benchmarks/
from ir_measures import RR, R

from litsift.models_onnx import load_encoder
from litsift.paths import shared_data_dir
from litsift.search.aspects.coverage import coverage_order
from litsift.search.aspects.decompose import decompose
from litsift.search.aspects.scoring import CALIBRATED_LAMBDA, CALIBRATED_THRESHOLDS, AspectScorer
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Aspect, Paper, Record

DATA = shared_data_dir()
DEV = DATA / "eval" / "doris-mae" / "queries-dev.jsonl"
PAPERS = DATA / "papers" / "ml-nlp-papers.jsonl.gz"
MATCH_THRESHOLDS = (0.5, 0.6, 0.7)
STATED_THRESHOLD = 0.6
BLENDS = (0.0, 0.25, 0.5, 0.75)


def _expert(q) -> list[Aspect]:  # type: ignore[no-untyped-def]
    out = [Aspect(t) for t in q.aspects]
    for i, subs in enumerate(q.sub_aspects):
        out.extend(Aspect(s, parent=i) for s in subs)
    return out


def _papers(n: int, seed: int) -> list[Record]:
    with gzip.open(PAPERS, "rt", encoding="utf-8", newline="\n") as f:
        rows = [json.loads(x) for x in f.read().split("\n") if x.strip()]
    rows = [r for r in rows if r.get("abstract")]
    sample = random.Random(seed).sample(rows, n)
    return [Paper(id=r["id"], title=r["title"], abstract=r["abstract"]) for r in sample]


def _measure(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> str:
    agg = ir_measures.calc_aggregate([RR @ 10, R @ 10, R @ 100], qrels, run)
    return " ".join(f"{k}={v:.3f}" for k, v in sorted(agg.items(), key=lambda kv: str(kv[0])))


def _run(order: list[Record]) -> dict[str, float]:
    return {r.id: float(len(order) - i) for i, r in enumerate(order)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=400, help="papers added to the pool")
    ap.add_argument("--depth", type=int, default=20, help="top-k re-ranked by coverage")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    enc = load_encoder()
    queries, cands = load_doris_mae(DEV)

    t = time.perf_counter()
    cal = calibrate(DEV, enc)
    print(f"== 1. calibration ({time.perf_counter() - t:.1f} s)")
    print(f"   {cal}")
    print(f"   constants in use: thresholds={CALIBRATED_THRESHOLDS} lambda={CALIBRATED_LAMBDA}")

    print("== 2. automatic vs expert aspects (40 dev queries; cosine of query embeddings)")
    autos = [decompose(q.query) for q in queries]
    n_top = sum(1 for a in autos for x in a if x.parent is None)
    print(f"   automatic: {sum(map(len, autos))} aspects ({n_top} sentences + clauses)")
    for label, expert_of in (
        ("expert aspects", lambda q: list(q.aspects)),
        ("expert aspects + sub-aspects", lambda q: [a.text for a in _expert(q)]),
    ):
        for th in MATCH_THRESHOLDS:
            own = [
                match_expert_aspects(a, expert_of(q), enc, th)
                for a, q in zip(autos, queries, strict=True)
            ]
            # chance level: the automatic aspects of query i vs the expert aspects of query i+1
            shifted = queries[1:] + queries[:1]
            chance = [
                match_expert_aspects(a, expert_of(q), enc, th)
                for a, q in zip(autos, shifted, strict=True)
            ]
            ne, nm = sum(m.n_expert for m in own), sum(m.n_expert_matched for m in own)
            na, nu = sum(m.n_auto for m in own), sum(m.n_auto_unmatched for m in own)
            cm = sum(m.n_expert_matched for m in chance)
            cu = sum(m.n_auto_unmatched for m in chance)
            star = " (stated)" if th == STATED_THRESHOLD else ""
            print(
                f"   {label}, threshold {th}{star}: expert matched {nm}/{ne} ({nm / ne:.1%}); "
                f"auto matching none {nu}/{na} ({nu / na:.1%}) | other query's experts: "
                f"matched {cm}/{ne} ({cm / ne:.1%}), auto matching none {cu}/{na} ({cu / na:.1%})"
            )

    print(
        f"== 3. known-item MRR@10: pool = {len(cands)} DORIS-MAE candidates + {args.papers} papers"
    )
    pool: list[Record] = list(cands) + _papers(args.papers, args.seed)
    t = time.perf_counter()
    doc_emb = enc.encode_passages([passage_text(r) for r in pool])
    q_emb = enc.encode_queries([q.query for q in queries])
    print(f"   dense encoding of the pool: {time.perf_counter() - t:.1f} s")
    qrels = {str(q.query_id): {q.best_candidate.id: 1} for q in queries}
    dense_run: dict[str, dict[str, float]] = {}
    top: dict[str, list[Record]] = {}
    for q, qe in zip(queries, q_emb, strict=True):
        order = [pool[i] for i in np.argsort(-(doc_emb @ qe), kind="stable")]
        dense_run[str(q.query_id)] = _run(order)
        top[str(q.query_id)] = order
    print(f"   dense (whole query)                    {_measure(qrels, dense_run)}")
    scorer = AspectScorer(enc)
    t = time.perf_counter()
    for label, aspects_of in (("automatic", lambda q: decompose(q.query)), ("expert", _expert)):
        covs = {
            str(q.query_id): scorer.score(aspects_of(q), top[str(q.query_id)][: args.depth])
            for q in queries
        }
        for blend in BLENDS:
            run = {}
            for qid, order in top.items():
                head = coverage_order(order[: args.depth], covs[qid], blend)
                run[qid] = _run(head + order[args.depth :])
            print(
                f"   {label:9s} aspects, top {args.depth}, blend {blend:.2f}  "
                f"{_measure(qrels, run)}"
            )
        run = {}
        for qid, order in top.items():
            mc = {c.doc_id: c.mean_combined for c in covs[qid]}
            head = sorted(order[: args.depth], key=lambda r: -mc[r.id])
            run[qid] = _run(head + order[args.depth :])
        print(f"   {label:9s} aspects, top {args.depth}, ungraded mean  {_measure(qrels, run)}")
    print(f"   aspect scoring time, all runs: {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
