"""Messages the TUI's widgets and workers post upwards (attributes down, messages up).

Small dataclasses, as in toolong's ``messages.py``. Worker threads post them with
``post_message`` (thread-safe); the search screen handles them on the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from textual.message import Message

from litsift.types import (
    Annotation,
    Aspect,
    Coverage,
    Hit,
    Kind,
    Query,
    SearchResult,
    YearRange,
)
from litsift.types.citations import DatasetUsers, KeptLinks


@dataclass
class SearchRequested(Message):
    """The query bar wants a search: ``submitted`` is True for Enter, False after debouncing."""

    text: str
    years: YearRange
    submitted: bool = False


@dataclass
class QueryInvalid(Message):
    """The query bar holds something that cannot be searched (e.g. a half-typed year)."""

    message: str
    hint: str = ""


@dataclass
class SearchFinished(Message):
    """A search worker finished; ``request_id`` lets the screen drop stale results."""

    request_id: int
    result: SearchResult
    #: label, note, tags and collections of every hit (read in the same worker)
    annotations: dict[str, Annotation] = field(default_factory=dict)
    #: the unordered result when ``result`` was reordered by "more like this"
    base: SearchResult | None = None
    #: why "more like this" could not be applied (it is then switched off)
    feedback_error: Exception | None = None


@dataclass
class SearchFailed(Message):
    """A search worker raised; ``error`` is usually a :class:`litsift.errors.LitsiftError`."""

    request_id: int
    query: Query
    error: Exception


@dataclass
class ResultHighlighted(Message):
    """The cursor of a results table moved to ``hit`` (None when the table is empty)."""

    kind: Kind
    hit: Hit | None


@dataclass
class StoreChecked(Message):
    """What the store holds: rows per kind and the kinds whose index is missing or stale."""

    counts: dict[Kind, int]
    stale: frozenset[Kind]
    error: Exception | None = None
    #: kinds whose sentence phase was started and not finished (resumed after the builds)
    sentences_pending: frozenset[Kind] = frozenset()
    #: nothing can be written in this home (no build is started: it would fail)
    read_only: bool = False


@dataclass
class AnnotationsChanged(Message):
    """A triage write finished: fresh annotations of some records, and what to tell the user."""

    kind: Kind
    annotations: dict[str, Annotation]
    notice: str = ""


@dataclass
class KeptLinksLoaded(Message):
    """The detail pane's citation links of one paper to the kept papers were read (a worker);
    ``error`` when reading failed (``links`` is then empty). ``generation``: the pane's links
    generation when the read started (a label change since makes the read stale)."""

    links: KeptLinks
    error: Exception | None = None
    generation: int = 0


@dataclass
class DatasetUsersLoaded(Message):
    """The detail pane's papers naming one dataset were read (a worker); ``error`` when
    reading failed (``users`` is then empty)."""

    users: DatasetUsers
    error: Exception | None = None


@dataclass
class RQExtracted(Message):
    """Research questions were extracted (``text``: the run's summary); search again."""

    text: str


@dataclass
class Notice(Message):
    """A background job has something to say: ``error`` goes to the status line."""

    text: str = ""
    error: Exception | None = None


@dataclass
class AspectsScored(Message):
    """Aspect coverage of a result's hits was computed (``request_id`` as for searches).

    ``refining``: some coverages are provisional and their sentence grades follow in later
    messages of the same request; ``refined``: this message replaces an earlier one's
    provisional coverages (same aspects: what the LLM judged of them stays)."""

    request: int
    kind: Kind
    query_text: str
    aspects: list[Aspect]
    coverages: list[Coverage]
    error: Exception | None = None
    refining: bool = False
    refined: bool = False


@dataclass
class AspectsJudged(Message):
    """The LLM judged the aspects of the top hits (``request`` as for :class:`AspectsScored`).

    ``grades`` maps doc id to one 0/1/2 grade (or None) per aspect; ``error`` is a one-line
    reason when judging stopped early (grades so far are kept)."""

    request: int
    kind: Kind
    grades: dict[str, tuple[int | None, ...]]
    note: str
    error: str | None = None
    #: what went wrong short of failing (a reply cut at the output limit)
    warnings: tuple[str, ...] = ()


class Reorder(StrEnum):
    """What reordered a result (the value is how the status line names it)."""

    MORE_LIKE_THIS = "more like this"
    LLM_RERANK = "LLM rerank"


@dataclass
class Reordered(Message):
    """A reordering worker (:class:`Reorder`) finished for ``request_id``."""

    request_id: int
    kind: Kind
    result: SearchResult | None
    source: Reorder
    note: str = ""
    error: Exception | None = None
    #: what went wrong short of failing (an LLM reply cut at the output limit, ids missing)
    warnings: tuple[str, ...] = ()


@dataclass
class IndexProgress(Message):
    """A background index build of ``kind`` moved on: ``text`` is for the status line (e.g.
    ``"embedding papers 4,000 / 19,588 (20%), ETA 3 min"``); "" when the build is over."""

    kind: Kind
    text: str


@dataclass
class DenseLoaded(Message):
    """The dense part of ``kind``'s index, loaded in the background after BM25 answered the
    first searches, took its place (``error``: it could not be loaded; BM25 goes on alone)."""

    kind: Kind
    error: Exception | None = None


@dataclass
class IndexLanded(Message):
    """A background build published ``part`` (``"bm25"``, ``"dense"``, ``"passages"`` or
    ``"sentences"``) of ``kind``'s index."""

    kind: Kind
    part: str


@dataclass
class IndexFailed(Message):
    """A background build of ``kind`` stopped with ``error`` (what was published stays);
    ``job``: the phase that failed (``index``, ``passages``, ``sentences``)."""

    kind: Kind
    error: Exception
    job: str = "index"
