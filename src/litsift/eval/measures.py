"""Measures with ir-measures (trec_eval semantics) and a bootstrap standard deviation.

No metric is computed by hand: per-query values come from ``ir_measures.iter_calc`` (backed by
pytrec_eval), and the reported figure is their mean over the evaluated queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import ir_measures
import numpy as np
import numpy.typing as npt

from litsift.errors import EvalError
from litsift.eval.trec import Qrels, Run

#: Bootstrap resamples and seed (fixed, so the reported deviation is reproducible).
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0


@dataclass(frozen=True)
class MeasureValue:
    """One measure of one system on one query set.

    Attributes:
        mean: mean over the evaluated queries, in [0, 1].
        std: bootstrap standard deviation of that mean (:func:`bootstrap_std`).
        n: number of queries averaged.
    """

    mean: float
    std: float
    n: int


def parse_measures(names: Iterable[str]) -> list[ir_measures.Measure]:
    """Parse ir-measures names (``"nDCG@10"``, ``"R@100"``, ``"RR@10"``, ``"AP"``, ``"P@5"``).

    Raises:
        EvalError: a name ir-measures does not know.
    """
    out = []
    for name in names:
        try:
            out.append(ir_measures.parse_measure(name.strip()))
        except (ValueError, NameError, SyntaxError, KeyError) as e:
            raise EvalError(
                f"unknown measure {name!r}", "use ir-measures names, e.g. nDCG@10,R@100,RR@10"
            ) from e
    return out


def per_query(
    measures: Sequence[str], qrels: Qrels, run: Run, qids: Sequence[str]
) -> dict[str, npt.NDArray[np.float64]]:
    """Per-query values of each measure, in the order of ``qids``.

    A query in ``qids`` that has no line in the run (nothing retrieved) scores 0 on every
    measure, as with ``trec_eval -c``: the mean is over all evaluated queries, not only those
    that returned something.

    Args:
        measures: ir-measures names.
        qrels: ``{qid: {docid: relevance}}``.
        run: ``{qid: {docid: score}}``; ties are broken by ir-measures/trec_eval (doc id).
        qids: the evaluated queries (each must have qrels).

    Returns:
        ``{measure name: (len(qids),) float64}``.
    """
    parsed = parse_measures(measures)
    wanted = set(qids)
    sub_qrels = {q: qrels[q] for q in qids if q in qrels}
    sub_run = {q: docs for q, docs in run.items() if q in wanted and docs}
    values: dict[str, dict[str, float]] = {str(m): {} for m in parsed}
    if sub_run:
        for metric in ir_measures.iter_calc(parsed, sub_qrels, sub_run):
            values[str(metric.measure)][metric.query_id] = float(metric.value)
    return {
        str(m): np.array([values[str(m)].get(q, 0.0) for q in qids], dtype=np.float64)
        for m in parsed
    }


def bootstrap_std(
    values: npt.NDArray[np.float64],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> float:
    """Bootstrap standard deviation of the mean of per-query values.

    Queries are resampled with replacement ``resamples`` times (``numpy.random.default_rng(
    seed)``); the result is the standard deviation (ddof=1) of the resampled means (Efron &
    Tibshirani 1993, "An Introduction to the Bootstrap", ch. 6).

    Args:
        values: ``(n,)`` per-query values.

    Returns:
        The deviation, in the unit of ``values``; 0.0 for fewer than two queries.
    """
    n = int(values.shape[0])
    if n < 2:
        return 0.0
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    return float(values[idx].mean(axis=1).std(ddof=1))


def evaluate(
    measures: Sequence[str], qrels: Qrels, run: Run, qids: Sequence[str]
) -> dict[str, MeasureValue]:
    """Mean and bootstrap deviation of each measure over ``qids``.

    Raises:
        EvalError: ``qids`` is empty.
    """
    if not qids:
        raise EvalError(
            "no query to evaluate", "check --limit and that the qrels match the queries"
        )
    return {
        name: MeasureValue(float(v.mean()), bootstrap_std(v), len(qids))
        for name, v in per_query(measures, qrels, run, qids).items()
    }


def as_percent(values: Mapping[str, MeasureValue]) -> dict[str, tuple[float, float]]:
    """``{measure: (mean %, std %)}`` rounded to 0.1, for tables."""
    return {k: (round(100 * v.mean, 1), round(100 * v.std, 1)) for k, v in values.items()}
