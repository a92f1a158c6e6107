"""Measures with ir-measures (trec_eval semantics) and a bootstrap standard deviation.

No metric is computed by hand: per-query values come from ``ir_measures.iter_calc`` (backed by
pytrec_eval), and the reported figure is their mean over the evaluated queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ir_measures
import numpy as np
import numpy.typing as npt

from litsift.errors import EvalError
from litsift.eval.trec import Qrels, Run

#: Bootstrap resamples and seed (fixed, so the reported deviation is reproducible).
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
#: Sign flips of the paired randomization test and its seed (fixed, reproducible p-values).
PERMUTATION_RESAMPLES = 10000
PERMUTATION_SEED = 0


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


@dataclass(frozen=True)
class PairedTest:
    """One system against a baseline on the same queries.

    Attributes:
        diff: mean over queries of ``system - baseline`` per-query values, in [-1, 1].
        p_value: two-sided p-value of the paired randomization test (:func:`paired_test`).
        wins: queries where the system scores higher than the baseline.
        losses: queries where it scores lower.
        n: queries compared.
    """

    diff: float
    p_value: float
    wins: int
    losses: int
    n: int


def paired_test(
    system: npt.NDArray[np.float64],
    baseline: npt.NDArray[np.float64],
    resamples: int = PERMUTATION_RESAMPLES,
    seed: int = PERMUTATION_SEED,
) -> PairedTest:
    """Two-sided paired randomization (permutation) test of the mean per-query difference.

    Under the null hypothesis the two systems are exchangeable on every query, so the sign of
    each per-query difference is flipped at random; the p-value is the share of flips whose
    mean difference is at least as far from 0 as the observed one. This is the test Smucker,
    Allan & Carterette recommend for IR evaluation ("A comparison of statistical significance
    tests for information retrieval evaluation", CIKM 2007). Computed by
    ``scipy.stats.permutation_test(permutation_type="samples")`` (exact when ``2**n`` is at most
    ``resamples``).

    Args:
        system: ``(n,)`` per-query values of the system.
        baseline: ``(n,)`` per-query values of the baseline, same queries in the same order.
        resamples: random sign flips when the exact test is too large.
        seed: seed of ``numpy.random.default_rng`` for those flips.

    Returns:
        The comparison; ``p_value`` is 1.0 when every difference is 0 or ``n < 2``.

    Raises:
        EvalError: the arrays differ in shape.
    """
    from scipy.stats import permutation_test

    a = np.asarray(system, dtype=np.float64).reshape(-1)
    b = np.asarray(baseline, dtype=np.float64).reshape(-1)
    if a.shape != b.shape:
        raise EvalError(
            f"paired test needs the same queries: {a.shape[0]} vs {b.shape[0]} values",
            "compare runs of the same query set",
        )
    d = a - b
    n = int(d.shape[0])
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    if n < 2 or not d.any():
        return PairedTest(float(d.mean()) if n else 0.0, 1.0, wins, losses, n)

    def mean_diff(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], axis: int) -> Any:
        return np.mean(x - y, axis=axis)

    res = permutation_test(
        (a, b),
        mean_diff,
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return PairedTest(float(d.mean()), float(min(1.0, res.pvalue)), wins, losses, n)


def evaluate(
    measures: Sequence[str], qrels: Qrels, run: Run, qids: Sequence[str]
) -> dict[str, MeasureValue]:
    """Mean and bootstrap deviation of each measure over ``qids``.

    Raises:
        EvalError: ``qids`` is empty (from :func:`summarise`).
    """
    return summarise(per_query(measures, qrels, run, qids), qids)


def summarise(
    values: Mapping[str, npt.NDArray[np.float64]], qids: Sequence[str]
) -> dict[str, MeasureValue]:
    """Mean and bootstrap deviation of each measure's per-query values (:func:`per_query`).

    Raises:
        EvalError: ``qids`` is empty.
    """
    if not qids:
        raise EvalError(
            "no query to evaluate", "check --limit and that the qrels match the queries"
        )
    return {
        name: MeasureValue(float(v.mean()), bootstrap_std(v), len(qids))
        for name, v in values.items()
    }
