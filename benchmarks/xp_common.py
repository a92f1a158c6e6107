# ruff: noqa: E501  (progress lines kept whole)
"""The driver the issue-44 scouting scripts share (``benchmarks/xp_*/run.py``): the default
order with the review's criteria, as ``litsift eval screening --criteria`` builds it, against
variants of it on the same seeds and priors (:func:`litsift.review.simulate.draw_priors`),
12 shared reviews, resumable run files (``(set, system, seed)`` already in ``--runs`` are
skipped). Nothing under src/ changes: a variant is a :class:`LearningOrder` made from the
default one.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import scipy.sparse as sp

from litsift.eval.screening import cached_encoder
from litsift.graph.signal import SignalFeatures
from litsift.graph.snowball import set_graph
from litsift.models_onnx import Encoder, load_encoder
from litsift.review.columns import tfidf_and_query
from litsift.review.data import ReviewSet, find_sets, load_criteria, load_review_set
from litsift.review.learner import SCREENING_MODEL, LearningOrder, OrderSpec, review_spec
from litsift.review.simulate import run_once
from litsift.service.screening import order_encoder, screening_encoder

CRITERIA = Path(__file__).resolve().parent / "screening_criteria.json"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "eval" / "screening"


@dataclass(frozen=True)
class SetUp:
    """One review's blocks, built once for every variant: the set and its file, the default
    order's spec and encoder, the criteria text, its TF-IDF row (``(1, V)``) and the default
    order itself (``base``)."""

    review: ReviewSet
    path: Path
    spec: OrderSpec
    model: Encoder
    criteria: str
    criteria_tfidf: sp.csr_matrix
    base: LearningOrder


def set_up(path: Path, criteria: str, spec: OrderSpec, home: Encoder) -> SetUp:
    """The default order with criteria over ``path``'s records, as ``eval screening`` builds it."""
    review = load_review_set(path)
    texts = review.texts
    tfidf, query_tfidf = tfidf_and_query(texts, criteria, spec.stem)
    model = order_encoder(spec, home)
    vectors = model.encode_passages(texts)
    query = model.encode_queries([criteria])[0]
    citations = None
    if review.references:
        citations = SignalFeatures(
            set_graph(review.openalex_ids, review.references), list(range(review.labels.size))
        )
    base = LearningOrder.from_blocks(spec, tfidf, vectors, citations, query)
    assert base.criteria_dense is not None and query_tfidf is not None
    return SetUp(review, path, spec, model, criteria, query_tfidf, base)


def run_variants(
    systems: Mapping[str, Any], variant: Callable[[SetUp, str, Any], LearningOrder]
) -> None:
    """Parse ``--seeds --runs --sets --systems``, then simulate each system (``"base"``: the
    default order; any other: ``variant(setup, name, systems[name])``) on each set and seed,
    smallest set first, one JSON line per run appended to ``--runs``."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--runs", type=Path, required=True)
    ap.add_argument("--sets", nargs="*")
    ap.add_argument("--systems", nargs="*", default=list(systems))
    args = ap.parse_args()
    done = set()
    if args.runs.is_file():
        for line in args.runs.read_text().splitlines():
            r = json.loads(line)
            done.add((r["set"], r["system"], r["seed"]))
    criteria = load_criteria(CRITERIA)
    home = cached_encoder(load_encoder())
    spec = review_spec(screening_encoder(home).spec.model_id)
    assert spec.encoder == SCREENING_MODEL and spec.criteria_weight == 0.5, spec
    paths = sorted(find_sets(DATA, args.sets or None), key=lambda p: load_review_set(p).labels.size)
    t0 = time.perf_counter()
    for path in paths:
        name = load_review_set(path).name
        todo = [(s, k) for s in args.systems for k in range(args.seeds) if (name, s, k) not in done]
        if not todo:
            continue
        setup = set_up(path, criteria[name], spec, home)
        for system, seed in todo:
            order = setup.base if system == "base" else variant(setup, system, systems[system])
            run = run_once(setup.review, system, seed, order)
            row = {
                "set": name,
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
                f"{time.perf_counter() - t0:7.0f}s {name} {system} seed {seed}: "
                f"WSS@95 {100 * row['WSS@95']:.1f} RRF@10 {100 * row['RRF@10']:.1f} ({run.elapsed_s:.1f} s)",
                flush=True,
            )
