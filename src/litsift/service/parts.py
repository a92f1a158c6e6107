"""The parts of a litsift home that the service is made of: store, encoder, searchers,
sentence store, passage index, triage, LLM session, each opened on first use, and the lock
that keeps one home's service single-threaded.

:class:`ServiceParts` is the base of :class:`litsift.service.facade.LitsiftService` and of its
method groups (:mod:`litsift.service.index`, :mod:`litsift.service.triage`,
:mod:`litsift.service.llm`), so each group sees the same parts.

Thread-safety: a service may be used from one worker thread at a time for search and triage
(the TUI holds :attr:`ServiceParts.calls_lock` around each such sequence of calls); parts are
opened under an internal lock, and SQLite connections are opened with
``check_same_thread=False``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Self

from litsift.config import Config, load_config
from litsift.paths import Paths, get_paths
from litsift.types import Kind

if TYPE_CHECKING:
    from pathlib import Path

    from litsift.llm.session import LLMSession
    from litsift.models_onnx import Encoder
    from litsift.search.aspects.scoring import AspectScorer
    from litsift.search.aspects.sentences import SentenceStore
    from litsift.search.engines.base import PassageSearch, SearchEngine
    from litsift.search.open_searchers import DenseLoaded, Searchers
    from litsift.search.pipeline import SearchPipeline
    from litsift.service.rq import RQService
    from litsift.store import Store
    from litsift.store.triage import Triage

#: progress(stage, done, total) — stage names: "ingest", "bm25", "embed", "hnsw".
Progress = Callable[[str, int, int], None]

__all__ = ["Progress", "ServiceParts"]


class ServiceParts:
    """Store, indexes, encoder and config of one litsift home, opened on first use.

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
        self._engine: SearchEngine | None = None
        self._lock = threading.RLock()
        self._encoder_lock = threading.Lock()
        self._llm: LLMSession | None = None
        self._triage: Triage | None = None
        self._aspect_scorer: AspectScorer | None = None
        self._sentences: SentenceStore | None = None
        self._rq: RQService | None = None
        self._passages: PassageSearch | None = None
        self._pipeline: SearchPipeline | None = None
        self._on_dense: DenseLoaded | None = None
        #: held by a caller around each sequence of search / triage calls made from a worker
        #: thread (the TUI's searches, label writes, aspect scoring): one thread at a time
        self.calls_lock = threading.Lock()

    @property
    def store(self) -> Store:
        """The store, opened for writing; where the home cannot be written (a read-only
        file system or directory, a full disk) it is opened read-only instead, so searching
        works, and every write raises why (:attr:`read_only_reason`).

        Raises:
            StoreError: the store cannot be read either (locked, permission, damaged).
        """
        store = self._store
        if store is not None:
            return store
        with self._lock:  # two threads asking at start (the TUI's workers) share one store
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
    def log_path(self) -> Path | None:
        """The log file (:mod:`litsift.logs`) where errors of background work are written with
        their tracebacks, or None when it cannot be written (a read-only home)."""
        from litsift import logs

        return logs.current() or logs.setup(self.paths.log_file)

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
    def read_only_fault(self) -> tuple[str, str] | None:
        """``(title, hint)`` of :attr:`read_only_reason`: which fault it is in a few words
        ("disk full", "read-only home", "no write permission") and what to do about it (free
        space, check the owner and mode); None when the home can be written."""
        store = self.store
        if not store.readonly:
            return None
        from litsift.errors import MachineFaultError

        fault = store.write_fault
        if fault is None:
            return "store open read-only", "open it for writing (a command that ingests does)"
        title = fault.title if isinstance(fault, MachineFaultError) else "home not writable"
        return title, fault.hint

    @property
    def encoder(self) -> Encoder:
        """The query/passage encoder. Raises ModelNotBuiltError if it cannot be loaded."""
        with self._encoder_lock:  # its own lock: the UI thread's cheap calls never wait ~1 s
            if self._encoder is None:
                from litsift.models_onnx import load_encoder

                self._encoder = load_encoder(
                    self.config.search.model, models_dir=self.paths.models_dir
                )
            if self._encoder.passage_cache is None and self.paths.embeddings_file is not None:
                from litsift.cache.embeddings import open_cache

                self._encoder.passage_cache = open_cache(self.paths.embeddings_file)
            return self._encoder

    @property
    def embedding_note(self) -> str | None:
        """Why index builds embed in one process although worker processes were asked for
        (they could not start here, or died), for the status line; None while they work or
        before any build loaded the encoder. Never waits for the encoder to load (the UI
        thread reads it: :meth:`litsift.service.door.DoorCommands.glance`)."""
        encoder = self._encoder  # one reference read: set only once the encoder is whole
        return encoder.pool_note if encoder is not None else None

    def close(self) -> None:
        with self._lock:
            self._searchers = None
            self._engine = None
            self._pipeline = None
            self._triage = None
            self._passages = None
            self._aspect_scorer = None
            if self._sentences is not None:
                self._sentences.close()
                self._sentences = None
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def searchers(self) -> Searchers:
        """The open searchers of this home (:mod:`litsift.search.open_searchers`)."""
        with self._lock:
            if self._searchers is None:
                from litsift.search.open_searchers import Searchers

                self._searchers = Searchers(
                    self.store,
                    self.paths.index_dir,
                    lambda: self.encoder,
                    self.config.search,
                    lambda: self.sentence_store,
                    lambda: self.engine,
                )
                self._searchers.load_dense_in_background(self._on_dense)
            return self._searchers

    def load_dense_in_background(self, on_loaded: DenseLoaded | None) -> None:
        """Open searchers with BM25 alone and load their dense parts in a thread, calling
        ``on_loaded(kind, error)`` when one took its place (the TUI: first results before the
        dense graph is in memory; see :mod:`litsift.search.open_searchers`). None turns it
        off."""
        with self._lock:
            self._on_dense = on_loaded
            if self._searchers is not None:
                self._searchers.load_dense_in_background(on_loaded)

    def dense_loading(self) -> frozenset[Kind]:
        """Kinds whose dense part is being loaded in the background (cheap; opens nothing and
        takes no lock: the UI thread reads it)."""
        searchers = self._searchers  # one reference read
        return searchers.loading if searchers is not None else frozenset()

    @property
    def engine(self) -> SearchEngine:
        """Where BM25 and dense retrieval run (``[engine]``, :mod:`litsift.search.engines.base`).
        Raises ConfigError / IndexMissingError when a Milvus engine cannot be opened."""
        with self._lock:
            if self._engine is None:
                from litsift.search.engines.base import open_engine

                self._engine = open_engine(self.config.engine, self.paths.index_dir)
            return self._engine

    def invalidate(self, kind: Kind | None = None) -> None:
        """Drop the open searcher of ``kind`` (all when None): its rows or indexes changed
        (e.g. the TUI's background build published a part)."""
        self.searchers.invalidate(kind)

    @property
    def triage(self) -> Triage:
        """Labels, notes, tags, collections and query history (keyed by external ids)."""
        with self._lock:
            if self._triage is None:
                from litsift.store.triage import Triage

                self._triage = Triage(self.store)
            return self._triage

    @property
    def passage_index(self) -> PassageSearch | None:
        """The full-text passage index (:mod:`litsift.search.fulltext.index`, or the engine's
        passages collection), or None when no full text was imported and indexed."""
        with self._lock:
            if self._passages is None:
                self._passages = self.engine.passages(self.store, self.encoder)
            return self._passages

    @property
    def sentence_store(self) -> SentenceStore | None:
        """Stored sentence spans + vectors for aspect scoring
        (:mod:`litsift.search.aspects.sentences`),
        or None when the index directory cannot hold it."""
        from litsift.search.aspects.sentences import open_sentence_store

        with self._lock:
            if self._sentences is None:
                self._sentences = open_sentence_store(
                    self.paths.index_dir,
                    self.encoder,
                    max_cached=self.config.search.sentence_cache_records,
                )
            return self._sentences

    @property
    def llm_session(self) -> LLMSession:
        """The LLM session: one chat client, cache and budget per service."""
        with self._lock:
            if self._llm is None:
                from litsift.llm.session import LLMSession

                self._llm = LLMSession(self.config.llm, self.paths)
            return self._llm
