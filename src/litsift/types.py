"""Small frozen records shared by every layer: papers, datasets, queries, hits, labels."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from litsift.errors import QueryError


class Kind(StrEnum):
    """What a record is. Each kind has its own table and its own pair of indexes."""

    PAPER = "paper"
    DATASET = "dataset"

    @property
    def table(self) -> str:
        return "papers" if self is Kind.PAPER else "datasets"


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


Record = Paper | Dataset

_YEARS_RE = re.compile(r"^\s*(\d{4})?\s*(?:(:|-|\.\.)\s*(\d{4})?)?\s*$")


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
        if self.start is not None and self.end is not None and self.start > self.end:
            raise QueryError(
                f"year range {self.start}:{self.end} is empty",
                "put the earlier year first, e.g. 2015:2019",
            )

    @property
    def is_unbounded(self) -> bool:
        return self.start is None and self.end is None

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
            QueryError: the text is not a year range.
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
        k: hits returned.
        k0: candidates each retriever contributes to fusion (``k0 >= k``).
        fusion: ``"rrf"``, ``"interpolation"``, ``"bm25"``, ``"dense"`` or None (the default).
    """

    text: str
    kind: Kind = Kind.PAPER
    years: YearRange = field(default_factory=YearRange)
    k: int = 10
    k0: int = 100
    fusion: str | None = None


@dataclass(frozen=True)
class SignalScore:
    """One retriever's view of a hit: its raw score and 1-based rank in that retriever's run."""

    score: float
    rank: int


def _frozen(d: Mapping[str, SignalScore] | None = None) -> Mapping[str, SignalScore]:
    return MappingProxyType(dict(d or {}))


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

    @property
    def docid(self) -> str:
        return self.record.id

    @property
    def kind(self) -> Kind:
        return self.record.kind


@dataclass(frozen=True)
class SearchResult:
    """The answer to one :class:`Query`: hits best first, with timings in seconds."""

    query: Query
    hits: tuple[Hit, ...]
    elapsed_s: float
    timings: Mapping[str, float] = field(default_factory=dict)


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
