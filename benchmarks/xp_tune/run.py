"""Issue 44 scouting: once the default order reads stemmed words, are its other weights still
the best? The default order with criteria (``tfidf-stem+bge-0.7-nn0.3-lp0.3``) against the
same order with one weight moved: the dense block (0.5 / 1.0 instead of 0.7), the
label-spreading column (0.15 instead of 0.3), the criteria column (0.8 instead of 0.5). Same
seeds and priors; nothing under src/ changes.

    OMP_NUM_THREADS=1 python benchmarks/xp_tune/run.py --seeds 5 --runs runs.jsonl
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.learner import LearningOrder, tfidf_matrix

#: system -> the spec fields it changes
SYSTEMS: dict[str, dict[str, Any]] = {
    "base": {},
    "dw0.5": {"dense_weight": 0.5},
    "dw1.0": {"dense_weight": 1.0},
    "lp0.15": {"spread_weight": 0.15},
    "crit0.8": {"criteria_weight": 0.8},
}


def variant(setup: SetUp, system: str, change: dict[str, Any]) -> LearningOrder:
    """The default order with ``change`` applied to its spec."""
    spec = replace(setup.spec, name=f"{setup.spec.name}/{system}", **change)
    texts = setup.review.texts
    return LearningOrder.from_blocks(
        spec,
        tfidf_matrix(texts, spec.stem),
        setup.model.encode_passages(texts),
        setup.base.citations,
        setup.model.encode_queries([setup.criteria])[0],
    )


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
