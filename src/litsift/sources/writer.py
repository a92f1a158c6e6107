"""Write imported records into the store: match, merge, identifiers, provenance, triage.

For each :class:`~litsift.sources.base.SourceRecord` of kind paper:

1. **match** it against the store (and what this import already wrote) with
   :class:`~litsift.sources.identity.stored_keys.StoreIdentityIndex`, which looks up per batch only
   the
   stored papers its records may be (shared identifier, title key, one of its rarest title words);
2. **merge** onto the match -- missing fields filled, the richer (longer) abstract kept, every
   identifier kept, the stored author list never replaced by a different list of people
   (only filled when empty, or completed when it was cut short) -- or insert a new row whose
   id is the record's best identifier (``doi:...``, ``arxiv:...``;
   :func:`litsift.sources.identity.ids.preferred`) or, when it has none or another row holds it,
   ``key:`` + a hash of title, first author and year. A record sharing an identifier with a
   stored paper of a clearly different title is an identifier **conflict**
   (:class:`~litsift.sources.identity.matcher.Conflict`): listed in ``IngestReport.conflicts``, not
   merged;
3. remember its provenance ``(format, file, location, fetched_at)``; a record whose provenance
   is already on the matched row is a re-import of the same entry (``updated``/``unchanged``),
   any other match is a duplicate from another entry or source (``merged``);
4. bring its tags and notes into the record's note, its collections into litsift collections,
   its local attachments into ``attachments``, its type, volume, issue, pages, publisher,
   editors and split names into ``paper_biblio`` (:mod:`litsift.store.biblio`: what the stored
   paper lacks is filled, nothing stored is replaced).

Changed rows get the next store-wide revision (as a JSONL ingest does), so the next index
build picks them up incrementally. Writes are batched in ``BEGIN IMMEDIATE`` transactions of
:data:`BATCH` records: an interrupted import leaves every committed batch in place, and running
it again finishes the job (committed entries then count as unchanged).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from litsift.sources.base import (
    BadItem,
    Notice,
    SourceRecord,
    clean_text,
    scrub_controls,
    storable_path,
    untitled_label,
)
from litsift.sources.citation_edges import CitationWriter
from litsift.sources.identity.ids import ids_in_text, preferred
from litsift.sources.identity.matcher import work_key
from litsift.sources.identity.person_keys import extends_persons, person_keys
from litsift.sources.identity.stored_keys import SYNC_CHUNK, StoreIdentityIndex
from litsift.store import identities
from litsift.store.biblio import Biblio
from litsift.store.dataset_names import DatasetNames, fields_of, merge_dataset, values_of
from litsift.store.history import now_iso
from litsift.store.records import InvalidRecord, content_hash, normalize
from litsift.store.repo import Store
from litsift.store.report import IngestReport, Problem
from litsift.store.repositories import Biblios, Datasets, Identities, Merges, Provenance
from litsift.types import Kind

__all__ = ["BATCH", "RecordWriter", "merge_fields"]

BATCH = 200
#: records after which the writer's identity index starts afresh: what it holds grows with
#: what the import wrote, which is committed and in the store's key tables by then, so the
#: next batches find it there (a 200 MB BibTeX would otherwise hold 120K papers' keys)
INDEX_RECORDS = 20_000
_MAX_NOTE_CHARS = 20_000


def merge_authors(stored: list[str], other: list[str]) -> list[str]:
    """The author list of a merged paper: ``stored`` unless it is empty (then ``other``) or
    cut short (its people, by :func:`~litsift.sources.identity.person_keys.person_key`, are the
    first of
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


class RecordWriter:
    """Writes the records of one import run into ``store`` (one thread)."""

    def __init__(
        self,
        store: Store,
        kind: Kind = Kind.PAPER,
        fetched_at: str | None = None,
        keep_untitled: bool = False,
    ):
        """``keep_untitled``: a paper with an abstract and a DOI (or another id) but no title
        and no stored paper to join is kept under :func:`~litsift.sources.base.untitled_label`
        (a review screens it) instead of being a bad entry."""
        self.store, self.kind = store, kind
        self.keep_untitled = keep_untitled
        self.rows, self.ids, self.provenance = Merges(store), Identities(store), Provenance(store)
        self.biblios = Biblios(store)
        self.datasets = Datasets(store)
        self.names: DatasetNames | None = None  # datasets by name key, once one is written
        self.fetched_at = fetched_at or now_iso()
        self.counts = IngestReport(kind=kind)
        self.index = StoreIdentityIndex(store, kind)
        self._keys_current = False
        self._indexed = 0  # records written since the identity index was made
        self._pending: list[tuple[str, str, SourceRecord | BadItem]] = []
        self.edges = CitationWriter(store)

    # ------------------------------------------------------------------ public

    def add(self, fmt: str, file: str, item: SourceRecord | BadItem | Notice) -> None:
        """Queue one record (or bad item) read from ``file`` in format ``fmt``; a
        :class:`~litsift.sources.base.Notice` goes straight to the report (a warning, the
        file's layout) and counts as no entry."""
        file = storable_path(file)
        if item.location != (location := storable_path(item.location)):  # a PDF's file name
            item = dataclasses.replace(item, location=location)
        if isinstance(item, Notice):
            if item.layout:
                self.counts.layouts[file] = item.layout
            if item.message:
                self.counts.warnings.append(Problem(file, item.location, item.message))
            return
        if isinstance(item, SourceRecord):
            dirty = scrub_controls(item)
            if dirty:  # a NUL in a title: the record is kept without it
                self.counts.warnings.append(
                    Problem(
                        file, item.location, f"control characters removed from {', '.join(dirty)}"
                    )
                )
        self._pending.append((fmt, file, item))
        if len(self._pending) >= BATCH:
            self.flush()

    def add_all(
        self, fmt: str, file: str, items: Iterable[SourceRecord | BadItem | Notice]
    ) -> None:
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
        if not self._keys_current and self.kind is Kind.PAPER:
            self._catch_up_keys()  # before taking the batch: a fault here keeps it queued
        pending, self._pending = self._pending, []
        committed, self.counts = self.counts, IngestReport(kind=self.kind)
        try:
            self._flush(pending)
        except BaseException:
            self.counts = committed
            raise
        committed.fold(self.counts)
        self.counts = committed
        self._indexed += len(pending)
        if self._indexed >= INDEX_RECORDS:  # see INDEX_RECORDS
            self.index, self._indexed = StoreIdentityIndex(self.store, self.kind), 0

    def _catch_up_keys(self) -> None:
        """Derive the identity keys of the papers changed since the last import, a committed
        chunk at a time (a store from before the key tables fills here once; an interrupted
        fill resumes at its last chunk)."""
        while True:
            with self.store.transaction():
                if not self.index.sync(limit=SYNC_CHUNK):
                    break
        self._keys_current = True

    def _flush(self, pending: list[tuple[str, str, SourceRecord | BadItem]]) -> None:
        with self.store.transaction():
            revision = self.rows.current_revision()
            if self.kind is Kind.PAPER:  # what another writer changed since (usually nothing)
                self.index.sync()
            self.index.prefetch(
                [
                    (clean_text(item.title), item.authors, item.year, item.ids, item.family_names)
                    for _, _, item in pending
                    if isinstance(item, SourceRecord) and item.kind is not Kind.DATASET
                ]
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
            self.rows.set_revision(revision)

    # ----------------------------------------------------------------- writing

    def _write(self, fmt: str, file: str, rec: SourceRecord, revision: int) -> int:
        if rec.kind is Kind.DATASET:
            return self._write_dataset(fmt, file, rec, revision)
        title = clean_text(rec.title)
        found = self.index.resolve(
            title, rec.authors, rec.year, rec.ids, rec.family_names, locator=rec.locator
        )
        match = found.match
        if not title:  # an abstract-only record (S2AG ``abstracts``) joins its stored paper
            if match is None or match.reason == "title":
                title = untitled_label(rec.ids, rec.abstract) if self.keep_untitled else ""
                if not title:
                    raise InvalidRecord(
                        "no title" + (" and no stored paper with its ids" if rec.ids else "")
                    )
                match = None
            else:
                title = self.index.entries[match.doc_id].key and self._stored_title(match.doc_id)
        doc_id = match.doc_id if match else self._new_id(rec, title)
        old = self.rows.paper_row(doc_id)
        if old is None and match is not None:  # id known only from record_ids of a deleted row
            doc_id, match = self._new_id(rec, title), None
            old = self.rows.paper_row(doc_id)
        values = normalize(Kind.PAPER, self._merged(doc_id, old, rec, title))
        new_hash = content_hash(values)
        seen_here = self.provenance.doc_at(self.kind, fmt, file, rec.location)
        if old is None:
            self.counts.added += 1
        elif seen_here == doc_id:
            if old[1] == new_hash:
                self.counts.unchanged += 1
            else:
                self.counts.updated += 1
        else:
            self.counts.merged += 1
            self.counts.merges.append(
                (f"{file}:{rec.location}", doc_id, match.reason if match else "id")
            )
        if old is None or old[1] != new_hash:
            revision += 1
            self.rows.upsert(Kind.PAPER, values, new_hash, revision)
        self.counts.conflicts.extend(
            (f"{file}:{rec.location}", c.doc_id, f"{c.scheme}:{c.value}", c.score)
            for c in found.conflicts
        )
        self._write_side_tables(fmt, file, rec, doc_id)
        self.edges.write(fmt, rec, doc_id, values[1], identities.json_list(values[3]))
        # the index learns what is stored (as the key tables derive it), not how
        # this source spelled it, so a re-import matches as this import did
        authors = identities.json_list(values[3])
        self.index.add(
            doc_id, values[1], authors, values[4], self._ids_of(doc_id), locator=rec.locator
        )
        return revision

    def _stored_title(self, doc_id: str) -> str:
        title = self.rows.paper_title(doc_id)
        if title is None:
            raise InvalidRecord("no title")
        return title

    def _ids_of(self, doc_id: str) -> dict[str, str]:
        url, stored = self.ids.ids_of(self.kind, doc_id)
        ids = ids_in_text(url)
        ids.update(stored)
        return ids

    def _new_id(self, rec: SourceRecord, title: str) -> str:
        best = preferred(rec.ids)
        if best:
            scheme, value = best.split(":", 1)
            owner = self.index.by_id.get((scheme, value))
            taken = owner is not None and self.rows.paper_exists(owner)
            if not taken:
                return best  # else a paper of another title holds it (a conflict): a key id
        return work_key(title, rec.authors, rec.year, rec.family_names, rec.locator)

    @staticmethod
    def _merged(
        doc_id: str, old: tuple[dict[str, Any], str] | None, rec: SourceRecord, title: str
    ) -> dict[str, Any]:
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
        return merge_fields(old[0], new)

    def _write_side_tables(self, fmt: str, file: str, rec: SourceRecord, doc_id: str) -> None:
        self.ids.add_ids(self.kind, doc_id, rec.ids)
        details = Biblio.of(rec.biblio, [*rec.name_parts, *rec.editor_parts], rec.editors)
        if not details.empty:  # fills what the stored paper lacks, never replaces a fact
            self.biblios.merge(doc_id, details)
        self.provenance.record_provenance(
            self.kind, doc_id, fmt, file, rec.location, self.fetched_at
        )
        self.provenance.add_attachments(
            self.kind, doc_id, [storable_path(str(p)) for p in rec.attachments]
        )
        tags = [" ".join(t.split()) for t in rec.tags if t and t.strip()]
        notes = [n.strip() for n in rec.notes if n and n.strip()]
        if tags or notes:
            self.rows.merge_note(self.kind, doc_id, tags, notes, _MAX_NOTE_CHARS)
        if rec.sections and self.kind is Kind.PAPER:
            self._write_passages(doc_id, rec.sections, rec.section_pages, fmt)
        names = [" ".join(path.split())[:100] for path in rec.collections]
        self.rows.add_to_collections(self.kind, doc_id, [n for n in names if n], self.fetched_at)

    def _write_passages(
        self, doc_id: str, sections: list[tuple[str, str]], pages: list[int], fmt: str
    ) -> None:
        """Replace the paper's full-text passages with those of ``sections`` (schema v5)."""
        from litsift.text.passages import chunk_sections_paged

        chunks = chunk_sections_paged(sections, pages)
        if chunks:
            passages = [(head, page, text) for head, text, page in chunks]
            self.rows.replace_passages(doc_id, passages, fmt)

    def _write_dataset(self, fmt: str, file: str, rec: SourceRecord, revision: int) -> int:
        """One row per dataset (:mod:`litsift.store.dataset_names`): a dataset whose id is
        not stored joins the stored one of the same name key, unless another paper
        introduced that one (kept apart: a conflict) or it came from this same file."""
        if not rec.dataset:
            raise InvalidRecord("no dataset fields")
        values = normalize(Kind.DATASET, rec.dataset)
        if self.names is None:
            self.names = DatasetNames.of(self.datasets.names())
        names, new = self.names, fields_of(values)
        where, by_name = f"{file}:{rec.location}", False
        stored = self.datasets.row(values[0])
        if stored is None:
            match = names.find(values[0], new["intro_paper_title"], file)
            if match.conflict:
                self.counts.conflicts.append((where, match.conflict, f"name:{values[0]}", 0.0))
            stored = self.datasets.row(match.doc_id) if match.doc_id else None
            by_name = stored is not None
        if stored is None:
            self.counts.added += 1
            names.add(values[0], new["intro_paper_title"], file)
        else:
            out = merge_dataset(stored[0], new, update=not by_name)
            values = values_of(out)
            names.add(out["id"], out["intro_paper_title"], None)
            seen_here = self.provenance.doc_at(Kind.DATASET, fmt, file, rec.location)
            if by_name and seen_here != out["id"]:
                self.counts.merged += 1
                self.counts.merges.append((where, out["id"], "name"))
            elif stored[1] == content_hash(values):
                self.counts.unchanged += 1
            else:
                self.counts.updated += 1
        new_hash = content_hash(values)
        if stored is None or stored[1] != new_hash:
            revision += 1
            self.rows.upsert(Kind.DATASET, values, new_hash, revision)
        self.provenance.record_provenance(
            Kind.DATASET, values[0], fmt, file, rec.location, self.fetched_at
        )
        return revision
