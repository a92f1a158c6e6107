# ruff: noqa: E501  (progress lines kept whole)
"""Issue 44, not kept: the review's criteria as one more include in every fit (TREC Total
Recall's baseline model trains on the topic as a synthetic relevant document): its TF-IDF in the
records' vocabulary and its passage vector as the features; in the fit's extra columns the
includes' mean, in the criteria column that column's largest value. Weight 1 or 3 x a real
include's sample weight, always or until the 5th include. Against the default order with
criteria on the same seeds and priors; nothing under src/ changes.

    OMP_NUM_THREADS=1 python benchmarks/xp_pseudo/run.py --seeds 5 --runs runs.jsonl

Results: docs/EVALUATION.md, "The criteria as a synthetic include". Resumable.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from litsift.eval.screening import cached_encoder
from litsift.graph.signal import SignalFeatures
from litsift.graph.snowball import set_graph
from litsift.models_onnx import load_encoder
from litsift.review.columns import tfidf_and_query
from litsift.review.data import find_sets, load_criteria, load_review_set
from litsift.review.learner import (
    SCREENING_MODEL,
    Fit,
    LearningOrder,
    _classifier,
    balanced_weights,
    review_spec,
)
from litsift.review.simulate import run_once
from litsift.service.screening import order_encoder, screening_encoder

CRIT = Path(__file__).resolve().parents[1] / "screening_criteria.json"
DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "eval" / "screening"


@dataclass(frozen=True, eq=False)
class PseudoOrder(LearningOrder):
    """The default order, trained with the criteria as one more include (a synthetic record:
    its TF-IDF and passage vector; in the fit's extra columns the includes' mean, the
    criteria column's largest value), weight ``pw`` while fewer than ``until`` includes."""

    pseudo: sp.csr_matrix | None = None
    pw: float = 1.0
    until: int = 10**9

    def permuted(self, perm):  # type: ignore[no-untyped-def]
        b = super().permuted(perm)
        return PseudoOrder(
            **{
                f: getattr(b, f)
                for f in (
                    "spec",
                    "x",
                    "citations",
                    "criteria",
                    "dense",
                    "affinity",
                    "criteria_dense",
                )
            },
            pseudo=self.pseudo,
            pw=self.pw,
            until=self.until,
        )

    def fit(self, labelled, y):  # type: ignore[no-untyped-def]
        base = super().fit(labelled, y)
        rows = np.asarray(labelled, dtype=np.int64)
        labels = np.asarray(y, dtype=np.int64)
        n_inc = int(labels.sum())
        if base.model is None or self.pseudo is None or n_inc >= self.until:
            return base
        x = sp.csr_matrix(base.x)
        width = self.pseudo.shape[1]
        extra = x[:, width:].toarray()
        inc = rows[labels == 1]
        fill = extra[inc].mean(axis=0, keepdims=True)
        if self.criteria_dense is not None:
            fill[0, -1] = extra[:, -1].max()
        s = sp.hstack([self.pseudo, sp.csr_matrix(fill)]).tocsr()
        xt = sp.vstack([x[rows], s]).tocsr()
        yt = np.append(labels, 1)
        w = balanced_weights(labels, self.spec.ratio)
        # the synthetic include weighs pw times a real include's weight
        w = np.append(w, self.pw * w[labels == 1].mean())
        model = _classifier(self.spec)
        model.fit(xt, yt, sample_weight=w)
        return Fit(self, model, x, base.name + " + pseudo")


#: system -> (weight, until)
SYSTEMS = {
    "base": (0.0, 0),
    "p1": (1.0, 10**9),
    "p3-until5": (3.0, 5),
    "p3": (3.0, 10**9),
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
        tfidf, qt = tfidf_and_query(texts, q)
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
            pw, until = SYSTEMS[system]
            if system == "base":
                order = base
            else:
                qp = model.encode_passages([q])
                pseudo = sp.hstack([qt, sp.csr_matrix(qp * spec.dense_weight)]).tocsr()
                order = PseudoOrder(
                    **{
                        f: getattr(base, f)
                        for f in (
                            "spec",
                            "x",
                            "citations",
                            "criteria",
                            "dense",
                            "affinity",
                            "criteria_dense",
                        )
                    },
                    pseudo=pseudo,
                    pw=pw,
                    until=until,
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
