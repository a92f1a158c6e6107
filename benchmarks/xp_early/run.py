"""Issue 44 scouting for RRF@10 (the includes found in the first 10 % of the screening):
structural changes to the default order with criteria (``tfidf-stem+bge-0.7-nn0.3-lp0.3``),
against it on the same seeds and priors; nothing under src/ changes.

- ``bm25``: the sparse block weighted as BM25 (Robertson & Zaragoza 2009, k1 1.2, b 0.75;
  stemmed unigrams and bigrams, rows of unit length) instead of sublinear TF-IDF: document
  length normalisation the TF-IDF block lacks.
- ``rrf-elas``: reciprocal rank fusion (Cormack et al. 2009, k 60) of the default order's
  ranking with ELAS u4's own (stemmed TF-IDF alone, SVM): ASReview's TF-IDF order wins RRF@10
  on the four reviews litsift loses.
- ``title-0.3``: bge's vectors of the titles alone as one more dense block (weight 0.3).
- ``c0.2``: SVM C 0.2 instead of 0.11; ``r5``: balanced sampling ratio 5 instead of 9.8.

    OMP_NUM_THREADS=1 python benchmarks/xp_early/run.py --seeds 5 --runs runs.jsonl
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.columns import stemmed_terms
from litsift.review.learner import Fit, LearningOrder, OrderSpec, tfidf_matrix


def bm25_matrix(texts: list[str], k1: float = 1.2, b: float = 0.75) -> sp.csr_matrix:
    """``(N, V)`` BM25 weights of stemmed unigrams and bigrams (max_df 0.95), rows L2-normalised."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.preprocessing import normalize

    counts = sp.csr_matrix(
        CountVectorizer(analyzer=stemmed_terms, max_df=0.95).fit_transform(texts), dtype=np.float64
    )
    n = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
    dl = np.asarray(counts.sum(axis=1)).ravel()
    norm = k1 * (1.0 - b + b * dl / max(dl.mean(), 1e-9))
    rows = np.repeat(np.arange(n), np.diff(counts.indptr))
    tf = counts.data
    counts.data = idf[counts.indices] * tf * (k1 + 1.0) / (tf + norm[rows])
    return sp.csr_matrix(normalize(counts))


@dataclass(frozen=True, eq=False)
class FusedFit(Fit):
    """Two fits' rankings fused by reciprocal rank (k 60)."""

    other: Fit | None = None

    def rank(self, pool):  # type: ignore[no-untyped-def]
        rows = np.asarray(pool, dtype=np.int64)
        if self.model is None or self.other is None or self.other.model is None:
            return super().rank(rows)
        score = np.zeros(rows.size)
        for fit in (self, self.other):
            order = np.argsort(-fit.scores(rows), kind="stable")
            ranks = np.empty(rows.size)
            ranks[order] = np.arange(1, rows.size + 1)
            score += 1.0 / (60.0 + ranks)
        return rows[np.argsort(-score, kind="stable")]


@dataclass(frozen=True, eq=False)
class FusedOrder(LearningOrder):
    other: LearningOrder | None = None

    def permuted(self, perm):  # type: ignore[no-untyped-def]
        assert self.other is not None
        return fused(super().permuted(perm), self.other.permuted(perm))

    def fit(self, labelled, y):  # type: ignore[no-untyped-def]
        assert self.other is not None
        a = super().fit(labelled, y)
        b = self.other.fit(labelled, y)
        return FusedFit(a.order, a.model, a.x, a.name + " (rrf)", b)


def fused(order: LearningOrder, other: LearningOrder) -> FusedOrder:
    copied = {f.name: getattr(order, f.name) for f in fields(LearningOrder)}
    return FusedOrder(**copied, other=other)


SYSTEMS: dict[str, Any] = {
    "base": None,
    "bm25": None,
    "rrf-elas": None,
    "title-0.3": 0.3,
    "c0.2": {"c": 0.2},
    "r5": {"ratio": 5.0},
}


def variant(setup: SetUp, system: str, arg: Any) -> LearningOrder:
    spec = setup.spec
    texts = setup.review.texts
    dense = setup.model.encode_passages(texts)
    query = setup.model.encode_queries([setup.criteria])[0]
    cit = setup.base.citations
    if system == "bm25":
        return LearningOrder.from_blocks(spec, bm25_matrix(texts), dense, cit, query)
    if system == "rrf-elas":
        elas = OrderSpec("tfidf-stem-svm", "tfidf", stem=True)
        other = LearningOrder.from_blocks(elas, tfidf_matrix(texts, True), None, None, None)
        return fused(setup.base, other)
    if system == "title-0.3":
        titles = setup.model.encode_passages(
            [t or a[:200] for t, a in zip(setup.review.titles, setup.review.abstracts, strict=True)]
        )
        base = setup.base
        x = sp.csr_matrix(sp.hstack([base.x, sp.csr_matrix(titles * arg)]))
        return replace(base, x=x)
    changed = replace(spec, name=f"{spec.name}/{system}", **arg)
    return LearningOrder.from_blocks(changed, tfidf_matrix(texts, True), dense, cit, query)


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
