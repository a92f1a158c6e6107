"""Fusion of retriever runs, as pure functions, and the hybrid BM25 + dense search.

A *run* is one retriever's ranked list ``[(docid, score), ...]``, best first (rank 1 first).
Fusion returns :class:`Fused` records that keep each signal's raw score and 1-based rank for
explanation. Every ordering is deterministic: by ``(-score, docid)``.

The pattern follows pyserini (castorini/pyserini ``pyserini/fusion/_base.py`` for RRF with
``k = 60``, ``pyserini/search/hybrid/_searcher.py`` for score interpolation where a document
missing from one run takes that run's minimum score).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from litsift.errors import QueryError
from litsift.types import YearRange

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.search.bm25 import BM25Index
    from litsift.search.dense import DenseIndex

DocId = int | str
Run = Sequence[tuple[DocId, float]]
Norm = Literal["minmax", "zscore", "none"]
FUSIONS = ("rrf", "interpolation", "bm25", "dense")
#: Default interpolation weights; ``SearchSettings.bm25_weight`` overrides them in the service.
DEFAULT_WEIGHTS: Mapping[str, float] = MappingProxyType({"bm25": 0.5, "dense": 0.5})


class Signal(NamedTuple):
    """One run's view of a fused document: raw score and 1-based rank (unpacks as a pair)."""

    score: float
    rank: int


@dataclass(frozen=True)
class Fused:
    """One fused result.

    Attributes:
        docid: the document (a rowid for litsift's indexes).
        score: the fused score (higher is better).
        rank: 1-based rank in the fused list.
        signals: ``{run name: Signal(raw score, 1-based rank)}`` for the runs that retrieved
            this document, sorted by run name.
    """

    docid: DocId
    score: float
    rank: int
    signals: Mapping[str, Signal] = field(default_factory=dict)


def _sort_key(item: tuple[DocId, float]) -> tuple[float, int, int, str]:
    docid, score = item
    # ints before strs, each in natural order, so mixed id types stay deterministic
    if isinstance(docid, int):
        return (-score, 0, docid, "")
    return (-score, 1, 0, docid)


def _signals(runs: Mapping[str, Run]) -> dict[DocId, dict[str, Signal]]:
    out: dict[DocId, dict[str, Signal]] = {}
    for name, run in runs.items():
        for rank, (docid, score) in enumerate(run, start=1):
            # a docid repeated within one run keeps its best (first) rank
            out.setdefault(docid, {}).setdefault(name, Signal(float(score), rank))
    return out


def _finish(
    scores: Mapping[DocId, float], signals: Mapping[DocId, Mapping[str, Signal]]
) -> list[Fused]:
    ordered = sorted(scores.items(), key=_sort_key)
    return [
        Fused(docid, float(score), rank, MappingProxyType(dict(sorted(signals[docid].items()))))
        for rank, (docid, score) in enumerate(ordered, start=1)
    ]


def rrf(
    runs: Mapping[str, Run], k: int = 60, weights: Mapping[str, float] | None = None
) -> list[Fused]:
    """Reciprocal rank fusion.

    ``score(d) = sum over runs r containing d of w_r / (k + rank_r(d))``, ``rank`` 1-based
    (Cormack, Clarke & Büttcher 2009, "Reciprocal Rank Fusion outperforms Condorcet and
    individual Rank Learning Methods", SIGIR, eq. 1, with ``k = 60``; per-run weights ``w_r``
    default to 1 as in pyserini's ``reciprocal_rank_fusion``).

    Args:
        runs: ``{name: run}``, each run best first.
        k: the RRF constant (> 0).
        weights: optional ``{name: weight}``; a run not named gets weight 1.

    Returns:
        Every document of every run, fused, best first; ties by docid.

    Raises:
        QueryError: ``k`` is not positive.
    """
    if k <= 0:
        raise QueryError(f"RRF k must be positive, got {k}", "use the default k = 60")
    w = dict(weights or {})
    signals = _signals(runs)
    scores: dict[DocId, float] = {}
    for docid, sig in signals.items():
        # fsum is exactly rounded, so the score does not depend on the order of the runs
        scores[docid] = math.fsum(w.get(name, 1.0) / (k + s.rank) for name, s in sig.items())
    return _finish(scores, signals)


