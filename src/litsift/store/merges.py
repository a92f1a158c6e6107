"""Writes of imported and merged records: the store-wide revision counter, one record's row
(upsert, read back, update, delete), and what an import or a merge brings along with a record
(tags and notes, collections, full-text passages) or moves from a duplicate onto its survivor
(its review rows: :mod:`litsift.store.review_merges`).

Callers hold the write transaction (:meth:`litsift.store.repo.Store.transaction`);
nothing here commits. Matching and merge rules live in :mod:`litsift.sources.writer` and
:mod:`litsift.sources.dedup`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from litsift.store.biblio import move_biblio
from litsift.store.citations import resolve_to
from litsift.store.history import now_iso
from litsift.store.identities import json_list
from litsift.store.review_merges import DecisionClash, move_review_rows
from litsift.store.schema import CONTENT_COLUMNS
from litsift.types import Kind

__all__ = [
    "add_to_collections",
    "content_hash_of",
    "current_revision",
    "delete_paper",
    "merge_note",
    "move_record",
    "paper_exists",
    "paper_row",
    "paper_title",
    "replace_passages",
    "set_revision",
    "update_paper",
    "upsert",
    "upsert_sql",
]

_PAPER_COLS = CONTENT_COLUMNS[Kind.PAPER]


def current_revision(conn: sqlite3.Connection) -> int:
    """The store-wide revision counter (the last revision given to a changed row)."""
    return int(conn.execute("SELECT value FROM meta WHERE key = 'revision'").fetchone()[0])


def set_revision(conn: sqlite3.Connection, revision: int) -> None:
    """Store ``revision`` as the store-wide revision counter."""
    conn.execute("UPDATE meta SET value = ? WHERE key = 'revision'", (str(revision),))


def upsert_sql(kind: Kind) -> str:
    """The statement that inserts or updates one row of ``kind``: parameters are its content
    columns (``CONTENT_COLUMNS[kind]``), its content hash and its revision."""
    cols = CONTENT_COLUMNS[kind]
    marks = ", ".join("?" * (len(cols) + 2))
    keep = ", ".join(f"{c} = excluded.{c}" for c in (*cols[1:], "content_hash"))
    return (
        f"INSERT INTO {kind.table} ({', '.join(cols)}, content_hash, revision) VALUES ({marks}) "
        f"ON CONFLICT(id) DO UPDATE SET {keep}, revision = excluded.revision"
    )


def upsert(
    conn: sqlite3.Connection, kind: Kind, values: tuple[Any, ...], digest: str, revision: int
) -> None:
    """Insert or update one record row (its content columns, content hash and revision)."""
    conn.execute(upsert_sql(kind), (*values, digest, revision))


def paper_row(conn: sqlite3.Connection, doc_id: str) -> tuple[dict[str, Any], str] | None:
    """The stored paper ``doc_id`` as ``(content columns, content hash)``, ``authors`` decoded
    to a list; None when there is no such paper."""
    row = conn.execute(
        f"SELECT {', '.join(_PAPER_COLS)}, content_hash FROM papers WHERE id = ?", (doc_id,)
    ).fetchone()
    if row is None:
        return None
    fields = dict(zip(_PAPER_COLS, row[: len(_PAPER_COLS)], strict=True))
    fields["authors"] = json_list(fields["authors"])
    return fields, str(row[-1])


def paper_exists(conn: sqlite3.Connection, doc_id: str) -> bool:
    """True when a paper with this id is stored."""
    return conn.execute("SELECT 1 FROM papers WHERE id = ?", (doc_id,)).fetchone() is not None


def paper_title(conn: sqlite3.Connection, doc_id: str) -> str | None:
    """The stored paper's title, or None when there is no such paper."""
    row = conn.execute("SELECT title FROM papers WHERE id = ?", (doc_id,)).fetchone()
    return None if row is None else str(row[0])


