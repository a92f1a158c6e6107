"""Stopping rules: when may a reviewer stop screening in the learning order?

Each rule reads the labels in screening order (priors dropped; what the reviewer has seen) and
returns the number of records screened when it first fires, or None. None stops on its own:
the caller reports each rule's (recall reached, fraction screened) at that point.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: Consecutive exclusions that fire :func:`consecutive_exclusions`: at least this many ...
CONSECUTIVE_MIN = 50
#: ... and at least this fraction of all records.
CONSECUTIVE_FRACTION = 0.05
#: Knee method: never before this many records (Cormack & Grossman 2016, §3).
KNEE_MIN_RANK = 150
#: Recall target and significance level of :func:`hypergeometric_test`.
TARGET_RECALL = 0.95
ALPHA = 0.05


def consecutive_exclusions(
    sequence: Sequence[int] | npt.NDArray[np.integer],
    n: int | None = None,
    prior_included: int = 1,
) -> int | None:
    """Fires after ``n`` exclusions in a row (a heuristic; ASReview users' "stop after N
    irrelevant"). Default ``n = max(50, ⌈5 % of the records⌉)``.

    Args:
        sequence: ``(M,)`` 0/1 labels in screening order.
        n: exclusions in a row that fire the rule.
        prior_included: includes known before screening (the rule waits for at least one).

    Returns:
        Records screened when it fires, or None.
    """
    y = np.asarray(sequence, dtype=np.int64)
    if n is None:
        n = max(CONSECUTIVE_MIN, math.ceil(CONSECUTIVE_FRACTION * y.size))
    run = 0
    found = prior_included
    for i, label in enumerate(y.tolist(), 1):
        found += label
        run = 0 if label else run + 1
        if run >= n and found:
            return i
    return None


def knee(
    sequence: Sequence[int] | npt.NDArray[np.integer],
    min_rank: int = KNEE_MIN_RANK,
    prior_included: int = 1,
) -> int | None:
    """The knee method (Cormack & Grossman 2016, "Engineering quality and reliability in
    technology-assisted review", SIGIR, doi:10.1145/2911451.2911510).

    At rank ``s`` with ``rel(s)`` includes found, the knee ``i`` is the point of the gain curve
    farthest above the line from the origin to ``(s, rel(s))``; the slope ratio is
    ``ρ = (rel(i)/i) / ((rel(s) − rel(i) + 1)/(s − i))``. The rule fires at the first
    ``s ≥ min_rank`` with ``ρ ≥ 156 − min(rel(s), 150)``.

    Args:
        sequence: ``(M,)`` 0/1 labels in screening order.
        min_rank: the earliest rank it may fire at.
        prior_included: includes known before screening (counted in ``rel``).

    Returns:
        Records screened when it fires, or None.
    """
    y = np.asarray(sequence, dtype=np.int64)
    rel = np.cumsum(y) + prior_included
    ranks = np.arange(1, y.size + 1)
    for s in range(max(min_rank, 2), y.size + 1):
        rs = rel[s - 1]
        i_all = ranks[: s - 1]
        gap = s * rel[: s - 1] - rs * i_all  # ∝ distance above the line (0,0)–(s, rel(s))
        j = int(np.argmax(gap))
        i, ri = int(i_all[j]), int(rel[j])
        rho = (ri / i) / ((rs - ri + 1) / (s - i))
        if rho >= 156 - min(int(rs), 150):
            return s
    return None


def hypergeometric_test(
    sequence: Sequence[int] | npt.NDArray[np.integer],
    n_records: int | None = None,
    target: float = TARGET_RECALL,
    alpha: float = ALPHA,
    prior_included: int = 1,
    every: int | None = None,
) -> int | None:
    """Statistical stopping (Callaghan & Müller-Hansen 2020, "Statistical stopping criteria for
    automated screening in systematic reviews", Syst Rev, doi:10.1186/s13643-020-01521-4).

    After ``s`` records with ``r`` includes, the hypothesis "recall < target" means at least
    ``m = ⌊r/target − r⌋ + 1`` includes are still unscreened. Taking the last ``k`` screened
    records as a random draw from them and the unscreened rest (``N − s + k`` records), the
    chance of seeing at most ``r_k`` includes among them is the hypergeometric
    ``P(X ≤ r_k; N − s + k, r_k + m, k)``. The rule fires when the smallest of these over ``k``
    is below ``alpha``: recall ≥ target with confidence ``1 − alpha`` (if the recent records
    are no better than random; the learning order makes them better, so it is conservative).
    Once fewer than ``m`` records are left unscreened (every record screened, at the latest),
    recall ≥ target is certain and the rule fires.

    Args:
        sequence: ``(M,)`` 0/1 labels in screening order.
        n_records: records in the review besides the priors (default ``M``).
        target: the recall to certify, in (0, 1).
        alpha: significance level.
        prior_included: includes known before screening (counted in ``r``).
        every: test every this many records (default ``max(1, M // 400)``).

    Returns:
        Records screened when it fires, or None.
    """
    from scipy.stats import hypergeom

    y = np.asarray(sequence, dtype=np.int64)
    total = y.size if n_records is None else n_records
    step = every or max(1, y.size // 400)
    for s in range(step, y.size + 1, step):
        seen = y[:s]
        r = int(seen.sum()) + prior_included
        missed = math.floor(r / target - r) + 1
        r_k = np.cumsum(seen[::-1])
        k = np.arange(1, s + 1)
        if missed > total - s:  # fewer records left than includes missed: recall ≥ target
            return s
        p = hypergeom.cdf(r_k, total - s + k, r_k + missed, k)
        if float(np.min(p)) < alpha:
            return s
    return None


@dataclass(frozen=True)
class StopPoint:
    """Where one rule fired: ``recall`` of the review's includes found (priors excluded, as in
    the measures) and ``screened`` (fraction of ``M``); ``fired`` False = never (both 1.0)."""

    rule: str
    fired: bool
    recall: float
    screened: float


def stop_points(sequence: Sequence[int] | npt.NDArray[np.integer]) -> list[StopPoint]:
    """Each rule's (recall reached, fraction screened) on one full screening sequence.

    Args:
        sequence: ``(M,)`` 0/1 labels of every record in screening order (pad with 0s).
    """
    y = np.asarray(sequence, dtype=np.int64)
    total = max(int(y.sum()), 1)
    out = []
    rules: dict[str, Callable[[npt.NDArray[np.int64]], int | None]] = {
        "consecutive": consecutive_exclusions,
        "knee": knee,
        "hypergeometric": hypergeometric_test,
    }
    for name, rule in rules.items():
        at = rule(y)
        if at is None:
            out.append(StopPoint(name, False, 1.0, 1.0))
        else:
            out.append(StopPoint(name, True, float(y[:at].sum() / total), at / y.size))
    return out
