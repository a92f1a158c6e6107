"""The open searchers of one litsift home: one per kind, opened on first use, dropped when the
kind's store rows or indexes change.

Papers get a :class:`~litsift.search.kind_searcher.KindSearcher`; datasets a
:class:`~litsift.search.datasets.searcher.DatasetSearcher` composed of the dataset searcher,
the paper searcher (when the paper index opens) and the store's dataset mention counts (when
the store has papers).

After :meth:`Searchers.load_dense_in_background` (the TUI, so its first results paint before
the dense graph is in memory: ~1 s per 100K papers), a local searcher opens with BM25 alone
(:data:`~litsift.search.kind_searcher.DENSE_LOADING` in its ``partial``) and a thread
opens the full
one, which takes its place; then the callback is called, and the caller searches again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from litsift.errors import LitsiftError
from litsift.search.datasets.mentions import MentionCache
from litsift.search.datasets.named import NameIndex
from litsift.search.datasets.searcher import DatasetSearcher, Evidence
from litsift.search.engines.base import LocalEngine
from litsift.search.kind_searcher import KindSearcher
from litsift.search.retrieval.hybrid_stages import Ranking
from litsift.search.retrieval.years import year_by_rowid
from litsift.types import Dataset, Kind

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from litsift.config import SearchSettings
    from litsift.models_onnx import Encoder
    from litsift.search.aspects.sentences import SentenceStore
    from litsift.search.datasets.popularity import MentionCounts
    from litsift.search.engines.base import SearchEngine
    from litsift.search.kind_searcher import FloatVector
    from litsift.store import Store

#: ``on_loaded(kind, error)``: the dense part of ``kind`` was loaded in the background (error
#: None) or could not be (the searcher goes on with BM25 alone and ``error`` says why)
DenseLoaded = Callable[[Kind, LitsiftError | None], None]


class Searchers:
    """Searchers over ``index_dir`` for ``store``, thread-safe.

    Args:
        store: the SQLite store (year columns, mention counts).
        index_dir: the directory of all indexes (``Paths.index_dir``).
        encoder: returns the encoder (called on first open, so the model loads lazily).
        settings: the ``[search]`` settings.
        sentences: returns the home's sentence store (or None), whose stored sentence vectors
            give the dataset re-ranker its ``max_sent`` feature; None: never used.
        engine: returns where BM25 and dense retrieval run (:mod:`litsift.search.engines.base`;
            called on first open); default the local tantivy + hnswlib under ``index_dir``.
    """

    def __init__(
        self,
        store: Store,
        index_dir: Path,
        encoder: Callable[[], Encoder],
        settings: SearchSettings,
        sentences: Callable[[], SentenceStore | None] | None = None,
        engine: Callable[[], SearchEngine] | None = None,
    ) -> None:
        self._store = store
        self._sentences = sentences
        self._index_dir = Path(index_dir)
        local = LocalEngine(self._index_dir)
        self._engine = engine if engine is not None else lambda: local
        self._encoder = encoder
        self._settings = settings
        self._open: dict[Kind, KindSearcher] = {}
        self._datasets: tuple[tuple[int, int, int], DatasetSearcher] | None = None
        self._mentions = MentionCache(store, self._index_dir)
        self._names: tuple[tuple[int, int], NameIndex] | None = None
        self._lock = threading.RLock()
        self._on_dense: DenseLoaded | None = None
        #: kinds whose dense part a thread is loading (replaced whole under the lock, read
        #: without it: :attr:`loading` never waits for a searcher being opened)
        self._loading: frozenset[Kind] = frozenset()
        #: per kind, bumped by :meth:`invalidate` of that kind (or of all): a load of the kind
        #: started before it is not installed; another kind's change leaves it alone (a paper
        #: load dropped when the dataset build published stayed "dense index loading" for good)
        self._generation: dict[Kind, int] = dict.fromkeys(Kind, 0)

    def load_dense_in_background(self, on_loaded: DenseLoaded | None) -> None:
        """From now on, open each local searcher with BM25 alone and load its dense part in a
        thread (None: open every part at once again, the default).

        Args:
            on_loaded: called from the loading thread once the full searcher of a kind took
                the BM25-only one's place (or could not be opened: the error); not called when
                the kind was invalidated meanwhile.
        """
        with self._lock:
            self._on_dense = on_loaded

    @property
    def loading(self) -> frozenset[Kind]:
        """Kinds whose dense part is being loaded in the background (lock-free: the UI thread
        reads it while another thread may hold the lock opening a searcher)."""
        return self._loading

    def of_kind(self, kind: Kind) -> KindSearcher:
        """The plain searcher of ``kind`` (its own indexes only).

        Raises:
            IndexMissingError, IndexMismatchError, IndexDamagedError: see
            :func:`litsift.search.build.index_pair.open_indexes`.
        """
        with self._lock:
            if kind not in self._open:
                engine = self._engine()
                encoder = self._encoder()
                years = year_by_rowid(self._store, kind, self._index_dir)
                ranking = Ranking.for_kind(self._settings, kind)
                on_loaded = self._on_dense
                if on_loaded is None or not isinstance(engine, LocalEngine):
                    self._open[kind] = engine.searcher(kind, encoder, years, ranking)
                else:
                    first = engine.searcher(kind, encoder, years, ranking, load_dense=False)
                    self._open[kind] = first
                    if first.dense_pending:
                        self._load_dense(engine, first, years, on_loaded)
            return self._open[kind]

    def _load_dense(
        self,
        engine: LocalEngine,
        first: KindSearcher,
        years: npt.NDArray[np.int32],
        on_loaded: DenseLoaded,
    ) -> None:
        """Open the full searcher of ``first.kind`` in a thread and put it in ``first``'s
        place (call under the lock)."""
        kind = first.kind
        generation = self._generation[kind]
        self._loading = self._loading | {kind}

        def load() -> None:
            full: KindSearcher | None = None
            error: LitsiftError | None = None
            try:
                full = engine.searcher(kind, first.encoder, years, first.ranking)
            except LitsiftError as err:
                error = err
            except Exception as err:  # a bug: reported like an index error, never lost
                error = LitsiftError(f"the {kind.table} dense index did not load: {err}", "")
            with self._lock:
                current = self._generation[kind] == generation and self._open.get(kind) is first
                if current and full is not None:
                    self._open[kind] = full
                    self._datasets = None
                elif current and error is not None:
                    first.partial = f"dense index not loaded: {error.message}"
            try:
                if current:
                    on_loaded(kind, error)
            finally:
                with self._lock:
                    self._loading = self._loading - {kind}

        threading.Thread(target=load, name=f"litsift-dense-{kind.value}", daemon=True).start()

    def get(self, kind: Kind) -> KindSearcher | DatasetSearcher:
        """The searcher a query of ``kind`` goes to (datasets: with evidence from papers)."""
        if kind is Kind.PAPER:
            return self.of_kind(kind)
        with self._lock:
            datasets = self.of_kind(Kind.DATASET)
            # one look at the store per query: the mention counts' state holds the row counts
            counts = self.mentions()
            has_papers = counts.state.get("papers", 0) > 0
            mentions = counts if has_papers else None
            papers, papers_partial = None, None
            # an open paper searcher is reused; the manifest is read only until one opens
            if has_papers and (Kind.PAPER in self._open or self._engine().has_index(Kind.PAPER)):
                try:
                    papers = self.of_kind(Kind.PAPER)
                except LitsiftError:  # a stale paper index: datasets are searched without it
                    papers = None
                if papers is not None and papers.dense is None:  # being embedded: no evidence
                    papers_partial = papers.partial
                    papers = None
            key = (id(datasets), id(papers), id(mentions))
            if self._datasets is None or self._datasets[0] != key:
                evidence = Evidence.from_settings(self._settings)
                searcher = DatasetSearcher(
                    datasets,
                    papers,
                    mentions,
                    evidence,
                    papers_partial=papers_partial,
                    best_sentences=self._best_sentences,
                    names=self.dataset_names,
                )
                self._datasets = (key, searcher)
            return self._datasets[1]

    def _best_sentences(self, rowids: list[int], qvec: FloatVector) -> dict[int, float]:
        """Best query-sentence cosine of each dataset from the stored sentences (see
        :func:`litsift.search.aspects.sentence_phase.best_sentence_cosines`); {} without a sentence
        store."""
        from litsift.search.aspects.sentence_phase import best_sentence_cosines

        sentences = self._sentences() if self._sentences is not None else None
        return best_sentence_cosines(self._store, sentences, Kind.DATASET, rowids, qvec)

    def dataset_names(self) -> NameIndex:
        """The store's datasets by name (:mod:`litsift.search.datasets.named`), read again when
        the datasets change (two index look-ups per query)."""
        st = self._store
        state = (st.count(Kind.DATASET), st.max_revision(Kind.DATASET))
        cached = self._names
        if cached is not None and cached[0] == state:
            return cached[1]
        rows = [
            (int(r.rowid), r.id, r.variants)
            for batch in st.rows_since(Kind.DATASET)
            for r in batch
            if isinstance(r, Dataset) and r.rowid is not None
        ]
        names = NameIndex.of(rows)
        self._names = (state, names)
        return names

    def mentions(self) -> MentionCounts:
        """The store's dataset mention counts (:mod:`litsift.search.datasets.mentions`)."""
        return self._mentions.get()

    def invalidate(self, kind: Kind | None = None) -> None:
        """Drop the open searcher of ``kind`` (all when None), e.g. after an ingest or a build."""
        with self._lock:
            for k in Kind if kind is None else (kind,):
                self._generation[k] += 1
            if kind is None:
                self._open.clear()
            else:
                self._open.pop(kind, None)
            self._datasets = None
