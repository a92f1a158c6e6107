"""Triage state kept in the store: labels with undo, notes and tags, collections, query history.

Everything is keyed by ``(kind, doc_id)`` -- the record's external id, never its rowid -- so
labels, notes and collections survive re-ingest (rows are upserted by id) and index rebuilds
(indexes are derived files). A label change and its undo entry are written in one
``BEGIN IMMEDIATE`` transaction; the undo stack lives in the ``label_undo`` table (schema v2),
so undo works across restarts and across processes sharing the store.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from litsift.store.history import (
    HISTORY_DEPTH,
    HistoryEntry,
    QueryHistory,
    TriageError,
    clean_name,
    now_iso,
)
from litsift.types import (
    LABEL_FILTERS,
    Annotation,
    Kind,
    Label,
    LabelFilter,
    clean_tags,
    filter_by_label,
    parse_tags,
)

__all__ = [
    "HISTORY_DEPTH",
    "LABEL_FILTERS",
    "UNDO_DEPTH",
    "Annotation",
    "HistoryEntry",
    "LabelFilter",
    "Note",
    "Triage",
    "TriageError",
    "filter_by_label",
    "parse_tags",
]

#: Label changes remembered for undo; older entries are dropped.
UNDO_DEPTH = 500


@dataclass(frozen=True)
class Note:
    """A free-text note and tags on one record; ``updated_at`` is ISO 8601 UTC."""

    kind: Kind
    doc_id: str
    text: str
    tags: tuple[str, ...]
    updated_at: str


class Triage(QueryHistory):
    """Labels, notes, tags, collections and query history of one :class:`Store`.

    Thread-safe like the store (every call holds ``store._lock``). Writes raise
    :class:`TriageError` on a read-only store.
    """

    # -------------------------------------------------------------------- labels

    def set_label(self, kind: Kind, doc_id: str, label: Label | None) -> Label | None:
        """Label a record (``None`` clears its label) and push the change on the undo stack.

        Setting the label a record already has changes nothing and records no undo entry.

        Returns:
            The label the record had before.
        """
        with self._write() as conn:
            row = conn.execute(
                "SELECT label FROM labels WHERE kind = ? AND doc_id = ?", (kind.value, doc_id)
            ).fetchone()
            previous = None if row is None else Label(row[0])
            if previous == label:
                return previous
            self._put_label(conn, kind, doc_id, label)
            conn.execute(
                "INSERT INTO label_undo(kind, doc_id, previous, created_at) VALUES (?, ?, ?, ?)",
                (kind.value, doc_id, None if previous is None else previous.value, now_iso()),
            )
            conn.execute(
                "DELETE FROM label_undo WHERE id <= (SELECT MAX(id) FROM label_undo) - ?",
                (UNDO_DEPTH,),
            )
            return previous

    @staticmethod
    def _put_label(conn: sqlite3.Connection, kind: Kind, doc_id: str, label: Label | None) -> None:
        if label is None:
            conn.execute("DELETE FROM labels WHERE kind = ? AND doc_id = ?", (kind.value, doc_id))
        else:
            conn.execute(
                "INSERT INTO labels(kind, doc_id, label, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(kind, doc_id) DO UPDATE SET label = excluded.label, "
                "updated_at = excluded.updated_at",
                (kind.value, doc_id, Label(label).value, now_iso()),
            )

    def undo(self) -> tuple[Kind, str, Label | None] | None:
        """Undo the newest label change still on the stack (persisted; survives restarts).

        Returns:
            ``(kind, doc_id, restored label)`` -- the label the record has again, None when
            it is unlabelled again -- or None when there is nothing to undo.
        """
        with self._write() as conn:
            row = conn.execute(
                "SELECT id, kind, doc_id, previous FROM label_undo ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            entry_id, kind_text, doc_id, prev_text = row
            kind = Kind(kind_text)
            previous = None if prev_text is None else Label(prev_text)
            self._put_label(conn, kind, doc_id, previous)
            conn.execute("DELETE FROM label_undo WHERE id = ?", (entry_id,))
            return kind, doc_id, previous

    def undo_depth(self) -> int:
        """Number of label changes that :meth:`undo` can still revert."""
        return int(self._read("SELECT COUNT(*) FROM label_undo")[0][0])

    def label(self, kind: Kind, doc_id: str) -> Label | None:
        """The label of one record, or None."""
        return self.labels(kind, [doc_id]).get(doc_id)

    def labels(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, Label]:
        """``{doc_id: label}`` for the labelled ones among ``doc_ids``."""
        sql = "SELECT doc_id, label FROM labels WHERE kind = ? AND doc_id IN ({marks})"
        return {str(d): Label(str(lab)) for d, lab in self._chunked(sql, [kind.value], doc_ids)}

    def ids_with_label(self, kind: Kind, label: Label) -> list[str]:
        """Ids of the records of ``kind`` labelled ``label``, oldest label first."""
        rows = self._read(
            "SELECT doc_id FROM labels WHERE kind = ? AND label = ? ORDER BY updated_at, doc_id",
            (kind.value, Label(label).value),
        )
        return [str(r[0]) for r in rows]

    def labelled_ids(self, kind: Kind) -> list[str]:
        """Ids of every record of ``kind`` with a label (any)."""
        rows = self._read("SELECT doc_id FROM labels WHERE kind = ?", (kind.value,))
        return [str(r[0]) for r in rows]

    def label_counts(self, kind: Kind) -> dict[Label, int]:
        """How many records of ``kind`` carry each label (labels with none are absent)."""
        rows = self._read(
            "SELECT label, COUNT(*) FROM labels WHERE kind = ? GROUP BY label", (kind.value,)
        )
        return {Label(str(lab)): int(n) for lab, n in rows}

    # --------------------------------------------------------------- notes, tags

    def set_note(self, kind: Kind, doc_id: str, text: str, tags: Sequence[str] = ()) -> None:
        """Replace the note and tags of a record; empty text and no tags delete the note.

        Tags are cleaned as by :func:`parse_tags` (stripped, deduplicated).
        """
        clean = clean_tags(tags)
        with self._write() as conn:
            if not text.strip() and not clean:
                conn.execute(
                    "DELETE FROM notes WHERE kind = ? AND doc_id = ?", (kind.value, doc_id)
                )
                return
            conn.execute(
                "INSERT INTO notes(kind, doc_id, text, tags, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(kind, doc_id) DO UPDATE SET text = excluded.text, "
                "tags = excluded.tags, updated_at = excluded.updated_at",
                (kind.value, doc_id, text, json.dumps(list(clean), ensure_ascii=False), now_iso()),
            )

    def note(self, kind: Kind, doc_id: str) -> Note | None:
        """The note of one record, or None."""
        return self.notes(kind, [doc_id]).get(doc_id)

    def notes(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, Note]:
        """``{doc_id: note}`` for the ones among ``doc_ids`` that have a note or tags."""
        sql = (
            "SELECT doc_id, text, tags, updated_at FROM notes "
            "WHERE kind = ? AND doc_id IN ({marks})"
        )
        return {
            str(d): Note(kind, str(d), str(t), tuple(json.loads(str(tags))), str(u))
            for d, t, tags, u in self._chunked(sql, [kind.value], doc_ids)
        }

    def ids_with_tag(self, kind: Kind, tag: str) -> list[str]:
        """Ids of the records of ``kind`` tagged ``tag`` (case-insensitive), sorted."""
        rows = self._read(
            "SELECT DISTINCT n.doc_id FROM notes AS n, json_each(n.tags) AS t "
            "WHERE n.kind = ? AND lower(t.value) = lower(?) ORDER BY n.doc_id",
            (kind.value, " ".join(tag.split())),
        )
        return [str(r[0]) for r in rows]

    def tags(self, kind: Kind | None = None) -> list[tuple[str, int]]:
        """Every tag in use with its number of records, most used first (for completion)."""
        where, params = ("WHERE n.kind = ?", [kind.value]) if kind else ("", [])
        rows = self._read(
            f"SELECT t.value, COUNT(*) AS n FROM notes AS n, json_each(n.tags) AS t {where} "
            "GROUP BY t.value ORDER BY n DESC, t.value",
            params,
        )
        return [(str(t), int(n)) for t, n in rows]

    # -------------------------------------------------------------- collections

    def create_collection(self, name: str) -> str:
        """Create a collection (nothing happens if it exists).

        Returns:
            The name as stored (whitespace collapsed).

        Raises:
            TriageError: the name is empty or longer than 100 characters.
        """
        clean = clean_name(name, "collection")
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO collections(name, created_at) VALUES (?, ?)",
                (clean, now_iso()),
            )
        return clean

    def delete_collection(self, name: str) -> bool:
        """Delete a collection and its membership rows (not the records). True if it existed."""
        with self._write() as conn:
            conn.execute("DELETE FROM collection_items WHERE collection = ?", (name,))
            cur = conn.execute("DELETE FROM collections WHERE name = ?", (name,))
            return cur.rowcount > 0

    def rename_collection(self, old: str, new: str) -> str:
        """Rename a collection, keeping its items.

        Raises:
            TriageError: ``old`` does not exist, ``new`` is invalid or already taken.
        """
        clean = clean_name(new, "collection")
        with self._write() as conn:
            self._require_collection(conn, old)
            if (
                clean != old
                and conn.execute("SELECT 1 FROM collections WHERE name = ?", (clean,)).fetchone()
            ):
                raise TriageError(f"a collection named {clean!r} exists", "pick another name")
            conn.execute(
                "INSERT INTO collections(name, created_at) "
                "SELECT ?, created_at FROM collections WHERE name = ?",
                (clean, old),
            )
            conn.execute(
                "UPDATE collection_items SET collection = ? WHERE collection = ?", (clean, old)
            )
            conn.execute("DELETE FROM collections WHERE name = ?", (old,))
        return clean

    def add_to_collection(self, name: str, kind: Kind, doc_id: str) -> str:
        """Put a record in a collection, creating the collection if needed (idempotent).

        Returns:
            The collection name as stored.
        """
        clean = self.create_collection(name)
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO collection_items(collection, kind, doc_id) VALUES (?, ?, ?)",
                (clean, kind.value, doc_id),
            )
        return clean

    def remove_from_collection(self, name: str, kind: Kind, doc_id: str) -> bool:
        """Take a record out of a collection. True if it was in it."""
        with self._write() as conn:
            cur = conn.execute(
                "DELETE FROM collection_items WHERE collection = ? AND kind = ? AND doc_id = ?",
                (name, kind.value, doc_id),
            )
            return cur.rowcount > 0

    def collections(self) -> list[str]:
        """Names of all collections, sorted case-insensitively."""
        rows = self._read("SELECT name FROM collections ORDER BY lower(name), name")
        return [str(r[0]) for r in rows]

    def collection_items(self, name: str) -> list[tuple[Kind, str]]:
        """``(kind, doc_id)`` of the records in a collection, in the order they were added.

        Raises:
            TriageError: there is no collection called ``name``.
        """
        with self.store._lock:
            self._require_collection(self.store._conn, name)
            rows = self.store._conn.execute(
                "SELECT kind, doc_id FROM collection_items WHERE collection = ? ORDER BY rowid",
                (name,),
            ).fetchall()
        return [(Kind(k), str(d)) for k, d in rows]

    def collections_of(self, kind: Kind, doc_id: str) -> list[str]:
        """Names of the collections a record is in, sorted."""
        rows = self._read(
            "SELECT collection FROM collection_items WHERE kind = ? AND doc_id = ? "
            "ORDER BY lower(collection)",
            (kind.value, doc_id),
        )
        return [str(r[0]) for r in rows]

    def _require_collection(self, conn: sqlite3.Connection, name: str) -> None:
        if conn.execute("SELECT 1 FROM collections WHERE name = ?", (name,)).fetchone() is None:
            known = [str(r[0]) for r in conn.execute("SELECT name FROM collections ORDER BY name")]
            raise TriageError(
                f"no collection named {name!r}",
                f"known collections: {', '.join(known)}"
                if known  # no command makes one: the TUI's key c on a result does
                else "key c on a result in the TUI adds it to a collection (a new name makes one)",
            )

    # --------------------------------------------------------------- annotations

    def annotations(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, Annotation]:
        """Label, note, tags, collections (and a paper's editors) of many records at once (for
        the results table).

        Returns:
            ``{doc_id: annotation}`` for every id of ``doc_ids`` (empty annotations included).
        """
        labels = self.labels(kind, doc_ids)
        notes = self.notes(kind, doc_ids)
        colls: dict[str, list[str]] = {}
        sql = (
            "SELECT doc_id, collection FROM collection_items WHERE kind = ? "
            "AND doc_id IN ({marks}) ORDER BY lower(collection)"
        )
        for d, c in self._chunked(sql, [kind.value], doc_ids):
            colls.setdefault(str(d), []).append(str(c))
        rq: dict[str, str] = {}
        editors: dict[str, tuple[str, ...]] = {}
        if kind is Kind.PAPER:
            from litsift.store.repositories import Biblios
            from litsift.store.rq import rq_info

            rq = {d: info.label for d, info in rq_info(self.store, doc_ids).items()}
            editors = {d: b.editors for d, b in Biblios(self.store).of(doc_ids).items()}
        out = {}
        for d in doc_ids:
            n = notes.get(d)
            out[d] = Annotation(
                label=labels.get(d),
                note=n.text if n else "",
                tags=n.tags if n else (),
                collections=tuple(colls.get(d, ())),
                rq_source=rq.get(d, ""),
                editors=editors.get(d, ()),
            )
        return out

    # --------------------------------------------------------- research question

    def set_research_question(self, kind: Kind, doc_id: str, problem: str, method: str) -> None:
        """Fill a paper's research-question fields (``papers.problem`` / ``papers.method``).

        They are not content columns: re-ingesting the paper keeps them, and they are not
        indexed, so no revision is bumped. Recorded as the user's own (``source = "user"``,
        :mod:`litsift.store.rq`).

        Raises:
            TriageError: ``kind`` is not a paper, or there is no paper ``doc_id``.
        """
        if kind is not Kind.PAPER:
            raise TriageError("only papers have problem/method fields", "select a paper")
        from litsift.store.rq import RQRow, set_rqs

        if not set_rqs(self.store, [RQRow(doc_id, problem, method, "user")]):
            raise TriageError(f"no paper with id {doc_id!r}", "ingest it first")
