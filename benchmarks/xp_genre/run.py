"""Issue 44 scouting: the review's criteria without the words that name the review's genre
("a systematic review", "meta-analysis", "Drug class review", "scoping review", "tertiary
study"). A review's title says what kind of paper the review is; the records it includes are
primary studies that do not say so, and the records that do (other reviews) are often
excluded. The criteria column (bge's query cosine) then reads the topic alone. Against the
default order with criteria on the same seeds and priors; nothing under src/ changes.

    OMP_NUM_THREADS=1 python benchmarks/xp_genre/run.py --seeds 5 --runs runs.jsonl
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.learner import LearningOrder, tfidf_matrix

GENRE = re.compile(
    r"\b(an?\s+)?((systematic|scoping|scientific|narrative|drug class|umbrella)\s+)*"
    r"(review|meta-analysis|tertiary study|overview)(\s+and\s+meta-analysis)?(\s+of)?\b",
    re.IGNORECASE,
)


def topic(criteria: str) -> str:
    """``criteria`` without the phrases that only name a review's genre, a colon-separated
    part left empty dropped: "Drug class review: newer antihistamines" -> "newer
    antihistamines", "Animal models of depression: a systematic review of preclinical studies"
    -> "Animal models of depression: preclinical studies"; "Systematic literature reviews in
    software engineering" (the topic of a tertiary study) stays."""
    kept = []
    for part in criteria.split(":"):
        rest = re.sub(r"\s+", " ", GENRE.sub(" ", part)).strip(" ,;")
        if rest:
            kept.append(rest)
    return ": ".join(kept) or criteria


SYSTEMS: dict[str, Any] = {"base": None, "genre": None}


def variant(setup: SetUp, system: str, arg: Any) -> LearningOrder:
    text = topic(setup.criteria)
    print(f"  criteria: {setup.criteria!r} -> {text!r}", flush=True)
    dense = setup.model.encode_passages(setup.review.texts)
    query = setup.model.encode_queries([text])[0]
    tfidf = tfidf_matrix(setup.review.texts, setup.spec.stem)
    return LearningOrder.from_blocks(setup.spec, tfidf, dense, setup.base.citations, query)


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
