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

import sys
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.learner import Fit, LearningOrder, _classifier, balanced_weights


@dataclass(frozen=True, eq=False)
class PseudoOrder(LearningOrder):
    """The default order, trained with the criteria as one more include (a synthetic record:
    its TF-IDF and passage vector; in the fit's extra columns the includes' mean, the
    criteria column's largest value), weight ``pw`` while fewer than ``until`` includes."""

    pseudo: sp.csr_matrix | None = None
    pw: float = 1.0
    until: int = 10**9

    def permuted(self, perm):  # type: ignore[no-untyped-def]
        return pseudo_order(super().permuted(perm), self.pseudo, self.pw, self.until)

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


def pseudo_order(
    order: LearningOrder, pseudo: sp.csr_matrix | None, pw: float, until: int
) -> PseudoOrder:
    """``order``'s features and columns as a :class:`PseudoOrder`."""
    copied = {f.name: getattr(order, f.name) for f in fields(LearningOrder)}
    return PseudoOrder(**copied, pseudo=pseudo, pw=pw, until=until)


#: system -> (weight, until)
SYSTEMS = {
    "base": (0.0, 0),
    "p1": (1.0, 10**9),
    "p3-until5": (3.0, 5),
    "p3": (3.0, 10**9),
}


def variant(setup: SetUp, system: str, params: tuple[float, int]) -> LearningOrder:
    """The default order trained with the criteria as a synthetic include."""
    pw, until = params
    passage = setup.model.encode_passages([setup.criteria])
    row = sp.hstack([setup.criteria_tfidf, sp.csr_matrix(passage * setup.spec.dense_weight)])
    return pseudo_order(setup.base, row.tocsr(), pw, until)


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
