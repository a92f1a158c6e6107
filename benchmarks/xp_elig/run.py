"""Issue 44 scouting: the review's own eligibility criteria (population, interventions,
comparisons, designs, as the published review's methods state them) instead of its title as
the criteria a reviewer gives (`litsift review new --criteria`). ASReview reads no criteria;
the title-only criteria of benchmarks/screening_criteria.json are the default's.

The eligibility texts are in a JSON file (``LITSIFT_XP_ELIGIBILITY``, e.g.
benchmarks/screening_criteria_eligibility.json) of ``{set: {"criteria": text,
"aspects": [phrases], "source": url}}``, written from the reviews' published methods, not
from the screening sets. Variants (the default order with criteria otherwise):

- ``elig``: the criteria column (bge query cosine, :func:`criteria_column`) of the
  eligibility text instead of the title's.
- ``title+elig``: of the title and the eligibility text as one query.
- ``both``: the title's column and the eligibility text's, side by side (weight 0.5 each).
- ``aspects-min`` / ``aspects-mean``: one column per aspect (each as :func:`criteria_column`),
  reduced by their minimum (a record must meet every criterion: DORIS-MAE's all-aspects
  reading) or mean, beside the title's column.

    LITSIFT_XP_ELIGIBILITY=benchmarks/screening_criteria_eligibility.json \\
        OMP_NUM_THREADS=1 python benchmarks/xp_elig/run.py --seeds 5 --runs runs.jsonl
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.columns import criteria_column
from litsift.review.learner import LearningOrder

ELIGIBILITY = json.loads(Path(os.environ["LITSIFT_XP_ELIGIBILITY"]).read_text("utf-8"))

SYSTEMS: dict[str, Any] = {
    "base": None,
    "elig": None,
    "title+elig": None,
    "both": None,
    "aspects-min": np.min,
    "aspects-mean": np.mean,
}


def _column(setup: SetUp, dense: np.ndarray, text: str) -> np.ndarray:
    return criteria_column(dense, setup.model.encode_queries([text])[0])


def variant(setup: SetUp, system: str, arg: Any) -> LearningOrder:
    got = ELIGIBILITY.get(setup.review.name)
    if got is None:  # no eligibility criteria found for this review: the default order
        return setup.base
    dense = setup.model.encode_passages(setup.review.texts)
    base = setup.base
    title = _column(setup, dense, setup.criteria)
    if system == "elig":
        return replace(base, criteria_dense=_column(setup, dense, got["criteria"]))
    if system == "title+elig":
        text = f"{setup.criteria}. {got['criteria']}"
        return replace(base, criteria_dense=_column(setup, dense, text))
    if system == "both":
        both = np.hstack([title, _column(setup, dense, got["criteria"])])
        return replace(base, criteria_dense=both)
    columns = np.hstack([_column(setup, dense, a) for a in got["aspects"]])
    reduced = np.asarray(arg(columns, axis=1), dtype=np.float64).reshape(-1, 1)
    top = float(np.abs(reduced).max()) or 1.0
    return replace(base, criteria_dense=np.hstack([title, reduced / top]))


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
