"""One review's learning order while a person screens it: rank the unscreened records, and each
stopping rule's state (the estimate of includes left is :mod:`litsift.review.estimate`'s).
Pure numpy / scikit-learn; the service (:mod:`litsift.service.review`) feeds it the store's
records and decisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from litsift.review.learner import (
    DEFAULT_ORDER,
    ORDERS,
    OrderSpec,
    balanced_weights,
    citation_columns,
    tfidf_matrix,
)
from litsift.review.stopping import (
    CONSECUTIVE_FRACTION,
    CONSECUTIVE_MIN,
    KNEE_MIN_RANK,
    TARGET_RECALL,
    consecutive_exclusions,
    hypergeometric_test,
    knee,
)

if TYPE_CHECKING:
    from litsift.graph.signal import SignalFeatures

#: The order a review uses without the encoder's vectors (ASReview's ELAS u4 features).
TFIDF_ORDER = "tfidf-svm"
#: Points of the gain curve shown as a sparkline.
CURVE_WIDTH = 48


@dataclass(frozen=True)
class StopState:
    """One stopping rule now: ``fired_at`` = records screened when it fired (None = not yet);
    ``detail`` one line for the panel."""

    rule: str
    fired_at: int | None
    detail: str


@dataclass(frozen=True)
class Ranking:
    """What one retraining gives.

    Attributes:
        order: ``(m,)`` unscreened rows, best first.
        model: which order ranked them (``criteria`` / ``import`` before the first fit).
    """

    order: list[int]
    model: str


class ReviewModel:
    """Features of one review's records and the learning order over them.

    The default order (what ``litsift eval screening`` measures as ``litsift``): TF-IDF, the
    encoder's vectors beside it once given, and the citation signal towards the included
    records when the records carry citation edges (:func:`litsift.review.learner.
    citation_columns`, recomputed at each fit).

    Args:
        texts: ``(N,)`` ``title\\nabstract`` per record.
        query: criteria text and keywords (ranks records before the first include and
            exclude are known; may be empty).
        dense: ``(N, d)`` unit vectors of the encoder, or None (then TF-IDF only).
        citations: the records' citation features (rows in ``texts`` order), or None when
            the records have no citation edges.
    """

    def __init__(
        self,
        texts: Sequence[str],
        query: str = "",
        dense: npt.NDArray[np.float32] | None = None,
        citations: SignalFeatures | None = None,
    ) -> None:
        self.n = len(texts)
        self.citations = citations
        self.spec: OrderSpec = ORDERS[DEFAULT_ORDER if dense is not None else TFIDF_ORDER]
        # the criteria row is fitted with the records (one vocabulary), then set apart
        both = tfidf_matrix([*texts, query or " "]) if texts else sp.csr_matrix((0, 1))
        tfidf = sp.csr_matrix(both[: self.n])
        self.query_vector = sp.csr_matrix(both[self.n :]) if query.strip() else None
        self.x: sp.csr_matrix = (
            tfidf
            if dense is None
            else sp.csr_matrix(sp.hstack([tfidf, sp.csr_matrix(dense * self.spec.dense_weight)]))
        )
        self.tfidf = tfidf

    def rank(self, labelled: Sequence[int], y: Sequence[int]) -> Ranking:
        """Rank every row not in ``labelled``.

        Args:
            labelled: rows with a decision; ``y`` their 0/1 labels (1 = include; a maybe
                counts as 1, so the model looks for more like it).

        Returns:
            The ranking; by similarity to the criteria (else import order) until both an
            include and an exclude are known.
        """
        rows = np.asarray(labelled, dtype=np.int64)
        labels = np.asarray(y, dtype=np.int64)
        seen = np.zeros(self.n, dtype=bool)
        seen[rows] = True
        pool = np.flatnonzero(~seen).astype(np.int64)
        if pool.size == 0:
            return Ranking([], self.spec.name)
        if labels.size == 0 or labels.all() or not labels.any():
            if self.query_vector is None:
                return Ranking(pool.tolist(), "import order")
            sims = np.asarray((self.tfidf[pool] @ self.query_vector.T).toarray()).ravel()
            return Ranking(pool[np.argsort(-sims, kind="stable")].tolist(), "criteria")
        x, name = self.x, self.spec.name
        if self.citations is not None:
            included = np.zeros(self.n, dtype=bool)
            included[rows[labels == 1]] = True
            extra = citation_columns(self.citations, included)
            x = sp.csr_matrix(sp.hstack([x, sp.csr_matrix(extra)]))
            name = f"{name} + citations"
        scores = svm_scores(self.spec, x, rows, labels, pool)
        return Ranking(pool[np.argsort(-scores, kind="stable")].tolist(), name)


def svm_scores(
    spec: OrderSpec,
    x: sp.csr_matrix,
    labelled: npt.NDArray[np.int64],
    y: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """The learning order's model (:func:`litsift.review.learner.rank_pool`: a linear SVM with
    balanced sample weights) fitted on ``labelled``; its ``(m,)`` decision values of ``rows``
    (the pool's order is theirs, best first)."""
    from sklearn.svm import LinearSVC

    model = LinearSVC(C=spec.c, loss="squared_hinge", random_state=0)  # liblinear shuffles
    model.fit(x[labelled], y, sample_weight=balanced_weights(y, spec.ratio))
    return np.asarray(model.decision_function(x[rows]), dtype=np.float64)


def platt_estimate(
    labelled_scores: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    pool_scores: npt.NDArray[np.float64],
) -> float:
    """Expected includes among the pool: the SVM's decision values turned into probabilities
    by Platt scaling (a 1-D logistic regression of the labels on the labelled records' values;
    Platt 1999, "Probabilistic outputs for support vector machines"), summed over the pool.

    The labelled records were fitted on and were screened first (the likeliest), so this is far
    too high early on (``benchmarks/screening_estimate.py``): reviews show
    :func:`litsift.review.estimate.rate_curve_estimate` instead; kept as the baseline it was
    measured against.
    """
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=1.0)
    model.fit(labelled_scores.reshape(-1, 1), labels)
    return float(model.predict_proba(pool_scores.reshape(-1, 1))[:, 1].sum())


