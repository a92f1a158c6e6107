# ruff: noqa: E501  (markdown table rows and progress lines kept whole)
"""Step 2: the default order with the review's criteria (as ``litsift eval screening
--criteria`` builds it), against variants whose criteria column is the cross-encoder's score
(ms-marco-MiniLM-L-12-v2 int8, criteria as query vs title + abstract) instead of, or beside,
bge-small's query cosine. Same seeds / priors (``draw_priors``) for every system; nothing in
src/ is changed: the variant replaces the order's ``criteria_dense`` (the column each fit
appends, times ``spec.criteria_weight``) with the cross-encoder column, centred at its median
and scaled to a largest absolute value of 1 like ``criteria_column``.

    OMP_NUM_THREADS=1 python benchmarks/xp_cross/run.py --seeds 5 --runs benchmarks/xp_cross/runs.jsonl

Needs the cross-encoder scores of step1.py in /tmp/xp_cross/scores_<set>.npy. Resumable:
(set, system, seed) already in --runs are skipped.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.learner import LearningOrder

CACHE = Path("/tmp/xp_cross")


def scaled(s: np.ndarray) -> np.ndarray:
    """criteria_column's centring and scaling: minus the median, / the largest |value|."""
    s = np.asarray(s, dtype=np.float64).ravel()
    s = s - float(np.median(s))
    top = float(np.abs(s).max())
    return (s / top if top > 0 else np.zeros_like(s)).reshape(-1, 1)


#: system -> (bge column scale, cross column scale), both as the fit's column value
#: (the default order multiplies criteria_dense by spec.criteria_weight = 0.5)
SYSTEMS = {
    "base": (0.5, 0.0),  # the default order with criteria: bge column at 0.5
    "rep0.5": (0.0, 0.5),  # cross replaces bge, same weight
    "rep1.0": (0.0, 1.0),  # cross replaces bge, 2x
    "add0.25": (0.5, 0.25),  # bge 0.5 + cross 0.25 beside it
    "add0.5": (0.5, 0.5),  # bge 0.5 + cross 0.5 beside it
    "add1.0": (0.5, 1.0),  # bge 0.5 + cross 1.0 beside it
}


def variant(setup: SetUp, system: str, weights: tuple[float, float]) -> LearningOrder:
    """The default order whose criteria column is the cross-encoder's, or has it beside."""
    base, w = setup.base, setup.spec.criteria_weight  # the fit multiplies the column by w
    assert base.criteria_dense is not None
    cross = scaled(np.load(CACHE / f"scores_{setup.review.name}.npy"))
    assert cross.shape == base.criteria_dense.shape
    wb, wc = weights
    cols = [base.criteria_dense * (wb / w)] if wb else []
    cols += [cross * (wc / w)] if wc else []
    return replace(base, criteria_dense=np.hstack(cols))


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
