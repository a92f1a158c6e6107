"""The blocks of a learning order's features: the records' TF-IDF (:func:`tfidf_matrix`),
and the columns added at each fit, from the decisions so far: the citation signal towards the
includes (:func:`citation_columns`), the nearest include (:func:`neighbour_column`), the
decisions spread over the records' nearest-neighbour graph (:func:`knn_affinity`,
:func:`spread_column`) and the records' similarity to the review's criteria
(:func:`criteria_column`). :mod:`litsift.review.learner` joins them to the features; the
decision columns are 0 until enough records are included to learn their weight from.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

if TYPE_CHECKING:
    from litsift.graph.signal import SignalFeatures

#: A feature matrix: dense ``(N, d)`` float32 or sparse CSR.
FloatMatrix: TypeAlias = "npt.NDArray[np.float32] | sp.csr_matrix"

#: Scale of the citation-signal columns (each 0..1) beside the order's features. 0.3 and
#: :data:`CITATION_MIN_INCLUDED` = 3 were chosen among 4 variants (weight 1 or 0.3, from the
#: first or third include, all columns or ``linked`` only) on the 4 sets with references, order
#: tfidf-svm, seeds 0-2 (``benchmarks/citation_signal_variants.py``); ``litsift eval snowball``
#: measured the choice with the default order: +4.9 points WSS@95 over the same order without
#: it (4 sets x 5 seeds, p 0.0002), so reviews whose records carry citation edges use it.
CITATION_WEIGHT = 0.3

#: Neighbours per record in the TF-IDF graph of the label-spreading column, and how much of a
#: record's value comes from its neighbours (alpha of Zhou et al. 2004); chosen among k 10 / 20
#: and alpha 0.7 / 0.9 (docs/EVALUATION.md, "Label spreading").
SPREAD_NEIGHBOURS = 10
SPREAD_ALPHA = 0.9
#: Iterations of the spreading (alpha^30 = 0.04 of the first step is left at 0.9).
SPREAD_ITERATIONS = 30
#: The column joins the fit once this many records are included.
SPREAD_MIN_INCLUDED = 2

#: Columns of the signal used (0 linked, 1 coupling, 2 co-citation).
CITATION_COLUMNS: tuple[int, ...] = (0, 1, 2)
#: The signal joins the fit once this many included decisions exist: with one include, that
#: record's own signal towards the others is 0 and the fit learns a negative weight.
CITATION_MIN_INCLUDED = 3


#: Words as scikit-learn's default analyzer finds them (two or more word characters).
WORD = re.compile(r"(?u)\b\w\w+\b")


def stemmed_terms(text: str) -> list[str]:
    """The unigrams and bigrams of ``text``'s lower-cased words after Snowball's English
    stemmer (PyStemmer): the analyzer of :func:`tfidf_and_query` with ``stem=True``.
    "antihistamine" and "antihistamines", "randomised" and "randomise" become one term."""
    words: list[str] = _stemmer().stemWords(WORD.findall(text.lower()))
    return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]


@functools.cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def tfidf_matrix(texts: Sequence[str], stem: bool = False) -> sp.csr_matrix:
    """TF-IDF of ``texts`` with ELAS u4's settings: unigrams and bigrams, sublinear tf,
    ``max_df=0.95`` (1.0 for a single record), L2-normalised rows; with ``stem`` over stemmed
    words (:func:`stemmed_terms`). Fitted on all records (the vocabulary is not a label).

    Returns:
        ``(len(texts), vocabulary)`` sparse float64.
    """
    return tfidf_and_query(texts, "", stem)[0]


def tfidf_and_query(
    texts: Sequence[str], query: str, stem: bool = False
) -> tuple[sp.csr_matrix, sp.csr_matrix | None]:
    """:func:`tfidf_matrix` of ``texts`` and ``query``'s ``(1, vocabulary)`` row in the records'
    vocabulary (None for a blank query): the query is not a record, so it is not fitted on."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    words: dict[str, Any] = {"analyzer": stemmed_terms} if stem else {"ngram_range": (1, 2)}
    # one record (a full-text stage of a single include): 95% of it is no document, and
    # scikit-learn refuses the fit ("max_df corresponds to < documents than min_df")
    max_df = 0.95 if len(texts) > 1 else 1.0
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=1, max_df=max_df, **words)
    x = sp.csr_matrix(vectorizer.fit_transform(texts))
    q = sp.csr_matrix(vectorizer.transform([query])) if query.strip() else None
    return x, q


def citation_columns(
    signal: SignalFeatures, included: npt.NDArray[np.bool_], weight: float | None = None
) -> npt.NDArray[np.float32]:
    """The citation signal as the learner's extra columns (beside the features at each
    :meth:`LearningOrder.fit`).

    Args:
        signal: the records' citation features (rows in the order of ``included``).
        included: ``(N,)`` True for the records decided include (a maybe counts).
        weight: the scale (default :data:`CITATION_WEIGHT`; an order's
            :attr:`OrderSpec.citation_weight`).

    Returns:
        ``(N, len(CITATION_COLUMNS))`` float32: :meth:`SignalFeatures.matrix` towards the
        included rows scaled by ``weight``; all 0 while fewer than
        :data:`CITATION_MIN_INCLUDED` records are included (too few to learn a weight from).
    """
    x = signal.matrix(included)[:, list(CITATION_COLUMNS)]
    if int(included.sum()) < CITATION_MIN_INCLUDED:
        return np.zeros_like(x)
    scale = CITATION_WEIGHT if weight is None else weight
    return np.asarray(x * np.float32(scale), dtype=np.float32)


