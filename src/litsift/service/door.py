"""The verbs of the TUI's door (:class:`litsift.service.api.LitsiftAPI`) that fold the service's
finer calls into one each: a look at the home (:meth:`DoorCommands.state`) and a cheap one for
the UI thread (:meth:`DoorCommands.glance`), one triage write (:meth:`DoorCommands.annotate`),
history (:meth:`DoorCommands.save_query`) and one build verb (:meth:`DoorCommands.build`); and
three of its sub-doors, thin adapters over the service's own methods: the open indexes
(:class:`IndexesDoor`), aspects (:class:`AspectsDoor`) and the LLM (:class:`LLMDoor`). They
take and return records of :mod:`litsift.types`; nothing behind the door is handed out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from litsift.errors import LitsiftError
from litsift.service.index import IndexCommands
from litsift.service.llm import AspectLLMCommands
from litsift.service.parts import Progress
from litsift.service.triage import TriageCommands
from litsift.types import (
    UNCHANGED,
    BuildPart,
    Glance,
    HistoryEntry,
    HomeState,
    Kind,
    Label,
    Query,
    Unchanged,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from litsift.search.build.index_pair import IndexReport
    from litsift.types import Aspect, Coverage, Hit
    from litsift.types.llm import Answer, AspectJudgement, RerankResult, RetryWait

__all__ = ["AspectsDoor", "DoorCommands", "IndexesDoor", "LLMDoor"]


class DoorCommands(IndexCommands, TriageCommands, AspectLLMCommands):
    """The door's folded verbs (mixed into :class:`litsift.service.facade.LitsiftService`)."""

    def state(self, *, mark_arrivals_seen: bool = False) -> HomeState:
        """One look at the home (see :class:`litsift.types.HomeState`): counts, what is still
        to build, whether it can be written, the LLM; ``mark_arrivals_seen`` counts the
        sync arrivals as seen now (not on a read-only home). Reads the store: call it off the
        UI thread."""
        read_only = self.read_only_reason
        llm_missing = None
        if not self.config.llm.configured:
            try:
                self.llm_session.client()
            except LitsiftError as err:
                llm_missing = (err.message, err.hint)
        labelled = [self.triage.label_counts(k) for k in Kind]
        return HomeState(
            store_path=self.paths.store_file,
            log_path=self.log_path,
            read_only_reason=read_only,
            read_only_fault=self.read_only_fault,
            embedding_note=self.embedding_note,
            llm_configured=self.config.llm.configured,
            llm_missing=llm_missing,
            counts={kind: self.store.count(kind) for kind in Kind},
            needs_index=frozenset(k for k in Kind if self.needs_index(k)),
            sentences_pending=frozenset(k for k in Kind if self.sentences_pending(k)),
            dense_loading=self.dense_loading(),
            collections=tuple(self.collections()),
            ingest_formats=tuple(self.ingest_formats()),
            arrivals=self.arrivals(mark_seen=mark_arrivals_seen and read_only is None),
            kept=sum(c.get(Label.KEEP, 0) for c in labelled),
            maybe=sum(c.get(Label.MAYBE, 0) for c in labelled),
        )

    def glance(self) -> Glance:
        """The cheap look for the UI thread (see :class:`litsift.types.Glance`): whether full
        text is indexed (a ``stat``), the log file, the embedding note, the LLM, the dense parts
        loading; no store access."""
        return Glance(
            passages=self.has_passages(),
            log_path=self.log_path,
            embedding_note=self.embedding_note,
            llm_configured=self.config.llm.configured,
            dense_loading=self.dense_loading(),
        )

    def ingest_formats(self) -> list[tuple[str, str, str]]:
        """``(name, kind, description)`` of every format ``litsift ingest`` reads (the
        sources registry; the TUI's empty-store screen lists them)."""
        from litsift.service.sources import SourceService

        return SourceService.format_table()

    def arrivals(self, mark_seen: bool = False) -> int:
        """Papers that saved syncs brought in since the last look (``mark_seen``: count them
        as seen now); see :class:`litsift.service.sources.SourceService`."""
        from litsift.service.sources import SourceService

        sources = SourceService(
            lambda: self.store, lambda kind: self.searchers.invalidate(kind), self.config
        )
        count = sources.arrivals()
        if count and mark_seen:
            sources.mark_arrivals_seen()
        return count

    def annotate(
        self,
        kind: Kind,
        doc_id: str,
        *,
        label: Label | Unchanged | None = UNCHANGED,
        note: tuple[str, Sequence[str]] | None = None,
        collection: str | None = None,
    ) -> str | None:
        """One triage write on record ``doc_id``: its ``label`` (None clears; undoable with
        :meth:`undo`), its ``note`` as ``(text, tags)``, or adding it to ``collection``
        (created if needed). Returns the collection's stored name when one was given."""
        if label is not UNCHANGED:
            self.set_label(kind, doc_id, label)
        if note is not None:
            self.set_note(kind, doc_id, note[0], note[1])
        if collection is not None:
            return self.add_to_collection(collection, kind, doc_id)
        return None

    def undo(self) -> tuple[Kind, str, Label | None] | None:
        """Undo the last label change; ``(kind, doc_id, restored label)`` or None."""
        return self.undo_label()

    def save_query(self, query: Query, name: str | None = None) -> HistoryEntry | None:
        """Add a submitted query to the history (nothing on a read-only home); with ``name``,
        also save it under that name and return the saved entry."""
        history_id = self.record_query(query)
        return self.save_search(history_id, name) if name is not None else None

    def build(
        self,
        kind: Kind,
        part: BuildPart = "index",
        progress: Progress | None = None,
        *,
        on_bm25: Callable[[], None] | None = None,
    ) -> bool:
        """Build one part of the home: ``"index"`` (BM25 then dense of ``kind``; ``on_bm25()``
        once BM25 is searchable), ``"passages"`` (the papers' full text) or ``"sentences"``
        (aspect scoring's sentences of ``kind``). Returns False when nothing changed (the
        full text was up to date), True otherwise."""
        if part == "passages":
            return not self.build_passages(progress).unchanged
        if part == "sentences":
            self.build_sentences(kind, progress=progress)
            return True
        published = on_bm25

        def bm25_ready(_report: IndexReport) -> None:
            if published is not None:
                published()

        self.build_index(kind, progress=progress, on_bm25=bm25_ready if on_bm25 else None)
        return True

    # -- sub-doors (:mod:`litsift.service.api`'s Protocols) -------------------------------------
    @property
    def indexes(self) -> IndexesDoor:
        """The open indexes (:class:`litsift.service.api.IndexesAPI`)."""
        return IndexesDoor(self)

    @property
    def aspects(self) -> AspectsDoor:
        """Aspect scoring (:class:`litsift.service.api.AspectsAPI`)."""
        return AspectsDoor(self)

    @property
    def llm(self) -> LLMDoor:
        """The optional LLM (:class:`litsift.service.api.LLMAPI`)."""
        return LLMDoor(self)


