"""Write imported records into the store: match, merge, identifiers, provenance, triage.

For each :class:`~litsift.sources.base.SourceRecord` of kind paper:

1. **match** it against the store (and what this import already wrote) with
   :class:`~litsift.sources.identity.IdentityIndex`;
2. **merge** onto the match -- missing fields filled, the richer (longer) abstract kept, every
   identifier kept, the stored author list never replaced by a different list of people
   (only filled when empty, or completed when it was cut short) -- or insert a new row whose
   id is the record's best identifier (``doi:...``, ``arxiv:...``;
   :func:`litsift.sources.ids.preferred`) or, when it has none or another row holds it,
   ``key:`` + a hash of title, first author and year. A record sharing an identifier with a
   stored paper of a clearly different title is an identifier **conflict**
   (:class:`~litsift.sources.identity.Conflict`): listed in ``Counts.conflicts``, not merged;
3. remember its provenance ``(format, file, location, fetched_at)``; a record whose provenance
   is already on the matched row is a re-import of the same entry (``updated``/``unchanged``),
   any other match is a duplicate from another entry or source (``merged``);
4. bring its tags and notes into the record's note, its collections into litsift collections,
   its local attachments into ``attachments``.

Changed rows get the next store-wide revision (as a JSONL ingest does), so the next index
build picks them up incrementally. Writes are batched in ``BEGIN IMMEDIATE`` transactions of
:data:`BATCH` records: an interrupted import leaves every committed batch in place, and running
it again finishes the job (committed entries then count as unchanged).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from litsift.sources.base import BadItem, SourceRecord, clean_text
from litsift.sources.citation_edges import CitationWriter
from litsift.sources.identity import (
    IdentityIndex,
    extends_persons,
    person_keys,
    work_key,
)
from litsift.sources.ids import ids_in_text, preferred
from litsift.store.history import now_iso
from litsift.store.records import InvalidRecord, content_hash, normalize
from litsift.store.repo import Store
from litsift.store.schema import CONTENT_COLUMNS
from litsift.types import Kind

__all__ = ["BATCH", "Counts", "Problem", "RecordWriter", "merge_fields", "upsert"]

BATCH = 200
_PAPER_COLS = CONTENT_COLUMNS[Kind.PAPER]
_MAX_NOTE_CHARS = 20_000


@dataclass(frozen=True)
class Problem:
    """A bad entry or unusable file: printed as ``FILE:LOCATION: reason``."""

    file: str
    location: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.location}" if self.location else self.file
        return f"{where}: {self.reason}"


@dataclass
class Counts:
    """Outcome counts of one import (see :mod:`litsift.sources.importer`)."""

    read: int = 0
    added: int = 0
    updated: int = 0
    merged: int = 0
    unchanged: int = 0
    bad: list[Problem] = field(default_factory=list)
    #: ``(incoming location, stored doc id, reason)`` for each record merged onto another
    merges: list[tuple[str, str, str]] = field(default_factory=list)
    #: ``(incoming location, stored doc id, "scheme:value", title score 0-100)`` for each
    #: record that shares an identifier with a stored paper of a clearly different title
    conflicts: list[tuple[str, str, str, float]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing was bad."""
        return not self.bad

    def fold(self, other: Counts) -> None:
        """Add ``other``'s counts, bad entries and merges to these."""
        for name in ("read", "added", "updated", "merged", "unchanged"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.bad.extend(other.bad)
        self.merges.extend(other.merges)
        self.conflicts.extend(other.conflicts)

    def to_json(self) -> dict[str, Any]:
        """The counts as plain JSON data (bad entries as ``FILE:LOCATION: reason``)."""
        return {
            "read": self.read,
            "added": self.added,
            "updated": self.updated,
            "merged": self.merged,
            "unchanged": self.unchanged,
            "bad": [str(p) for p in self.bad],
            "merges": [{"entry": e, "into": d, "by": r} for e, d, r in self.merges],
            "conflicts": [
                {"entry": e, "with": d, "id": i, "title_score": round(t, 1)}
                for e, d, i, t in self.conflicts
            ],
        }


def _json_list(text: str | None) -> list[Any]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def merge_authors(stored: list[str], other: list[str]) -> list[str]:
    """The author list of a merged paper: ``stored`` unless it is empty (then ``other``) or
    cut short (its people, by :func:`~litsift.sources.identity.person_key`, are the first of
    ``other``'s: then ``stored`` followed by ``other``'s remaining names). A stored list is
    never replaced by a different list of people, whatever their lengths."""
    if not person_keys(stored):
        return list(other) if person_keys(other) else list(stored)
    if extends_persons(stored, other):
        kept = [a for a in stored if person_keys([a])]
        return kept + [a for a in other if person_keys([a])][len(kept) :]
    return list(stored)


def merge_fields(stored: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``stored`` paper fields completed from ``other``: empty fields filled, the longer
    abstract kept, the authors as :func:`merge_authors` says, the year kept unless missing.

    Both are dicts of the paper columns with ``authors`` as a list.
    """
    out = dict(stored)
    for key in ("title", "venue", "status", "url", "license"):
        if not out[key] and other[key]:
            out[key] = other[key]
    if len(other["abstract"] or "") > len(out["abstract"] or ""):
        out["abstract"] = other["abstract"]
    out["authors"] = merge_authors(list(out["authors"]), list(other["authors"]))
    if out["year"] is None:
        out["year"] = other["year"]
    return out


def upsert(
    conn: sqlite3.Connection, kind: Kind, values: tuple[Any, ...], digest: str, revision: int
) -> None:
    """Insert or update one record row (its content columns, content hash and revision)."""
    cols = CONTENT_COLUMNS[kind]
    marks = ", ".join("?" * (len(cols) + 2))
    keep = ", ".join(f"{c} = excluded.{c}" for c in (*cols[1:], "content_hash"))
    conn.execute(
        f"INSERT INTO {kind.table} ({', '.join(cols)}, content_hash, revision) VALUES ({marks}) "
        f"ON CONFLICT(id) DO UPDATE SET {keep}, revision = excluded.revision",
        (*values, digest, revision),
    )


class RecordWriter:
    """Writes the records of one import run into ``store`` (one thread)."""

    def __init__(self, store: Store, kind: Kind = Kind.PAPER, fetched_at: str | None = None):
        self.store, self.kind = store, kind
        self.conn: sqlite3.Connection = store.conn
        self.fetched_at = fetched_at or now_iso()
        self.counts = Counts()
        self.index = IdentityIndex.from_connection(self.conn, kind.value, kind.table)
        self._pending: list[tuple[str, str, SourceRecord | BadItem]] = []
        self.edges = CitationWriter(self.conn)

    # ------------------------------------------------------------------ public

    def add(self, fmt: str, file: str, item: SourceRecord | BadItem) -> None:
        """Queue one record (or bad item) read from ``file`` in format ``fmt``."""
        self._pending.append((fmt, file, item))
        if len(self._pending) >= BATCH:
            self.flush()

    def add_all(self, fmt: str, file: str, items: Iterable[SourceRecord | BadItem]) -> None:
        for item in items:
            self.add(fmt, file, item)

    def flush(self) -> None:
        """Write the queued records in one transaction; :attr:`counts` takes in the batch
        only once it is committed (a failed commit -- a full disk -- counts nothing of it).

        Raises:
            MachineFaultError: the disk is full, the home read-only, the store locked.
        """
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        committed, self.counts = self.counts, Counts()
        try:
            self._flush(pending)
        except BaseException:
            self.counts = committed
            raise
        committed.fold(self.counts)
        self.counts = committed

    def _flush(self, pending: list[tuple[str, str, SourceRecord | BadItem]]) -> None:
        with self.store.write_transaction() as conn:
            revision = int(
                conn.execute("SELECT value FROM meta WHERE key = 'revision'").fetchone()[0]
            )
            for fmt, file, item in pending:
                self.counts.read += 1
                if isinstance(item, BadItem):
                    self.counts.bad.append(Problem(file, item.location, item.reason))
                    continue
                try:
                    revision = self._write(fmt, file, item, revision)
                except InvalidRecord as err:
                    self.counts.bad.append(Problem(file, item.location, str(err)))
            conn.execute("UPDATE meta SET value = ? WHERE key = 'revision'", (str(revision),))

    # ----------------------------------------------------------------- writing

    def _write(self, fmt: str, file: str, rec: SourceRecord, revision: int) -> int:
        if rec.kind is Kind.DATASET:
            return self._write_dataset(fmt, file, rec, revision)
        title = clean_text(rec.title)
        found = self.index.resolve(title, rec.authors, rec.year, rec.ids, rec.family_names)
        match = found.match
        if not title:  # an abstract-only record (S2AG ``abstracts``) joins its stored paper
            if match is None or match.reason == "title":
                raise InvalidRecord(
                    "no title" + (" and no stored paper with its ids" if rec.ids else "")
                )
            title = self.index.entries[match.doc_id].key and self._stored_title(match.doc_id)
        doc_id = match.doc_id if match else self._new_id(rec, title)
        old = self.conn.execute(
            f"SELECT {', '.join(_PAPER_COLS)}, content_hash FROM papers WHERE id = ?", (doc_id,)
        ).fetchone()
        if old is None and match is not None:  # id known only from record_ids of a deleted row
            doc_id, match = self._new_id(rec, title), None
            old = self.conn.execute(
                f"SELECT {', '.join(_PAPER_COLS)}, content_hash FROM papers WHERE id = ?",
                (doc_id,),
            ).fetchone()
        values = normalize(Kind.PAPER, self._merged(doc_id, old, rec, title))
        new_hash = content_hash(values)
        seen_here = self.conn.execute(
            "SELECT doc_id FROM provenance WHERE kind = ? AND format = ? AND file = ? "
            "AND location = ?",
            (self.kind.value, fmt, file, rec.location),
        ).fetchone()
        if old is None:
            self.counts.added += 1
        elif seen_here is not None and seen_here[0] == doc_id:
            if old[-1] == new_hash:
                self.counts.unchanged += 1
            else:
                self.counts.updated += 1
        else:
            self.counts.merged += 1
            self.counts.merges.append(
                (f"{file}:{rec.location}", doc_id, match.reason if match else "id")
            )
        if old is None or old[-1] != new_hash:
            revision += 1
            upsert(self.conn, Kind.PAPER, values, new_hash, revision)
        self.counts.conflicts.extend(
            (f"{file}:{rec.location}", c.doc_id, f"{c.scheme}:{c.value}", c.score)
            for c in found.conflicts
        )
        self._write_side_tables(fmt, file, rec, doc_id)
        self.edges.write(fmt, rec, doc_id, values[1], _json_list(values[3]))
        # the index learns what is stored (as IdentityIndex.from_connection reads it), not how
        # this source spelled it, so a re-import matches as this import did
        self.index.add(doc_id, values[1], _json_list(values[3]), values[4], self._ids_of(doc_id))
        return revision

    def _stored_title(self, doc_id: str) -> str:
        row = self.conn.execute("SELECT title FROM papers WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            raise InvalidRecord("no title")
        return str(row[0])

    def _ids_of(self, doc_id: str) -> dict[str, str]:
        url = self.conn.execute("SELECT url FROM papers WHERE id = ?", (doc_id,)).fetchone()
        ids = ids_in_text(url[0] if url else None)
        ids.update(
            self.conn.execute(
                "SELECT scheme, value FROM record_ids WHERE kind = ? AND doc_id = ?",
                (self.kind.value, doc_id),
            ).fetchall()
        )
        return ids

    def _new_id(self, rec: SourceRecord, title: str) -> str:
        best = preferred(rec.ids)
        if best:
            scheme, value = best.split(":", 1)
            owner = self.index.by_id.get((scheme, value))
            taken = (
                owner is not None
                and self.conn.execute("SELECT 1 FROM papers WHERE id = ?", (owner,)).fetchone()
            )
            if not taken:
                return best  # else a paper of another title holds it (a conflict): a key id
        return work_key(title, rec.authors, rec.year, rec.family_names)

    @staticmethod
    def _merged(doc_id: str, old: Any, rec: SourceRecord, title: str) -> dict[str, Any]:
        new: dict[str, Any] = {
            "id": doc_id,
            "title": title,
            "abstract": clean_text(rec.abstract),
            "authors": [clean_text(a) for a in rec.authors if clean_text(a)],
            "year": rec.year,
            "venue": clean_text(rec.venue),
            "status": "",
            "url": clean_text(rec.url),
            "license": clean_text(rec.license),
        }
        if old is None:
            return new
        stored = dict(zip(_PAPER_COLS, old[: len(_PAPER_COLS)], strict=True))
        stored["authors"] = _json_list(stored["authors"])
        return merge_fields(stored, new)

    def _write_side_tables(self, fmt: str, file: str, rec: SourceRecord, doc_id: str) -> None:
        kind = self.kind.value
        self.conn.executemany(
            "INSERT OR IGNORE INTO record_ids(kind, doc_id, scheme, value) VALUES (?, ?, ?, ?)",
            [(kind, doc_id, s, v) for s, v in rec.ids.items()],
        )
        self.conn.execute(
            "INSERT INTO provenance(kind, doc_id, format, file, location, fetched_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(kind, format, file, location) DO UPDATE SET "
            "doc_id = excluded.doc_id, fetched_at = excluded.fetched_at",
            (kind, doc_id, fmt, file, rec.location, self.fetched_at),
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO attachments(kind, doc_id, path) VALUES (?, ?, ?)",
            [(kind, doc_id, str(p)) for p in rec.attachments],
        )
        tags = [" ".join(t.split()) for t in rec.tags if t and t.strip()]
        notes = [n.strip() for n in rec.notes if n and n.strip()]
        if tags or notes:
            self._merge_note(doc_id, tags, notes)
        if rec.sections and self.kind is Kind.PAPER:
            self._write_passages(doc_id, rec.sections, rec.section_pages, fmt)
        for path in rec.collections:
            name = " ".join(path.split())[:100]
            if not name:
                continue
            self.conn.execute(
                "INSERT OR IGNORE INTO collections(name, created_at) VALUES (?, ?)",
                (name, self.fetched_at),
            )
            self.conn.execute(
                "INSERT OR IGNORE INTO collection_items(collection, kind, doc_id) VALUES (?, ?, ?)",
                (name, kind, doc_id),
            )

    def _write_passages(
        self, doc_id: str, sections: list[tuple[str, str]], pages: list[int], fmt: str
    ) -> None:
        """Replace the paper's full-text passages with those of ``sections`` (schema v5)."""
        from litsift.text.passages import chunk_sections_paged

        chunks = chunk_sections_paged(sections, pages)
        if not chunks:
            return
        self.conn.execute("DELETE FROM passages WHERE doc_id = ?", (doc_id,))
        self.conn.executemany(
            "INSERT INTO passages(doc_id, idx, section, page, text, source) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(doc_id, i, head, page, text, fmt) for i, (head, text, page) in enumerate(chunks)],
        )

    def _merge_note(self, doc_id: str, tags: list[str], notes: list[str]) -> None:
        row = self.conn.execute(
            "SELECT text, tags FROM notes WHERE kind = ? AND doc_id = ?", (self.kind.value, doc_id)
        ).fetchone()
        text, old_tags = (row[0], _json_list(row[1])) if row else ("", [])
        lower = {str(t).lower() for t in old_tags}
        merged_tags = list(old_tags) + [t for t in dict.fromkeys(tags) if t.lower() not in lower]
        for note in notes:
            if note not in text and len(text) < _MAX_NOTE_CHARS:
                text = f"{text}\n\n{note}".strip()
        if row is not None and text == row[0] and merged_tags == old_tags:
            return
        self.conn.execute(
            "INSERT INTO notes(kind, doc_id, text, tags, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(kind, doc_id) DO UPDATE SET text = excluded.text, tags = excluded.tags, "
            "updated_at = excluded.updated_at",
            (
                self.kind.value,
                doc_id,
                text[:_MAX_NOTE_CHARS],
                json.dumps(merged_tags, ensure_ascii=False),
                now_iso(),
            ),
        )

    def _write_dataset(self, fmt: str, file: str, rec: SourceRecord, revision: int) -> int:
        if not rec.dataset:
            raise InvalidRecord("no dataset fields")
        values = normalize(Kind.DATASET, rec.dataset)
        new_hash = content_hash(values)
        old = self.conn.execute(
            "SELECT content_hash FROM datasets WHERE id = ?", (values[0],)
        ).fetchone()
        if old is None:
            self.counts.added += 1
        elif old[0] == new_hash:
            self.counts.unchanged += 1
        else:
            self.counts.updated += 1
        if old is None or old[0] != new_hash:
            revision += 1
            upsert(self.conn, Kind.DATASET, values, new_hash, revision)
        self.conn.execute(
            "INSERT INTO provenance(kind, doc_id, format, file, location, fetched_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(kind, format, file, location) DO UPDATE SET "
            "doc_id = excluded.doc_id, fetched_at = excluded.fetched_at",
            (Kind.DATASET.value, values[0], fmt, file, rec.location, self.fetched_at),
        )
        return revision
