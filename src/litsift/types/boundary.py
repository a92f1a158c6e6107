"""Records that cross the service boundary beside search results: triage annotations and
label filters, query history, aspect coverage, export formats, a look at the home and a research
question extraction's report. Returned by ``LitsiftService`` and read by the TUI; import them
from :mod:`litsift.types`."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeVar, get_args

from litsift.types.core import Kind, Label, YearRange

# Triage annotations and filters, query history, aspect coverage and export formats: returned by
# LitsiftService and read by the TUI; their old homes (store/, search/, export/) re-export them.

#: Label filters of the results table, in the order a "cycle filter" key walks them.
LabelFilter = Literal["all", "unlabelled", "keep", "maybe", "discard", "hide-discard"]
LABEL_FILTERS: tuple[LabelFilter, ...] = get_args(LabelFilter)


@dataclass(frozen=True)
class Annotation:
    """What the results table shows about one record beside its metadata."""

    label: Label | None = None
    note: str = ""
    tags: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()
    #: how the paper's problem/method were made ("yours", "offline extraction (…),
    #: unverified", "LLM-extracted (…), unverified"); "" when it has none
    rq_source: str = ""
    #: a paper's editors' display names (an edited book's: the detail pane's "Editors" line)
    editors: tuple[str, ...] = ()


class _HasDocid(Protocol):
    @property
    def docid(self) -> str: ...


H = TypeVar("H", bound=_HasDocid)


def filter_by_label(hits: Sequence[H], labels: Mapping[str, Label], show: LabelFilter) -> list[H]:
    """The hits a label filter keeps, in their order.

    Args:
        hits: anything with a ``docid`` (e.g. :class:`Hit`).
        labels: ``{doc_id: label}`` of the labelled ones.
        show: ``"all"``; ``"unlabelled"``; ``"keep"``/``"maybe"``/``"discard"`` (only that
            label); ``"hide-discard"`` (everything but the discarded).

    Raises:
        ValueError: ``show`` is not one of :data:`LABEL_FILTERS`.
    """
    if show == "all":
        return list(hits)
    if show == "unlabelled":
        return [h for h in hits if h.docid not in labels]
    if show == "hide-discard":
        return [h for h in hits if labels.get(h.docid) is not Label.DISCARD]
    if show in ("keep", "maybe", "discard"):
        wanted = Label(show)
        return [h for h in hits if labels.get(h.docid) is wanted]
    raise ValueError(f"unknown label filter {show!r}; use one of {', '.join(LABEL_FILTERS)}")


def clean_tags(tags: Sequence[str]) -> tuple[str, ...]:
    """Tags stripped, inner whitespace collapsed, empty ones dropped, duplicates removed (first
    occurrence wins, compared case-insensitively)."""
    seen: dict[str, str] = {}
    for tag in tags:
        t = " ".join(str(tag).split())
        if t and t.casefold() not in seen:
            seen[t.casefold()] = t
    return tuple(seen.values())


def parse_tags(text: str) -> tuple[str, ...]:
    """Split a comma-separated tag string (``"to read, dense retrieval"``) into clean tags
    (:func:`clean_tags`)."""
    return clean_tags(text.split(","))


@dataclass(frozen=True)
class HistoryEntry:
    """One row of the query history; a saved search has ``saved`` set and a ``name``.

    ``years`` is the year filter as typed (``YearRange.parse`` syntax, ``""`` = any year).
    """

    id: int
    text: str
    kind: Kind
    years: str
    created_at: str
    saved: bool
    name: str | None

    @property
    def year_range(self) -> YearRange:
        """The year filter to re-run the query with.

        Raises:
            QueryError: the stored text is not a year range (only if edited by hand).
        """
        return YearRange.parse(self.years)


@dataclass(frozen=True)
class AspectScore:
    """How one record covers one aspect.

    Attributes:
        aspect_index: index of the aspect in the list that was scored.
        grade: 0 unrelated, 1 partly addresses, 2 fully addresses (DORIS-MAE's scale).
        similarity: max cosine similarity of the aspect to a sentence of the record, [-1, 1].
        bm25_evidence: share of the aspect's stemmed content terms found in the record, [0, 1].
        combined: ``(1 - λ)·similarity + λ·bm25_evidence``, the value graded.
        evidence: ``(start, end)`` of the best-matching sentence in the record's passage text
            (``litsift.search.retrieval.record_text.passage_text``), or None when it has no text.
        evidence_text: that sentence (``""`` if none).
    """

    aspect_index: int
    grade: int
    similarity: float
    bm25_evidence: float
    combined: float
    evidence: tuple[int, int] | None
    evidence_text: str


@dataclass(frozen=True)
class Coverage:
    """How one record covers all aspects of a query.

    Attributes:
        doc_id: the record's id.
        scores: one :class:`AspectScore` per aspect, in aspect order.
        normalised: DORIS-MAE's normalised score, ``sum(grades) / len(aspects)``, 0–2.
        mean_combined: mean of the ungraded ``combined`` scores (a finer tie-breaker).
        provisional: graded from the record's one passage vector, not its sentences (a hit
            whose sentences were not embedded yet; its scores carry no evidence sentence):
            the sentence grades replace it when they are ready.
    """

    doc_id: str
    scores: tuple[AspectScore, ...]
    normalised: float
    mean_combined: float
    provisional: bool = False


#: Citation export formats (``litsift.export``).
ExportFormat = Literal["bibtex", "ris", "csl-json", "markdown"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)
#: File suffix of each format, for "save as" defaults.
FORMAT_SUFFIX: dict[ExportFormat, str] = {
    "bibtex": ".bib",
    "ris": ".ris",
    "csl-json": ".json",
    "markdown": ".md",
}


@dataclass
class SyncSpec:
    """A (saved) sync: ``name``, ``source`` (a key of :data:`litsift.sources.online.sync.SOURCES`)
    and its ``params``."""

    name: str
    source: str
    params: dict[str, str] = field(default_factory=dict)
    high_water: str | None = None
    last_run_at: str | None = None
    last_added: int = 0
    #: the paging token of the first page an interrupted walk did not write (None: no walk
    #: to finish), and the newest datestamp among the pages it wrote
    resume_token: str | None = None
    resume_high_water: str | None = None


@dataclass(frozen=True)
class Glance:
    """What the UI thread reads of the service at any time (``LitsiftAPI.glance``): a ``stat``
    and attributes, never the store, so cheap enough for every status line and search.

    Attributes:
        passages: whether papers' full text is indexed (a search turns full text on by it).
        log_path: where errors of background work are logged, None when it cannot be written.
        embedding_note: why builds embed in one process (worker processes failed), or None.
        llm_configured: whether an LLM endpoint is set (the LLM keys and commands).
        dense_loading: kinds whose dense part is loading in the background.
    """

    passages: bool = False
    log_path: Path | None = None
    embedding_note: str | None = None
    llm_configured: bool = False
    dense_loading: frozenset[Kind] = frozenset()


@dataclass(frozen=True)
class HomeState:
    """One look at a litsift home, for the TUI (``LitsiftAPI.state``): where it lives, whether
    it can be written, what is stored and indexed, what is still to build, the LLM."""

    store_path: Path
    #: where errors of background work are logged, None when it cannot be written
    log_path: Path | None = None
    #: why nothing can be saved here, None when the home is writable
    read_only_reason: str | None = None
    #: ``(title, hint)`` of that reason: "disk full", "read-only home", "no write permission"
    read_only_fault: tuple[str, str] | None = None
    #: why builds embed in one process (worker processes failed), for the status line
    embedding_note: str | None = None
    llm_configured: bool = False
    #: ``(message, hint)`` of why no LLM can be asked (no endpoint), None when one can
    llm_missing: tuple[str, str] | None = None
    counts: Mapping[Kind, int] = field(default_factory=dict)
    #: kinds whose index lacks rows of the store or a part is damaged (built at start)
    needs_index: frozenset[Kind] = frozenset()
    #: kinds whose sentence phase was started and did not finish
    sentences_pending: frozenset[Kind] = frozenset()
    #: kinds whose dense part is loading in the background
    dense_loading: frozenset[Kind] = frozenset()
    collections: tuple[str, ...] = ()
    #: ``(name, kind, description)`` of every format ``litsift ingest`` reads
    ingest_formats: tuple[tuple[str, str, str], ...] = ()
    #: papers saved syncs brought in since the last look
    arrivals: int = 0
    #: records labelled keep and maybe (all kinds): what ``export kept`` / ``maybe`` would write
    kept: int = 0
    maybe: int = 0


@dataclass
class RQReport:
    """What an extraction of research questions did (``LitsiftAPI.extract_rq``); the service
    fills it in as the run goes, the TUI reads :meth:`summary`."""

    method: str
    papers: int = 0
    filled: int = 0
    empty: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    #: why the run stopped before every paper was sent (the endpoint's error: message, hint)
    stopped: tuple[str, str] | None = None
    #: papers not sent because the run stopped
    not_tried: int = 0

    @property
    def papers_per_s(self) -> float:
        return self.papers / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        text = (
            f"{self.method}: {self.filled:,} of {self.papers:,} papers got a problem and method "
            f"in {self.seconds:.1f} s ({self.papers_per_s:,.0f} papers/s)"
        )
        if self.empty:
            text += f"; {self.empty:,} without a sentence to extract from"
        if self.failed:
            text += f"; {len(self.failed):,} failed"
        if self.stopped is not None:
            text += f"; stopped, {self.not_tried:,} not sent: {self.stopped[0]}"
        return text


#: what ``LitsiftAPI.build`` builds: a kind's index, the papers' full text, aspect sentences
BuildPart = Literal["index", "passages", "sentences"]


class Unchanged(enum.Enum):
    """``LitsiftAPI.annotate(label=UNCHANGED)``: the label is left as it is (None clears)."""

    UNCHANGED = "unchanged"


UNCHANGED = Unchanged.UNCHANGED
