"""The core records, imported from :mod:`litsift.types`: papers, datasets, queries, hits,
labels, and the one definition of the ranking vocabulary (fusion names, BM25 query modes, the
k0 rule)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import NamedTuple

from litsift.errors import QueryError

#: Fusion methods: ``rrf`` (reciprocal rank fusion), ``interpolation`` (min-max normalised
#: score interpolation), or one retriever alone (``bm25``, ``dense``).
FUSIONS = ("rrf", "interpolation", "bm25", "dense")
#: The fusions that combine several runs (the only ones extra evidence can join).
MULTI_RUN_FUSIONS = ("rrf", "interpolation")
#: Query handling before BM25 (``litsift.search.retrieval.query.bm25_query_text``): the query
#: as typed, English stopwords removed, or stopwords and request words ("I want a dataset
#: for") removed.
BM25_QUERY_MODES = ("raw", "stop", "stop+request")


def candidate_depth(k0: int, k: int) -> int:
    """The k0 rule: each retriever contributes ``max(k0, k)`` candidates to fusion, so a
    request for more hits than ``k0`` still gets ``k`` of them."""
    return max(k0, k)


class Kind(StrEnum):
    """What a record is. Each kind has its own table and its own pair of indexes."""

    PAPER = "paper"
    DATASET = "dataset"

    @property
    def table(self) -> str:
        return "papers" if self is Kind.PAPER else "datasets"


#: How the label standing for a missing title starts
#: (:func:`litsift.sources.base.untitled_label`): an identifier and the abstract's first
#: words, shown and screened in place of a title, never exported as one.
UNTITLED_PREFIX = "[no title] "


@dataclass(frozen=True)
class Paper:
    """A paper row of the store. ``rowid`` is the SQLite rowid (and the hnswlib label)."""

    id: str
    title: str
    abstract: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str = ""
    status: str = ""
    url: str = ""
    license: str = ""
    problem: str = ""
    method: str = ""
    rowid: int | None = None

    kind = Kind.PAPER

    @property
    def display_title(self) -> str:
        return self.title

    @property
    def real_title(self) -> str:
        """The title the record came with: ``""`` for a record without one (whose
        :attr:`title` is the :data:`UNTITLED_PREFIX` label), as exports write it."""
        return "" if self.title.startswith(UNTITLED_PREFIX) else self.title


@dataclass(frozen=True)
class Dataset:
    """A dataset row of the store (Papers with Code layout: ``id`` is the dataset name)."""

    id: str
    variants: tuple[str, ...] = ()
    description: str = ""
    intro_paper_title: str = ""
    year: int | None = None
    date: str = ""
    url: str = ""
    rowid: int | None = None

    kind = Kind.DATASET

    @property
    def name(self) -> str:
        return self.id

    @property
    def display_title(self) -> str:
        return self.id

    @property
    def other_names(self) -> tuple[str, ...]:
        """The aliases that are not the name itself (Papers with Code lists a dataset's own
        name among its variants: an Aliases column would start with the name it sits beside)."""
        own = self.id.strip().casefold()
        return tuple(v for v in self.variants if v.strip().casefold() != own)


Record = Paper | Dataset

_YEARS_RE = re.compile(r"^\s*(\d{4})?\s*(?:(:|-|\.\.)\s*(\d{4})?)?\s*$")
#: Years a range may name: four digits, like the ``FROM:TO`` syntax. Negative years would reach
#: the "no year" sentinel (-1) of the indexes; tantivy's year field is i64.
YEAR_MIN, YEAR_MAX = 0, 9999
#: Most hits a query may ask for (``k``): a results list to read, not an export.
MAX_K = 10_000
#: Most candidates per retriever (``k0``): 10x :data:`MAX_K`. Each retriever allocates its
#: top-``k0`` up front (tantivy's collector: 2**31 candidates is a 32 GB allocation and aborts
#: the process), so the bound keeps a query's memory at a few MB.
MAX_K0 = 100_000


@dataclass(frozen=True)
class YearRange:
    """An inclusive year range; ``None`` on a side means unbounded.

    ``include_missing`` keeps records without a year eligible (DataFinder's protocol: a dataset
    with no year is never filtered out).
    """

    start: int | None = None
    end: int | None = None
    include_missing: bool = True

    def __post_init__(self) -> None:
        for year in (self.start, self.end):
            if year is not None and (
                not isinstance(year, int)
                or isinstance(year, bool)
                or not YEAR_MIN <= year <= YEAR_MAX
            ):
                raise QueryError(
                    f"year {year!r} is out of range",
                    f"years are whole numbers from {YEAR_MIN} to {YEAR_MAX}, e.g. 2015:2019",
                )
        if self.start is not None and self.end is not None and self.start > self.end:
            raise QueryError(
                f"year range {self.start}:{self.end} is empty",
                "put the earlier year first, e.g. 2015:2019",
            )

    @property
    def is_unbounded(self) -> bool:
        return self.start is None and self.end is None

    def label(self) -> str:
        """``2015–2019``, ``≥2015``, ``≤2019``, ``2018`` or ``any year`` (the status line's
        words, and the note of a range outside the store's years)."""
        if self.is_unbounded:
            return "any year"
        if self.start == self.end:
            return str(self.start)
        if self.start is None:
            return f"≤{self.end}"
        if self.end is None:
            return f"≥{self.start}"
        return f"{self.start}–{self.end}"

    def contains(self, year: int | None) -> bool:
        if year is None:
            return self.include_missing
        if self.start is not None and year < self.start:
            return False
        return not (self.end is not None and year > self.end)

    @classmethod
    def parse(cls, text: str | None, include_missing: bool = True) -> YearRange:
        """Parse ``"2015:2019"``, ``"2015-2019"``, ``":2019"``, ``"2015:"``, ``"2018"`` or ``""``.

        Raises:
            QueryError: the text is not a year range, or a year is outside
                :data:`YEAR_MIN`..:data:`YEAR_MAX`.
        """
        if text is None or not text.strip():
            return cls(include_missing=include_missing)
        m = _YEARS_RE.match(text)
        if not m:
            raise QueryError(
                f"not a year range: {text!r}", "write FROM:TO, e.g. 2015:2019, :2019 or 2015:"
            )
        start = int(m.group(1)) if m.group(1) else None
        if m.group(2) is None:
            return cls(start, start, include_missing)
        end = int(m.group(3)) if m.group(3) else None
        return cls(start, end, include_missing)

    def __str__(self) -> str:
        if self.is_unbounded:
            return "any year"
        return f"{self.start or ''}:{self.end or ''}"


@dataclass(frozen=True)
class Query:
    """One search request.

    Attributes:
        text: the user's query, a full sentence or keyphrases; any string is accepted.
        kind: papers or datasets.
        years: the year filter, pushed down into both retrievers.
        k: hits returned; None: the configured default (``search.k``).
        k0: candidates each retriever contributes to fusion (raised to ``k`` by
            :func:`candidate_depth`); None: the configured default (``search.k0``).
        fusion: one of :data:`FUSIONS`, or None (the configured default).
        fulltext: papers only: also search the full-text passages of papers that have them
            (a paper's passage score is its best passage's; fused with its paper score).
        exclude: words and phrases whose hits are left out (``-word``, ``-"a phrase"``,
            ``NOT word`` in the text); set by the search pipeline from ``text``
            (:mod:`litsift.search.retrieval.operators`), whatever was given.
        phrases: quoted phrases whose hits come first; set like ``exclude``.
    """

    text: str
    kind: Kind = Kind.PAPER
    years: YearRange = field(default_factory=YearRange)
    k: int | None = None
    k0: int | None = None
    fusion: str | None = None
    fulltext: bool = False
    exclude: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()

    def with_defaults(self, k: int, k0: int, fusion: str) -> Query:
        """This query with every unset field filled in and ``k0`` raised to the k0 rule
        (:func:`candidate_depth`).

        Raises:
            QueryError: unknown fusion, ``k`` not in 1..:data:`MAX_K` or ``k0`` not in
                1..:data:`MAX_K0`.
        """
        k = self.k if self.k is not None else k
        k0 = self.k0 if self.k0 is not None else k0
        fusion = self.fusion or fusion
        if fusion not in FUSIONS:
            raise QueryError(f"unknown fusion {fusion!r}", f"use one of {', '.join(FUSIONS)}")
        for name, value, most in (("k", k, MAX_K), ("k0", k0, MAX_K0)):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
                raise QueryError(
                    f"{name} = {value!r} is out of range", f"{name} must be from 1 to {most:,}"
                )
        return replace(self, k=k, k0=candidate_depth(k0, k), fusion=fusion)


class SignalScore(NamedTuple):
    """One retriever's view of a hit: its raw score and 1-based rank in that retriever's run
    (unpacks as a ``(score, rank)`` pair)."""

    score: float
    rank: int


def _frozen(d: Mapping[str, SignalScore] | None = None) -> Mapping[str, SignalScore]:
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True)
class Passage:
    """One passage of a paper's full text (:mod:`litsift.text.passages`).

    Attributes:
        doc_id: the paper.
        idx: 0-based position in the paper's reading order.
        section: the section heading ("" when the source has none).
        text: the passage, whitespace collapsed.
        source: the format it was read from (``pdf``, ``grobid-tei``, ``jats``, ``s2orc``).
        page: the 1-based PDF page it starts on (None for other formats).
    """

    doc_id: str
    idx: int
    section: str
    text: str
    source: str = ""
    page: int | None = None

    @property
    def where(self) -> str:
        """``"§ Results, p. 4"``, ``"§ Results"`` or ``"passage 7"`` (no heading, no page)."""
        parts = [f"§ {self.section}"] if self.section else []
        if self.page is not None:
            parts.append(f"p. {self.page}")
        return ", ".join(parts) or f"passage {self.idx + 1}"