def content_hash_of(conn: sqlite3.Connection, kind: Kind, doc_id: str) -> str | None:
    """The stored content hash of record ``doc_id`` of ``kind``, or None when it is absent."""
    row = conn.execute(f"SELECT content_hash FROM {kind.table} WHERE id = ?", (doc_id,)).fetchone()
    return None if row is None else str(row[0])


def update_paper(
    conn: sqlite3.Connection, values: tuple[Any, ...], digest: str, revision: int
) -> None:
    """Overwrite the content of the stored paper ``values[0]`` (``CONTENT_COLUMNS`` order)."""
    conn.execute(
        f"UPDATE papers SET {', '.join(f'{c} = ?' for c in _PAPER_COLS[1:])}, "
        "content_hash = ?, revision = ? WHERE id = ?",
        (*values[1:], digest, revision, values[0]),
    )


def delete_paper(conn: sqlite3.Connection, doc_id: str, kind: Kind = Kind.PAPER) -> None:
    """Delete the paper row (or the record of ``kind``; search skips it at once; its index
    entries go at the next rebuild)."""
    conn.execute(f"DELETE FROM {kind.table} WHERE id = ?", (doc_id,))


def _upsert_note(
    conn: sqlite3.Connection, kind: Kind, doc_id: str, text: str, tags: list[Any]
) -> None:
    conn.execute(
        "INSERT INTO notes(kind, doc_id, text, tags, updated_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(kind, doc_id) DO UPDATE SET text = excluded.text, tags = excluded.tags, "
        "updated_at = excluded.updated_at",
        (kind.value, doc_id, text, json.dumps(tags, ensure_ascii=False), now_iso()),
    )


def _note(conn: sqlite3.Connection, kind: Kind, doc_id: str) -> tuple[str, list[Any]] | None:
    row = conn.execute(
        "SELECT text, tags FROM notes WHERE kind = ? AND doc_id = ?", (kind.value, doc_id)
    ).fetchone()
    return None if row is None else (str(row[0]), json_list(row[1]))


def merge_note(
    conn: sqlite3.Connection,
    kind: Kind,
    doc_id: str,
    tags: Sequence[str],
    notes: Sequence[str],
    max_chars: int,
) -> None:
    """Add ``tags`` (those not already there, case-insensitively) and ``notes`` (those not
    already in the text, whitespace and line breaks aside, while it is under ``max_chars``
    characters) to the record's note; the text is cut at ``max_chars``. Nothing is written when
    nothing is new. (A multi-line note exported to BibTeX ``annote`` comes back on one line:
    re-importing it adds nothing.)"""
    stored = _note(conn, kind, doc_id)
    text, old_tags = stored if stored else ("", [])
    lower = {str(t).lower() for t in old_tags}
    merged_tags = list(old_tags) + [t for t in dict.fromkeys(tags) if t.lower() not in lower]
    for note in notes:
        if " ".join(note.split()) not in " ".join(text.split()) and len(text) < max_chars:
            text = f"{text}\n\n{note}".strip()
    if stored is not None and text == stored[0] and merged_tags == old_tags:
        return
    _upsert_note(conn, kind, doc_id, text[:max_chars], merged_tags)


def add_to_collections(
    conn: sqlite3.Connection, kind: Kind, doc_id: str, names: Sequence[str], created_at: str
) -> None:
    """Put the record into each collection of ``names``, creating the missing ones."""
    for name in names:
        conn.execute(
            "INSERT OR IGNORE INTO collections(name, created_at) VALUES (?, ?)",
            (name, created_at),
        )
        conn.execute(
            "INSERT OR IGNORE INTO collection_items(collection, kind, doc_id) VALUES (?, ?, ?)",
            (name, kind.value, doc_id),
        )


