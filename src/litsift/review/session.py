"""One review while a person screens it: each stopping rule's state, the gain curve, and the
Platt-scaled estimate kept as a baseline (the estimate of includes left is
:mod:`litsift.review.estimate`'s; the order itself is :class:`litsift.review.learner.
LearningOrder`). Pure numpy / scikit-learn; the service (:mod:`litsift.service.screening`)
feeds it the store's decisions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from litsift.review.stopping import (
    ALPHA,
    CONSECUTIVE_FRACTION,
    CONSECUTIVE_MIN,
    KNEE_MIN_RANK,
    TARGET_RECALL,
    consecutive_exclusions,
    hypergeometric_test,
    knee,
)
from litsift.types.reviews import StopState

#: Points of the gain curve shown as a sparkline.
CURVE_WIDTH = 48


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
        why = "no record to screen (none at this stage, or each came with a prior decision)"
        return [StopState(rule, None, why) for rule in ("consecutive", "knee", "hypergeometric")]
    states = []
    need = max(CONSECUTIVE_MIN, int(np.ceil(CONSECUTIVE_FRACTION * n_records)))
    at = consecutive_exclusions(y, need, prior_included) if s else None
    run = s - (int(np.flatnonzero(y)[-1]) + 1 if y.any() else 0)
    detail = f"{run:,} of {need:,} exclusions in a row"
    if need > n_records:
        detail += f" (cannot fire: only {n_records:,} record{'s' * (n_records > 1)} to screen)"
    states.append(StopState("consecutive", at, f"fired after {at:,} screened" if at else detail))
    # the knee waits for 150 screened (Cormack & Grossman), or for every record when fewer
    wait = min(KNEE_MIN_RANK, n_records)
    waiting = f"waits for {wait:,} screened"
    if wait == n_records:  # fewer records than the knee reads: it fires at the end or never
        waiting = f"waits for all {wait:,} screened (cannot stop early)"
    at = knee(y, wait, prior_included) if s >= wait else None
    detail = (
        f"fired after {at:,} screened"
        if at
        else waiting
        if s < wait
        else "no knee in the gain curve"
        if s >= n_records
        else "no knee in the gain curve yet"
    )
    states.append(StopState("knee", at, detail))
    at = hypergeometric_test(y, n_records, prior_included=prior_included) if s else None
    # one way to write a share in the panel: "95%" (the recall target and the confidence)
    target = f"recall ≥ {TARGET_RECALL:.0%} with {1 - ALPHA:.0%} confidence"
    states.append(
        StopState(
            "hypergeometric",
            at,
            f"fired after {at:,} screened: {target}" if at else f"not yet: {target}",
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
