"""LitsiftService: the one door the TUI, the CLI and the evaluation use.

It owns the store, the encoder and the searchers of one ``LITSIFT_HOME``. A search picks the
searcher of the query's kind (:mod:`litsift.search.searcher`, :mod:`litsift.search.datasets`),
runs it and loads the top ``k`` rows from SQLite (``../shared/docs/ARCHITECTURE.md``, "Data
flow of one search"); ranking itself lives in those searchers, not here.

Thread-safety: a service may be used from one worker thread at a time for search (the TUI runs
searches in an exclusive worker); SQLite connections are opened with ``check_same_thread=False``.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.config import Config, load_config
from litsift.errors import IndexDamagedError, IndexMissingError, QueryError
from litsift.paths import Paths, get_paths
from litsift.types import (
    FUSIONS,
    Aspect,
    Hit,
    Kind,
    Label,
    Passage,
    Query,
    Record,
    SearchResult,
)

if TYPE_CHECKING:
    import numpy as np

    from litsift.llm.answer import Answer as Answer
    from litsift.llm.client import ChatClient, DeltaCallback
    from litsift.llm.judge import AspectJudgement
    from litsift.llm.rerank import RerankResult
    from litsift.llm.session import LLMSession
    from litsift.models_onnx import Encoder
    from litsift.search.aspect_scoring import AspectScorer, Coverage
    from litsift.search.datasets.popularity import MentionCounts
    from litsift.search.datasets.searcher import DatasetSearcher
    from litsift.search.indexer import IndexReport as IndexReport  # what build_index returns
    from litsift.search.manifest import Manifest
    from litsift.search.passage_index import PassageBuild, PassageIndex
    from litsift.search.searcher import KindSearcher
    from litsift.search.searchers import Searchers
    from litsift.search.sentences import SentenceStore
    from litsift.service_rq import RQService
    from litsift.service_sources import SourceService
    from litsift.store import IngestReport, Store
    from litsift.store.history import HistoryEntry
    from litsift.store.triage import Annotation, Triage

#: progress(stage, done, total) — stage names: "ingest", "bm25", "embed", "hnsw".
Progress = Callable[[str, int, int], None]

__all__ = ["FUSIONS", "LitsiftService", "Progress"]


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
        self._searchers: Searchers | None = None
        self._lock = threading.RLock()
        self._llm: LLMSession | None = None
        self._triage: Triage | None = None
        self._aspect_scorer: AspectScorer | None = None
        self._sentences: SentenceStore | None = None
        self._rq: RQService | None = None
        self._passages: PassageIndex | None = None

    # -- parts -----------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        """The store, opened for writing; where the home cannot be written (a read-only
        file system or directory, a full disk) it is opened read-only instead, so searching
        works, and every write raises why (:attr:`read_only_reason`).

        Raises:
            StoreError: the store cannot be read either (locked, permission, damaged).
        """
        if self._store is None:
            from litsift.errors import NoSpaceError, ReadOnlyHomeError
            from litsift.store import Store

            try:
                self._store = Store(self.paths.store_file)
            except (ReadOnlyHomeError, NoSpaceError) as err:
                if not self.paths.store_file.is_file():
                    raise
                self._store = Store(self.paths.store_file, readonly=True, write_fault=err)
        return self._store

    @property
    def read_only_reason(self) -> str | None:
        """Why nothing can be saved in this home (labels, notes, query history, ingests,
        index builds), in one line, or None when it can be written."""
        store = self.store
        if not store.readonly:
            return None
        fault = store.write_fault
        why = fault.message if fault is not None else f"{store.path} is open read-only"
        return f"{why}: labels, notes and query history cannot be saved here"

    @property
    def sources(self) -> SourceService:
        """Imports, de-duplication and syncs (:mod:`litsift.service_sources`)."""
        from litsift.service_sources import SourceService

        return SourceService(
            lambda: self.store, lambda kind: self.searchers.invalidate(kind), self.config
        )

    @property
    def rq(self) -> RQService:
        """Research questions: extraction, provenance, search (:mod:`litsift.service_rq`)."""
        from litsift.service_rq import RQService

        with self._lock:
            if self._rq is None:
                self._rq = RQService(
                    lambda: self.store,
                    lambda: self.encoder,
                    lambda: self.sentence_store,
                    lambda: self.llm,
                )
            return self._rq

    @property
    def encoder(self) -> Encoder:
        """The query/passage encoder. Raises ModelNotBuiltError if it cannot be loaded."""
        with self._lock:
            if self._encoder is None:
                from litsift.models_onnx import load_encoder

                self._encoder = load_encoder(
                    self.config.search.model, models_dir=self.paths.models_dir
                )
            if self._encoder.passage_cache is None and self.paths.embeddings_file is not None:
                from litsift.cache.embeddings import open_cache

                self._encoder.passage_cache = open_cache(self.paths.embeddings_file)
            return self._encoder

    def close(self) -> None:
        with self._lock:
            self._searchers = None
            self._triage = None
            self._passages = None
            self._aspect_scorer = None
            if self._sentences is not None:
                self._sentences.close()
                self._sentences = None
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
        self.searchers.invalidate(kind)
        return report

    def build_index(
        self,
        kind: Kind,
        rebuild: bool = False,
        progress: Progress | None = None,
        *,
        dense: bool = True,
        on_bm25: Callable[[IndexReport], None] | None = None,
    ) -> IndexReport:
        """Index rows new since the last build (all with ``rebuild``) in two phases
        (:mod:`litsift.search.builder`): BM25 published first, searchable at once (then
        ``on_bm25(report)``), then the dense part (skipped with ``dense=False``: searches stay
        BM25-only), then the rows ingested meanwhile (:func:`~litsift.search.builder.catch_up`;
        ``report.behind`` counts what is still not in BM25). Raises LitsiftError when another
        build of ``kind`` is running."""
        from litsift.search.builder import build_in_two_phases

        def bm25_published(first: IndexReport) -> None:
            self.searchers.invalidate(kind)
            if self.store.count(Kind.PAPER) and self.store.count(Kind.DATASET):
                self.dataset_mentions()  # counted now, so the first dataset search doesn't wait
            if on_bm25 is not None:
                on_bm25(first)

        report = build_in_two_phases(
            self.store,
            self.encoder,
            kind,
            self.paths.index_dir,
            rebuild,
            progress,
            on_bm25=bm25_published,
            dense=dense,
        )
        self.searchers.invalidate(kind)
        return report

    def check_index(self, kind: Kind) -> dict[str, str]:
        """Verify every index file's checksum (``litsift index --check``); damaged parts are
        marked so the next :meth:`build_index` rebuilds them. Returns ``{part: reason}``."""
        from litsift.search.indexer import check_index

        self.searchers.invalidate(kind)
        return check_index(self.paths.index_dir, kind)

    def index_status(self, kind: Kind) -> Manifest | None:
        from litsift.search.indexer import index_status

        return index_status(self.paths.index_dir, kind)

    def needs_index(self, kind: Kind) -> bool:
        """True if the store has rows the index (either part) does not cover, there is no
        index, or a part is damaged: marked so, a recorded file missing or of another size, or
        the manifest unreadable (one ``stat`` per file; the TUI builds such kinds at start)."""
        from litsift.search.indexer import index_dir_for
        from litsift.search.manifest import verify_files

        if self.store.count(kind) == 0:
            return False
        try:
            m = self.index_status(kind)
        except IndexDamagedError:
            return True
        if m is not None and verify_files(index_dir_for(self.paths.index_dir, kind), m):
            return True
        covered = min(m.revision("bm25"), m.revision("dense")) if m is not None else -1
        return covered < self.store.max_revision(kind)

    def bm25_behind(self, kind: Kind) -> tuple[int, int] | None:
        """``(rows, rows the BM25 part covers)`` when the store has rows of ``kind`` that its
        BM25 part does not cover (or there is no BM25 part); None when BM25 is up to date.
        A missing part covers 0 rows."""
        rows = self.store.count(kind)
        if rows == 0:
            return None
        m = self.index_status(kind)
        if m is not None and m.revision("bm25") >= self.store.max_revision(kind):
            return None
        return rows, (m.part_count("bm25") if m is not None else 0)

    # -- search ----------------------------------------------------------------------------
    @property
    def searchers(self) -> Searchers:
        """The open searchers of this home (:mod:`litsift.search.searchers`)."""
        with self._lock:
            if self._searchers is None:
                from litsift.search.searchers import Searchers

                self._searchers = Searchers(
                    self.store,
                    self.paths.index_dir,
                    lambda: self.encoder,
                    self.config.search,
                    lambda: self.sentence_store,
                )
            return self._searchers

    def searcher(self, kind: Kind) -> KindSearcher | DatasetSearcher:
        """The searcher a query of ``kind`` goes to: a ``KindSearcher`` for papers, a
        ``DatasetSearcher`` (with evidence from the store's papers) for datasets.

        Raises:
            IndexMissingError, IndexMismatchError, IndexDamagedError: the index can't serve.
        """
        return self.searchers.get(kind)

    def dataset_mentions(self) -> MentionCounts:
        """How many papers of the store name each dataset, cached on disk."""
        return self.searchers.mentions()

    def search(self, query: Query) -> SearchResult:
        """Run one query with the searcher of its kind and load the top ``k`` rows.

        Unset ``k``, ``k0`` and ``fusion`` take the configured defaults; the returned
        ``SearchResult.query`` has them filled in.

        Returns:
            hits best first; each carries the final score and each signal's score and rank;
            ``signals_used`` and ``partial`` say when the dense index is not built yet and
            the answer is BM25 alone.

        Raises:
            IndexMissingError: no index was built for ``query.kind``.
            IndexMismatchError: the index was built by another encoder.
            QueryError: unknown fusion method or bad k/k0.
        """
        from litsift.search.query import clean_query_text

        t0 = time.perf_counter()
        s = self.config.search
        query = replace(query, text=clean_query_text(query.text))
        query = query.with_defaults(s.k, s.k0, s.fusion)
        if not query.text.strip():
            return SearchResult(query, (), time.perf_counter() - t0, {})
        from litsift.service_rq import split_rq_query

        rq_field, rest = split_rq_query(query.text)
        if rq_field is not None:  # "problem: …" / "method: …": the research-question fields
            return self.rq.search(replace(query, text=rest), rq_field)
        if self.store.count(query.kind) == 0:
            raise IndexMissingError(
                f"no {query.kind.table} in the store yet",
                f"litsift ingest {query.kind.table} FILE.jsonl, then litsift index",
            )
        timings: dict[str, float] = {}
        searcher = self.searcher(query.kind)
        fused = searcher.search(query, timings=timings)
        t1 = time.perf_counter()
        rows = self.store.get_by_rowids(query.kind, [int(f.docid) for f in fused])
        hits: list[Hit] = []
        for f in fused:
            rec = rows.get(int(f.docid))
            if rec is None:  # row deleted since the index was built
                continue
            hits.append(Hit(rec, len(hits) + 1, float(f.score), dict(f.signals)))
        timings["load"] = time.perf_counter() - t1
        used = searcher.signals(query)
        partial = searcher.partial
        if query.fulltext and query.kind is Kind.PAPER:
            hits, used, note = self._with_passages(query, hits, used, timings)
            partial = "; ".join(n for n in (partial, note) if n) or None
        if s.cross_encoder_top > 0 and query.kind is Kind.PAPER and len(hits) > 1:
            hits = self._cross_encoded(query.text, hits, timings)
            used = (*used, "cross_encoder")
        elapsed = time.perf_counter() - t0
        return SearchResult(query, tuple(hits), elapsed, timings, used, partial)

    def _cross_encoded(self, text: str, hits: list[Hit], timings: dict[str, float]) -> list[Hit]:
        """:func:`litsift.search.stages.cross_encode` with the configured top and weight."""
        from litsift.models_onnx.cross_encoder import load_cross_encoder
        from litsift.search.stages import cross_encode

        t = time.perf_counter()
        s = self.config.search
        out = cross_encode(
            text, hits, s.cross_encoder_top, s.cross_encoder_weight, load_cross_encoder().score
        )
        timings["cross_encoder"] = time.perf_counter() - t
        return out

    def _with_passages(
        self, query: Query, hits: list[Hit], used: tuple[str, ...], timings: dict[str, float]
    ) -> tuple[list[Hit], tuple[str, ...], str | None]:
        """:func:`litsift.search.stages.with_passages` when a passage index exists (else the
        hits as they are); the third item is a note when the passage index is damaged (the
        hits are then those of the abstracts alone)."""
        from litsift.search.stages import with_passages

        t = time.perf_counter()
        try:
            index = self.passage_index
            if index is None:
                return hits, used, None
            out = with_passages(query, hits, index, lambda d: self.store.get(Kind.PAPER, d))
        except IndexDamagedError as err:
            with self._lock:
                self._passages = None
            note = f"full text not searched: {err.message}; {err.hint}"
            return hits, used, note
        timings["passages"] = time.perf_counter() - t
        return out, (*used, "passages"), None

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
        """Add a submitted query to the history; returns its history id, or 0 on a read-only
        home (:attr:`read_only_reason`), where a search keeps no history and raises nothing."""
        from litsift.search.query import clean_query_text

        if self.store.readonly:  # a read-only home searches; its history is not kept
            return 0
        return self.triage.record_query(clean_query_text(query.text), query.kind, query.years)

    def saved_searches(self) -> list[HistoryEntry]:
        return self.triage.saved_searches()

    def export(self, what: str, fmt: str, kind: Kind | None = None) -> str:
        """Kept records (``"kept"``) or a collection as bibtex, ris, csl-json or markdown."""
        from litsift.export import export_command_impl

        return export_command_impl(self.store, what, fmt, kind)

    def vectors(self, kind: Kind, records: Sequence[Record]) -> np.ndarray:
        """Embeddings of records, ``(n, dim)`` float32 (see :meth:`KindSearcher.record_vectors`)."""
        return self.searchers.of_kind(kind).record_vectors(records)

    def more_like_this(self, result: SearchResult) -> SearchResult:
        """Rerank ``result`` toward kept and away from discarded records (Rocchio, IIR §9.1.1).

        Raises:
            QueryError: nothing of this kind is kept or discarded yet.
        """
        kind = result.query.kind
        pos_ids = self.triage.ids_with_label(kind, Label.KEEP)
        neg_ids = self.triage.ids_with_label(kind, Label.DISCARD)
        if not pos_ids and not neg_ids:
            raise QueryError("more like this needs feedback", "keep or discard a few results first")
        pos = [r for r in (self.store.get(kind, i) for i in pos_ids) if r is not None]
        neg = [r for r in (self.store.get(kind, i) for i in neg_ids) if r is not None]
        from litsift.search.query import clean_query_text

        text = clean_query_text(result.query.text)
        hits = self.searchers.of_kind(kind).more_like_this(text, result.hits, pos, neg)
        return replace(result, hits=hits)

    # -- aspects ---------------------------------------------------------------------------
    def decompose(self, query_text: str) -> list[Aspect]:
        """Offline, deterministic aspects of a query (sentences, clauses or keyphrases)."""
        from litsift.search.aspects import decompose

        return decompose(query_text)

    def score_aspects(self, aspects: Sequence[Aspect], hits: Sequence[Hit]) -> list[Coverage]:
        """Per-aspect 0/1/2 grades with evidence sentences for each hit (DORIS-MAE scale).

        A hit of a full-text search is graded on its record's text and its matching passage.

        Returns one Coverage per hit, in the hits' order.
        """
        from litsift.search.aspect_scoring import AspectScorer

        with self._lock:
            if self._aspect_scorer is None:
                self._aspect_scorer = AspectScorer(self.encoder, sentences=self.sentence_store)
            scorer = self._aspect_scorer
        extra = [h.passage.text if h.passage is not None else "" for h in hits]
        return scorer.score(list(aspects), [h.record for h in hits], extra)

    @property
    def passage_index(self) -> PassageIndex | None:
        """The full-text passage index (:mod:`litsift.search.passage_index`), or None when no
        full text was imported and indexed."""
        from litsift.search.passage_index import PassageIndex

        with self._lock:
            if self._passages is None:
                self._passages = PassageIndex.open(self.paths.index_dir, self.store, self.encoder)
            return self._passages

    def has_passages(self) -> bool:
        """True when papers' full text is indexed (a passage index that is not empty; a
        damaged one counts, so a search says what to run): then full-text search is the
        default (TUI, ``litsift search``, ``litsift answer``). Cheap (a ``stat`` while the
        index is unchanged; nothing is opened or encoded)."""
        from litsift.search.passage_index import passages_built

        return passages_built(self.paths.index_dir)

    def build_passages(
        self, progress: Progress | None = None, rebuild: bool = False, check: bool = False
    ) -> PassageBuild:
        """Index the stored full-text passages (BM25 + dense; skipped when unchanged and
        intact, see :func:`litsift.search.passage_index.build_passage_index`)."""
        from litsift.search.passage_index import build_passage_index

        with self._lock:
            self._passages = None  # closed before its directory is swapped
        root = self.paths.index_dir
        report = build_passage_index(self.store, self.encoder, root, progress, rebuild, check)
        with self._lock:
            self._passages = None
        return report

    @property
    def sentence_store(self) -> SentenceStore | None:
        """Stored sentence spans + vectors for aspect scoring (:mod:`litsift.search.sentences`),
        or None when the index directory cannot hold it."""
        from litsift.search.sentences import open_sentence_store

        with self._lock:
            if self._sentences is None:
                self._sentences = open_sentence_store(self.paths.index_dir, self.encoder)
            return self._sentences

    def build_sentences(
        self, kind: Kind, progress: Progress | None = None, chunk: int | None = None
    ) -> tuple[int, int]:
        """Cut and embed the sentences of every record of ``kind`` that lacks them, for aspect
        scoring (the third index phase, after BM25 and dense; resumable, see
        :func:`litsift.search.sentences.build_sentences`).

        Returns:
            ``(embedded now, records of kind)``; ``(0, n)`` when the store cannot be opened.
        """
        from litsift.search.sentences import BUILD_CHUNK as SENTENCE_CHUNK
        from litsift.search.sentences import build_sentences

        sentences = self.sentence_store
        if sentences is None:
            return 0, self.store.count(kind)
        marker = self._sentences_marker(kind)
        try:
            marker.touch()
        except OSError:
            pass
        try:
            done = build_sentences(
                self.store, self.encoder, kind, sentences, progress, chunk or SENTENCE_CHUNK
            )
        except sqlite3.DatabaseError as err:  # damaged under a quick_check: started again
            sentences = self._reopen_sentences(f"{sentences.path.name}: {err}")
            if sentences is None:
                return 0, self.store.count(kind)
            done = build_sentences(
                self.store, self.encoder, kind, sentences, progress, chunk or SENTENCE_CHUNK
            )
        marker.unlink(missing_ok=True)  # finished: nothing to resume
        return done

    def _reopen_sentences(self, why: str) -> SentenceStore | None:
        """Start the sentence store again (it is derived data) because of ``why``."""
        from litsift.search.sentences import open_sentence_store

        with self._lock:
            if self._sentences is not None:
                self._sentences.close()
            self._sentences = open_sentence_store(self.paths.index_dir, self.encoder, fresh=why)
            self._aspect_scorer = None
            return self._sentences

    def sentences_repaired(self) -> str | None:
        """Why the sentence store was found damaged and started again by this service (on
        open or during :meth:`build_sentences`), or None."""
        with self._lock:
            return self._sentences.repaired if self._sentences is not None else None

    def _sentences_marker(self, kind: Kind) -> Path:
        return self.paths.index_dir / f"sentences-pending-{kind.value}"

    def sentences_pending(self, kind: Kind) -> bool:
        """True when a sentence phase of ``kind`` was started and did not finish (the TUI
        resumes it at start)."""
        return self._sentences_marker(kind).is_file()

    def needs_sentences(self, kind: Kind) -> bool:
        """True when fewer records of ``kind`` have stored sentences than the store holds."""
        sentences = self.sentence_store
        if sentences is None:
            return False
        return sentences.count(kind) < self.store.count(kind)

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

    # -- LLM (optional; litsift.llm.session) ----------------------------------------------
    @property
    def llm(self) -> LLMSession:
        """The LLM session: one chat client, cache and budget per service."""
        with self._lock:
            if self._llm is None:
                from litsift.llm.session import LLMSession

                self._llm = LLMSession(self.config.llm, self.paths)
            return self._llm

    @property
    def llm_configured(self) -> bool:
        return self.config.llm.configured

    def llm_client(self) -> ChatClient:
        """See :meth:`LLMSession.client` (raises LLMNotConfiguredError)."""
        return self.llm.client()

    def rerank(self, query_text: str, hits: Sequence[Hit]) -> RerankResult:
        """Listwise LLM rerank of the top hits; see :meth:`LLMSession.rerank`."""
        return self.llm.rerank(query_text, hits)

    def judge_aspects(
        self, query_text: str, aspects: Sequence[Aspect], hits: Sequence[Hit]
    ) -> AspectJudgement:
        """LLM 0/1/2 grades per aspect; see :meth:`LLMSession.judge_aspects`."""
        return self.llm.judge_aspects(query_text, aspects, hits)

    def answer(
        self, question: str, hits: Sequence[Hit], on_delta: DeltaCallback | None = None
    ) -> Answer:
        """A cited answer with every citation checked; see :meth:`LLMSession.answer`.

        When the hits come from a full-text search (a hit carries a passage), papers with
        indexed full text are cited from their best passages for ``question`` (at most
        ``llm.answer_passages_per_record`` each), not from their abstracts."""
        fulltext: dict[str, list[Passage]] | None = None
        if any(h.passage is not None for h in hits):
            index = self.passage_index
            if index is not None:
                fulltext = {}
                for found in index.search(question, k=200):
                    fulltext.setdefault(found.passage.doc_id, []).append(found.passage)
        return self.llm.answer(question, hits, on_delta, fulltext)

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
                "embedded": m.part_count("dense") if m else 0,
                "model": m.model_id if m else None,
            }
        #: None, or why nothing can be saved here (a read-only home, a full disk)
        out["read_only"] = self.read_only_reason
        #: None, or how a read-only store was opened (immutable, a private copy of its WAL)
        out["store_opened"] = self.store.read_note
        return out
