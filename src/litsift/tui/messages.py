"""Messages the TUI's widgets and workers post upwards (attributes down, messages up).

Small dataclasses, as in toolong's ``messages.py``. Worker threads post them with
``post_message`` (thread-safe); the search screen handles them on the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from litsift.types import Hit, Kind, Query, SearchResult, YearRange


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