@dataclass(frozen=True)
class Hit:
    """A ranked result.

    ``signals`` maps a retriever name (``"bm25"``, ``"dense"``) to its score and rank; a signal
    that did not retrieve this document among its ``k0`` candidates is absent.
    """

    record: Record
    rank: int
    score: float
    signals: Mapping[str, SignalScore] = field(default_factory=_frozen)
    #: the best-matching full-text passage, for full-text searches (None otherwise)
    passage: Passage | None = None

    @property
    def docid(self) -> str:
        return self.record.id

    @property
    def kind(self) -> Kind:
        return self.record.kind


@dataclass(frozen=True)
class SearchResult:
    """The answer to one :class:`Query`: hits best first, with timings in seconds.

    ``signals_used`` names the retrievers that ran (``("bm25",)`` while the dense index is
    being built), ``engine`` where they ran; ``partial`` says why the answer is not the full
    hybrid, e.g. ``"dense index: 1,200 / 19,588 embedded"`` (None when it is)."""

    query: Query
    hits: tuple[Hit, ...]
    elapsed_s: float
    timings: Mapping[str, float] = field(default_factory=dict)
    signals_used: tuple[str, ...] = ()
    partial: str | None = None
    #: where BM25 and dense ran: ``"local"`` (tantivy + hnswlib in the home) or
    #: ``"milvus at <uri>"`` (``[engine]``); "" when not said
    engine: str = ""

    @property
    def undated(self) -> int:
        """How many hits have no year although the query names years: a year range keeps
        undated records (:attr:`YearRange.include_missing`, DataFinder's protocol); 0 when
        the query names none."""
        years = self.query.years
        if years.is_unbounded or not years.include_missing:
            return 0
        return sum(1 for h in self.hits if h.record.year is None)


class Label(StrEnum):
    """Triage labels."""

    KEEP = "keep"
    MAYBE = "maybe"
    DISCARD = "discard"


@dataclass(frozen=True)
class Aspect:
    """One requirement of a query, with the span of query text it came from.

    ``start``/``end`` are character offsets into the query text (``end`` exclusive).
    """

    text: str
    start: int = 0
    end: int = 0
    parent: int | None = None


__all__ = [
    "BM25_QUERY_MODES",
    "FUSIONS",
    "MAX_K",
    "MAX_K0",
    "MULTI_RUN_FUSIONS",
    "YEAR_MAX",
    "YEAR_MIN",
    "Aspect",
    "Dataset",
    "Hit",
    "Kind",
    "Label",
    "Paper",
    "Passage",
    "Query",
    "Record",
    "SearchResult",
    "SignalScore",
    "YearRange",
    "candidate_depth",
]
