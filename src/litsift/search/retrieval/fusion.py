"""Fusion of retriever runs, as pure functions.

A *run* is one retriever's ranked list ``[(docid, score), ...]``, best first (rank 1 first).
Fusion returns :class:`Fused` records that keep each signal's raw score and 1-based rank for
explanation. Every ordering is deterministic: by ``(-score, docid)``.

The pattern follows pyserini (castorini/pyserini ``pyserini/fusion/_base.py`` for RRF with
``k = 60``, ``pyserini/search/hybrid/_searcher.py`` for score interpolation where a document
missing from one run takes that run's minimum score).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

import numpy as np
import numpy.typing as npt

from litsift.errors import QueryError
from litsift.types import FUSIONS, SignalScore

DocId = int | str
Run = Sequence[tuple[DocId, float]]
Norm = Literal["minmax", "zscore", "none"]
#: Default interpolation weights; ``SearchSettings.bm25_weight`` overrides them.
DEFAULT_WEIGHTS: Mapping[str, float] = MappingProxyType({"bm25": 0.5, "dense": 0.5})


@dataclass(frozen=True)
class Fused:
    """One fused result.

    Attributes:
        docid: the document (a rowid for litsift's indexes).
        score: the fused score (higher is better).
        rank: 1-based rank in the fused list.
        signals: ``{run name: SignalScore(raw score, 1-based rank)}`` for the runs that retrieved
            this document, sorted by run name.
    """

    docid: DocId
    score: float
    rank: int
    signals: Mapping[str, SignalScore] = field(default_factory=dict)


def _sort_key(item: tuple[DocId, float]) -> tuple[float, int, int, str]:
    docid, score = item
    # ints before strs, each in natural order, so mixed id types stay deterministic
    if isinstance(docid, int):
        return (-score, 0, docid, "")
    return (-score, 1, 0, docid)


def _signals(runs: Mapping[str, Run]) -> dict[DocId, dict[str, SignalScore]]:
    out: dict[DocId, dict[str, SignalScore]] = {}
    for name, run in runs.items():
        for rank, (docid, score) in enumerate(run, start=1):
            # a docid repeated within one run keeps its best (first) rank
            out.setdefault(docid, {}).setdefault(name, SignalScore(float(score), rank))
    return out


def ranked(
    scores: Mapping[DocId, float],
    signals: Mapping[DocId, Mapping[str, SignalScore]],
    limit: int | None = None,
) -> list[Fused]:
    """Fused results from final scores: best first by ``(-score, docid)``, ranks 1-based,
    each with its ``signals`` sorted by run name (every re-scoring stage ends here).

    ``limit`` keeps only the first ``limit`` results (all when None): the same results as
    cutting the whole list, without building the records that would be cut.
    """
    ordered = sorted(scores.items(), key=_sort_key)[:limit]
    return [
        Fused(docid, float(score), rank, MappingProxyType(dict(sorted(signals[docid].items()))))
        for rank, (docid, score) in enumerate(ordered, start=1)
    ]


def rrf(
    runs: Mapping[str, Run],
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
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
        limit: keep the first ``limit`` results only (:func:`ranked`).

    Returns:
        Every document of every run (up to ``limit``), fused, best first; ties by docid.

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
    return ranked(scores, signals, limit)


def normalise(
    scores: Sequence[float], norm: Norm, floor: float | None = None
) -> npt.NDArray[np.float64]:
    """Normalise one run's scores.

    ``minmax``: ``(s - lo) / (max - lo)`` with ``lo = min`` (all 1.0 when max == lo), or
    ``lo = floor`` when given (the score every document outside the run has); ``zscore``:
    ``(s - mean) / std`` with the population std (all 0.0 when std == 0); ``none``: unchanged.

    Args:
        scores: ``(n,)`` raw scores.
        norm: the method.
        floor: minmax only: the score of the documents the run left out, when it is known.

    Returns:
        ``(n,)`` float64.
    """
    s = np.asarray(scores, dtype=np.float64)
    if norm == "none" or len(s) == 0:
        return s
    if norm == "minmax":
        hi = float(s.max())
        lo = float(s.min()) if floor is None else min(float(floor), float(s.min()))
        return np.ones_like(s) if hi == lo else (s - lo) / (hi - lo)
    if norm == "zscore":
        std = float(s.std())
        return np.zeros_like(s) if std == 0 else (s - float(s.mean())) / std
    raise QueryError(f"unknown score normalisation {norm!r}", "use minmax, zscore or none")


def interpolate(
    runs: Mapping[str, Run],
    weights: Mapping[str, float],
    norm: Norm = "minmax",
    limit: int | None = None,
    exhaustive: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Linear interpolation of normalised scores.

    ``score(d) = sum over runs r of w_r * norm_r(s_r(d))``; a document absent from run ``r``
    takes the minimum normalised score of ``r`` (0 for minmax), as in pyserini's
    ``HybridSearcher._hybrid_results``. An empty run contributes nothing.

    A run named in ``exhaustive`` holds every document that scores above its floor (a BM25
    run shorter than ``k0``: every other document matches no query term and scores 0). Its
    minmax normalisation then runs from that floor, not from its own last score, so its last
    document keeps credit for what it matched: with the minimum, the third of three documents
    matching a rare term is normalised to 0 -- as if it matched nothing -- and falls below
    documents only the dense run found.

    Args:
        runs: ``{name: run}``, each best first.
        weights: ``{name: weight}``; a run without a weight is ignored for scoring (its ranks
            are still kept in ``signals``).
        norm: ``"minmax"``, ``"zscore"`` or ``"none"``.
        limit: keep the first ``limit`` results only (:func:`ranked`).

    Returns:
        Every document of every run (up to ``limit``), fused, best first; ties by docid.
    """
    signals = _signals(runs)
    parts: dict[DocId, list[float]] = {docid: [] for docid in signals}
    for name, run in runs.items():
        wt = float(weights.get(name, 0.0))
        if not run or wt == 0.0:
            continue
        known = (exhaustive or {}).get(name)
        normed = normalise([s for _, s in run], norm, known)
        floor = float(normed.min()) if known is None else 0.0
        seen: dict[DocId, float] = {}
        for (docid, _), v in zip(run, normed, strict=True):
            seen.setdefault(docid, float(v))
        for docid, vals in parts.items():
            vals.append(wt * seen.get(docid, floor))
    scores = {docid: math.fsum(vals) for docid, vals in parts.items()}
    return ranked(scores, signals, limit)


def single(name: str, run: Run, limit: int | None = None) -> list[Fused]:
    """One run as fused results (its own scores), for ``fusion="bm25"`` or ``"dense"``."""
    return ranked({d: s for d, s in reversed(run)}, _signals({name: run}), limit)


def fuse(
    runs: Mapping[str, Run],
    fusion: str,
    weights: Mapping[str, float] | None = None,
    rrf_k: int = 60,
    norm: Norm = "minmax",
    limit: int | None = None,
    exhaustive: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Fuse runs by one of :data:`litsift.types.FUSIONS`.

    Args:
        runs: ``{name: run}``, each best first; ``fusion="bm25"``/``"dense"`` use that run only.
        fusion: ``"rrf"`` (:func:`rrf`), ``"interpolation"`` (:func:`interpolate`), ``"bm25"``
            or ``"dense"`` (:func:`single`).
        weights: per-run weights; RRF defaults to 1, interpolation to :data:`DEFAULT_WEIGHTS`.
        rrf_k: the RRF constant.
        norm: score normalisation for interpolation.
        limit: keep the first ``limit`` fused results only (all when None).
        exhaustive: interpolation only: ``{run name: floor score}`` of runs that hold every
            document scoring above the floor (see :func:`interpolate`).

    Raises:
        QueryError: unknown ``fusion``.
    """
    if fusion == "rrf":
        return rrf(runs, k=rrf_k, weights=weights, limit=limit)
    if fusion == "interpolation":
        return interpolate(
            runs, weights or DEFAULT_WEIGHTS, norm=norm, limit=limit, exhaustive=exhaustive
        )
    if fusion in FUSIONS:
        return single(fusion, runs.get(fusion, []), limit)
    raise QueryError(f"unknown fusion {fusion!r}", f"use one of {', '.join(FUSIONS)}")
