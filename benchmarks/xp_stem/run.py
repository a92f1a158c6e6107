"""Issue 44 scouting: the default order with criteria, its TF-IDF block (and the label-spreading
graph built on it) over Snowball-stemmed words (PyStemmer, English) instead of surface words,
so "antihistamine" / "antihistamines" or "randomised" / "randomized" share a feature (the
CLEF TAR baselines stem). Against the default order on the same seeds and priors; nothing
under src/ changes.

    OMP_NUM_THREADS=1 python benchmarks/xp_stem/run.py --seeds 5 --runs runs.jsonl

Resumable (``(set, system, seed)`` already in ``--runs`` are skipped). Run (2026-11-30) while
the default order read surface words: its ``base`` was what is now ``surface``; since then the
default reads stemmed words (``stem``), so ``base`` and ``stem`` are the same order. Results:
docs/EVALUATION.md, "Stemmed words".
"""

from __future__ import annotations

import itertools
import re
import sys
from dataclasses import replace
from pathlib import Path

import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xp_common import SetUp, run_variants

from litsift.review.learner import ORDERS, LearningOrder

WORD = re.compile(r"(?u)\b\w\w+\b")


def stemmed_tfidf(texts: list[str], ngram_max: int, min_df: int) -> sp.csr_matrix:
    """TF-IDF as ``columns.tfidf_and_query`` builds it, over stemmed lower-cased words."""
    import Stemmer
    from sklearn.feature_extraction.text import TfidfVectorizer

    stem = Stemmer.Stemmer("english")

    def analyse(text: str) -> list[str]:
        words = stem.stemWords(WORD.findall(text.lower()))
        grams = list(words)
        if ngram_max > 1:
            grams += [f"{a} {b}" for a, b in itertools.pairwise(words)]
        return grams

    vec = TfidfVectorizer(analyzer=analyse, sublinear_tf=True, min_df=min_df, max_df=0.95)
    return sp.csr_matrix(vec.fit_transform(texts))


#: system -> (ngram_max, min_df, weight of a character 3-5-gram block beside the words)
SYSTEMS = {
    "base": (0, 0, 0.0),
    "surface": (1, 1, 0.0),
    "stem": (2, 1, 0.0),
    "stem-md2": (2, 2, 0.0),
    "stem-char0.5": (2, 1, 0.5),
    "stem-md2-char0.5": (2, 2, 0.5),
}


def variant(setup: SetUp, system: str, params: tuple[int, int, float]) -> LearningOrder:
    """The default order over stemmed TF-IDF (and a character n-gram block)."""
    ngram_max, min_df, char = params
    texts = setup.review.texts
    if system == "surface":  # the default order of the time, on surface words
        return LearningOrder.build(
            ORDERS["tfidf+bge-0.7-nn0.3-lp0.3"],
            texts,
            setup.model.encode_passages(texts),
            setup.base.citations,
            setup.criteria,
            setup.model.encode_queries([setup.criteria])[0],
        )
    vectors = setup.model.encode_passages(texts)
    query = setup.model.encode_queries([setup.criteria])[0]
    tfidf = stemmed_tfidf(texts, ngram_max, min_df)
    order = LearningOrder.from_blocks(setup.spec, tfidf, vectors, setup.base.citations, query)
    if not char:
        return order
    from sklearn.feature_extraction.text import TfidfVectorizer

    chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=2)
    block = sp.csr_matrix(chars.fit_transform(texts)) * char
    return replace(order, x=sp.csr_matrix(sp.hstack([order.x, block])))


if __name__ == "__main__":
    run_variants(SYSTEMS, variant)
