"""The default learning order reads stemmed words (issue 44): its TF-IDF block, the
label-spreading graph on it and the criteria's TF-IDF ranking before the first include count
"antihistamine" and "antihistamines" as one term (docs/EVALUATION.md, "Stemmed words")."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from litsift.paths import shared_data_dir
from litsift.review.columns import stemmed_terms
from litsift.review.data import load_review_set
from litsift.review.learner import DEFAULT_ORDER, ORDERS, LearningOrder, tfidf_matrix

SETS = shared_data_dir() / "eval" / "screening"


def test_stemmed_terms_join_inflections_and_keep_bigrams() -> None:
    terms = stemmed_terms("Antihistamines versus antihistamine: randomised, randomise")
    assert terms[:5] == ["antihistamin", "versus", "antihistamin", "randomis", "randomis"]
    assert terms[5:] == [
        "antihistamin versus",
        "versus antihistamin",
        "antihistamin randomis",
        "randomis randomis",
    ]


def test_the_default_order_reads_stemmed_tfidf_and_ranks_the_criteria_by_stems() -> None:
    """On a real review (Cohen 2006 Antihistamines): the default order's TF-IDF block is the
    stemmed one, with fewer terms than the surface words, and the criteria "antihistamine"
    reach every record that only says "antihistamines" (with surface words they score 0)."""
    spec = ORDERS[DEFAULT_ORDER]
    assert spec.stem
    texts = load_review_set(SETS / "Cohen_2006_Antihistamines.jsonl.gz").texts
    stemmed, surface = tfidf_matrix(texts, stem=True), tfidf_matrix(texts)
    assert stemmed.shape[0] == surface.shape[0] == len(texts)
    assert stemmed.shape[1] < 0.95 * surface.shape[1]
    words_only = replace(
        spec, features="tfidf", neighbour_weight=0.0, spread_weight=0.0, criteria_weight=0.0
    )
    order = LearningOrder.build(words_only, texts, criteria="antihistamine")
    assert order.x.shape == stemmed.shape
    assert abs(order.x - stemmed).max() < 1e-12
    plural_only = np.array(
        [
            bool(re.search(r"\bantihistamines\b", t, re.I))
            and not re.search(r"\bantihistamine\b", t, re.I)
            for t in texts
        ]
    )
    assert plural_only.sum() >= 5
    assert order.criteria is not None
    assert (order.criteria[plural_only] > 0).all()
    surface_order = LearningOrder.build(ORDERS["tfidf-svm"], texts, criteria="antihistamine")
    assert surface_order.criteria is not None
    assert (surface_order.criteria[plural_only] == 0).all()
