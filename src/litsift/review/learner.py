"""The learning order: a linear model retrained as decisions arrive ranks the unread records.

Parts as in ASReview (``asreview/models/``): a feature matrix (TF-IDF, the encoder's dense
vectors, or both side by side), a linear classifier fitted with balanced sample weights, and the
"maximum" query (highest score first). :data:`ORDERS` names the combinations measured by
``litsift eval screening``; :data:`DEFAULT_ORDER` is the one reviews use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

if TYPE_CHECKING:
    from litsift.graph.signal import SignalFeatures

#: Balanced sampling ratio and SVM C of ASReview's default "ELAS u4" (asreview 2.x/3.x
#: ``asreview/models/models.py``: tuned by its authors on SYNERGY).
ELAS_RATIO = 9.8
ELAS_C = 0.11

#: A feature matrix: dense ``(N, d)`` float32 or sparse CSR.
FloatMatrix: TypeAlias = "npt.NDArray[np.float32] | sp.csr_matrix"


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
    """

    name: str
    features: str
    c: float = ELAS_C
    ratio: float = ELAS_RATIO
    dense_weight: float = 1.0

    @property
    def needs_dense(self) -> bool:
        """Whether the order reads the encoder's vectors."""
        return "dense" in self.features


ORDERS: dict[str, OrderSpec] = {
    o.name: o
    for o in (
        OrderSpec("tfidf-svm", "tfidf"),
        OrderSpec("dense-svm", "dense", c=1.0),
        OrderSpec("tfidf+dense", "tfidf+dense", dense_weight=1.0),
        OrderSpec("tfidf+dense-0.5", "tfidf+dense", dense_weight=0.5),
        OrderSpec("tfidf+dense-0.3", "tfidf+dense", dense_weight=0.3),
        OrderSpec("tfidf+dense-0.2", "tfidf+dense", dense_weight=0.2),
    )
}
#: The order ``litsift`` uses: ELAS u4's TF-IDF columns beside the encoder's vectors scaled by
#: 0.2. Chosen among the orders above on the 12 sets of ``shared/data/eval/screening`` (3 seeds;
#: ``benchmarks/screening_eval.py``): best mean WSS@95, RRF@10 and ATD, but its lead over
#: ASReview's default (+2.2 points WSS@95) is not significant over 12 sets (p = 0.23).
DEFAULT_ORDER = "tfidf+dense-0.2"

#: Scale of the citation-signal columns (each 0..1) beside the order's features. 0.3 and
#: :data:`CITATION_MIN_INCLUDED` = 3 were chosen among 4 variants (weight 1 or 0.3, from the
#: first or third include, all columns or ``linked`` only) on the 4 sets with references, order
#: tfidf-svm, seeds 0-2 (``benchmarks/citation_signal_variants.py``); ``litsift eval snowball``
#: measured the choice with the default order: +4.9 points WSS@95 over the same order without
#: it (4 sets x 5 seeds, p 0.0002), so reviews whose records carry citation edges use it.
CITATION_WEIGHT = 0.3
#: Columns of the signal used (0 linked, 1 coupling, 2 co-citation).
CITATION_COLUMNS: tuple[int, ...] = (0, 1, 2)
#: The signal joins the fit once this many included decisions exist: with one include, that
#: record's own signal towards the others is 0 and the fit learns a negative weight.
CITATION_MIN_INCLUDED = 3


def citation_columns(
    signal: SignalFeatures, included: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float32]:
    """The citation signal as the learner's extra columns (``extra`` of :func:`rank_pool`).

    Args:
        signal: the records' citation features (rows in the order of ``included``).
        included: ``(N,)`` True for the records decided include (a maybe counts).

    Returns:
        ``(N, len(CITATION_COLUMNS))`` float32: :meth:`SignalFeatures.matrix` towards the
        included rows scaled by :data:`CITATION_WEIGHT`; all 0 while fewer than
        :data:`CITATION_MIN_INCLUDED` records are included (too few to learn a weight from).
    """
    x = signal.matrix(included)[:, list(CITATION_COLUMNS)]
    if int(included.sum()) < CITATION_MIN_INCLUDED:
        return np.zeros_like(x)
    return np.asarray(x * np.float32(CITATION_WEIGHT), dtype=np.float32)


def tfidf_matrix(texts: Sequence[str]) -> sp.csr_matrix:
    """TF-IDF of ``texts`` with ELAS u4's settings: unigrams and bigrams, sublinear tf,
    ``max_df=0.95``, L2-normalised rows. Fitted on all records (the vocabulary is not a label).

    Returns:
        ``(len(texts), vocabulary)`` sparse float64.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_df=0.95)
    return sp.csr_matrix(vectorizer.fit_transform(texts))


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


def rank_pool(
    spec: OrderSpec,
    x: FloatMatrix,
    labelled: npt.NDArray[np.int64],
    y: npt.NDArray[np.integer],
    pool: npt.NDArray[np.int64],
    extra: npt.NDArray[np.float32] | None = None,
) -> npt.NDArray[np.int64]:
    """Fit on the labelled rows, return ``pool`` rows best first (ties keep pool order).

    Args:
        spec: the order.
        x: ``(N, d)`` features of every record.
        labelled: ``(n,)`` rows with decisions; ``y``: their ``(n,)`` 0/1 decisions (both
            classes present).
        pool: ``(m,)`` unlabelled rows.
        extra: ``(N, e)`` columns added beside ``x`` for this fit only: features that change
            with the decisions (the citation signal towards the included rows,
            :class:`litsift.graph.signal.SignalFeatures`).

    Returns:
        ``(m,)`` the pool's rows in screening order.
    """
    from sklearn.svm import LinearSVC

    if extra is not None:
        x = sp.csr_matrix(sp.hstack([x, sp.csr_matrix(extra)]))
    model = LinearSVC(C=spec.c, loss="squared_hinge", random_state=0)  # liblinear shuffles
    model.fit(x[labelled], y, sample_weight=balanced_weights(y, spec.ratio))
    scores = model.decision_function(x[pool])
    return pool[np.argsort(-scores, kind="stable")]
