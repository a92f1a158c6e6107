# ruff: noqa: E501  (markdown table rows and progress lines kept whole)
"""Step 2: the default order with the review's criteria (as ``litsift eval screening
--criteria`` builds it), against variants whose criteria column is the cross-encoder's score
(ms-marco-MiniLM-L-12-v2 int8, criteria as query vs title + abstract) instead of, or beside,
bge-small's query cosine. Same seeds / priors (``draw_priors``) for every system; nothing in
src/ is changed: the variant replaces the order's ``criteria_dense`` (the column each fit
appends, times ``spec.criteria_weight``) with the cross-encoder column, centred at its median
and scaled to a largest absolute value of 1 like ``criteria_column``.

    OMP_NUM_THREADS=1 python benchmarks/xp_cross/run.py --seeds 5 --runs benchmarks/xp_cross/runs.jsonl

Needs the cross-encoder scores of step1.py in /tmp/xp_cross/scores_<set>.npy. Resumable:
(set, system, seed) already in --runs are skipped.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from litsift.eval.screening import cached_encoder
from litsift.graph.signal import SignalFeatures
from litsift.graph.snowball import set_graph
from litsift.models_onnx import load_encoder
from litsift.review.columns import tfidf_matrix
from litsift.review.data import find_sets, load_criteria, load_review_set
from litsift.review.learner import SCREENING_MODEL, LearningOrder, review_spec
from litsift.review.simulate import run_once
from litsift.service.screening import order_encoder, screening_encoder

DATA = Path("/work/shared/data/eval/screening")
CRIT = Path(__file__).resolve().parents[1] / "screening_criteria.json"
CACHE = Path("/tmp/xp_cross")


def scaled(s: np.ndarray) -> np.ndarray:
    """criteria_column's centring and scaling: minus the median, / the largest |value|."""
    s = np.asarray(s, dtype=np.float64).ravel()
    s = s - float(np.median(s))
    top = float(np.abs(s).max())
    return (s / top if top > 0 else np.zeros_like(s)).reshape(-1, 1)


#: system -> (bge column scale, cross column scale), both as the fit's column value
#: (the default order multiplies criteria_dense by spec.criteria_weight = 0.5)
SYSTEMS = {
    "base": (0.5, 0.0),  # the default order with criteria: bge column at 0.5
    "rep0.5": (0.0, 0.5),  # cross replaces bge, same weight
    "rep1.0": (0.0, 1.0),  # cross replaces bge, 2x
    "add0.25": (0.5, 0.25),  # bge 0.5 + cross 0.25 beside it
    "add0.5": (0.5, 0.5),  # bge 0.5 + cross 0.5 beside it
    "add1.0": (0.5, 1.0),  # bge 0.5 + cross 1.0 beside it
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--runs", type=Path, required=True)
    ap.add_argument("--sets", nargs="*")
    ap.add_argument("--systems", nargs="*", default=list(SYSTEMS))
    args = ap.parse_args()
    done = set()
    if args.runs.is_file():
        for line in args.runs.read_text().splitlines():
            r = json.loads(line)
            done.add((r["set"], r["system"], r["seed"]))
    criteria = load_criteria(CRIT)
    home = cached_encoder(load_encoder())
    bge = screening_encoder(home)
    spec = review_spec(bge.spec.model_id)
    assert bge.spec.model_id == SCREENING_MODEL and spec.criteria_weight == 0.5, spec
    paths = sorted(find_sets(DATA, args.sets or None), key=lambda p: load_review_set(p).labels.size)
    t0 = time.perf_counter()
    for path in paths:
        review = load_review_set(path)
        todo = [
            (s, k)
            for s in args.systems
            for k in range(args.seeds)
            if (review.name, s, k) not in done
        ]
        if not todo:
            continue
        texts = review.texts
        q = criteria[review.name]
        # exactly as eval/screening.py _run_set builds the litsift system with --criteria
        tfidf = tfidf_matrix(texts)
        model = order_encoder(spec, home)
        vectors = model.encode_passages(texts)
        query = model.encode_queries([q])[0]
        citations = None
        if review.references:
            citations = SignalFeatures(
                set_graph(review.openalex_ids, review.references), list(range(review.labels.size))
            )
        base = LearningOrder.from_blocks(spec, tfidf, vectors, citations, query)
        assert base.criteria_dense is not None
        cross = scaled(np.load(CACHE / f"scores_{review.name}.npy"))
        assert cross.shape == base.criteria_dense.shape
        for system, seed in todo:
            wb, wc = SYSTEMS[system]
            if system == "base":
                order = base
            else:
                w = spec.criteria_weight  # the fit multiplies criteria_dense by this
                cols = []
                if wb:
                    cols.append(base.criteria_dense * (wb / w))
                if wc:
                    cols.append(cross * (wc / w))
                order = replace(base, criteria_dense=np.hstack(cols))
            run = run_once(review, system, seed, order)
            row = {
                "set": review.name,
                "system": system,
                "seed": seed,
                "WSS@95": run.measures["WSS@95"],
                "RRF@10": run.measures["RRF@10"],
                "ATD/M": run.measures["ATD/M"],
                "seconds": run.elapsed_s,
                "fits": run.fits,
                "priors": list(run.prior_ids),
            }
            with args.runs.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(
                f"{time.perf_counter() - t0:7.0f}s {review.name} {system} seed {seed}: "
                f"WSS@95 {100 * row['WSS@95']:.1f} RRF@10 {100 * row['RRF@10']:.1f} ({run.elapsed_s:.1f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
