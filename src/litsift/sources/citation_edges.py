"""The citation edges an import brings: what :class:`~litsift.sources.writer.RecordWriter`
hands over for each paper it writes (:mod:`litsift.store.citations` stores them).

A record's ``references`` become edges ``paper -> key`` and its ``cited_by`` edges
``key -> paper``. Then every edge that names the paper under another key is rewritten to its
id: keys of its identifiers (``record_ids``), and its title key (:func:`title_ref_key`), which
is how a reference that carried no identifier (most GROBID ``biblStruct``) names a work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from litsift.sources.base import SourceRecord
from litsift.sources.identity.matcher import title_ref_key
from litsift.store.repositories import Citations, Identities

if TYPE_CHECKING:
    from litsift.store.repo import Store

__all__ = ["CitationWriter"]


class CitationWriter:
    """Writes the edges of one import run, in the writer's transaction (one thread)."""

    def __init__(self, store: Store) -> None:
        self.citations, self.identities = Citations(store), Identities(store)
        #: title key -> stored paper id, read when a reference without identifiers first comes
        self._title_keys: dict[str, str] | None = None

    def write(
        self,
        fmt: str,
        rec: SourceRecord,
        doc_id: str,
        title: str,
        authors: Sequence[str],
    ) -> None:
        """Store ``rec``'s edges (source ``fmt``) now that it is stored as ``doc_id`` with
        ``title``/``authors`` (the merged row), and resolve the edges that name it."""
        edges = [(doc_id, k) for k in rec.references] + [(k, doc_id) for k in rec.cited_by]
        self.citations.add_edges(edges, fmt)
        if rec.reference_labels:
            self.citations.add_labels(rec.reference_labels)
        self.citations.resolve_record(doc_id)
        mine = title_ref_key(title, authors)
        self.citations.resolve_to([mine], doc_id)
        untitled = [k for k in (*rec.references, *rec.cited_by) if k.startswith("title:")]
        if not untitled and self._title_keys is None:
            return
        keys = self._stored_title_keys()
        keys.setdefault(mine, doc_id)
        for key in untitled:
            if keys.get(key, doc_id) != doc_id:
                self.citations.resolve_to([key], keys[key])

    def _stored_title_keys(self) -> dict[str, str]:
        if self._title_keys is None:
            self._title_keys = {}
            for doc_id, title, names, _year, _url in self.identities.identity_rows():
                self._title_keys.setdefault(title_ref_key(title, names), doc_id)
        return self._title_keys
