"""What the TUI uses of the service, as one :class:`typing.Protocol` (harlequin's adapter idea:
the app talks to a narrow door, never to the parts behind it).

:class:`LitsiftAPI` is the door: 20 members at most (``tests/unit/test_door.py``), each taking
and returning plain records only -- types of :mod:`litsift.types` (with
:mod:`litsift.types.citations`, :mod:`litsift.types.reviews` and :mod:`litsift.types.llm`),
:mod:`litsift.config`, :mod:`litsift.errors`, or the Protocols of this module. Flat verbs
serve search, triage, history, export, research questions, builds and the looks at the home
(:meth:`LitsiftAPI.state` off the UI thread, :meth:`LitsiftAPI.glance` on it). Five
cohesive groups are sub-doors, each a Protocol here: the open indexes
(:class:`IndexesAPI`), aspect scoring (:class:`AspectsAPI`), the optional LLM
(:class:`LLMAPI`), the citation trail (:class:`TrailAPI`) and reviews (:class:`ReviewsAPI`,
whose :meth:`~ReviewsAPI.open` hands out a :class:`ScreeningAPI`). No
``service.triage.*``, ``service.searchers.*``, ``service.rq.*`` or ``service.sources.*``.

:class:`litsift.service.facade.LitsiftService` satisfies it structurally (mypy checks that
where the app is created); a test double or another backend may too.

Threading rule (the service side's, not the UI's): the service runs one search or triage call
sequence at a time. A caller on a worker thread holds :attr:`LitsiftAPI.calls_lock` around
each such sequence; index builds and LLM calls need not hold it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
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
    Paper,
    Query,
    Record,
    RQReport,
    SearchResult,
    Unchanged,
)
from litsift.types.citations import (
    DatasetUsers,
    KeptLinks,
    Neighbours,
    SnowballRound,
    TrailFetch,
)
from litsift.types.llm import Answer, AspectJudgement, RerankResult, RetryWait
from litsift.types.reviews import FeedResult, JudgeReport, ScreeningProgress

if TYPE_CHECKING:
    from litsift.config import Config
    from litsift.errors import LitsiftError

__all__ = [
    "LLMAPI",
    "AspectsAPI",
    "IndexesAPI",
    "LitsiftAPI",
    "ReviewsAPI",
    "ScreeningAPI",
    "TrailAPI",
]

#: progress(stage, done, total) of a build
Progress = Callable[[str, int, int], None]
#: what a retraining of a screening order hands to :meth:`ScreeningAPI.apply`:
#: ``(version, order of rows, model name)``
Retrained = tuple[int, list[int], str]


class IndexesAPI(Protocol):
    """The home's open indexes (the searchers a query goes to), as the index builder drives
    them; building them is :meth:`LitsiftAPI.build`."""

    def open(self, kind: Kind) -> None:
        """Open the kind's index now, so the first query finds it open (reads the disk: off
        the UI thread; raises IndexMissingError, IndexMismatchError, IndexDamagedError)."""
        ...

    def invalidate(self, kind: Kind | None = None) -> None:
        """Drop the open index of ``kind`` (all with None): a build landed a part, so the
        next query opens it afresh (cheap)."""
        ...

    def load_dense_in_background(
        self, on_loaded: Callable[[Kind, LitsiftError | None], None] | None
    ) -> None:
        """From now on open indexes with BM25 alone and load their dense part in a thread,
        calling ``on_loaded(kind, error)`` from it (None: open every part at once again)."""
        ...


class AspectsAPI(Protocol):
    """Offline aspect scoring of a query's hits (the aspect column, panel and ``o`` order)."""

    def decompose(self, query_text: str) -> list[Aspect]:
        """The query's aspects (offline, deterministic)."""
        ...

    def score(
        self,
        aspects: Sequence[Aspect],
        hits: Sequence[Hit],
        provisional: bool = False,
        cancelled: Callable[[], bool] | None = None,
    ) -> list[Coverage]:
        """Per-aspect 0/1/2 grades of each hit (embeds sentences: off the UI thread)."""
        ...

    def order(
        self, hits: Sequence[Hit], coverages: Sequence[Coverage], blend: float = 0.0
    ) -> list[Hit]:
        """The hits in aspect coverage order (pure computation, cheap)."""
        ...


