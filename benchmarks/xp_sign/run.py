"""Issue 44 scouting: the default order with criteria, but a column that stands for a prior
belief (the criteria's cosine, the nearest include, label spreading, the citation links to
the includes: each is larger for a likelier include by construction) may not get a negative
weight. With two includes and one exclude the SVM can learn any sign: on Cohen 2006 Urinary
Incontinence seed 0 the first include is the one least like the criteria (2nd percentile), the
criteria column's weight comes out -0.12, and the next 54 records screened are the ones least
like the review's question (RRF@10 2.6 against 46.2 on the other seeds). Here a column whose
weight comes out negative is zeroed and the model fitted again. Against the default order on
the same seeds and priors; nothing under src/ changes.

    OMP_NUM_THREADS=1 python benchmarks/xp_sign/run.py --seeds 5 --runs runs.jsonl
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
class SignOrder(LearningOrder):
    """The default order; the last ``last`` extra columns of a fit (criteria, spreading,
    nearest include, citations, counted from the end) may not weigh negative."""

    last: int = 1

    def permuted(self, perm):  # type: ignore[no-untyped-def]
        return sign_order(super().permuted(perm), self.last)

    def fit(self, labelled, y):  # type: ignore[no-untyped-def]
        base = super().fit(labelled, y)
        if base.model is None:
            return base
        width = self.x.shape[1]
        extra = base.x.shape[1] - width
        k = min(self.last, extra)
        coef = base.model.coef_.ravel()[base.x.shape[1] - k :]
        bad = np.flatnonzero(coef < 0)
        if bad.size == 0:
            return base
        mask = np.ones(base.x.shape[1])
        mask[base.x.shape[1] - k + bad] = 0.0
        x = sp.csr_matrix(sp.csr_matrix(base.x) @ sp.diags(mask))
        rows = np.asarray(labelled, dtype=np.int64)
        labels = np.asarray(y, dtype=np.int64)
        model = _classifier(self.spec)
        model.fit(x[rows], labels, sample_weight=balanced_weights(labels, self.spec.ratio))
        return Fit(self, model, x, base.name + " (signs)")


def sign_order(order: LearningOrder, last: int) -> SignOrder:
    """``order``'s features and columns as a :class:`SignOrder`."""
    copied = {f.name: getattr(order, f.name) for f in fields(LearningOrder)}
    return SignOrder(**copied, last=last)


#: system -> how many trailing extra columns are kept non-negative
SYSTEMS = {"base": 0, "sign-crit": 1, "sign-all": 99}


def variant(setup: SetUp, system: str, last: int) -> LearningOrder:
    """The default order with sign-constrained belief columns."""
    return sign_order(setup.base, last)


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
