"""LitsiftService: the one door the TUI, the CLI and the evaluation use.

It owns the store, the encoder and the searchers of one ``LITSIFT_HOME``
(:mod:`litsift.service.parts`) and only wires: a search goes to the home's
:class:`~litsift.search.pipeline.SearchPipeline` (query resolved once, the kind's
searcher,
full text, one row load, stages); builds, triage and the aspect/LLM calls are method groups of
their own modules (:mod:`litsift.service.index`, :mod:`litsift.service.triage`,
:mod:`litsift.service.llm`), imports and syncs :mod:`litsift.service.sources`, research
questions :mod:`litsift.service.rq`. ``../shared/docs/ARCHITECTURE.md``, "Data flow of one
search".

Thread-safety: a service may be used from one worker thread at a time for search and triage
(hold :attr:`calls_lock` around such calls from a worker); SQLite connections are opened with
``check_same_thread=False``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.service.door import DoorCommands
from litsift.service.parts import Progress
from litsift.types import FUSIONS, Kind, Query, Record, RQReport, SearchResult, YearRange

if TYPE_CHECKING:
    import numpy as np

    from litsift.search.build.index_pair import (
        IndexReport as IndexReport,  # what build_index returns
    )
    from litsift.search.datasets.searcher import DatasetSearcher
    from litsift.search.kind_searcher import KindSearcher
    from litsift.search.pipeline import SearchPipeline
    from litsift.service.refs import RefsService
    from litsift.service.review import ReviewService
    from litsift.service.rq import RQService
    from litsift.service.sources import SourceService
    from litsift.store import IngestReport

__all__ = ["FUSIONS", "LitsiftService", "Progress"]


class LitsiftService(DoorCommands):
    """Facade over one litsift home (store + indexes + encoder + config).

    Args:
        paths: the directories to use; default :func:`litsift.paths.get_paths`.
        config: settings; default read from ``paths.config_file``.
        encoder: an already-loaded encoder (tests share one); default loaded lazily.
    """

    @property
    def sources(self) -> SourceService:
        """Imports, de-duplication and syncs (:mod:`litsift.service.sources`)."""
        from litsift.service.sources import SourceService

        return SourceService(
            lambda: self.store, lambda kind: self.searchers.invalidate(kind), self.config
        )

    @property
    def refs(self) -> RefsService:
        """Citation trail: fetch, references / cited-by, snowballing, graph export
        (:mod:`litsift.service.refs`)."""
        from litsift.service.refs import RefsService

        return RefsService(
            lambda: self.store,
            lambda kind: self.searchers.invalidate(kind),
            self.config,
            self.search,
            self.dataset_mentions,
        )

    @property
    def reviews(self) -> ReviewService:
        """Systematic reviews: make, show, export, screen (:mod:`litsift.service.review`)."""
        from litsift.service.review import ReviewService

        return ReviewService(
            lambda: self.store,
            lambda kind: self.searchers.invalidate(kind),
            lambda: self.encoder,
            lambda: self.llm_session,
        )

    @property
    def rq(self) -> RQService:
        """Research questions: extraction, provenance, search (:mod:`litsift.service.rq`)."""
        from litsift.service.rq import RQService

        with self._lock:
            if self._rq is None:
                self._rq = RQService(
                    lambda: self.store,
                    lambda: self.encoder,
                    lambda: self.sentence_store,
                    lambda: self.llm_session,
                )
            return self._rq

    @property
    def store_path(self) -> Path:
        """The home's SQLite file."""
        return self.paths.store_file

    # -- data ------------------------------------------------------------------------------
    def counts(self) -> dict[Kind, int]:
        """Rows per kind in the store."""
        return {kind: self.store.count(kind) for kind in Kind}

    def get(self, kind: Kind, doc_id: str) -> Record | None:
        return self.store.get(kind, doc_id)

    def ingest(self, kind: Kind, path: Path, progress: Progress | None = None) -> IngestReport:
        """Upsert a JSONL(.gz) file into the store. Bad lines are reported, good ones kept;
        control characters and escape sequences in its text are not stored
        (:func:`litsift.text.for_storage_in`)."""
        from litsift.store import ingest_jsonl
        from litsift.text import for_storage_in

        cb = None
        if progress is not None:
            p = progress

            def cb(done: int, total: int | None) -> None:
                # reading counts lines (no total yet), then storing counts to the unique rows:
                # two stages, so one bar does not run full on an unknown total and restart
                p("read" if total is None else "ingest", done, total or 0)

        report = ingest_jsonl(self.store, kind, path, progress=cb, clean=for_storage_in)
        self.searchers.invalidate(kind)
        return report

    def ingest_records(
        self,
        kind: Kind,
        records: Iterable[dict[str, Any]],
        source: Path,
        progress: Callable[[int, int | None], None] | None = None,
    ) -> IngestReport:
        """Upsert records given as dicts (the JSONL rows' shape; ``source`` names where they
        came from in the provenance) -- the evaluation's corpora. Bad rows are reported."""
        from litsift.store import ingest_records
        from litsift.text import for_storage_in

        report = ingest_records(
            self.store, kind, records, source, progress=progress, clean=for_storage_in
        )
        if self._searchers is not None:
            self._searchers.invalidate(kind)
        return report

    def rows_since(self, kind: Kind, revision: int = 0) -> Iterator[list[Record]]:
        """The records of ``kind`` changed since store ``revision`` (0: all), in batches."""
        return self.store.rows_since(kind, revision)

    def searcher(self, kind: Kind) -> KindSearcher | DatasetSearcher:
        """The searcher a query of ``kind`` goes to: a ``KindSearcher`` for papers, a
        ``DatasetSearcher`` (with evidence from the store's papers) for datasets.

        Raises:
            IndexMissingError, IndexMismatchError, IndexDamagedError: the index can't serve.
        """
        return self.searchers.get(kind)

    @property
    def pipeline(self) -> SearchPipeline:
        """The home's search pipeline (:mod:`litsift.search.pipeline`), built on first
        use."""
        with self._lock:
            if self._pipeline is None:
                from litsift.search.pipeline import SearchPipeline

                self._pipeline = SearchPipeline(
                    self.config.search,
                    self.searchers,
                    self.store,
                    lambda: self.passage_index,
                    self.rq.search,
                    self._forget_passages,
                )
            return self._pipeline

    def _forget_passages(self) -> None:
        with self._lock:
            self._passages = None

    def search(self, query: Query) -> SearchResult:
        """Run one query through the home's :attr:`pipeline`.

        Unset ``k``, ``k0`` and ``fusion`` take the configured defaults; the returned
        ``SearchResult.query`` has them filled in (and its text cleaned).

        Returns:
            hits best first; each carries the final score and each signal's score and rank;
            ``signals_used`` and ``partial`` say when the dense index is not built yet and
            the answer is BM25 alone. A record the query names (its id, DOI, arXiv id, ACL
            Anthology id or link: :mod:`litsift.service.named_records`) comes first.

        Raises:
            IndexMissingError: no index was built for ``query.kind``.
            IndexMismatchError: the index was built by another encoder.
            QueryError: unknown fusion method or bad k/k0.
        """
        from litsift.service.named_records import pin_named

        result = pin_named(self.store, self.pipeline.search(query))
        engine = self.engine
        where = engine.name if engine.name == "local" else f"{engine.name} at {engine.where}"
        return dataclasses.replace(result, engine=where)

    def vectors(self, kind: Kind, records: Sequence[Record]) -> np.ndarray:
        """Embeddings of records, ``(n, dim)`` float32 (see :meth:`KindSearcher.record_vectors`)."""
        return self.searchers.of_kind(kind).record_vectors(records)

    def extract_rq(
        self,
        *,
        use_llm: bool = False,
        doc_ids: Sequence[str] | None = None,
        replace: bool = False,
        years: YearRange | None = None,
        limit: int | None = None,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> RQReport:
        """Fill papers' problem and method; see :meth:`litsift.service.rq.RQService.extract`."""
        return self.rq.extract(
            use_llm=use_llm,
            limit=limit,
            years=years,
            doc_ids=doc_ids,
            replace=replace,
            progress=progress,
        )
