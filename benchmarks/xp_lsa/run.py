"""Issue 44 scouting: the review's own latent topics, and the nearest include in word space,
beside the default order with criteria; same seeds and priors; nothing under src/ changes.

bge-small's vectors come from text outside the review; the TF-IDF block counts words, each on
its own. Latent semantic analysis (Deerwester et al. 1990: a truncated SVD of the review's
stemmed TF-IDF matrix) learns which words go together *in this review's records*, so an include
reaches records that share its topic in other words.

- ``lsa-0.5`` / ``lsa-1.0``: the 200 leading LSA dimensions (rows of unit length) as one more
  block, weight 0.5 / 1.0.
- ``lsa-nn0.3``: the highest cosine to an include in LSA space as one more column (0.3), as the
  default's nearest include does in bge's space.
- ``tnn-0.3``: the same in the stemmed TF-IDF space.

    OMP_NUM_THREADS=1 python benchmarks/xp_lsa/run.py --seeds 5 --runs runs.jsonl
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

from litsift.review.columns import neighbour_column
from litsift.review.learner import LearningOrder, tfidf_matrix


def lsa(setup: SetUp, dims: int = 200) -> np.ndarray:
    from sklearn.decomposition import TruncatedSVD
    from sklearn.preprocessing import normalize

    x = tfidf_matrix(setup.review.texts, True)
    k = min(dims, x.shape[0] - 1, x.shape[1] - 1)
    z = TruncatedSVD(n_components=k, random_state=0).fit_transform(x)
    return np.asarray(normalize(z), dtype=np.float32)


@dataclass(frozen=True, eq=False)
class NearOrder(LearningOrder):
    """The default order plus a nearest-include column over ``space`` (unit rows)."""

    space: Any = None
    weight: float = 0.3

    def permuted(self, perm):  # type: ignore[no-untyped-def]
        base = LearningOrder.permuted(self, perm)
        space = self.space[perm]
        return near(base, space, self.weight)

    def fit(self, labelled, y):  # type: ignore[no-untyped-def]
        rows = np.asarray(labelled, dtype=np.int64)
        labels = np.asarray(y, dtype=np.int64)
        inc = rows[labels == 1]
        if sp.issparse(self.space):
            n = self.space.shape[0]
            if inc.size < 2:
                col = np.zeros((n, 1), dtype=np.float32)
            else:
                sims = np.asarray((self.space @ self.space[inc].T).toarray())
                sims[inc, np.arange(inc.size)] = -1.0
                col = (sims.max(axis=1, keepdims=True) * self.weight).astype(np.float32)
        else:
            col = neighbour_column(self.space, inc, self.weight)
        plain = {f.name: getattr(self, f.name) for f in fields(LearningOrder)}
        plain["x"] = sp.csr_matrix(sp.hstack([self.x, sp.csr_matrix(col)]))
        return LearningOrder(**plain).fit(rows, labels)


def near(base: LearningOrder, space: Any, weight: float) -> NearOrder:
    copied = {f.name: getattr(base, f.name) for f in fields(LearningOrder)}
    return NearOrder(**copied, space=space, weight=weight)


SYSTEMS: dict[str, Any] = {
    "base": None,
    "lsa-0.5": 0.5,
    "lsa-1.0": 1.0,
    "lsa-nn0.3": 0.3,
    "tnn-0.3": 0.3,
}


def variant(setup: SetUp, system: str, arg: Any) -> LearningOrder:
    base = setup.base
    if system.startswith("lsa-nn"):
        return near(base, lsa(setup), arg)
    if system.startswith("lsa-"):
        x = sp.csr_matrix(sp.hstack([base.x, sp.csr_matrix(lsa(setup) * arg)]))
        return replace(base, x=x)
    if system.startswith("tnn-"):
        return near(base, tfidf_matrix(setup.review.texts, True), arg)
    raise ValueError(system)


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