def stop_states(sequence: Sequence[int], n_records: int, prior_included: int) -> list[StopState]:
    """Each rule of :mod:`litsift.review.stopping` on what the reviewer screened so far.

    Args:
        sequence: ``(s,)`` 0/1 labels of the records screened in the learning order (priors
            dropped; a maybe counts as 1).
        n_records: records to screen besides the priors (the knee waits for
            ``min(150, n_records)`` screened: never for more records than there are).
        prior_included: includes known before screening.
    """
    y = np.asarray(sequence, dtype=np.int64)
    s = int(y.size)
    if n_records <= 0:  # every record came with a prior decision: nothing for a rule to read
        why = "no record to screen (every record has a prior decision)"
        return [StopState(rule, None, why) for rule in ("consecutive", "knee", "hypergeometric")]
    states = []
    need = max(CONSECUTIVE_MIN, int(np.ceil(CONSECUTIVE_FRACTION * n_records)))
    at = consecutive_exclusions(y, need, prior_included) if s else None
    run = s - (int(np.flatnonzero(y)[-1]) + 1 if y.any() else 0)
    detail = f"{run} of {need} exclusions in a row"
    if need > n_records:
        detail += f" (cannot fire: only {n_records:,} records to screen)"
    states.append(StopState("consecutive", at, f"fired after {at} screened" if at else detail))
    # the knee waits for 150 screened (Cormack & Grossman), or for every record when fewer
    wait = min(KNEE_MIN_RANK, n_records)
    at = knee(y, wait, prior_included) if s >= wait else None
    detail = (
        f"fired after {at} screened"
        if at
        else f"waits for {wait} screened"
        if s < wait
        else "no knee in the gain curve"
        if s >= n_records
        else "no knee in the gain curve yet"
    )
    states.append(StopState("knee", at, detail))
    at = hypergeometric_test(y, n_records, prior_included=prior_included) if s else None
    target = f"recall ≥ {TARGET_RECALL:.0%} at 95 % confidence"
    states.append(
        StopState(
            "hypergeometric",
            at,
            f"fired after {at} screened: {target}" if at else f"not yet: {target}",
        )
    )
    return states


def gain_curve(sequence: Sequence[int], width: int = CURVE_WIDTH) -> list[float]:
    """Includes found after 0, 1, 2, ... screened records, sampled at ≤ ``width`` evenly spaced
    points: the first point is the origin (0 found at 0 screened), so a curve with nothing
    found is flat at zero, not one full bar; the last point is the total found. Empty before
    the first record."""
    found = np.concatenate([[0], np.cumsum(np.asarray(sequence, dtype=np.int64))])
    if found.size == 1:
        return []
    at = np.unique(np.linspace(0, found.size - 1, min(width, found.size)).round().astype(int))
    return [float(v) for v in found[at]]