def normalise(scores: Sequence[float], norm: Norm) -> npt.NDArray[np.float64]:
    """Normalise one run's scores.

    ``minmax``: ``(s - min) / (max - min)`` (all 1.0 when max == min); ``zscore``:
    ``(s - mean) / std`` with the population std (all 0.0 when std == 0); ``none``: unchanged.

    Args:
        scores: ``(n,)`` raw scores.
        norm: the method.

    Returns:
        ``(n,)`` float64.
    """
    s = np.asarray(scores, dtype=np.float64)
    if norm == "none" or len(s) == 0:
        return s
    if norm == "minmax":
        lo, hi = float(s.min()), float(s.max())
        return np.ones_like(s) if hi == lo else (s - lo) / (hi - lo)
    if norm == "zscore":
        std = float(s.std())
        return np.zeros_like(s) if std == 0 else (s - float(s.mean())) / std
    raise QueryError(f"unknown score normalisation {norm!r}", "use minmax, zscore or none")


def interpolate(
    runs: Mapping[str, Run], weights: Mapping[str, float], norm: Norm = "minmax"
) -> list[Fused]:
    """Linear interpolation of normalised scores.

    ``score(d) = sum over runs r of w_r * norm_r(s_r(d))``; a document absent from run ``r``
    takes the minimum normalised score of ``r`` (0 for minmax), as in pyserini's
    ``HybridSearcher._hybrid_results``. An empty run contributes nothing.

    Args:
        runs: ``{name: run}``, each best first.
        weights: ``{name: weight}``; a run without a weight is ignored for scoring (its ranks
            are still kept in ``signals``).
        norm: ``"minmax"``, ``"zscore"`` or ``"none"``.

    Returns:
        Every document of every run, fused, best first; ties by docid.
    """
    signals = _signals(runs)
    parts: dict[DocId, list[float]] = {docid: [] for docid in signals}
    for name, run in runs.items():
        wt = float(weights.get(name, 0.0))
        if not run or wt == 0.0:
            continue
        normed = normalise([s for _, s in run], norm)
        floor = float(normed.min())
        seen: dict[DocId, float] = {}
        for (docid, _), v in zip(run, normed, strict=True):
            seen.setdefault(docid, float(v))
        for docid, vals in parts.items():
            vals.append(wt * seen.get(docid, floor))
    scores = {docid: math.fsum(vals) for docid, vals in parts.items()}
    return _finish(scores, signals)


def single(name: str, run: Run) -> list[Fused]:
    """One run as fused results (its own scores), for ``fusion="bm25"`` or ``"dense"``."""
    return _finish({d: s for d, s in reversed(run)}, _signals({name: run}))


def _rocchio(
    dense: DenseIndex, qvec: npt.NDArray[np.float32], top: Run, weight: float
) -> npt.NDArray[np.float32]:
    """``q + weight * mean(vectors of top)``, L2-normalised (pseudo-relevance feedback)."""
    vecs = [v for v in (dense.vector(int(d)) for d, _ in top) if v is not None]
    q = np.asarray(qvec, dtype=np.float32).reshape(-1)
    if not vecs:
        return q
    out = q + weight * np.mean(np.stack(vecs), axis=0)
    norm = float(np.linalg.norm(out))
    return (out / norm if norm > 0 else q).astype(np.float32)


