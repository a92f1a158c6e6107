"""Records' external identifiers in the store (table ``record_ids``) and the rows a matcher
needs to recognise a stored record (title, authors, year, url).

The matcher itself (:class:`litsift.sources.identity.IdentityIndex`) lives in ``sources``;
this module is the SQL it and the import writer run.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from litsift.types import Kind

__all__ = [
    "IdentityRow",
    "add_ids",
    "identity_rows",
    "ids_by_doc",
    "ids_of",
    "ids_of_docs",
    "json_list",
]

#: ``(doc id, title, authors, year, url)`` of one stored paper, in rowid order
IdentityRow = tuple[str, str, list[Any], int | None, str | None]


def json_list(text: str | None) -> list[Any]:
    """``text`` decoded as a JSON list; ``[]`` for NULL, bad JSON or another JSON type."""
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def ids_by_doc(conn: sqlite3.Connection, kind: Kind) -> dict[str, dict[str, str]]:
    """Every stored identifier of ``kind``: ``{doc id: {scheme: value}}``."""
    ids: dict[str, dict[str, str]] = {}
    for doc_id, scheme, value in conn.execute(
        "SELECT doc_id, scheme, value FROM record_ids WHERE kind = ?", (kind.value,)
    ):
        ids.setdefault(doc_id, {})[scheme] = value
    return ids


def identity_rows(conn: sqlite3.Connection) -> list[IdentityRow]:
    """``(id, title, authors, year, url)`` of every stored paper in rowid order; ``authors`` is
    the decoded JSON list (``[]`` when it is not one)."""
    rows = conn.execute("SELECT id, title, authors, year, url FROM papers ORDER BY rowid")
    return [(d, t, json_list(a), y, u) for d, t, a, y, u in rows]


def ids_of(conn: sqlite3.Connection, kind: Kind, doc_id: str) -> tuple[str | None, dict[str, str]]:
    """The url of the stored paper ``doc_id`` (None when there is none) and the identifiers
    ``{scheme: value}`` stored for the record ``(kind, doc_id)``."""
    row = conn.execute("SELECT url FROM papers WHERE id = ?", (doc_id,)).fetchone()
    url = row[0] if row else None
    rows = conn.execute(
        "SELECT scheme, value FROM record_ids WHERE kind = ? AND doc_id = ?", (kind.value, doc_id)
    ).fetchall()
    return url, {str(s): str(v) for s, v in rows}


def ids_of_docs(
    conn: sqlite3.Connection, kind: Kind, doc_ids: Sequence[str]
) -> dict[str, dict[str, str]]:
    """``{doc_id: {scheme: value}}`` of the identifiers stored for ``doc_ids`` (docs with none
    are left out); batched 900 ids a query (SQLite's bound-parameter limit)."""
    out: dict[str, dict[str, str]] = {}
    for start in range(0, len(doc_ids), 900):
        chunk = list(doc_ids[start : start + 900])
        marks = ",".join("?" * len(chunk))
        for doc_id, scheme, value in conn.execute(
            f"SELECT doc_id, scheme, value FROM record_ids WHERE kind = ? AND doc_id IN ({marks})",
            [kind.value, *chunk],
        ):
            out.setdefault(str(doc_id), {})[str(scheme)] = str(value)
    return out


def add_ids(conn: sqlite3.Connection, kind: Kind, doc_id: str, ids: Mapping[str, str]) -> None:
    """Keep every identifier of ``ids`` for the record (one already stored is left as is)."""
    conn.executemany(
        "INSERT OR IGNORE INTO record_ids(kind, doc_id, scheme, value) VALUES (?, ?, ?, ?)",
        [(kind.value, doc_id, s, v) for s, v in ids.items()],
    )
