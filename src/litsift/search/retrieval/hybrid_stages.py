"""A kind's hybrid retrieval as stages over one :class:`~litsift.search.retrieval.stages.Ranked`
(``BM25Run >> DenseRun >> Fusion``, what :meth:`litsift.search.kind_searcher.KindSearcher.search`
runs) and Rocchio relevance feedback over loaded hits (``RocchioFeedback``, "more like this").

The stages ask the searcher only for what :class:`HybridRetrievers` lists, so this module sits
below :mod:`litsift.search.kind_searcher`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from litsift.search.retrieval.fusion import Norm, fuse
from litsift.search.retrieval.query import bm25_query_text
from litsift.search.retrieval.stages import Ranked, Stage
from litsift.types import MULTI_RUN_FUSIONS, Kind, Query, Record, YearRange

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from litsift.config import SearchSettings
    from litsift.search.retrieval.fusion import Run

__all__ = [
    "BM25Run",
    "DenseRun",
    "Fusion",
    "HybridRetrievers",
    "Ranking",
    "RocchioFeedback",
]


class HybridRetrievers(Protocol):
    """What the stages use of a kind's searcher
    (:class:`litsift.search.kind_searcher.KindSearcher`)."""

    @property
    def ranking(self) -> Ranking: ...

    @property
    def bm25(self) -> object | None: ...

    def resolve(self, query: Query) -> Query: ...

    def encode(self, text: str) -> npt.NDArray[np.float32]: ...

    def bm25_run(self, text: str, depth: int, years: YearRange) -> Run: ...

    def dense_run(
        self, qvec: npt.NDArray[np.float32], depth: int, years: YearRange, prf_docs: int = 0
    ) -> Run: ...

    def record_vectors(self, records: Sequence[Record]) -> npt.NDArray[np.float32]: ...


@dataclass
class BM25Run(Stage):
    """The sparse retriever as a stage: BM25's ``k0`` candidates of the query text after
    query handling (``ranking.bm25_query``), the year filter pushed down, as ``runs["bm25"]``.
    Skipped when the fusion is ``dense``; a BM25 part found damaged by this query leaves the
    search to dense alone (the query's fusion becomes ``dense``)."""

    searcher: HybridRetrievers

    def __call__(self, ranked: Ranked) -> Ranked:
        q = ranked.query
        if q.fusion == "dense":
            return ranked
        assert q.k0 is not None
        t = time.perf_counter()
        text = bm25_query_text(q.text, self.searcher.ranking.bm25_query)
        ranked.runs["bm25"] = self.searcher.bm25_run(text, q.k0, q.years)
        ranked.timings["bm25"] = time.perf_counter() - t
        if self.searcher.bm25 is None:  # found damaged just now: dense alone
            del ranked.runs["bm25"]
            ranked.query = self.searcher.resolve(q)
        return ranked


@dataclass
class DenseRun(Stage):
    """The dense retriever as a stage: the query encoded once (kept in ``qvec``), its ``k0``
    nearest records with the year filter pushed down and the configured pseudo-relevance
    feedback, as ``runs["dense"]``. Skipped when the fusion is ``bm25``."""

    searcher: HybridRetrievers

    def __call__(self, ranked: Ranked) -> Ranked:
        q = ranked.query
        if q.fusion == "bm25":
            return ranked
        assert q.k0 is not None
        t = time.perf_counter()
        if ranked.qvec is None:
            ranked.qvec = self.searcher.encode(q.text)
        ranked.timings["encode"], t = time.perf_counter() - t, time.perf_counter()
        prf = self.searcher.ranking.prf_docs
        ranked.runs["dense"] = self.searcher.dense_run(ranked.qvec, q.k0, q.years, prf)
        ranked.timings["dense"] = time.perf_counter() - t
        return ranked


@dataclass
class Fusion(Stage):
    """The runs fused by the query's fusion (:func:`litsift.search.retrieval.fusion.fuse`) and
    cut to ``depth`` (default the query's ``k``), as ``fused``.

    Attributes:
        searcher: whose ranking (weights, RRF constant, normalisation) fuses.
        extra_runs: further runs fused with BM25 and dense (multi-run fusions only); they
            re-score the retrievers' candidates and never add one.
        weights: per-run fusion weights; default ``ranking.weights``.
        depth: how many fused results to keep.
    """

    searcher: HybridRetrievers
    extra_runs: Mapping[str, Run] | None = None
    weights: Mapping[str, float] | None = None
    depth: int | None = None

    def __call__(self, ranked: Ranked) -> Ranked:
        q = self.searcher.resolve(ranked.query)  # dense alone if BM25 was found damaged
        assert q.fusion is not None and q.k is not None and q.k0 is not None
        runs = ranked.runs
        t = time.perf_counter()
        if self.extra_runs and q.fusion in MULTI_RUN_FUSIONS:
            pool = {docid for run in runs.values() for docid, _ in run}
            for name, run in self.extra_runs.items():
                kept = [(docid, score) for docid, score in run if docid in pool]
                if kept:
                    runs[name] = kept
        r = self.searcher.ranking
        limit = q.k if self.depth is None else self.depth
        # a BM25 run shorter than k0 holds every document matching a query term: the others
        # score 0, which is its minmax floor (issue 19: rare exact matches keep their credit)
        bm25 = runs.get("bm25")
        short = bm25 is not None and len(bm25) < q.k0
        exhaustive = {"bm25": 0.0} if short else None
        ranked.fused = fuse(
            runs,
            q.fusion,
            self.weights or r.weights,
            rrf_k=r.rrf_k,
            norm=r.norm,
            limit=limit,
            exhaustive=exhaustive,
        )
        ranked.timings["fuse"] = time.perf_counter() - t
        return ranked


@dataclass
class RocchioFeedback(Stage):
    """Relevance feedback as a stage over loaded hits: re-rank them by cosine to the Rocchio
    vector of the query, the ``kept`` records and the ``discarded`` ones
    (:func:`litsift.search.retrieval.rocchio.rerank_hits`, IIR §9.1.1 weights); vectors are
    read back from the dense index, the query encoded unless ``qvec`` holds it.

    Raises (when called):
        ValueError: nothing to build a Rocchio vector from.
    """

    searcher: HybridRetrievers
    kept: Sequence[Record]
    discarded: Sequence[Record] = ()

    def __call__(self, ranked: Ranked) -> Ranked:
        from litsift.search.retrieval.rocchio import rerank_hits

        s = self.searcher
        qvec = ranked.qvec if ranked.qvec is not None else s.encode(ranked.query.text)
        ranked.hits = list(
            rerank_hits(
                ranked.hits,
                s.record_vectors([h.record for h in ranked.hits]),
                qvec,
                s.record_vectors(self.kept),
                s.record_vectors(self.discarded) if self.discarded else None,
            )
        )
        return ranked


@dataclass(frozen=True)
class Ranking:
    """How one kind's candidates are retrieved and fused (from :class:`SearchSettings`).

    Attributes:
        k, k0: default hits returned and candidates per retriever.
        fusion: default fusion (:data:`litsift.types.FUSIONS`).
        bm25_weight: BM25's share of an interpolated score; dense gets ``1 - bm25_weight``.
        rrf_k: the RRF constant (Cormack et al. 2009: 60).
        norm: score normalisation for interpolation.
        bm25_query: query handling before BM25 (:data:`litsift.types.BM25_QUERY_MODES`).
        prf_docs: dense pseudo-relevance feedback depth (0: off).
        prf_weight: Rocchio's beta for the feedback centroid.
    """

    k: int = 10
    k0: int = 100
    fusion: str = "interpolation"
    bm25_weight: float = 0.5
    rrf_k: int = 60
    norm: Norm = "minmax"
    bm25_query: str = "raw"
    prf_docs: int = 0
    prf_weight: float = 0.5

    @classmethod
    def for_kind(cls, settings: SearchSettings, kind: Kind) -> Ranking:
        """The measured defaults of ``kind`` (datasets have their own BM25 weight and PRF)."""
        is_dataset = kind is Kind.DATASET
        return cls(
            k=settings.k,
            k0=settings.k0,
            fusion=settings.fusion,
            bm25_weight=settings.dataset_bm25_weight if is_dataset else settings.bm25_weight,
            rrf_k=settings.rrf_k,
            bm25_query=settings.bm25_query,
            prf_docs=settings.dataset_prf_docs if is_dataset else settings.prf_docs,
            prf_weight=settings.prf_weight,
        )

    @property
    def weights(self) -> dict[str, float]:
        """``{"bm25": w, "dense": 1 - w}``."""
        return {"bm25": self.bm25_weight, "dense": 1.0 - self.bm25_weight}