class LLMAPI(Protocol):
    """The optional LLM (``glance().llm_configured`` says whether one is set); every call goes
    over the network: off the UI thread. A rerank or a judgement that fails says so in its
    record (they raise only LLMNotConfiguredError, and LLMCancelledError once their
    ``cancelled`` check turns true: the call in flight is closed); an answer raises LLM and
    query errors."""

    def rerank(
        self, query_text: str, hits: Sequence[Hit], cancelled: Callable[[], bool] | None = None
    ) -> RerankResult: ...
    def judge_aspects(
        self,
        query_text: str,
        aspects: Sequence[Aspect],
        hits: Sequence[Hit],
        cancelled: Callable[[], bool] | None = None,
    ) -> AspectJudgement: ...
    def answer(
        self,
        question: str,
        hits: Sequence[Hit],
        on_delta: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Answer: ...
    def report_llm_waits(self, on_wait: Callable[[RetryWait], None] | None) -> None:
        """Tell ``on_wait`` (from the calling worker thread) of each wait before an LLM call
        is retried (rate limited, overloaded); None: stop."""
        ...


class TrailAPI(Protocol):
    """The trail around a record: a paper's citations (the citations screen, the detail pane's
    kept links) and a dataset's users (the dataset detail); every call reads the store: off
    the UI thread."""

    def neighbours(self, doc_id: str) -> Neighbours: ...
    def kept_links(self, doc_id: str) -> KeptLinks: ...
    def dataset_users(
        self, doc_id: str, query_text: str = "", max_year: int | None = None
    ) -> DatasetUsers:
        """The stored papers naming a dataset: how many, and a few (those the query finds
        first, then the newest); reads the store and searches papers."""
        ...

    def snowball(self, query_text: str = "") -> SnowballRound: ...
    def fetch_trail(
        self,
        doc_id: str,
        lock: threading.Lock,
        progress: Callable[[str, int], None] | None = None,
        refresh: bool = False,
    ) -> TrailFetch:
        """Fetch the paper's references and citing works (network): the edges added, and
        whether every walk was fetched before (nothing asked; ``refresh`` walks them again).
        ``lock`` (:attr:`LitsiftAPI.calls_lock`) is held around each page's writes only,
        never across a request; ``progress(direction, works so far)`` after each page."""
        ...


class ScreeningAPI(Protocol):
    """One review being screened (the screening screen): the record on screen, the decisions
    (written at once), the learning order's retraining (a worker thread) and the progress."""

    @property
    def name(self) -> str: ...
    @property
    def stage(self) -> str: ...
    @property
    def reviewer(self) -> str: ...
    @property
    def criteria(self) -> str: ...
    @property
    def keywords(self) -> tuple[str, ...]: ...
    @property
    def reasons(self) -> Sequence[str]: ...
    @property
    def pdfs(self) -> Mapping[str, Sequence[str]]: ...
    @property
    def model_name(self) -> str: ...
    @property
    def estimate(self) -> float | None: ...
    def estimate_basis(self) -> tuple[int, int, int | None]: ...
    def current_paper(self) -> Paper | None: ...
    def highlight_terms(self) -> tuple[list[str], list[str]]: ...
    def note_of(self, doc_id: str) -> str: ...
    def verdict_of(self, doc_id: str) -> tuple[str, str] | None: ...
    def counts(self) -> tuple[int, int, int, int]: ...
    def progress(self) -> ScreeningProgress: ...
    def decide(self, decision: str, reason: str = "") -> Paper | None: ...
    def undo(self) -> Paper | None: ...
    def set_note(self, text: str, doc_id: str | None = None) -> None: ...
    def embed(self, progress: Callable[[int, int], None] | None = None) -> bool: ...
    def retrain(self) -> Retrained: ...
    def apply(self, result: Retrained, keep_current: bool = True) -> bool: ...
    def sync(self) -> tuple[int, int]:
        """Load this reviewer's decisions stored by another session since (reads the store:
        off the UI thread); ``(loaded, taken_back)``."""
        ...

    def judge(
        self,
        progress: Callable[[JudgeReport, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> JudgeReport:
        """The LLM's verdict on each record not judged yet, stored as each call answers
        (minutes: off the UI thread; ``progress(report, to_judge)`` after each call; once
        ``cancelled()`` is true the call in flight is closed and LLMCancelledError raised)."""
        ...


class ReviewsAPI(Protocol):
    """Systematic reviews and the feed (the screening and feed screens)."""

    def last_opened(self) -> str | None: ...
    def feed(self, collection: str | None = None) -> FeedResult: ...
    def open(self, name: str, stage: str = "tiab", reviewer: str = "") -> ScreeningAPI:
        """Load a review's stage for screening (~1 s: off the UI thread)."""
        ...


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

    # -- indexes ---------------------------------------------------------------------------
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

    @property
    def indexes(self) -> IndexesAPI:
        """The open indexes: open one now, drop one after a build, load dense parts later."""
        ...

    # -- sub-doors -------------------------------------------------------------------------
    @property
    def aspects(self) -> AspectsAPI:
        """Aspect decomposition, grades and coverage order."""
        ...

    @property
    def llm(self) -> LLMAPI:
        """The optional LLM: rerank, aspect judgements, cited answers."""
        ...

    @property
    def refs(self) -> TrailAPI:
        """Citation trail: references / cited-by, fetch, snowball (the citations screen)."""
        ...

    @property
    def reviews(self) -> ReviewsAPI:
        """Systematic reviews (the screening and feed screens)."""
        ...