def neighbour_column(
    dense: npt.NDArray[np.float32], included: npt.NDArray[np.int64], weight: float
) -> npt.NDArray[np.float32]:
    """``(N, 1)``: each record's highest cosine similarity to an included record other than
    itself (``dense`` rows are unit vectors), times ``weight``; all 0 while fewer than
    :data:`CITATION_MIN_INCLUDED` records are included (an include's own column would be 0
    beside its one twin, and the fit would learn a negative weight)."""
    n = dense.shape[0]
    if included.size < CITATION_MIN_INCLUDED:
        return np.zeros((n, 1), dtype=np.float32)
    sims = dense @ dense[included].T
    sims[included, np.arange(included.size)] = -1.0
    return np.asarray(sims.max(axis=1, keepdims=True) * weight, dtype=np.float32)


def criteria_column(
    dense: npt.NDArray[np.float32], query: npt.NDArray[np.float32]
) -> npt.NDArray[np.float64]:
    """``(N, 1)``: each record's cosine similarity to the review's criteria, centred at its
    median over the records and scaled to a largest absolute value of 1 (the order's
    :attr:`~litsift.review.learner.OrderSpec.criteria_weight` scales it at each fit).

    The criteria text is embedded as a *query* (the encoder's query instruction, as bge's
    model card asks for short queries against passages) and the records as passages, so it
    is the dense retrieval score of the review question against every record, kept beside
    the learned features for the whole screening instead of only ranking the cold start.

    Args:
        dense: ``(N, d)`` the records' unit vectors.
        query: ``(d,)`` the criteria's unit vector from the same encoder.

    Returns:
        ``(N, 1)`` float64 in [-1, 1]; all 0 when every record scores the same.
    """
    sims = np.asarray(dense @ np.asarray(query, dtype=np.float32), dtype=np.float64).ravel()
    if sims.size == 0:
        return sims.reshape(0, 1)
    sims = sims - float(np.median(sims))
    top = float(np.abs(sims).max())
    return (sims / top if top > 0 else np.zeros_like(sims)).reshape(-1, 1)


def knn_affinity(x: FloatMatrix, k: int = SPREAD_NEIGHBOURS) -> sp.csr_matrix:
    """The normalised affinity ``S = D^-1/2 W D^-1/2`` of the records' k-nearest-neighbour
    graph (Zhou et al. 2004, "Learning with local and global consistency", NIPS 16):
    ``W[i, j]`` is the cosine similarity (clipped at 0) when ``j`` is among ``i``'s ``k``
    nearest rows or ``i`` among ``j``'s, no self loops.

    Args:
        x: ``(N, d)`` rows of unit length (TF-IDF, or the encoder's vectors).
        k: neighbours per record (fewer when ``N <= k``).

    Returns:
        ``(N, N)`` sparse float64, symmetric; all 0 for ``N < 2``.
    """
    from sklearn.neighbors import NearestNeighbors

    n = int(x.shape[0])
    if n < 2:
        return sp.csr_matrix((n, n))
    nn = NearestNeighbors(n_neighbors=min(k, n - 1), metric="cosine", algorithm="brute").fit(x)
    dist = nn.kneighbors_graph(mode="distance")  # the query row itself is left out
    w = sp.csr_matrix(dist, dtype=np.float64)
    w.data = np.maximum(1.0 - w.data, 0.0)
    w = w.maximum(w.T)
    degree = np.asarray(w.sum(axis=1)).ravel()
    inv = sp.diags(1.0 / np.sqrt(np.maximum(degree, 1e-12)))
    return sp.csr_matrix(inv @ w @ inv)


def spread_column(
    affinity: sp.csr_matrix,
    included: npt.NDArray[np.int64],
    excluded: npt.NDArray[np.int64],
    weight: float,
) -> npt.NDArray[np.float32]:
    """``(N, 1)``: the decisions spread over the graph (Zhou et al. 2004, the iteration
    ``F <- alpha S F + (1 - alpha) Y`` with :data:`SPREAD_ALPHA`, :data:`SPREAD_ITERATIONS`
    times), then one more step ``S F`` so a decided record's value comes from its neighbours;
    ``Y`` is ``+1/n_incl`` on the includes and ``-1/n_excl`` on the excludes (each class weighs
    the same), the column scaled to a largest absolute value of ``weight``. All 0 while fewer
    than :data:`SPREAD_MIN_INCLUDED` records are included.

    Args:
        affinity: ``(N, N)`` :func:`knn_affinity`.
        included, excluded: rows decided include / exclude.
        weight: the column's scale (:attr:`OrderSpec.spread_weight`).
    """
    n = int(affinity.shape[0])
    if included.size < SPREAD_MIN_INCLUDED:
        return np.zeros((n, 1), dtype=np.float32)
    y = np.zeros(n)
    y[included] = 1.0 / included.size
    y[excluded] = -1.0 / max(excluded.size, 1)
    f = y.copy()
    for _ in range(SPREAD_ITERATIONS):
        f = SPREAD_ALPHA * (affinity @ f) + (1.0 - SPREAD_ALPHA) * y
    f = affinity @ f
    top = float(np.abs(f).max())
    if top > 0:
        f = f * (weight / top)
    return np.asarray(f.reshape(-1, 1), dtype=np.float32)
