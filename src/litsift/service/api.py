"""What the TUI uses of the service, as one :class:`typing.Protocol` (harlequin's adapter idea:
the app talks to a narrow door, never to the parts behind it).

:class:`LitsiftAPI` lists every call the TUI makes -- search, triage, history, export,
research questions, sync arrivals, index state and builds, aspects and the LLM -- as flat
methods: no ``service.triage.*``, ``service.searchers.*``, ``service.rq.*`` or
``service.sources.*``. :class:`litsift.service.facade.LitsiftService` satisfies it structurally
(mypy
checks that where the app is created); a test double or another backend may too.

Threading rule (the service side's, not the UI's): the service runs one search or triage call
sequence at a time. A caller on a worker thread holds :attr:`LitsiftAPI.calls_lock` around
each such sequence; index builds and LLM calls need not hold it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from litsift.types import (
    Annotation,
    Aspect,
    Coverage,
    HistoryEntry,
    Hit,
    Kind,
    Label,
    Query,
    Record,
    SearchResult,
)

if TYPE_CHECKING:
    from litsift.config import Config
    from litsift.errors import LitsiftError
    from litsift.llm.answer import Answer
    from litsift.llm.client import ChatClient
    from litsift.llm.judge import AspectJudgement
    from litsift.llm.protocol import DeltaCallback
    from litsift.llm.rerank import RerankResult
    from litsift.search.build.index_pair import IndexReport
    from litsift.search.datasets.searcher import DatasetSearcher
    from litsift.search.fulltext.build import PassageBuild
    from litsift.search.kind_searcher import KindSearcher
    from litsift.service.refs import RefsService
    from litsift.service.review import ReviewService
    from litsift.service.rq import RQReport

__all__ = ["LitsiftAPI"]

#: progress(stage, done, total) of a build
Progress = Callable[[str, int, int], None]


class LitsiftAPI(Protocol):
    """The service as the TUI sees it (see the module docstring)."""

    #: held around each search / triage call sequence made from a worker thread
    calls_lock: threading.Lock

    # -- state -----------------------------------------------------------------------------
    @property
    def config(self) -> Config: ...
    @property
    def read_only_reason(self) -> str | None: ...
    @property
    def log_path(self) -> Path | None: ...
    @property
    def embedding_note(self) -> str | None: ...
    @property
    def llm_configured(self) -> bool: ...
    @property
    def store_path(self) -> Path: ...
    @property
    def refs(self) -> RefsService:
        """Citation trail: references / cited-by, fetch, snowball (the citations screen)."""
        ...

    @property
    def reviews(self) -> ReviewService:
        """Systematic reviews (the screening and feed screens)."""
        ...

    # -- search ----------------------------------------------------------------------------
    def search(self, query: Query) -> SearchResult: ...
    def searcher(self, kind: Kind) -> KindSearcher | DatasetSearcher: ...
    def has_passages(self) -> bool: ...
    def more_like_this(self, result: SearchResult) -> SearchResult: ...

    # -- triage, history, export -----------------------------------------------------------
    def annotations(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, Annotation]: ...
    def set_label(self, kind: Kind, doc_id: str, label: Label | None) -> Label | None: ...
    def undo_label(self) -> tuple[Kind, str, Label | None] | None: ...
    def get(self, kind: Kind, doc_id: str) -> Record | None: ...
    def set_note(self, kind: Kind, doc_id: str, text: str, tags: Sequence[str] = ()) -> None: ...
    def add_to_collection(self, name: str, kind: Kind, doc_id: str) -> str: ...
    def collections(self) -> list[str]: ...
    def record_query(self, query: Query) -> int: ...
    def history(self, limit: int = 50) -> list[HistoryEntry]: ...
    def saved_searches(self) -> list[HistoryEntry]: ...
    def save_search(self, history_id: int, name: str) -> HistoryEntry: ...
    def export(self, what: str, fmt: str, kind: Kind | None = None) -> str: ...

    # -- research questions, syncs ---------------------------------------------------------
    def extract_rq(
        self, *, use_llm: bool = False, doc_ids: Sequence[str] | None = None, replace: bool = False
    ) -> RQReport: ...
    def arrivals(self, mark_seen: bool = False) -> int: ...
    def ingest_formats(self) -> list[tuple[str, str, str]]:
        """``(name, kind, description)`` of every format ``litsift ingest`` reads."""
        ...

    # -- index state and builds ------------------------------------------------------------
    def counts(self) -> dict[Kind, int]: ...
    def needs_index(self, kind: Kind) -> bool: ...
    def sentences_pending(self, kind: Kind) -> bool: ...
    def build_index(
        self,
        kind: Kind,
        rebuild: bool = False,
        progress: Progress | None = None,
        *,
        dense: bool = True,
        on_bm25: Callable[[IndexReport], None] | None = None,
    ) -> IndexReport: ...
    def build_passages(
        self, progress: Progress | None = None, rebuild: bool = False, check: bool = False
    ) -> PassageBuild: ...
    def build_sentences(
        self, kind: Kind, progress: Progress | None = None, chunk: int | None = None
    ) -> tuple[int, int]: ...
    def invalidate(self, kind: Kind | None = None) -> None: ...
    def load_dense_in_background(
        self, on_loaded: Callable[[Kind, LitsiftError | None], None] | None
    ) -> None: ...
    def dense_loading(self) -> frozenset[Kind]: ...

    # -- aspects and LLM -------------------------------------------------------------------
    def decompose(self, query_text: str) -> list[Aspect]: ...
    def score_aspects(
        self,
        aspects: Sequence[Aspect],
        hits: Sequence[Hit],
        provisional: bool = False,
        cancelled: Callable[[], bool] | None = None,
    ) -> list[Coverage]: ...
    def coverage_order(
        self, hits: Sequence[Hit], coverages: Sequence[Coverage], blend: float = 0.0
    ) -> list[Hit]: ...
    def judge_aspects(
        self, query_text: str, aspects: Sequence[Aspect], hits: Sequence[Hit]
    ) -> AspectJudgement: ...
    def llm_client(self) -> ChatClient:
        """The LLM client (raises LLMNotConfiguredError, with its hint, without an endpoint)."""
        ...

    def rerank(self, query_text: str, hits: Sequence[Hit]) -> RerankResult: ...
    def answer(
        self, question: str, hits: Sequence[Hit], on_delta: DeltaCallback | None = None
    ) -> Answer: ...
