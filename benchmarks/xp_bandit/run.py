"""Issue 44 scouting: choose among several orders *during* the screening (a bandit over orders),
against the default order with criteria, same seeds and priors; nothing under src/ changes.

The nested selection chooses one order for every review; the oracle that picks the best of 32
orders per review after the fact is ahead of ASReview by +12.2 WSS@95 / +9.5 RRF@10
(docs/EVALUATION.md, "Held out"), and ASReview's TF-IDF order wins RRF@10 on the four reviews
litsift loses. Here every fit fits each arm's order, and the records to screen are drawn
team-draft style (Radlinski et al. 2008, "How does clickthrough data reflect retrieval
quality?"): at each position an arm is chosen by Thompson sampling over Beta(includes + a,
excludes + b) of the records it put forward (Chapelle & Li 2011), and it contributes its best
record not yet taken. An arm whose best remaining record is the same record shares the credit,
so arms that agree learn nothing about each other and only their disagreements count.

- ``b-elas``: the default and ELAS u4's kind of order (stemmed TF-IDF alone, SVM), default's
  prior Beta(2, 1), the other's Beta(1, 1).
- ``b-elas-surf``: the same with ASReview's own surface-word TF-IDF as the second arm.
- ``b-3``: the default, stemmed ELAS and the bge-only SVM (criteria column kept).

    OMP_NUM_THREADS=1 python benchmarks/xp_bandit/run.py --seeds 5 --runs runs.jsonl
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.learner import Fit, LearningOrder, OrderSpec, tfidf_matrix


@dataclass
class ArmState:
    """What the bandit has learnt in one run: Beta counts per arm and who put forward each row."""

    a: list[float]
    b: list[float]
    owners: dict[int, tuple[int, ...]] = field(default_factory=dict)
    seen: int = 0
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))


@dataclass(frozen=True, eq=False)
class BanditFit(Fit):
    fits: tuple[Fit, ...] = ()
    state: ArmState | None = None

    def rank(self, pool):  # type: ignore[no-untyped-def]
        rows = np.asarray(pool, dtype=np.int64)
        st = self.state
        if st is None or any(f.model is None for f in self.fits):
            return super().rank(rows)
        ranked = [f.rank(rows) for f in self.fits]
        heads = [0] * len(ranked)
        taken: set[int] = set()
        out: list[int] = []
        depth = min(rows.size, 64)  # the queue is refitted long before this
        while len(out) < depth:
            for k, r in enumerate(ranked):
                while heads[k] < r.size and int(r[heads[k]]) in taken:
                    heads[k] += 1
            theta = [st.rng.beta(st.a[k], st.b[k]) for k in range(len(ranked))]
            k = int(np.argmax(theta))
            row = int(ranked[k][heads[k]])
            owners = tuple(j for j, r in enumerate(ranked) if int(r[heads[j]]) == row)
            st.owners[row] = owners
            taken.add(row)
            out.append(row)
        rest = [int(x) for x in ranked[0] if int(x) not in taken]
        return np.asarray(out + rest, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class BanditOrder(LearningOrder):
    arms: tuple[LearningOrder, ...] = ()
    prior: tuple[tuple[float, float], ...] = ()
    state: ArmState | None = None

    def permuted(self, perm):  # type: ignore[no-untyped-def]
        arms = tuple(a.permuted(perm) for a in self.arms)
        st = ArmState([p[0] for p in self.prior], [p[1] for p in self.prior])
        return make(arms[0], arms, self.prior, st)

    def fit(self, labelled, y):  # type: ignore[no-untyped-def]
        st = self.state
        assert st is not None
        rows = np.asarray(labelled, dtype=np.int64)
        labels = np.asarray(y, dtype=np.int64)
        for row, lab in zip(rows[st.seen :], labels[st.seen :], strict=True):
            for k in st.owners.pop(int(row), ()):
                if lab:
                    st.a[k] += 1.0
                else:
                    st.b[k] += 1.0
        st.seen = rows.size
        fits = tuple(a.fit(rows, labels) for a in self.arms)
        first = fits[0]
        return BanditFit(first.order, first.model, first.x, first.name + " (bandit)", fits, st)


def make(
    base: LearningOrder,
    arms: tuple[LearningOrder, ...],
    prior: tuple[tuple[float, float], ...],
    state: ArmState | None,
) -> BanditOrder:
    copied = {f.name: getattr(base, f.name) for f in fields(LearningOrder)}
    return BanditOrder(**copied, arms=arms, prior=prior, state=state)


SYSTEMS: dict[str, Any] = {
    "base": None,
    "b-elas": None,
    "b-elas-surf": None,
    "b-3": None,
}


def variant(setup: SetUp, system: str, arg: Any) -> LearningOrder:
    spec = setup.spec
    texts = setup.review.texts
    base = setup.base
    elas = LearningOrder.from_blocks(
        OrderSpec("tfidf-stem-svm", "tfidf", stem=True), tfidf_matrix(texts, True), None
    )
    if system == "b-elas":
        return make(base, (base, elas), ((2.0, 1.0), (1.0, 1.0)), None)
    if system == "b-elas-surf":
        surf = LearningOrder.from_blocks(
            OrderSpec("tfidf-svm", "tfidf"), tfidf_matrix(texts, False), None
        )
        return make(base, (base, surf), ((2.0, 1.0), (1.0, 1.0)), None)
    if system == "b-3":
        dense = setup.model.encode_passages(texts)
        query = setup.model.encode_queries([setup.criteria])[0]
        dspec = OrderSpec("dense-crit", "dense", criteria_weight=spec.criteria_weight)
        only = LearningOrder.from_blocks(dspec, None, dense, None, query)
        return make(base, (base, elas, only), ((2.0, 1.0), (1.0, 1.0), (1.0, 1.0)), None)
    raise ValueError(system)


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
