"""Issue 44, not kept: a metadata block -- TF-IDF of DOI tokens (registrant, the suffix's
letters and numbers: an Elsevier PII or a BMJ DOI names the journal) and year tokens (year,
5-year and 2-year bins) -- beside the default order with criteria, at weights 0.3 / 0.6 / 1.0
(DOI and year), 0.5 (DOI alone, year alone). Same seeds and priors for every system; nothing
under src/ changes: the block is appended to the order's ``criteria_dense`` columns.

    OMP_NUM_THREADS=1 python benchmarks/xp_meta/run.py --seeds 5 --runs runs.jsonl

Results: docs/EVALUATION.md, "DOI and year as features". Resumable.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.learner import LearningOrder


def doi_tokens(doi: object) -> list[str]:
    """``reg_10.1016``, then ``d_<token>`` for each letter/digit run of the suffix."""
    if not doi or doi == "None":
        return []
    reg, _, suf = str(doi).lower().partition("/")
    return ["reg_" + reg] + ["d_" + t for t in re.split(r"[^a-z0-9]+", suf) if t]


def year_tokens(y: object) -> list[str]:
    """The year, its 5-year and 2-year bins."""
    if not y or y == "None":
        return []
    y = int(float(y))
    return [f"y_{y}", f"y5_{y // 5}", f"y2_{y // 2}"]


def meta_block(path: Path, record_ids: tuple[str, ...], kind: str) -> np.ndarray:
    """``(N, V)`` l2-normalised TF-IDF of each record's tokens (min_df 2), in ReviewSet order."""
    rows = {}
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        rows[str(r.get("record_id"))] = r
    docs = []
    for rid in record_ids:
        r = rows[rid]
        t = []
        if "doi" in kind:
            t += doi_tokens(r.get("doi"))
        if "year" in kind:
            t += year_tokens(r.get("year"))
        docs.append(" ".join(t) or "none_")
    return TfidfVectorizer(token_pattern=r"\S+", min_df=2).fit_transform(docs).toarray()


#: system -> (kind, weight)
SYSTEMS = {
    "base": (None, 0.0),
    "both0.3": ("doi+year", 0.3),
    "both0.6": ("doi+year", 0.6),
    "both1.0": ("doi+year", 1.0),
    "doi0.5": ("doi", 0.5),
    "year0.5": ("year", 0.5),
}


def variant(setup: SetUp, system: str, params: tuple[str, float]) -> LearningOrder:
    """The default order with the metadata block beside its criteria column."""
    kind, weight = params
    base, w = setup.base, setup.spec.criteria_weight  # the fit multiplies the columns by w
    assert base.criteria_dense is not None
    meta = meta_block(setup.path, setup.review.record_ids, kind)
    return replace(base, criteria_dense=np.hstack([base.criteria_dense, meta * (weight / w)]))


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
