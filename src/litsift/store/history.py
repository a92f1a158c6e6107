"""Query history and saved searches, and the transaction plumbing shared by triage state.

:class:`StoreWriter` runs each write in one ``BEGIN IMMEDIATE`` transaction under the store's
lock; :class:`QueryHistory` keeps submitted queries (newest first) and names some of them as
saved searches that can be re-run. :class:`litsift.store.triage.Triage` builds on both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from litsift.errors import LitsiftError
from litsift.store.repo import Store
from litsift.types import HistoryEntry as HistoryEntry  # re-exported: it moved to types
from litsift.types import Kind, YearRange

#: Unsaved query-history rows kept; older ones are dropped (saved searches are never dropped).
HISTORY_DEPTH = 1000
_MAX_NAME = 100
_MAX_PARAMS = 900


class TriageError(LitsiftError):
    """A triage action cannot be done (unknown collection, empty name, read-only store...)."""


def now_iso() -> str:
    """The current time as ISO 8601 UTC with milliseconds (what ``updated_at`` columns hold)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _years_text(years: str | YearRange) -> str:
    if isinstance(years, YearRange):
        return "" if years.is_unbounded else f"{years.start or ''}:{years.end or ''}"
    return years.strip()


def clean_name(name: str, what: str) -> str:
    """A collection or saved-search name with whitespace collapsed.

    Raises:
        TriageError: the name is empty or longer than 100 characters.
    """
    clean = " ".join(name.split())
    if not clean:
        raise TriageError(f"empty {what} name", f"give the {what} a name")
    if len(clean) > _MAX_NAME:
        raise TriageError(f"{what} name longer than {_MAX_NAME} characters", "use a shorter one")
    return clean


class StoreWriter:
    """Base of the triage repositories: short read and write transactions on one store.

    Thread-safe like the store (every call holds ``store._lock``). Writes raise
    :class:`TriageError` on a read-only store.
    """

    def __init__(self, store: Store) -> None:
        self.store = store

    # ------------------------------------------------------------------ plumbing

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        if self.store.readonly:
            if self.store.write_fault is not None:  # a read-only home or a full disk
                raise self.store.write_fault
            raise TriageError(
                f"the store {self.store.path} is open read-only", "open it for writing to triage"
            )
        with self.store._write_transaction() as conn:
            yield conn

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self.store._lock:
            return list(self.store._conn.execute(sql, tuple(params)).fetchall())

    def _chunked(
        self, sql: str, head: Sequence[object], ids: Sequence[str]
    ) -> Iterator[tuple[Any, ...]]:
        """Run ``sql`` (with one ``{marks}`` placeholder) over ``ids`` in chunks of 900."""
        wanted = list(dict.fromkeys(ids))
        for start in range(0, len(wanted), _MAX_PARAMS):
            chunk = wanted[start : start + _MAX_PARAMS]
            marks = ",".join("?" * len(chunk))
            yield from self._read(sql.format(marks=marks), [*head, *chunk])


class QueryHistory(StoreWriter):
    """Submitted queries, newest first, some of them named as saved searches."""

    # ------------------------------------------------------------ query history

    def record_query(self, text: str, kind: Kind, years: str | YearRange = "") -> int:
        """Append a query to the history; repeating the newest entry only refreshes its time.

        Record submitted queries (Enter, or a result opened), not every keystroke of a
        search-as-you-type. Unsaved history is trimmed to the newest 1,000 rows.

        Returns:
            The history id of the entry.
        """
        text = text.strip()
        ytext = _years_text(years)
        with self._write() as conn:
            last = conn.execute(
                "SELECT id, text, kind, years FROM query_history ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if last is not None and tuple(last[1:]) == (text, kind.value, ytext):
                conn.execute(
                    "UPDATE query_history SET created_at = ? WHERE id = ?", (now_iso(), last[0])
                )
                return int(last[0])
            cur = conn.execute(
                "INSERT INTO query_history(text, kind, years, created_at) VALUES (?, ?, ?, ?)",
                (text, kind.value, ytext, now_iso()),
            )
            conn.execute(
                "DELETE FROM query_history WHERE saved = 0 AND id NOT IN "
                "(SELECT id FROM query_history WHERE saved = 0 ORDER BY id DESC LIMIT ?)",
                (HISTORY_DEPTH,),
            )
            return int(cur.lastrowid or 0)

    _HISTORY_COLS = "id, text, kind, years, created_at, saved, name"

    @staticmethod
    def _entry(row: Sequence[Any]) -> HistoryEntry:
        i, text, kind, years, created, saved, name = row
        return HistoryEntry(
            id=int(i),
            text=str(text),
            kind=Kind(str(kind)),
            years=str(years),
            created_at=str(created),
            saved=bool(saved),
            name=None if name is None else str(name),
        )

    def history(self, limit: int = 50, kind: Kind | None = None) -> list[HistoryEntry]:
        """The newest ``limit`` history entries (saved ones included), newest first."""
        where, params = ("WHERE kind = ?", [kind.value]) if kind else ("", [])
        rows = self._read(
            f"SELECT {self._HISTORY_COLS} FROM query_history {where} ORDER BY id DESC LIMIT ?",
            [*params, max(0, limit)],
        )
        return [self._entry(r) for r in rows]

    def save_search(self, history_id: int, name: str) -> HistoryEntry:
        """Name a history entry as a saved search (saving it again renames it).

        Raises:
            TriageError: no such history entry, the name is empty, or another saved search
                already has that name.
        """
        clean = clean_name(name, "saved search")
        with self._write() as conn:
            if (
                conn.execute("SELECT 1 FROM query_history WHERE id = ?", (history_id,)).fetchone()
                is None
            ):
                raise TriageError(
                    f"no query with history id {history_id}", "pick one from the history"
                )
            other = conn.execute(
                "SELECT id FROM query_history WHERE saved = 1 AND name = ? AND id != ?",
                (clean, history_id),
            ).fetchone()
            if other is not None:
                raise TriageError(
                    f"a saved search named {clean!r} exists", "pick another name or delete it first"
                )
            conn.execute(
                "UPDATE query_history SET saved = 1, name = ? WHERE id = ?", (clean, history_id)
            )
            row = conn.execute(
                f"SELECT {self._HISTORY_COLS} FROM query_history WHERE id = ?", (history_id,)
            ).fetchone()
        return self._entry(row)

    def delete_saved_search(self, name: str) -> bool:
        """Unsave a saved search (it stays in the history). True if it existed."""
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE query_history SET saved = 0, name = NULL WHERE saved = 1 AND name = ?",
                (name,),
            )
            return cur.rowcount > 0

    def saved_searches(self) -> list[HistoryEntry]:
        """All saved searches, sorted by name (case-insensitive)."""
        rows = self._read(
            f"SELECT {self._HISTORY_COLS} FROM query_history WHERE saved = 1 "
            "ORDER BY lower(name), name"
        )
        return [self._entry(r) for r in rows]

    def saved_search(self, name: str) -> HistoryEntry | None:
        """The saved search called ``name``, or None."""
        rows = self._read(
            f"SELECT {self._HISTORY_COLS} FROM query_history WHERE saved = 1 AND name = ?",
            (name,),
        )
        return self._entry(rows[0]) if rows else None
