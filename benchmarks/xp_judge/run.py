"""Issue 44, a what-if: how much would a judge that reads each record against the review's
criteria (an LLM asked "include or exclude?") move the screening, if its errors were
independent of the record? The judge is simulated as a noisy oracle with a given sensitivity
(includes it calls include) and specificity (excludes it calls exclude), drawn anew for each
seed's shuffle, and its verdict (+1 / -1) is one more column of every fit of the default order
with criteria (weight ``w``); before the first include the records are ranked by the verdict,
then by the criteria's TF-IDF cosine. Real LLM errors are not independent (a judge misses
the includes that are hard for everyone), so these are upper figures for a judge of that
sensitivity and specificity. Against the default order with criteria on the same seeds and
priors; nothing under src/ changes.

    OMP_NUM_THREADS=1 python benchmarks/xp_judge/run.py --seeds 5 --runs runs.jsonl

Published LLM title/abstract screening figures to set these against: GPT-4 sensitivity 0.76
and specificity 0.91 over six reviews (Guo et al. 2024, JMIR 26:e48996); sensitivity near
0.9-0.97 at specificity 0.6-0.8 when the prompt leans to inclusion (Khraisha et al. 2024;
Syriani et al. 2024). Resumable.
"""

from __future__ import annotations

import sys
import zlib
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.learner import Fit, LearningOrder


@dataclass(frozen=True, eq=False)
class JudgedOrder(LearningOrder):
    """The default order with a simulated judge's verdicts as one more column."""

    labels: np.ndarray | None = None  # (N,) true labels, rows as x's
    sens: float = 0.9
    spec_: float = 0.8
    w: float = 0.5
    verdict: np.ndarray | None = None  # (N,) +1 / -1 once drawn
    #: errors where the criteria say least (misses: the includes least like the criteria;
    #: false includes: the excludes most like them) instead of at random
    correlated: bool = False

    def permuted(self, perm):  # type: ignore[no-untyped-def]
        base = super().permuted(perm)
        assert self.labels is not None
        y = self.labels[perm]
        seed = zlib.crc32(perm[:16].tobytes())
        rng = np.random.default_rng(seed)
        u = rng.random(y.size)
        if self.correlated and base.criteria_dense is not None:
            # each class's records ranked by the criteria cosine (ties broken at random): the
            # includes' lowest (1 - sens) and the excludes' highest (1 - spec) are judged wrong
            c = base.criteria_dense.ravel() + 1e-9 * u
            u = np.empty(y.size)
            for label in (0, 1):
                idx = np.flatnonzero(y == label)
                ranks = np.argsort(np.argsort(-c[idx] if label else c[idx]))
                u[idx] = (ranks + 0.5) / idx.size  # near 0: the record the judge gets right
        verdict = np.where(
            y == 1, np.where(u < self.sens, 1.0, -1.0), np.where(u < self.spec_, -1.0, 1.0)
        )
        crit = base.criteria
        if crit is not None:  # before the first fit: the verdict first, then the criteria
            crit = verdict * 10.0 + crit
        else:
            crit = verdict
        copied = {f.name: getattr(base, f.name) for f in fields(LearningOrder)}
        copied["criteria"] = crit
        return JudgedOrder(
            **copied,
            labels=y,
            sens=self.sens,
            spec_=self.spec_,
            w=self.w,
            verdict=verdict,
            correlated=self.correlated,
        )

    def fit(self, labelled, y):  # type: ignore[no-untyped-def]
        base = super().fit(labelled, y)
        if base.model is None or self.verdict is None:
            return base
        x = sp.csr_matrix(sp.hstack([base.x, sp.csr_matrix(self.verdict[:, None] * self.w)]))
        rows = np.asarray(labelled, dtype=np.int64)
        labels = np.asarray(y, dtype=np.int64)
        from litsift.review.learner import _classifier, balanced_weights

        model = _classifier(self.spec)
        model.fit(x[rows], labels, sample_weight=balanced_weights(labels, self.spec.ratio))
        return Fit(self, model, x, base.name + " + judge")


#: system -> (sensitivity, specificity, weight[, errors correlated with the criteria])
SYSTEMS = {
    "base": None,
    "j76-91-w0.5": (0.76, 0.91, 0.5),
    "j76-91-w1": (0.76, 0.91, 1.0),
    "j95-70-w0.5": (0.95, 0.70, 0.5),
    "j95-70-w1": (0.95, 0.70, 1.0),
    "j70-70-w0.5": (0.70, 0.70, 0.5),
    "j76-91-w0.5-corr": (0.76, 0.91, 0.5, True),
    "j95-70-w0.5-corr": (0.95, 0.70, 0.5, True),
    "j76-91-w0.3": (0.76, 0.91, 0.3),
    "j95-70-w0.3": (0.95, 0.70, 0.3),
    "j76-91-w0.3-corr": (0.76, 0.91, 0.3, True),
    "j95-70-w0.3-corr": (0.95, 0.70, 0.3, True),
    "j76-91-w0.15": (0.76, 0.91, 0.15),
    "j95-70-w0.15": (0.95, 0.70, 0.15),
    "j76-91-w0.15-corr": (0.76, 0.91, 0.15, True),
    "j95-70-w0.15-corr": (0.95, 0.70, 0.15, True),
}


def variant(setup: SetUp, system: str, params: tuple) -> LearningOrder:  # type: ignore[type-arg]
    """The default order with a simulated judge column."""
    sens, spec, w = params[:3]
    correlated = len(params) > 3 and params[3]
    base = setup.base
    # eval screening ranks by the criteria's TF-IDF cosine before the first include
    q = setup.criteria_tfidf
    tfidf_rows = base.x[:, : q.shape[1]]
    sims = np.asarray((tfidf_rows @ q.T).toarray(), dtype=np.float64).ravel()
    base = replace(base, criteria=sims)
    copied = {f.name: getattr(base, f.name) for f in fields(LearningOrder)}
    return JudgedOrder(
        **copied, labels=setup.review.labels, sens=sens, spec_=spec, w=w, correlated=correlated
    )


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
