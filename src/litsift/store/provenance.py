"""Where each stored record came from (table ``provenance``: format, file, location within the
file, when it was fetched) and the local files attached to it (table ``attachments``).

A record's provenance tells a re-import of the same entry (same format, file and location)
from a duplicate found in another entry or source; a sync's rows have ``file = "sync:NAME"``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from litsift.types import Kind

__all__ = ["add_attachments", "doc_at", "entries_of_file", "record_provenance", "synced_since"]


def entries_of_file(conn: sqlite3.Connection, kind: Kind, file: str) -> list[tuple[str, str]]:
    """``(doc_id, location)`` of every entry of ``file`` written by imports, unordered."""
    rows = conn.execute(
        "SELECT doc_id, location FROM provenance WHERE kind = ? AND file = ?", (kind.value, file)
    )
    return [(str(d), str(loc)) for d, loc in rows]


def doc_at(conn: sqlite3.Connection, kind: Kind, fmt: str, file: str, location: str) -> str | None:
    """The doc id that the entry at ``location`` of ``file`` (read as ``fmt``) was written to
    by an earlier import, or None."""
    row = conn.execute(
        "SELECT doc_id FROM provenance WHERE kind = ? AND format = ? AND file = ? AND location = ?",
        (kind.value, fmt, file, location),
    ).fetchone()
    return None if row is None else str(row[0])


def record_provenance(
    conn: sqlite3.Connection,
    kind: Kind,
    doc_id: str,
    fmt: str,
    file: str,
    location: str,
    fetched_at: str,
) -> None:
    """Remember that the entry at ``location`` of ``file`` is the record ``doc_id`` (an entry
    seen before is pointed at ``doc_id`` and its ``fetched_at`` renewed)."""
    conn.execute(
        "INSERT INTO provenance(kind, doc_id, format, file, location, fetched_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(kind, format, file, location) DO UPDATE SET "
        "doc_id = excluded.doc_id, fetched_at = excluded.fetched_at",
        (kind.value, doc_id, fmt, file, location, fetched_at),
    )


def add_attachments(
    conn: sqlite3.Connection, kind: Kind, doc_id: str, paths: Iterable[str]
) -> None:
    """Attach local files (paths as given by the source) to the record; known ones are kept."""
    conn.executemany(
        "INSERT OR IGNORE INTO attachments(kind, doc_id, path) VALUES (?, ?, ?)",
        [(kind.value, doc_id, p) for p in paths],
    )


def synced_since(conn: sqlite3.Connection, since: str) -> int:
    """How many distinct papers saved syncs (``file = "sync:NAME"``) fetched after ``since``
    (an ISO-8601 time; ``""`` counts them all)."""
    row = conn.execute(
        "SELECT COUNT(DISTINCT doc_id) FROM provenance WHERE kind = 'paper' "
        "AND file LIKE 'sync:%' AND fetched_at > ?",
        (since,),
    ).fetchone()
    return int(row[0])
