# ruff: noqa: E501  (progress lines kept whole)
"""Issue 44, not kept: a metadata block -- TF-IDF of DOI tokens (registrant, the suffix's
letters and numbers: an Elsevier PII or a BMJ DOI names the journal) and year tokens (year,
5-year and 2-year bins) -- beside the default order with criteria, at weights 0.3 / 0.6 / 1.0
(DOI and year), 0.5 (DOI alone, year alone). Same seeds and priors for every system; nothing
under src/ changes: the block is appended to the order's ``criteria_dense`` columns.

    OMP_NUM_THREADS=1 python benchmarks/xp_meta/run.py --seeds 5 --runs runs.jsonl

Results: docs/EVALUATION.md, "DOI and year as features". Resumable.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from litsift.eval.screening import cached_encoder
from litsift.graph.signal import SignalFeatures
from litsift.graph.snowball import set_graph
from litsift.models_onnx import load_encoder
from litsift.review.columns import tfidf_matrix
from litsift.review.data import find_sets, load_criteria, load_review_set
from litsift.review.learner import SCREENING_MODEL, LearningOrder, review_spec
from litsift.review.simulate import run_once
from litsift.service.screening import order_encoder, screening_encoder

CRIT = Path(__file__).resolve().parents[1] / "screening_criteria.json"
DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "eval" / "screening"


def doi_tokens(doi: object) -> list[str]:
    """``reg_10.1016``, then ``d_<token>`` for each letter/digit run of the suffix."""
    if not doi or doi == "None":
        return []
    reg, _, suf = str(doi).lower().partition("/")
    return ["reg_" + reg] + ["d_" + t for t in re.split(r"[^a-z0-9]+", suf) if t]


def year_tokens(y: object) -> list[str]:
    """The year, its 5-year and 2-year bins."""
    if not y or y == "None":
        return []
    y = int(float(y))
    return [f"y_{y}", f"y5_{y // 5}", f"y2_{y // 2}"]


def meta_block(path: Path, record_ids: tuple[str, ...], kind: str) -> np.ndarray:
    """``(N, V)`` l2-normalised TF-IDF of each record's tokens (min_df 2), in ReviewSet order."""
    rows = {}
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        rows[str(r.get("record_id"))] = r
    docs = []
    for rid in record_ids:
        r = rows[rid]
        t = []
        if "doi" in kind:
            t += doi_tokens(r.get("doi"))
        if "year" in kind:
            t += year_tokens(r.get("year"))
        docs.append(" ".join(t) or "none_")
    return TfidfVectorizer(token_pattern=r"\S+", min_df=2).fit_transform(docs).toarray()


#: system -> (kind, weight)
SYSTEMS = {
    "base": (None, 0.0),
    "both0.3": ("doi+year", 0.3),
    "both0.6": ("doi+year", 0.6),
    "both1.0": ("doi+year", 1.0),
    "doi0.5": ("doi", 0.5),
    "year0.5": ("year", 0.5),
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
        for system, seed in todo:
            kind, wm = SYSTEMS[system]
            if system == "base":
                order = base
            else:
                w = spec.criteria_weight
                meta = meta_block(path, review.record_ids, kind)
                order = replace(
                    base, criteria_dense=np.hstack([base.criteria_dense, meta * (wm / w)])
                )
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