def hybrid_search(
    bm25: BM25Index,
    dense: DenseIndex,
    encoder: Encoder,
    year_by_rowid: npt.NDArray[np.int32],
    query_text: str,
    years: YearRange,
    k0: int,
    k: int,
    fusion: str = "rrf",
    weights: Mapping[str, float] | None = None,
    rrf_k: int = 60,
    norm: Norm = "minmax",
    encode_query: Callable[[str], npt.NDArray[np.float32]] | None = None,
    timings: dict[str, float] | None = None,
    bm25_query: str = "raw",
    prf_docs: int = 0,
    prf_weight: float = 0.5,
    extra_runs: Mapping[str, Run] | None = None,
) -> list[Fused]:
    """BM25 and dense top-``k0`` with the year filter pushed down into both, fused, top ``k``.

    Args:
        bm25: the kind's BM25 index.
        dense: the kind's dense index.
        encoder: the bi-encoder whose ``encode_queries`` embeds the query.
        year_by_rowid: ``(n,)`` int32 from ``Store.year_by_rowid``.
        query_text: any string; empty or whitespace-only gives no hits.
        years: the year range.
        k0: candidates from each retriever (``k0 >= k``).
        k: fused results returned.
        fusion: ``"rrf"``, ``"interpolation"``, ``"bm25"`` (BM25 only) or ``"dense"``.
        weights: ``{"bm25": w, "dense": w}``; RRF weights default to 1, interpolation weights
            to :data:`DEFAULT_WEIGHTS`.
        rrf_k: the RRF constant.
        norm: score normalisation for interpolation.
        encode_query: optional ``text -> (dim,) float32`` replacing
            ``encoder.encode_queries`` (e.g. a cached one).
        timings: if given, filled with seconds spent in ``"bm25"``, ``"encode"``,
            ``"dense"`` and ``"fuse"`` (stages that ran).
        bm25_query: query handling before BM25, a mode of
            :func:`litsift.search.query.bm25_query_text`.
        prf_docs: dense pseudo-relevance feedback: when > 0, the query vector becomes
            ``q + prf_weight * mean(top prf_docs dense hit vectors)`` (Rocchio 1971; Manning
            et al., IIR §9.1.6), re-normalised, and the dense search runs again.
        prf_weight: Rocchio's beta for the feedback centroid.
        extra_runs: further runs fused with BM25 and dense (RRF and interpolation only; e.g.
            the dataset usage run of :mod:`litsift.search.popularity`), weighted by
            ``weights[name]``; only their documents that BM25 or dense retrieved are used.

    Returns:
        Up to ``k`` :class:`Fused` with ``signals`` keyed ``"bm25"`` / ``"dense"``; docids are
        rowids.

    Raises:
        QueryError: unknown ``fusion``.
    """
    if fusion not in FUSIONS:
        raise QueryError(f"unknown fusion {fusion!r}", f"use one of {', '.join(FUSIONS)}")
    if not query_text.strip() or k <= 0:
        return []
    k0 = max(k0, k)
    spent = timings if timings is not None else {}
    runs: dict[str, Run] = {}
    t = time.perf_counter()
    if fusion != "dense":
        from litsift.search.query import bm25_query_text

        runs["bm25"] = bm25.search(bm25_query_text(query_text, bm25_query), k0, years)
        spent["bm25"], t = time.perf_counter() - t, time.perf_counter()
    if fusion != "bm25":
        if encode_query is not None:
            qvec = encode_query(query_text)
        else:
            qvec = encoder.encode_queries([query_text])[0]
        spent["encode"], t = time.perf_counter() - t, time.perf_counter()
        runs["dense"] = dense.search(qvec, k0, years, year_by_rowid)
        if prf_docs > 0 and runs["dense"]:
            qvec = _rocchio(dense, qvec, runs["dense"][:prf_docs], prf_weight)
            runs["dense"] = dense.search(qvec, k0, years, year_by_rowid)
        spent["dense"], t = time.perf_counter() - t, time.perf_counter()
    if extra_runs and fusion in ("rrf", "interpolation"):
        # extra runs re-score the retrievers' candidates; they never add one (an extra run
        # over a small set would otherwise pull its unrelated top items into every result)
        pool = {docid for run in runs.values() for docid, _ in run}
        for name, run in extra_runs.items():
            kept = [(docid, score) for docid, score in run if docid in pool]
            if kept:
                runs[name] = kept
    if fusion == "rrf":
        fused = rrf(runs, k=rrf_k, weights=weights)
    elif fusion == "interpolation":
        fused = interpolate(runs, weights or DEFAULT_WEIGHTS, norm=norm)
    else:
        fused = single(fusion, runs[fusion])
    spent["fuse"] = time.perf_counter() - t
    return fused[:k]
