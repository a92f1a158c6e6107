"""``litsift dedup``: find stored papers that are one work, and merge them.

Groups are found with the matcher of :mod:`litsift.sources.identity` (same identifier, or
title + first author + year), run over the stored papers in rowid order: each paper is matched
against the ones before it; papers that share an identifier but have clearly different titles
are listed as conflicts, not grouped. Merging keeps the oldest row (lowest rowid: its index
entries and citekey stay valid), fills its missing fields from the others, keeps the longest
abstract and every identifier, keeps the survivor's author list (filled only when empty or
cut short), and moves the others' labels, notes, tags, collections, provenance and attachments
onto it before deleting them. Search skips deleted rows at once; ``litsift index --rebuild``
compacts the indexes.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from litsift.sources.identity import IdentityIndex
from litsift.sources.ids import ids_in_text
from litsift.sources.writer import merge_fields
from litsift.store.history import now_iso
from litsift.store.records import content_hash, normalize
from litsift.store.repo import Store
from litsift.store.schema import CONTENT_COLUMNS
from litsift.types import Kind

__all__ = ["DedupGroup", "DedupPlan", "apply", "find_duplicates"]

_COLS = CONTENT_COLUMNS[Kind.PAPER]


@dataclass
class DedupGroup:
    """Papers that are one work: ``keep`` survives, ``merge`` are merged into it.

    ``merge`` holds ``(doc_id, reason, title ratio)``; ``titles`` maps every id to its title.
    """

    keep: str
    merge: list[tuple[str, str, float]] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)


@dataclass
class DedupPlan:
    """Every duplicate group found; ``papers`` is how many papers were compared;
    ``conflicts`` holds ``(doc id, other doc id, "scheme:value", title score 0-100)`` for
    papers that share an identifier but not a title (left apart)."""

    groups: list[DedupGroup] = field(default_factory=list)
    papers: int = 0
    conflicts: list[tuple[str, str, str, float]] = field(default_factory=list)

    @property
    def duplicates(self) -> int:
        return sum(len(g.merge) for g in self.groups)

    def to_json(self) -> dict[str, Any]:
        return {
            "papers": self.papers,
            "duplicates": self.duplicates,
            "groups": [
                {
                    "keep": {"id": g.keep, "title": g.titles[g.keep]},
                    "merge": [
                        {"id": d, "title": g.titles[d], "by": r, "score": round(s, 1)}
                        for d, r, s in g.merge
                    ],
                }
                for g in self.groups
            ],
            "conflicts": [
                {"id": d, "with": o, "shared": i, "title_score": round(t, 1)}
                for d, o, i, t in self.conflicts
            ],
        }


def _authors(text: str | None) -> list[str]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return [str(a) for a in value] if isinstance(value, list) else []


def find_duplicates(store: Store) -> DedupPlan:
    """The duplicate groups among the stored papers (nothing is changed)."""
    conn = store.conn
    ids: dict[str, dict[str, str]] = {}
    with store.lock:
        for doc_id, scheme, value in conn.execute(
            "SELECT doc_id, scheme, value FROM record_ids WHERE kind = 'paper'"
        ):
            ids.setdefault(doc_id, {})[scheme] = value
        rows = conn.execute(
            "SELECT id, title, authors, year, url FROM papers ORDER BY rowid"
        ).fetchall()
    index = IdentityIndex()
    groups: dict[str, DedupGroup] = {}
    owner: dict[str, str] = {}
    conflicts: list[tuple[str, str, str, float]] = []
    for doc_id, title, authors_json, year, url in rows:
        authors = _authors(authors_json)
        doc_ids = {**ids_in_text(url), **ids.get(doc_id, {})}
        found = index.resolve(title, authors, year, doc_ids, exclude=doc_id)
        conflicts.extend(
            (doc_id, c.doc_id, f"{c.scheme}:{c.value}", c.score) for c in found.conflicts
        )
        match = found.match
        if match is None:
            index.add(doc_id, title, authors, year, doc_ids)
            continue
        keep = owner.get(match.doc_id, match.doc_id)
        group = groups.setdefault(keep, DedupGroup(keep))
        group.merge.append((doc_id, match.reason, match.score))
        owner[doc_id] = keep
        index.add(keep, "", [], None, doc_ids)  # the survivor answers for this one's ids too
    titles = {doc_id: title for doc_id, title, *_ in rows}
    for group in groups.values():
        group.titles = {d: titles[d] for d in [group.keep, *(m[0] for m in group.merge)]}
    return DedupPlan(list(groups.values()), len(rows), conflicts)


def _row(conn: sqlite3.Connection, doc_id: str) -> dict[str, Any] | None:
    row = conn.execute(f"SELECT {', '.join(_COLS)} FROM papers WHERE id = ?", (doc_id,)).fetchone()
    if row is None:
        return None
    out = dict(zip(_COLS, row, strict=True))
    out["authors"] = _authors(out["authors"])
    return out


def _move_triage(conn: sqlite3.Connection, keep: str, other: str) -> None:
    k = Kind.PAPER.value
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
    mine = conn.execute(
        "SELECT text, tags FROM notes WHERE kind = ? AND doc_id = ?", (k, keep)
    ).fetchone()
    theirs = conn.execute(
        "SELECT text, tags FROM notes WHERE kind = ? AND doc_id = ?", (k, other)
    ).fetchone()
    if theirs is not None:
        text = "\n\n".join(t for t in ((mine[0] if mine else ""), theirs[0]) if t.strip())
        tags = list(dict.fromkeys(_authors(mine[1] if mine else "[]") + _authors(theirs[1])))
        conn.execute(
            "INSERT INTO notes(kind, doc_id, text, tags, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(kind, doc_id) DO UPDATE SET text = excluded.text, tags = excluded.tags, "
            "updated_at = excluded.updated_at",
            (k, keep, text, json.dumps(tags, ensure_ascii=False), now_iso()),
        )
        conn.execute("DELETE FROM notes WHERE kind = ? AND doc_id = ?", (k, other))
    conn.execute("DELETE FROM citekeys WHERE kind = ? AND doc_id = ?", (k, other))


def apply(store: Store, plan: DedupPlan) -> int:
    """Merge every group of ``plan`` (one transaction); returns the number of rows removed.

    Raises:
        StoreError: the store is locked by another writer.
    """
    removed = 0
    with store.write_transaction() as conn:
        revision = int(conn.execute("SELECT value FROM meta WHERE key = 'revision'").fetchone()[0])
        for group in plan.groups:
            keep = _row(conn, group.keep)
            if keep is None:
                continue
            merged = keep
            for doc_id, _, _ in group.merge:
                other = _row(conn, doc_id)
                if other is None:
                    continue
                merged = merge_fields(merged, other)
                _move_triage(conn, group.keep, doc_id)
                conn.execute("DELETE FROM papers WHERE id = ?", (doc_id,))
                removed += 1
            values = normalize(Kind.PAPER, merged)
            revision += 1
            conn.execute(
                f"UPDATE papers SET {', '.join(f'{c} = ?' for c in _COLS[1:])}, "
                "content_hash = ?, revision = ? WHERE id = ?",
                (*values[1:], content_hash(values), revision, group.keep),
            )
        conn.execute("UPDATE meta SET value = ? WHERE key = 'revision'", (str(revision),))
    return removed
