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

# re-exported: the simulations, benchmarks and tests import them from here
from litsift.review.columns import tfidf_matrix as tfidf_matrix
from litsift.review.orders import CRITERIA_WEIGHT as CRITERIA_WEIGHT
from litsift.review.orders import DEFAULT_ORDER as DEFAULT_ORDER
from litsift.review.orders import ELAS_C as ELAS_C
from litsift.review.orders import ELAS_RATIO as ELAS_RATIO
from litsift.review.orders import HOME_CRITERIA_WEIGHT as HOME_CRITERIA_WEIGHT
from litsift.review.orders import HOME_ENCODER_ORDER as HOME_ENCODER_ORDER
from litsift.review.orders import JUDGE_WEIGHT as JUDGE_WEIGHT
from litsift.review.orders import ORDERS as ORDERS
from litsift.review.orders import SCREENING_MODEL as SCREENING_MODEL
from litsift.review.orders import TFIDF_ORDER as TFIDF_ORDER
from litsift.review.orders import OrderSpec as OrderSpec
from litsift.review.orders import review_spec as review_spec

if TYPE_CHECKING:
    from litsift.graph.signal import SignalFeatures


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
        verdicts: ``(N,)`` an LLM judge's verdicts (+1 include, 0 unsure or not judged, -1
            exclude; ``litsift review judge``), or None: with the spec's
            :attr:`OrderSpec.judge_weight` a column of every fit, and before the first fit
            the records judged include come first.
    """

    spec: OrderSpec
    x: FloatMatrix
    citations: SignalFeatures | None = None
    criteria: npt.NDArray[np.float64] | None = None
    dense: npt.NDArray[np.float32] | None = None
    affinity: sp.csr_matrix | None = None
    criteria_dense: npt.NDArray[np.float64] | None = None
    verdicts: npt.NDArray[np.float64] | None = None

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
        tfidf, query = _tfidf(texts, criteria, spec.stem)
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

    def with_verdicts(self, verdicts: npt.NDArray[np.float64] | None) -> LearningOrder:
        """The same features with an LLM judge's ``(N,)`` verdicts (:attr:`verdicts`; None or
        all 0: none)."""
        if verdicts is not None and not np.any(verdicts):
            verdicts = None
        return replace(self, verdicts=None if verdicts is None else np.asarray(verdicts, float))

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
            None if self.verdicts is None else self.verdicts[perm],
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
        column (:attr:`OrderSpec.criteria_weight`), with :attr:`verdicts`, the LLM-verdict
        column (:attr:`OrderSpec.judge_weight`).
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
            name = "import order" if self.criteria is None else "criteria"
            if self.verdicts is not None:
                name = "LLM verdicts" if self.criteria is None else "LLM verdicts + criteria"
            return Fit(self, None, self.x, name)
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
        if self.verdicts is not None and self.spec.judge_weight:
            column = self.verdicts.reshape(-1, 1) * self.spec.judge_weight
            x = sp.csr_matrix(sp.hstack([x, sp.csr_matrix(column)]))
            name = f"{name} + LLM verdicts"
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
        """``pool``'s ``(m,)`` rows best first: by :meth:`scores`, else by the LLM verdicts and
        then the criteria (either alone where the other is missing), else as given; ties keep
        the pool's order (a stable sort)."""
        rows = np.asarray(pool, dtype=np.int64)
        verdicts, criteria = self.order.verdicts, self.order.criteria
        if self.model is not None:
            key = self.scores(rows)
        elif verdicts is not None or criteria is not None:
            key = np.zeros(rows.size, dtype=np.float64)
            if criteria is not None:  # cosines in [-1, 1]: a verdict step of 10 outweighs them
                key += criteria[rows]
            if verdicts is not None:
                key += 10.0 * verdicts[rows]
        else:
            return rows
        return rows[np.argsort(-key, kind="stable")]
