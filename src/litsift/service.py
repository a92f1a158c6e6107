"""LitsiftService: the one API the TUI, the CLI and the evaluation call.

It owns the store, the encoder and the indexes of one ``LITSIFT_HOME`` and composes them into a
search: BM25 and dense retrieval of ``k0`` candidates each with the year filter pushed down,
fusion, then the top ``k`` rows loaded from SQLite (see ``../shared/docs/ARCHITECTURE.md``,
"Data flow of one search").

Thread-safety: a service may be used from one worker thread at a time for search (the TUI runs
searches in an exclusive worker); SQLite connections are opened with ``check_same_thread=False``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.config import Config, load_config
from litsift.errors import IndexMissingError, QueryError
from litsift.paths import Paths, get_paths
from litsift.types import Aspect, Hit, Kind, Label, Query, Record, SearchResult, SignalScore

if TYPE_CHECKING:
    import numpy as np

    from litsift.llm.answer import Answer
    from litsift.llm.client import ChatClient, DeltaCallback
    from litsift.llm.judge import AspectJudgement
    from litsift.llm.rerank import RerankResult
    from litsift.models_onnx import Encoder
    from litsift.search.aspect_scoring import AspectScorer, Coverage
    from litsift.search.bm25 import BM25Index
    from litsift.search.dense import DenseIndex
    from litsift.search.hybrid import DocId, Fused
    from litsift.search.indexer import IndexReport, Manifest
    from litsift.search.popularity import MentionCounts, UsageProfiles
    from litsift.store import IngestReport, Store
    from litsift.store.history import HistoryEntry
    from litsift.store.triage import Annotation, Triage

#: progress(stage, done, total) — stage names: "ingest", "bm25", "embed", "hnsw".
Progress = Callable[[str, int, int], None]

FUSIONS = ("rrf", "interpolation", "bm25", "dense")


@dataclass
class _Opened:
    bm25: BM25Index
    dense: DenseIndex
    manifest: Manifest
    year_by_rowid: np.ndarray


class LitsiftService:
    """Facade over one litsift home (store + indexes + encoder + config).

    Args:
        paths: the directories to use; default :func:`litsift.paths.get_paths`.
        config: settings; default read from ``paths.config_file``.
        encoder: an already-loaded encoder (tests share one); default loaded lazily.
    """

    def __init__(
        self,
        paths: Paths | None = None,
        config: Config | None = None,
        encoder: Encoder | None = None,
    ) -> None:
        self.paths = (paths or get_paths()).ensure()
        self.config = config if config is not None else load_config(self.paths.config_file)
        self._encoder = encoder
        self._store: Store | None = None
        self._opened: dict[Kind, _Opened] = {}
        self._lock = threading.RLock()
        self._llm: ChatClient | None = None
        self._triage: Triage | None = None
        self._aspect_scorer: AspectScorer | None = None
        self._mentions: MentionCounts | None = None
        self._usage: tuple[tuple[int, int, int], UsageProfiles] | None = None
        self._named_by: tuple[int, dict[int, tuple[int, ...]]] | None = None

    # -- parts -----------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        if self._store is None:
            from litsift.store import Store

            self._store = Store(self.paths.store_file)
        return self._store

    @property
    def encoder(self) -> Encoder:
        """The query/passage encoder. Raises ModelNotBuiltError if it cannot be loaded."""
        with self._lock:
            if self._encoder is None:
                from litsift.models_onnx import load_encoder

                self._encoder = load_encoder(
                    self.config.search.model, models_dir=self.paths.models_dir
                )
            return self._encoder

    def _indexes(self, kind: Kind) -> _Opened:
        with self._lock:
            if kind not in self._opened:
                from litsift.search.indexer import open_indexes

                bm25, dense, manifest = open_indexes(self.paths.index_dir, kind, self.encoder)
                self._opened[kind] = _Opened(bm25, dense, manifest, self.store.year_by_rowid(kind))
            return self._opened[kind]

    def close(self) -> None:
        with self._lock:
            self._opened.clear()
            self._triage = None
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> LitsiftService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- data ------------------------------------------------------------------------------
    def counts(self) -> dict[Kind, int]:
        """Rows per kind in the store."""
        return {kind: self.store.count(kind) for kind in Kind}

    def is_empty(self) -> bool:
        return not any(self.counts().values())

    def get(self, kind: Kind, doc_id: str) -> Record | None:
        return self.store.get(kind, doc_id)

    def ingest(self, kind: Kind, path: Path, progress: Progress | None = None) -> IngestReport:
        """Upsert a JSONL(.gz) file into the store. Bad lines are reported, good ones kept."""
        from litsift.store import ingest_jsonl

        cb = None
        if progress is not None:
            p = progress

            def cb(done: int, total: int | None) -> None:
                p("ingest", done, total or 0)

        report = ingest_jsonl(self.store, kind, path, progress=cb)
        with self._lock:
            self._opened.pop(kind, None)
        return report

    def build_index(
        self, kind: Kind, rebuild: bool = False, progress: Progress | None = None
    ) -> IndexReport:
        """Index rows new since the last build (all with ``rebuild``); swapped in atomically."""
        from litsift.search.indexer import build_index

        with self._lock:
            self._opened.pop(kind, None)
        report = build_index(
            self.store, self.encoder, kind, self.paths.index_dir, rebuild=rebuild, progress=progress
        )
        if self.store.count(Kind.PAPER) and self.store.count(Kind.DATASET):
            self.dataset_mentions()  # counted now, so the first dataset search doesn't wait
        return report

    def index_status(self, kind: Kind) -> Manifest | None:
        from litsift.search.indexer import index_status

        return index_status(self.paths.index_dir, kind)

    def needs_index(self, kind: Kind) -> bool:
        """True if the store has rows the index does not cover (or there is no index)."""
        m = self.index_status(kind)
        return self.store.count(kind) > 0 and (
            m is None or m.max_revision < self.store.max_revision(kind)
        )

    # -- dataset popularity ----------------------------------------------------------------
    def _popularity_state(self) -> dict[str, int]:
        st = self.store
        return {
            "papers": st.count(Kind.PAPER),
            "papers_revision": st.max_revision(Kind.PAPER),
            "datasets": st.count(Kind.DATASET),
            "datasets_revision": st.max_revision(Kind.DATASET),
        }

    def dataset_mentions(self) -> MentionCounts:
        """How many papers of the store mention each dataset (:mod:`litsift.search.popularity`).

        Computed from the store on first use (about 2 s per 20K papers) and cached in
        ``index_dir/popularity.json``; recomputed when papers or datasets were ingested since.
        """
        from litsift.search.popularity import MentionCounts, count_mentions

        with self._lock:
            state = self._popularity_state()
            if self._mentions is not None and dict(self._mentions.state) == state:
                return self._mentions
            path = self.paths.index_dir / "popularity.json"
            cached = MentionCounts.load(path)
            if cached is not None and dict(cached.state) == state:
                self._mentions = cached
                return cached
            datasets = [r for b in self.store.rows_since(Kind.DATASET) for r in b]
            papers = (r for b in self.store.rows_since(Kind.PAPER, batch_size=2000) for r in b)
            counts = count_mentions(datasets, papers, state)  # type: ignore[arg-type]
            try:
                counts.save(path)
            except OSError:  # a read-only home still searches; it just recounts next time
                pass
            self._mentions = counts
            return counts

    def _usage_profiles(self) -> UsageProfiles | None:
        """Dataset usage profiles over the paper dense index, or None when papers have no
        index (or one built by another encoder): then dataset search runs without them."""
        from litsift.errors import LitsiftError
        from litsift.search.popularity import UsageProfiles

        with self._lock:
            if self.index_status(Kind.PAPER) is None:
                return None
            mentions = self.dataset_mentions()
            try:
                papers = self._indexes(Kind.PAPER)
            except LitsiftError:
                return None
            key = (id(mentions), papers.manifest.max_revision, papers.dense.count())
            if self._usage is None or self._usage[0] != key:
                self._usage = (key, UsageProfiles(mentions, papers.dense.vectors))
            return self._usage[1]

    def dataset_ranking_features(
        self, query: Query, pool: Sequence[Fused], qvec: np.ndarray | None = None
    ) -> np.ndarray | None:
        """The learned dataset re-ranker's ``(len(pool), n features)`` matrix for a dataset
        candidate pool (:func:`litsift.search.dataset_ranker.dataset_features`), or None when
        the papers have no usable index (the pool is then left as fused).

        Args:
            query: the dataset query (its text and year range also select the paper runs).
            pool: the fused dataset candidates, best first.
            qvec: the query vector when already encoded.
        """
        from litsift.errors import LitsiftError
        from litsift.search.dataset_ranker import PAPER_DEPTH, dataset_features, papers_to_datasets
        from litsift.search.filters import YEAR_MISSING

        with self._lock:
            if self.index_status(Kind.PAPER) is None:
                return None
            try:
                papers = self._indexes(Kind.PAPER)
            except LitsiftError:
                return None
            mentions = self.dataset_mentions()
            if self._named_by is None or self._named_by[0] != id(mentions):
                self._named_by = (id(mentions), papers_to_datasets(mentions))
            named_by = self._named_by[1]
        if qvec is None:
            qvec = self.encoder.encode_queries([query.text])[0]
        paper_dense = papers.dense.search(qvec, PAPER_DEPTH, query.years, papers.year_by_rowid)
        paper_bm25 = papers.bm25.search(query.text, PAPER_DEPTH, query.years)
        ybr = self._indexes(Kind.DATASET).year_by_rowid
        years: dict[DocId, int | None] = {}
        for f in pool:
            i = int(f.docid)
            y = int(ybr[i]) if i < len(ybr) else YEAR_MISSING
            years[f.docid] = None if y == YEAR_MISSING else y
        return dataset_features(
            query.text, query.years.end, pool, years, paper_dense, paper_bm25, named_by, mentions
        )

    # -- search ----------------------------------------------------------------------------
    def search(self, query: Query) -> SearchResult:
        """Run one query: BM25 + dense (``k0`` each, year filter pushed down), fuse, load top ``k``.

        Returns:
            hits best first; each carries the fused score and each signal's score and rank.

        Raises:
            IndexMissingError: no index was built for ``query.kind``.
            IndexMismatchError: the index was built by another encoder.
            QueryError: unknown fusion method or bad k/k0.
        """
        from litsift.search.hybrid import hybrid_search

        t0 = time.perf_counter()
        s = self.config.search
        fusion = query.fusion or s.fusion
        if fusion not in FUSIONS:
            raise QueryError(f"unknown fusion {fusion!r}", f"use one of {', '.join(FUSIONS)}")
        if query.k < 1 or query.k0 < 1:
            raise QueryError("k and k0 must be positive")
        if not query.text.strip():
            return SearchResult(query, (), time.perf_counter() - t0, {})
        if self.store.count(query.kind) == 0:
            raise IndexMissingError(
                f"no {query.kind.table} in the store yet",
                f"litsift ingest {query.kind.table} FILE.jsonl, then litsift index",
            )
        opened = self._indexes(query.kind)
        timings: dict[str, float] = {}
        # per-kind fusion weight and dense PRF (measured: docs/EVALUATION-RESULTS.md)
        is_dataset = query.kind is Kind.DATASET
        w_bm25 = s.dataset_bm25_weight if is_dataset else s.bm25_weight
        # dataset evidence from the papers of the store (litsift.search.popularity): a
        # popularity prior over the whole candidate pool, before the top k is cut, and a
        # usage-profile run fused with BM25 and dense
        from_papers = is_dataset and fusion in ("rrf", "interpolation")
        from_papers = from_papers and self.store.count(Kind.PAPER) > 0
        popular = from_papers and s.dataset_popularity_weight > 0
        # the learned re-ranker (litsift.search.dataset_ranker) re-scores the whole pool too
        rank_pool = from_papers and s.dataset_ranker
        weights = {"bm25": w_bm25, "dense": 1.0 - w_bm25}
        qvec = None
        extra_runs = None
        use = from_papers and s.dataset_usage_weight > 0
        profiles = self._usage_profiles() if use else None
        if profiles is not None:
            from litsift.search.filters import allowed_mask
            from litsift.search.popularity import USAGE

            t1 = time.perf_counter()
            qvec = self.encoder.encode_queries([query.text])[0]
            timings["encode"] = time.perf_counter() - t1
            allowed = allowed_mask(opened.year_by_rowid, query.years)
            extra_runs = {
                USAGE: profiles.search(qvec, max(query.k0, query.k), query.years.end, allowed)
            }
            u = s.dataset_usage_weight
            weights = {"bm25": w_bm25, "dense": (1.0 - w_bm25) * (1 - u), USAGE: (1 - w_bm25) * u}
            timings["usage"] = time.perf_counter() - t1 - timings["encode"]
        fused = hybrid_search(
            opened.bm25,
            opened.dense,
            self.encoder,
            opened.year_by_rowid,
            query.text,
            query.years,
            k0=max(query.k0, query.k),
            k=max(query.k0, query.k) if popular or rank_pool else query.k,
            fusion=fusion,
            weights=weights,
            rrf_k=s.rrf_k,
            timings=timings,
            bm25_query=s.bm25_query,
            prf_docs=s.dataset_prf_docs if is_dataset else s.prf_docs,
            prf_weight=s.prf_weight,
            encode_query=None if qvec is None else (lambda _text: qvec),
            extra_runs=extra_runs,
        )
        if popular:
            from litsift.search.popularity import with_prior

            t1 = time.perf_counter()
            mentions = self.dataset_mentions()
            counts = mentions.counts([f.docid for f in fused], query.years.end)
            fused = with_prior(fused, counts, mentions.max_count, s.dataset_popularity_weight)
            timings["popularity"] = time.perf_counter() - t1
        if rank_pool:
            from litsift.search.dataset_ranker import default_ranker

            t1 = time.perf_counter()
            features = self.dataset_ranking_features(query, fused, qvec)
            if features is not None:
                fused = default_ranker().rerank(fused, features)
            timings["ranker"] = time.perf_counter() - t1
        fused = fused[: query.k]
        t1 = time.perf_counter()
        rows = self.store.get_by_rowids(query.kind, [int(f.docid) for f in fused])
        hits: list[Hit] = []
        for f in fused:
            rec = rows.get(int(f.docid))
            if rec is None:  # row deleted since the index was built
                continue
            signals = {
                name: SignalScore(score=float(sc), rank=int(rk))
                for name, (sc, rk) in f.signals.items()
            }
            hits.append(Hit(record=rec, rank=len(hits) + 1, score=float(f.score), signals=signals))
        timings["load"] = time.perf_counter() - t1
        return SearchResult(query, tuple(hits), time.perf_counter() - t0, timings)

    # -- triage ----------------------------------------------------------------------------
    @property
    def triage(self) -> Triage:
        """Labels, notes, tags, collections and query history (keyed by external ids)."""
        with self._lock:
            if self._triage is None:
                from litsift.store.triage import Triage

                self._triage = Triage(self.store)
            return self._triage

    def set_label(self, kind: Kind, doc_id: str, label: Label | None) -> Label | None:
        """Label a record (None clears); returns the previous label. Undoable."""
        return self.triage.set_label(kind, doc_id, label)

    def undo_label(self) -> tuple[Kind, str, Label | None] | None:
        """Undo the last label change; returns (kind, doc_id, restored label) or None."""
        return self.triage.undo()

    def annotations(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, Annotation]:
        """Label, note, tags and collections of each id, for the results table."""
        return self.triage.annotations(kind, doc_ids)

    def record_query(self, query: Query) -> int:
        """Add a submitted query to the history; returns its history id."""
        return self.triage.record_query(query.text, query.kind, query.years)

    def saved_searches(self) -> list[HistoryEntry]:
        return self.triage.saved_searches()

    def export(self, what: str, fmt: str, kind: Kind | None = None) -> str:
        """Kept records (``"kept"``) or a collection as bibtex, ris, csl-json or markdown."""
        from litsift.export import export_command_impl

        return export_command_impl(self.store, what, fmt, kind)

    def vectors(self, kind: Kind, records: Sequence[Record]) -> np.ndarray:
        """Embeddings of stored records, ``(n, dim)`` float32, read back from the dense index
        (no re-encoding); records missing from the index are encoded on the fly."""
        import numpy as np

        from litsift.search.text import passage_text

        dense = self._indexes(kind).dense
        out = np.zeros((len(records), self.encoder.dim), dtype=np.float32)
        missing: list[int] = []
        for i, rec in enumerate(records):
            vec = dense.vector(rec.rowid) if rec.rowid is not None else None
            if vec is None:
                missing.append(i)
            else:
                out[i] = vec
        if missing:
            out[missing] = self.encoder.encode_passages([passage_text(records[i]) for i in missing])
        return out

    def more_like_this(self, result: SearchResult) -> SearchResult:
        """Rerank ``result`` toward kept and away from discarded records (Rocchio, IIR §9.1.1).

        Raises:
            QueryError: nothing of this kind is kept or discarded yet.
        """
        from dataclasses import replace

        from litsift.search.rocchio import rerank_hits

        kind = result.query.kind
        pos_ids = self.triage.ids_with_label(kind, Label.KEEP)
        neg_ids = self.triage.ids_with_label(kind, Label.DISCARD)
        if not pos_ids and not neg_ids:
            raise QueryError("more like this needs feedback", "keep or discard a few results first")
        pos = [r for r in (self.store.get(kind, i) for i in pos_ids) if r is not None]
        neg = [r for r in (self.store.get(kind, i) for i in neg_ids) if r is not None]
        cands = [h.record for h in result.hits]
        qv = self.encoder.encode_queries([result.query.text])[0]
        hits = rerank_hits(
            result.hits,
            self.vectors(kind, cands),
            qv,
            self.vectors(kind, pos),
            self.vectors(kind, neg) if neg else None,
        )
        return replace(result, hits=tuple(hits))

    # -- aspects ---------------------------------------------------------------------------
    def decompose(self, query_text: str) -> list[Aspect]:
        """Offline, deterministic aspects of a query (sentences, clauses or keyphrases)."""
        from litsift.search.aspects import decompose

        return decompose(query_text)

    def score_aspects(self, aspects: Sequence[Aspect], hits: Sequence[Hit]) -> list[Coverage]:
        """Per-aspect 0/1/2 grades with evidence sentences for each hit (DORIS-MAE scale).

        Returns one Coverage per hit, in the hits' order.
        """
        from litsift.search.aspect_scoring import AspectScorer

        with self._lock:
            if self._aspect_scorer is None:
                self._aspect_scorer = AspectScorer(self.encoder)
            scorer = self._aspect_scorer
        return scorer.score(list(aspects), [h.record for h in hits])

    def coverage_order(
        self, hits: Sequence[Hit], coverages: Sequence[Coverage], blend: float = 0.0
    ) -> list[Hit]:
        """The hits in "aspect coverage" order: DORIS-MAE normalised score first, ties by mean
        combined score, then original position; hits without a coverage follow in their order.

        Args:
            hits: best first; coverages: from :meth:`score_aspects`, matched by doc id;
            blend: weight of the original rank in ``[0, 1]`` (0 = coverage only).

        Raises:
            ValueError: ``blend`` outside ``[0, 1]``.
        """
        from litsift.search.aspect_scoring import coverage_order

        return coverage_order(list(hits), coverages, blend)

    # -- LLM (optional) --------------------------------------------------------------------
    @property
    def llm_configured(self) -> bool:
        return self.config.llm.configured

    def llm_client(self) -> ChatClient:
        """The session's chat client (one cache, one budget per service).

        Raises:
            LLMNotConfiguredError: no ``[llm]`` base_url/model in the config.
        """
        from litsift.cache import LLMCache
        from litsift.llm.budget import Budget
        from litsift.llm.client import ChatClient
        from litsift.llm.errors import LLMNotConfiguredError

        with self._lock:
            if self._llm is None:
                if not self.config.llm.configured:
                    raise LLMNotConfiguredError(
                        "no LLM endpoint configured",
                        "set [llm] base_url and model in config.toml (see README, LLM)",
                    )
                self._llm = ChatClient(
                    self.config.llm,
                    cache=LLMCache.at(self.paths),
                    budget=Budget.from_settings(self.config.llm),
                )
            return self._llm

    def rerank(self, query_text: str, hits: Sequence[Hit]) -> RerankResult:
        """Listwise LLM rerank (RankGPT prompt, as LitSearch) of the top ``rerank_top_n`` hits.

        Never raises an LLM error: on failure the original order is returned with
        ``report.error`` set. Raises LLMNotConfiguredError only when no endpoint is configured.
        """
        from litsift.llm.rerank import rerank

        s = self.config.llm
        return rerank(
            self.llm_client(),
            query_text,
            list(hits),
            top_n=s.rerank_top_n,
            window=s.rerank_window,
            step=s.rerank_step,
            doc_words=s.rerank_doc_words,
            context_tokens=s.context_tokens,
        )

    def judge_aspects(
        self, query_text: str, aspects: Sequence[Aspect], hits: Sequence[Hit]
    ) -> AspectJudgement:
        """LLM 0/1/2 grade of each aspect for the top ``aspect_judge_top`` hits, with the
        DORIS-MAE annotation prompt (``litsift.llm.prompts.aspect_messages``).

        Never raises an LLM error: a failed call ends judging with ``error`` set and the
        grades so far kept. Raises LLMNotConfiguredError only when no endpoint is configured.
        """
        from litsift.llm.judge import judge_aspects

        s = self.config.llm
        return judge_aspects(
            self.llm_client(),
            query_text,
            list(aspects),
            list(hits),
            top=s.aspect_judge_top,
            doc_words=s.rerank_doc_words,
        )

    def answer(
        self, question: str, hits: Sequence[Hit], on_delta: DeltaCallback | None = None
    ) -> Answer:
        """An answer citing passages of ``hits`` with every citation checked (OpenScholar-style).

        Raises:
            LLMNotConfiguredError, LLMError: the first draft could not be obtained.
            QueryError: no hits to cite.
        """
        from litsift.llm.answer import answer_question

        s = self.config.llm
        return answer_question(
            self.llm_client(),
            question,
            list(hits),
            max_records=s.answer_max_records,
            max_per_record=s.answer_passages_per_record,
            chunk_words=s.answer_chunk_words,
            feedback_rounds=s.answer_feedback_rounds,
            judge=s.answer_judge,
            on_delta=on_delta,
        )

    def describe(self) -> dict[str, Any]:
        """Counts, index manifests and paths, for ``litsift config`` and the TUI status."""
        out: dict[str, Any] = {
            "home": str(self.paths.data_dir),
            "store": str(self.paths.store_file),
            "models_dir": str(self.paths.models_dir),
        }
        for kind in Kind:
            m = self.index_status(kind)
            out[kind.table] = {
                "rows": self.store.count(kind),
                "indexed": m.count if m else 0,
                "model": m.model_id if m else None,
            }
        return out
