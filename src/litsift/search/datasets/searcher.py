"""Dataset recommendation: the dataset searcher composed with the paper searcher.

A dataset's own text (name, aliases, description) is only part of the evidence. The papers of
the store add three more (measured on DataFinder's tune half, docs/EVALUATION-RESULTS.md):

1. a **usage run** (:class:`~litsift.search.datasets.popularity.UsageProfiles`): each dataset
   described by the centroid of the papers naming it, fused with BM25 and dense (it re-scores
   their candidates only) with a share of the dense weight (round 5);
2. a **popularity prior** (:func:`~litsift.search.datasets.popularity.with_prior`) added to the
   fused score of the whole candidate pool before the top ``k`` is cut (rounds 3 and 5);
3. a **learned re-ranker** (:mod:`litsift.search.datasets.ranker`, LambdaMART) re-scoring that
   pool from store-relative features, among them the votes of the query's top paper hits
   (round 6); with it on, the pool is the fused top :attr:`Evidence.ranker_pool` (300) and
   each retriever fetches that many (round 13: a deeper fusion puts more of the relevant
   datasets into the top 100 the re-ranker then sorts).

A query that is a dataset's name (or an alias, or one edit from a name) then gets that
dataset first (:mod:`litsift.search.datasets.named`), whatever the evidence says.

All three need papers in the store and a multi-run fusion; the usage run and the re-ranker need
the paper index too (with its dense part built). Without them dataset search is the plain hybrid
of its own text, and without the dataset dense part it is BM25 alone (:attr:`partial` says so).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.search.datasets.named import NameIndex, named_first
from litsift.search.datasets.popularity import USAGE, MentionCounts, UsageProfiles, with_prior
from litsift.search.datasets.ranker import (
    PAPER_DEPTH,
    DatasetRanker,
    dataset_features,
    default_ranker,
    papers_to_datasets,
)
from litsift.search.retrieval.fusion import DocId, Fused
from litsift.types import MULTI_RUN_FUSIONS, Kind, Query

if TYPE_CHECKING:
    from litsift.config import SearchSettings
    from litsift.search.kind_searcher import FloatVector, KindSearcher

#: Defaults of :class:`Evidence`, each the best value on DataFinder's tune half.
#: Popularity prior weight: 1.5 alone (round 3), 0.25 next to the usage run (round 5).
POPULARITY_WEIGHT = 0.25
#: Share of the dense weight given to the usage run (round 5).
USAGE_WEIGHT = 0.5
#: Fused candidates the re-ranker scores (round 13).
RANKER_POOL = 300


@dataclass(frozen=True)
class Evidence:
    """How much the papers of the store weigh in dataset ranking.

    Attributes:
        popularity_weight: ``w`` of ``+ w · log(1 + count) / log(1 + max count)``; 0: off.
        usage_weight: the usage run's share of the dense weight; 0: off.
        use_ranker: re-score the candidate pool with the shipped LambdaMART model.
        ranker_pool: how many fused candidates it scores (at least the query's ``k``); the
            retrievers' depth ``k0`` is raised to this when smaller.
    """

    popularity_weight: float = POPULARITY_WEIGHT
    usage_weight: float = USAGE_WEIGHT
    use_ranker: bool = True
    ranker_pool: int = RANKER_POOL

    @classmethod
    def from_settings(cls, settings: SearchSettings) -> Evidence:
        return cls(
            settings.dataset_popularity_weight,
            settings.dataset_usage_weight,
            settings.dataset_ranker,
            settings.dataset_ranker_pool,
        )


class DatasetSearcher:
    """Dataset search over the dataset indexes, with evidence from the papers of the store.

    Args:
        datasets: the dataset kind's searcher.
        papers: the paper kind's searcher, or None when papers have no usable index (then
            neither the usage run nor the re-ranker runs).
        mentions: the store's mention counts, or None when the store has no papers (then no
            evidence from papers is used at all).
        evidence: the weights of that evidence.
        ranker: loads the re-ranking model (default: the shipped one, loaded once).
        papers_partial: why ``papers`` is None although the store has papers (e.g. the paper
            dense index is still being built), for :attr:`partial`.
        best_sentences: ``best_sentences(rowids, qvec) -> {rowid: cosine}``, the best
            query-sentence cosine of each dataset from its stored sentences (the re-ranker's
            ``max_sent``; :func:`litsift.search.aspects.sentence_phase.best_sentence_cosines`);
            datasets it
            leaves out, or all when None, get their whole-passage cosine instead.
        names: the store's datasets by name (:class:`NameIndex`, read when called), for
            queries that name a dataset; None: no dataset is moved first by name.
    """

    kind = Kind.DATASET

    def __init__(
        self,
        datasets: KindSearcher,
        papers: KindSearcher | None,
        mentions: MentionCounts | None,
        evidence: Evidence | None = None,
        ranker: Callable[[], DatasetRanker] = default_ranker,
        papers_partial: str | None = None,
        best_sentences: Callable[[list[int], FloatVector], dict[int, float]] | None = None,
        names: Callable[[], NameIndex] | None = None,
    ) -> None:
        self._names = names
        self.datasets = datasets
        self._best_sentences = best_sentences
        self.papers = papers
        self.mentions = mentions
        self.evidence = evidence or Evidence()
        self._ranker = ranker
        self._profiles: UsageProfiles | None = None
        self._named_by: dict[int, tuple[int, ...]] | None = None
        self._papers_partial = papers_partial

    @property
    def partial(self) -> str | None:
        """Why a search here uses less than the full evidence (None when it uses it all)."""
        if self.datasets.partial is not None:
            return self.datasets.partial
        if self._papers_partial is not None:
            return f"no evidence from papers yet: paper {self._papers_partial}"
        return None

    def signals(self, query: Query) -> tuple[str, ...]:
        """The retrievers a search for ``query`` runs (see :meth:`KindSearcher.signals`)."""
        return self.datasets.signals(query)

    def resolve(self, query: Query) -> Query:
        """The query with the dataset defaults filled in (see :meth:`KindSearcher.resolve`)."""
        return self.datasets.resolve(query)

    def usage_profiles(self) -> UsageProfiles | None:
        """The usage profiles over the paper vectors (built on first use), or None."""
        if self.papers is None or self.mentions is None:
            return None
        if self._profiles is None:
            self._profiles = UsageProfiles(self.mentions, self.papers.vectors)
        return self._profiles

    def features(
        self, query: Query, pool: list[Fused], qvec: FloatVector | None = None
    ) -> npt.NDArray[np.float64] | None:
        """The re-ranker's ``(len(pool), n features)`` matrix for a candidate pool
        (:func:`~litsift.search.datasets.ranker.dataset_features`), or None without a paper
        index (the pool is then left as fused).

        Args:
            query: the dataset query (its text and year range also select the paper runs).
            pool: the fused dataset candidates, best first.
            qvec: the query vector when already encoded.
        """
        if self.papers is None or self.mentions is None:
            return None
        q = self.resolve(query)
        if self._named_by is None:
            self._named_by = papers_to_datasets(self.mentions)
        if qvec is None:
            qvec = self.datasets.encode(q.text)
        paper_dense = self.papers.dense_run(qvec, PAPER_DEPTH, q.years)
        paper_bm25 = self.papers.bm25_run(q.text, PAPER_DEPTH, q.years)
        years: dict[DocId, int | None] = {
            f.docid: self.datasets.year_of(int(f.docid)) for f in pool
        }
        best = self.best_sentence(pool, qvec)
        return dataset_features(
            q.text,
            q.years.end,
            pool,
            years,
            paper_dense,
            paper_bm25,
            self._named_by,
            self.mentions,
            best,
        )

    def best_sentence(self, pool: list[Fused], qvec: FloatVector) -> dict[DocId, float]:
        """``{docid: cosine}``: the best cosine between ``qvec`` (``(dim,)``, unit length) and
        one stored sentence of each candidate; candidates without stored sentences get the
        cosine with their whole-passage vector from the dense index (0 without one)."""
        rowids = [int(f.docid) for f in pool]
        best: dict[int, float] = {}
        if self._best_sentences is not None:
            best = self._best_sentences(rowids, qvec)
        missing = [r for r in rowids if r not in best]
        if missing:
            found, vecs = self.datasets.vectors(missing)
            for rowid, cos in zip(found, vecs @ qvec, strict=True):
                best[int(rowid)] = float(cos)
        return {f.docid: best.get(int(f.docid), 0.0) for f in pool}

    def search(self, query: Query, timings: dict[str, float] | None = None) -> list[Fused]:
        """BM25 + dense (+ usage run) fused, popularity prior, re-ranker, top ``k``, the
        datasets the query names first.

        Args:
            query: the query; unset fields take the dataset defaults.
            timings: if given, filled with seconds per stage (``bm25``, ``encode``, ``dense``,
                ``usage``, ``fuse``, ``popularity``, ``ranker``; those that ran).

        Raises:
            QueryError: unknown fusion or non-positive k/k0.
            RankerError: the re-ranking model cannot be loaded.
        """
        q = self.resolve(query)
        if not q.text.strip():
            return []
        assert q.k is not None and q.k0 is not None
        k = q.k
        spent = timings if timings is not None else {}
        ev = self.evidence
        from_papers = q.fusion in MULTI_RUN_FUSIONS and self.mentions is not None
        popular = from_papers and ev.popularity_weight > 0
        rank_pool = from_papers and ev.use_ranker
        k0 = max(q.k0, ev.ranker_pool) if rank_pool else q.k0
        q = replace(q, k0=k0)
        ranking = self.datasets.ranking
        weights = ranking.weights
        qvec = None
        extra = None
        profiles = self.usage_profiles() if from_papers and ev.usage_weight > 0 else None
        if profiles is not None:
            t = time.perf_counter()
            qvec = self.datasets.encode(q.text)
            spent["encode"] = time.perf_counter() - t
            allowed = self.datasets.allowed(q.years)
            extra = {USAGE: profiles.search(qvec, k0, q.years.end, allowed)}
            w, u = ranking.bm25_weight, ev.usage_weight
            weights = {"bm25": w, "dense": (1 - w) * (1 - u), USAGE: (1 - w) * u}
            spent["usage"] = time.perf_counter() - t - spent["encode"]
        depth = max(ev.ranker_pool, k) if rank_pool else k0 if popular else k
        fused = self.datasets.search(q, extra, weights, depth, qvec, spent)
        if popular and self.mentions is not None:
            t = time.perf_counter()
            m = self.mentions
            counts = m.counts([f.docid for f in fused], q.years.end)
            cut = None if rank_pool else k
            fused = with_prior(fused, counts, m.max_count, ev.popularity_weight, cut)
            spent["popularity"] = time.perf_counter() - t
        if rank_pool:
            t = time.perf_counter()
            features = self.features(q, fused, qvec)
            if features is not None:
                fused = self._ranker().rerank(fused, features, k)
            spent["ranker"] = time.perf_counter() - t
        if self._names is not None:
            named = self._names().named(q.text)
            if named:
                year_of, years = self.datasets.year_of, q.years
                fused = named_first(fused, named, lambda r: years.contains(year_of(r)), k)
        return fused[:k]