class IndexesDoor:
    """The open indexes of a service: :class:`litsift.service.api.IndexesAPI`."""

    def __init__(self, service: DoorCommands) -> None:
        self._service = service

    def open(self, kind: Kind) -> None:
        """Open the searcher of ``kind`` now (BM25, the dense graph loading in a thread), so
        the first query finds it open.

        Raises:
            IndexMissingError, IndexMismatchError, IndexDamagedError: the index can't serve.
        """
        self._service.searchers.get(kind)

    def invalidate(self, kind: Kind | None = None) -> None:
        """See :meth:`litsift.service.parts.ServiceParts.invalidate`."""
        self._service.invalidate(kind)

    def load_dense_in_background(
        self, on_loaded: Callable[[Kind, LitsiftError | None], None] | None
    ) -> None:
        """See :meth:`litsift.service.parts.ServiceParts.load_dense_in_background`."""
        self._service.load_dense_in_background(on_loaded)


class AspectsDoor:
    """Aspect scoring of a service: :class:`litsift.service.api.AspectsAPI`."""

    def __init__(self, service: DoorCommands) -> None:
        self._service = service

    def decompose(self, query_text: str) -> list[Aspect]:
        """See :meth:`litsift.service.llm.AspectLLMCommands.decompose`."""
        return self._service.decompose(query_text)

    def score(
        self,
        aspects: Sequence[Aspect],
        hits: Sequence[Hit],
        provisional: bool = False,
        cancelled: Callable[[], bool] | None = None,
    ) -> list[Coverage]:
        """See :meth:`litsift.service.llm.AspectLLMCommands.score_aspects`."""
        return self._service.score_aspects(aspects, hits, provisional, cancelled)

    def order(
        self, hits: Sequence[Hit], coverages: Sequence[Coverage], blend: float = 0.0
    ) -> list[Hit]:
        """See :meth:`litsift.service.llm.AspectLLMCommands.coverage_order`."""
        return self._service.coverage_order(hits, coverages, blend)


class LLMDoor:
    """The optional LLM of a service: :class:`litsift.service.api.LLMAPI`."""

    def __init__(self, service: DoorCommands) -> None:
        self._service = service

    def rerank(
        self, query_text: str, hits: Sequence[Hit], cancelled: Callable[[], bool] | None = None
    ) -> RerankResult:
        """See :meth:`litsift.service.llm.AspectLLMCommands.rerank`."""
        return self._service.rerank(query_text, hits, cancelled)

    def judge_aspects(
        self,
        query_text: str,
        aspects: Sequence[Aspect],
        hits: Sequence[Hit],
        cancelled: Callable[[], bool] | None = None,
    ) -> AspectJudgement:
        """See :meth:`litsift.service.llm.AspectLLMCommands.judge_aspects`."""
        return self._service.judge_aspects(query_text, aspects, hits, cancelled)

    def answer(
        self,
        question: str,
        hits: Sequence[Hit],
        on_delta: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Answer:
        """See :meth:`litsift.service.llm.AspectLLMCommands.answer` (full-text passages cited
        when the hits come from a full-text search)."""
        return self._service.answer(question, hits, on_delta, cancelled)

    def report_llm_waits(self, on_wait: Callable[[RetryWait], None] | None) -> None:
        """See :meth:`litsift.service.llm.AspectLLMCommands.report_llm_waits`."""
        self._service.report_llm_waits(on_wait)