def replace_passages(
    conn: sqlite3.Connection,
    doc_id: str,
    passages: Sequence[tuple[str, int | None, str]],
    source: str,
) -> None:
    """Replace the paper's full-text passages with ``passages``: ``(section, page, text)`` in
    reading order (schema v5); ``source`` is the format they were read from."""
    conn.execute("DELETE FROM passages WHERE doc_id = ?", (doc_id,))
    conn.executemany(
        "INSERT INTO passages(doc_id, idx, section, page, text, source) VALUES (?, ?, ?, ?, ?, ?)",
        [(doc_id, i, head, page, text, source) for i, (head, page, text) in enumerate(passages)],
    )


def move_record(
    conn: sqlite3.Connection, keep: str, other: str, kind: Kind = Kind.PAPER
) -> list[DecisionClash]:
    """Move what belongs to record ``other`` onto record ``keep`` (papers, or datasets) before
    ``other`` is deleted: identifiers, provenance, attachments and collection entries (those
    ``keep`` already has are dropped), its label (a label on ``keep`` wins), its note (texts
    joined, tags united); a paper's bibliographic details fill what ``keep``'s lack, its
    review rows move (:mod:`litsift.store.review_merges`), its citation edges, and its
    full-text passages and research question where ``keep`` has none; its citekey is dropped.

    Returns:
        The reviews' decisions of one reviewer that differ between the two papers
        (:class:`~litsift.store.review_merges.DecisionClash`; the newer is kept): none for a
        dataset.
    """
    k = kind.value
    for table in ("record_ids", "provenance", "attachments", "collection_items"):
        conn.execute(
            f"UPDATE OR IGNORE {table} SET doc_id = ? WHERE kind = ? AND doc_id = ?",
            (keep, k, other),
        )
        conn.execute(f"DELETE FROM {table} WHERE kind = ? AND doc_id = ?", (k, other))
    conn.execute(  # a label on the survivor wins; else the duplicate's label moves over
        "UPDATE OR IGNORE labels SET doc_id = ? WHERE kind = ? AND doc_id = ?", (keep, k, other)
    )
    conn.execute("DELETE FROM labels WHERE kind = ? AND doc_id = ?", (k, other))
    mine = _note(conn, kind, keep)
    theirs = _note(conn, kind, other)
    if theirs is not None:
        text = "\n\n".join(t for t in ((mine[0] if mine else ""), theirs[0]) if t.strip())
        tags = list(dict.fromkeys(str(t) for t in [*(mine[1] if mine else []), *theirs[1]]))
        _upsert_note(conn, kind, keep, text, tags)
        conn.execute("DELETE FROM notes WHERE kind = ? AND doc_id = ?", (k, other))
    conn.execute("DELETE FROM citekeys WHERE kind = ? AND doc_id = ?", (k, other))
    if kind is not Kind.PAPER:
        return []
    move_biblio(conn, keep, other)
    _move_paper_rows(conn, keep, other)
    return move_review_rows(conn, keep, other)


def _move_paper_rows(conn: sqlite3.Connection, keep: str, other: str) -> None:
    """``other``'s citation edges, and its passages and research question (with the
    ``problem`` / ``method`` they describe) where ``keep`` has none, move onto ``keep``."""
    resolve_to(conn, [other], keep)
    if conn.execute("SELECT 1 FROM passages WHERE doc_id = ? LIMIT 1", (keep,)).fetchone() is None:
        conn.execute("UPDATE passages SET doc_id = ? WHERE doc_id = ?", (keep, other))
    conn.execute("DELETE FROM passages WHERE doc_id = ?", (other,))
    if (
        conn.execute("SELECT 1 FROM research_questions WHERE doc_id = ?", (keep,)).fetchone()
        is None
    ):
        moved = conn.execute(
            "UPDATE research_questions SET doc_id = ? WHERE doc_id = ?", (keep, other)
        ).rowcount
        if moved:
            conn.execute(
                "UPDATE papers SET (problem, method) = (SELECT problem, method FROM papers "
                "WHERE id = ?) WHERE id = ?",
                (other, keep),
            )
    conn.execute("DELETE FROM research_questions WHERE doc_id = ?", (other,))
