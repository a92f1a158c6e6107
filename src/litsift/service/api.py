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
from typing import TYPE_CHECKING, Protocol

from litsift.types import (
    Annotation,
    Aspect,
    BuildPart,
    Coverage,
    Glance,
    HistoryEntry,
    Hit,
    HomeState,
    Kind,
    Label,
    Query,
    Record,
    RQReport,
    SearchResult,
    Unchanged,
)

if TYPE_CHECKING:
    from litsift.config import Config
    from litsift.errors import LitsiftError
    from litsift.service.refs import RefsService
    from litsift.service.review import ReviewService
    from litsift.types.llm import Answer, AspectJudgement, RerankResult

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
    def state(self, *, mark_arrivals_seen: bool = False) -> HomeState:
        """One look at the home: paths, read-only, counts, what is still to build, the LLM,
        collections, ingest formats, sync arrivals (reads the store: off the UI thread)."""
        ...

    def glance(self) -> Glance:
        """What the UI thread may read at any time (every search and status line): whether
        full text is indexed (a ``stat``), the log file, the embedding note, the LLM, the
        dense parts loading; no store access, so not folded into :meth:`state`."""
        ...

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
    def more_like_this(self, result: SearchResult) -> SearchResult: ...
    def get(self, kind: Kind, doc_id: str) -> Record | None: ...

    # -- triage, history, export -----------------------------------------------------------
    def annotations(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, Annotation]: ...
    def annotate(
        self,
        kind: Kind,
        doc_id: str,
        *,
        label: Label | Unchanged | None = ...,
        note: tuple[str, Sequence[str]] | None = None,
        collection: str | None = None,
    ) -> str | None:
        """A label (None clears; undoable), a note ``(text, tags)`` or a collection."""
        ...

    def undo(self) -> tuple[Kind, str, Label | None] | None: ...
    def history(self, limit: int = 50, *, saved: bool = False) -> list[HistoryEntry]: ...
    def save_query(self, query: Query, name: str | None = None) -> HistoryEntry | None: ...
    def export(self, what: str, fmt: str, kind: Kind | None = None) -> str: ...
    def extract_rq(
        self, *, use_llm: bool = False, doc_ids: Sequence[str] | None = None, replace: bool = False
    ) -> RQReport: ...

    # -- index builds ----------------------------------------------------------------------
    def build(
        self,
        kind: Kind,
        part: BuildPart = "index",
        progress: Progress | None = None,
        *,
        on_bm25: Callable[[], None] | None = None,
    ) -> bool:
        """Build a kind's index, the full text or the aspect sentences; False: unchanged."""
        ...

    def open_index(self, kind: Kind) -> None:
        """Open the kind's index now, so the first query finds it open (raises its error)."""
        ...

    def invalidate(self, kind: Kind | None = None) -> None: ...
    def load_dense_in_background(
        self, on_loaded: Callable[[Kind, LitsiftError | None], None] | None
    ) -> None: ...

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
    def rerank(self, query_text: str, hits: Sequence[Hit]) -> RerankResult: ...
    def answer(
        self, question: str, hits: Sequence[Hit], on_delta: Callable[[str], None] | None = None
    ) -> Answer: ...
