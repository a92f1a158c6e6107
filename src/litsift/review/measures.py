"""Measures of a screening order: WSS@95, RRF@10, ATD and the recall curve.

All take the labels in screening order with the prior records dropped, ``y_1 … y_M`` (``M``
records, ``R`` of them included); records never screened count as screened last (pad with 0).
Definitions as in ``shared/data/eval/screening/README.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from litsift.errors import EvalError

#: Fractions of ``M`` at which :func:`recall_curve` reports recall.
CURVE_POINTS: tuple[float, ...] = tuple(round(0.05 * i, 2) for i in range(1, 21))


def _labels(sequence: Sequence[int] | npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    y = np.asarray(sequence, dtype=np.int64).reshape(-1)
    if y.size == 0 or not y.any():
        raise EvalError(
            "a screening sequence needs at least one included record",
            "keep at least two included records in the set (one is the prior)",
        )
    return y


def records_to_recall(sequence: Sequence[int] | npt.NDArray[np.integer], recall: float) -> int:
    """Records screened until ``⌈recall·R⌉`` includes are found (``n95`` for 0.95).

    Raises:
        EvalError: the sequence has no included record.
    """
    y = _labels(sequence)
    target = math.ceil(round(recall * int(y.sum()), 9))
    return int(np.searchsorted(np.cumsum(y), target) + 1)


def wss(sequence: Sequence[int] | npt.NDArray[np.integer], recall: float = 0.95) -> float:
    """Work Saved over Sampling at ``recall`` (Cohen et al. 2006, doi:10.1197/jamia.M1929).

    ``WSS@95 = (M − n95)/M − 0.05``: a fraction of ``M``; 0 ≈ random order.

    Raises:
        EvalError: the sequence has no included record.
    """
    m = len(sequence)
    return (m - records_to_recall(sequence, recall)) / m - (1.0 - recall)


def rrf(sequence: Sequence[int] | npt.NDArray[np.integer], fraction: float = 0.10) -> float:
    """Relevant Records Found after screening ``fraction`` of ``M`` (RRF@10 for 0.10): recall
    after ``⌊fraction·M⌋`` records (ASReview Insights' definition); random order ≈ fraction.

    Raises:
        EvalError: the sequence has no included record.
    """
    y = _labels(sequence)
    k = math.floor(round(fraction * y.size, 9))
    return float(y[:k].sum() / y.sum())


def atd(sequence: Sequence[int] | npt.NDArray[np.integer]) -> float:
    """Average Time to Discovery in records (Ferdinands et al. 2023,
    doi:10.1186/s13643-023-02257-7): mean 1-based position of the includes; random ≈ (M+1)/2.

    Raises:
        EvalError: the sequence has no included record.
    """
    y = _labels(sequence)
    return float((np.flatnonzero(y) + 1).mean())


def recall_curve(
    sequence: Sequence[int] | npt.NDArray[np.integer], points: Sequence[float] = CURVE_POINTS
) -> list[float]:
    """Recall after screening each fraction in ``points`` of ``M`` (``⌊p·M⌋`` records).

    Raises:
        EvalError: the sequence has no included record.
    """
    y = _labels(sequence)
    found = np.concatenate([[0], np.cumsum(y)])
    return [float(found[math.floor(round(p * y.size, 9))] / y.sum()) for p in points]


def screening_measures(sequence: Sequence[int] | npt.NDArray[np.integer]) -> dict[str, float]:
    """``{"WSS@95", "RRF@10", "ATD", "ATD/M"}`` of one screening sequence (fractions except
    ``ATD``, in records).

    Raises:
        EvalError: the sequence has no included record.
    """
    a = atd(sequence)
    return {"WSS@95": wss(sequence), "RRF@10": rrf(sequence), "ATD": a, "ATD/M": a / len(sequence)}
