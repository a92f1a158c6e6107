""" "More like this": Rocchio relevance feedback on bi-encoder embeddings.

The query vector is moved toward the centroid of the kept (relevant) documents and away from
the centroid of the discarded (non-relevant) ones, and the current candidates are re-ranked
by cosine similarity to the moved vector:

    q_m = alpha * q_0 + beta * mean(D_r) - gamma * mean(D_nr)

Source: J. J. Rocchio, "Relevance feedback in information retrieval" (1971), in the form of
Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, §9.1.1, eq. (9.3),
with its default weights (alpha 1, beta 0.75, gamma 0.15). IIR clips negative term weights to
zero; that step is for term vectors and is not applied to dense embeddings. Pure numpy: the
caller supplies unit vectors (the dense index's or the encoder's).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from litsift.types import Hit, SignalScore

FloatArray = npt.NDArray[np.floating]

#: Name of the signal :func:`rerank_hits` adds to each hit (score = cosine, rank = new rank).
SIGNAL = "rocchio"


def _rows(vectors: FloatArray | None, dim: int, what: str) -> npt.NDArray[np.float64]:
    if vectors is None:
        return np.zeros((0, dim), dtype=np.float64)
    arr = np.asarray(vectors, dtype=np.float64)
    if arr.ndim == 1 and arr.size == 0:
        return np.zeros((0, dim), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise ValueError(f"{what} must have shape (n, {dim}), got {arr.shape}")
    return arr


def rocchio(
    query_vec: FloatArray | None,
    positives: FloatArray | None,
    negatives: FloatArray | None = None,
    alpha: float = 1.0,
    beta: float = 0.75,
    gamma: float = 0.15,
) -> npt.NDArray[np.float32]:
    """The Rocchio query vector, L2-normalised.

    Args:
        query_vec: ``(d,)`` the query's embedding, or None for feedback only.
        positives: ``(p, d)`` embeddings of the kept documents (``p`` may be 0).
        negatives: ``(n, d)`` embeddings of the discarded documents (``n`` may be 0).
        alpha, beta, gamma: weights of the query, the relevant centroid and the
            non-relevant centroid (IIR §9.1.1 defaults); a term with no vectors drops out.

    Returns:
        ``(d,)`` float32 unit vector.

    Raises:
        ValueError: shapes disagree, nothing to build a vector from, or the result is the
            zero vector.
    """
    parts = [x for x in (query_vec, positives, negatives) if x is not None]
    if not parts:
        raise ValueError("rocchio needs a query vector or feedback vectors")
    dim = int(np.asarray(parts[0]).shape[-1])
    q = np.zeros(dim, dtype=np.float64)
    if query_vec is not None:
        qv = np.asarray(query_vec, dtype=np.float64)
        if qv.shape != (dim,):
            raise ValueError(f"query_vec must have shape ({dim},), got {qv.shape}")
        q += alpha * qv
    pos = _rows(positives, dim, "positives")
    neg = _rows(negatives, dim, "negatives")
    if len(pos):
        q += beta * pos.mean(axis=0)
    if len(neg):
        q -= gamma * neg.mean(axis=0)
    norm = float(np.linalg.norm(q))
    if not np.isfinite(norm) or norm == 0.0:
        raise ValueError("the Rocchio vector is zero; give a query or some kept documents")
    return (q / norm).astype(np.float32)


def more_like_this(
    candidate_vecs: FloatArray,
    query_vec: FloatArray | None,
    positives: FloatArray | None,
    negatives: FloatArray | None = None,
    alpha: float = 1.0,
    beta: float = 0.75,
    gamma: float = 0.15,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Order candidates by cosine similarity to the Rocchio vector.

    Args:
        candidate_vecs: ``(m, d)`` unit embeddings of the current candidates.
        query_vec, positives, negatives, alpha, beta, gamma: as in :func:`rocchio`.

    Returns:
        ``(order, scores)``: ``order`` ``(m,)`` int64 candidate indices best first, ties
        broken by the original index (so the incoming order decides ties);
        ``scores`` ``(m,)`` float32 cosine of each candidate, in the input order.

    Raises:
        ValueError: see :func:`rocchio`.
    """
    cands = np.asarray(candidate_vecs, dtype=np.float32)
    q = rocchio(query_vec, positives, negatives, alpha, beta, gamma)
    if cands.ndim != 2 or (len(cands) and cands.shape[1] != q.shape[0]):
        raise ValueError(f"candidate_vecs must have shape (m, {q.shape[0]}), got {cands.shape}")
    norms = np.linalg.norm(cands, axis=1)
    norms[norms == 0] = 1.0
    scores = (cands @ q) / norms.astype(np.float32)
    order = np.lexsort((np.arange(len(cands)), -scores.astype(np.float64)))
    return order.astype(np.int64), scores.astype(np.float32)


def rerank_hits(
    hits: Sequence[Hit],
    candidate_vecs: FloatArray,
    query_vec: FloatArray | None,
    positives: FloatArray | None,
    negatives: FloatArray | None = None,
    alpha: float = 1.0,
    beta: float = 0.75,
    gamma: float = 0.15,
) -> tuple[Hit, ...]:
    """Re-rank hits toward the kept documents: new ranks, score = cosine to the Rocchio vector.

    Each hit keeps its other signals and gains a ``"rocchio"`` signal, so the explanation
    view can show both the original fusion and the feedback score.

    Args:
        hits: the current candidates, best first.
        candidate_vecs: ``(len(hits), d)`` their embeddings, row ``i`` for ``hits[i]``.
        query_vec, positives, negatives, alpha, beta, gamma: as in :func:`rocchio`.

    Raises:
        ValueError: ``candidate_vecs`` has not one row per hit, or see :func:`rocchio`.
    """
    if len(candidate_vecs) != len(hits):
        raise ValueError(f"{len(hits)} hits but {len(candidate_vecs)} candidate vectors")
    if not hits:
        return ()
    order, scores = more_like_this(
        candidate_vecs, query_vec, positives, negatives, alpha, beta, gamma
    )
    out = []
    for new_rank, i in enumerate(order.tolist(), start=1):
        hit = hits[i]
        signals = dict(hit.signals)
        signals[SIGNAL] = SignalScore(score=float(scores[i]), rank=new_rank)
        out.append(Hit(record=hit.record, rank=new_rank, score=float(scores[i]), signals=signals))
    return tuple(out)
