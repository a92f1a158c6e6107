"""The repositories code outside :mod:`litsift.store` is given over a store's connection.

Each class is bound to one store (``Citations(store)``) and runs the SQL functions of its
module (which take a connection, for the store's own transactions and migrations) under the
store's lock. The lock is re-entrant: calls inside
:meth:`~litsift.store.repo.Store.transaction` join that write transaction (writes need one);
calls outside it are each a statement of their own. Nothing here hands out the connection or
the lock: outside :mod:`litsift.store` nothing sees them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from litsift.store import (
    biblio,
    citations,
    dataset_names,
    identities,
    merges,
    provenance,
    refs_fetches,
    syncs,
)
from litsift.store.biblio import Biblio
from litsift.store.identities import BlockRow, ChangedRow, IdentityRow, KeyRow
from litsift.store.refs_fetches import Checkpoint, Direction
from litsift.store.review_merges import DecisionClash
from litsift.types import Kind, SyncSpec

if TYPE_CHECKING:
    import networkx as nx

    from litsift.store.repo import Store

__all__ = [
    "Biblios",
    "Checkpoints",
    "Citations",
    "Datasets",
    "Identities",
    "Merges",
    "Provenance",
    "SavedSyncs",
]


class _Bound:
    """A repository over ``store``: holds its connection and lock, never hands them out."""

    def __init__(self, store: Store) -> None:
        self._conn: sqlite3.Connection = store._conn
        self._lock: threading.RLock = store._lock


class Citations(_Bound):
    """The citation edges of one store (:mod:`litsift.store.citations`)."""

    def add_edges(self, edges: Iterable[tuple[str, str]], source: str) -> int:
        """:func:`~litsift.store.citations.add_edges`."""
        with self._lock:
            return citations.add_edges(self._conn, edges, source)

    def add_edges_resolved(
        self, edges: Sequence[tuple[str, str]], source: str
    ) -> tuple[int, int, int]:
        """:func:`~litsift.store.citations.add_edges_resolved`."""
        with self._lock:
            return citations.add_edges_resolved(self._conn, edges, source)

    def add_labels(self, labels: Mapping[str, str]) -> int:
        """:func:`~litsift.store.citations.add_labels`."""
        with self._lock:
            return citations.add_labels(self._conn, labels)

    def labels(self, keys: Collection[str]) -> dict[str, str]:
        """:func:`~litsift.store.citations.labels`."""
        with self._lock:
            return citations.labels(self._conn, keys)

    def resolve_record(self, doc_id: str) -> int:
        """:func:`~litsift.store.citations.resolve_record`."""
        with self._lock:
            return citations.resolve_record(self._conn, doc_id)

    def resolve_to(self, keys: Iterable[str], doc_id: str) -> int:
        """:func:`~litsift.store.citations.resolve_to`."""
        with self._lock:
            return citations.resolve_to(self._conn, keys, doc_id)

    def neighbours(self, doc_id: str) -> tuple[list[str], list[str]]:
        """``(references, cited_by)`` of ``doc_id`` (:func:`~litsift.store.citations.references`,
        :func:`~litsift.store.citations.cited_by`) under one hold of the lock."""
        with self._lock:
            return citations.references(self._conn, doc_id), citations.cited_by(self._conn, doc_id)

    def count(self) -> int:
        """:func:`~litsift.store.citations.count`."""
        with self._lock:
            return citations.count(self._conn)

    def graph(self, doc_ids: Collection[str] | None = None) -> nx.DiGraph:
        """:func:`~litsift.store.citations.graph`."""
        with self._lock:
            return citations.graph(self._conn, doc_ids)

    def links_between(self, docs: Sequence[str], others: Sequence[str]) -> list[tuple[str, str]]:
        """:func:`~litsift.store.citations.links_between`."""
        with self._lock:
            return citations.links_between(self._conn, docs, others)


class Identities(_Bound):
    """Stored records' identifiers and identity keys (:mod:`litsift.store.identities`)."""

    def ids_by_doc(self, kind: Kind) -> dict[str, dict[str, str]]:
        """:func:`~litsift.store.identities.ids_by_doc`."""
        with self._lock:
            return identities.ids_by_doc(self._conn, kind)

    def identity_rows(self) -> list[IdentityRow]:
        """:func:`~litsift.store.identities.identity_rows`."""
        with self._lock:
            return identities.identity_rows(self._conn)

    def ids_of(self, kind: Kind, doc_id: str) -> tuple[str | None, dict[str, str]]:
        """:func:`~litsift.store.identities.ids_of`."""
        with self._lock:
            return identities.ids_of(self._conn, kind, doc_id)

    def ids_of_docs(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """:func:`~litsift.store.identities.ids_of_docs`."""
        with self._lock:
            return identities.ids_of_docs(self._conn, kind, doc_ids)

    def add_ids(self, kind: Kind, doc_id: str, ids: Mapping[str, str]) -> None:
        """:func:`~litsift.store.identities.add_ids`."""
        with self._lock:
            identities.add_ids(self._conn, kind, doc_id, ids)

    def keys_revision(self) -> int:
        """:func:`~litsift.store.identities.keys_revision`."""
        with self._lock:
            return identities.keys_revision(self._conn)

    def papers_since(self, revision: int, limit: int) -> list[ChangedRow]:
        """:func:`~litsift.store.identities.papers_since`."""
        with self._lock:
            return identities.papers_since(self._conn, revision, limit)

    def put_keys(
        self,
        keys: Sequence[tuple[str, str, str, int | None]],
        url_ids: Sequence[tuple[str, str, str]],
        revision: int,
        tokens_of: Callable[[str], Iterable[str]],
        blocks_of: Callable[[str], Iterable[int]],
    ) -> None:
        """:func:`~litsift.store.identities.put_keys`."""
        with self._lock:
            identities.put_keys(self._conn, keys, url_ids, revision, tokens_of, blocks_of)

    def docs_with_ids(self, kind: Kind, pairs: Sequence[tuple[str, str]]) -> set[str]:
        """:func:`~litsift.store.identities.docs_with_ids`."""
        with self._lock:
            return identities.docs_with_ids(self._conn, kind, pairs)

    def keys_of_docs(self, doc_ids: Sequence[str]) -> list[KeyRow]:
        """:func:`~litsift.store.identities.keys_of_docs`."""
        with self._lock:
            return identities.keys_of_docs(self._conn, doc_ids)

    def keys_with_titles(self, title_keys: Sequence[str]) -> list[KeyRow]:
        """:func:`~litsift.store.identities.keys_with_titles`."""
        with self._lock:
            return identities.keys_with_titles(self._conn, title_keys)

    def token_counts(self, tokens: Sequence[str]) -> dict[str, int]:
        """:func:`~litsift.store.identities.token_counts`."""
        with self._lock:
            return identities.token_counts(self._conn, tokens)

    def keys_sharing_tokens(
        self, wanted: Sequence[tuple[str, str, int | None, int, int]]
    ) -> list[KeyRow]:
        """:func:`~litsift.store.identities.keys_sharing_tokens`."""
        with self._lock:
            return identities.keys_sharing_tokens(self._conn, wanted)

    def keys_sharing_blocks(
        self, wanted: Sequence[tuple[int, int | None, int, int]]
    ) -> list[BlockRow]:
        """:func:`~litsift.store.identities.keys_sharing_blocks`."""
        with self._lock:
            return identities.keys_sharing_blocks(self._conn, wanted)

    def urls_containing(self, needle: str, limit: int = 50) -> list[tuple[str, str]]:
        """:func:`~litsift.store.identities.urls_containing`."""
        with self._lock:
            return identities.urls_containing(self._conn, needle, limit)

    def url_ids_of_docs(self, doc_ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """:func:`~litsift.store.identities.url_ids_of_docs`."""
        with self._lock:
            return identities.url_ids_of_docs(self._conn, doc_ids)


class Merges(_Bound):
    """Writes of imported records and their side tables (:mod:`litsift.store.merges`)."""

    def current_revision(self) -> int:
        """:func:`~litsift.store.merges.current_revision`."""
        with self._lock:
            return merges.current_revision(self._conn)

    def set_revision(self, revision: int) -> None:
        """:func:`~litsift.store.merges.set_revision`."""
        with self._lock:
            merges.set_revision(self._conn, revision)

    def upsert(self, kind: Kind, values: tuple[Any, ...], digest: str, revision: int) -> None:
        """:func:`~litsift.store.merges.upsert`."""
        with self._lock:
            merges.upsert(self._conn, kind, values, digest, revision)

    def paper_row(self, doc_id: str) -> tuple[dict[str, Any], str] | None:
        """:func:`~litsift.store.merges.paper_row`."""
        with self._lock:
            return merges.paper_row(self._conn, doc_id)

    def paper_exists(self, doc_id: str) -> bool:
        """:func:`~litsift.store.merges.paper_exists`."""
        with self._lock:
            return merges.paper_exists(self._conn, doc_id)

    def paper_title(self, doc_id: str) -> str | None:
        """:func:`~litsift.store.merges.paper_title`."""
        with self._lock:
            return merges.paper_title(self._conn, doc_id)

    def content_hash_of(self, kind: Kind, doc_id: str) -> str | None:
        """:func:`~litsift.store.merges.content_hash_of`."""
        with self._lock:
            return merges.content_hash_of(self._conn, kind, doc_id)

    def update_paper(self, values: tuple[Any, ...], digest: str, revision: int) -> None:
        """:func:`~litsift.store.merges.update_paper`."""
        with self._lock:
            merges.update_paper(self._conn, values, digest, revision)

    def delete_paper(self, doc_id: str, kind: Kind = Kind.PAPER) -> None:
        """:func:`~litsift.store.merges.delete_paper`."""
        with self._lock:
            merges.delete_paper(self._conn, doc_id, kind)

    def merge_note(
        self, kind: Kind, doc_id: str, tags: Sequence[str], notes: Sequence[str], max_chars: int
    ) -> None:
        """:func:`~litsift.store.merges.merge_note`."""
        with self._lock:
            merges.merge_note(self._conn, kind, doc_id, tags, notes, max_chars)

    def add_to_collections(
        self, kind: Kind, doc_id: str, names: Sequence[str], created_at: str
    ) -> None:
        """:func:`~litsift.store.merges.add_to_collections`."""
        with self._lock:
            merges.add_to_collections(self._conn, kind, doc_id, names, created_at)

    def replace_passages(
        self, doc_id: str, passages: Sequence[tuple[str, int | None, str]], source: str
    ) -> None:
        """:func:`~litsift.store.merges.replace_passages`."""
        with self._lock:
            merges.replace_passages(self._conn, doc_id, passages, source)

    def move_record(self, keep: str, other: str, kind: Kind = Kind.PAPER) -> list[DecisionClash]:
        """:func:`~litsift.store.merges.move_record`."""
        with self._lock:
            return merges.move_record(self._conn, keep, other, kind)


class Biblios(_Bound):
    """Papers' bibliographic details (:mod:`litsift.store.biblio`)."""

    def of(self, doc_ids: Sequence[str]) -> dict[str, Biblio]:
        """:func:`~litsift.store.biblio.biblio_of`."""
        with self._lock:
            return biblio.biblio_of(self._conn, doc_ids)

    def merge(self, doc_id: str, details: Biblio) -> None:
        """:func:`~litsift.store.biblio.merge_biblio` (inside a write transaction)."""
        with self._lock:
            biblio.merge_biblio(self._conn, doc_id, details)


class Datasets(_Bound):
    """Stored datasets as an import merges them (:mod:`litsift.store.dataset_names`)."""

    def row(self, doc_id: str) -> tuple[dict[str, Any], str] | None:
        """:func:`~litsift.store.dataset_names.dataset_row`."""
        with self._lock:
            return dataset_names.dataset_row(self._conn, doc_id)

    def names(self) -> list[tuple[str, str]]:
        """:func:`~litsift.store.dataset_names.dataset_names`."""
        with self._lock:
            return dataset_names.dataset_names(self._conn)

    def files(self) -> dict[str, set[str]]:
        """:func:`~litsift.store.dataset_names.dataset_files`."""
        with self._lock:
            return dataset_names.dataset_files(self._conn)


class Provenance(_Bound):
    """Where stored records came from (:mod:`litsift.store.provenance`)."""

    def entries_of_file(self, kind: Kind, file: str) -> list[tuple[str, str]]:
        """:func:`~litsift.store.provenance.entries_of_file`."""
        with self._lock:
            return provenance.entries_of_file(self._conn, kind, file)

    def doc_at(self, kind: Kind, fmt: str, file: str, location: str) -> str | None:
        """:func:`~litsift.store.provenance.doc_at`."""
        with self._lock:
            return provenance.doc_at(self._conn, kind, fmt, file, location)

    def record_provenance(
        self, kind: Kind, doc_id: str, fmt: str, file: str, location: str, fetched_at: str
    ) -> None:
        """:func:`~litsift.store.provenance.record_provenance`."""
        with self._lock:
            provenance.record_provenance(self._conn, kind, doc_id, fmt, file, location, fetched_at)

    def add_attachments(self, kind: Kind, doc_id: str, paths: Iterable[str]) -> None:
        """:func:`~litsift.store.provenance.add_attachments`."""
        with self._lock:
            provenance.add_attachments(self._conn, kind, doc_id, paths)

    def synced_since(self, since: str) -> int:
        """:func:`~litsift.store.provenance.synced_since`."""
        with self._lock:
            return provenance.synced_since(self._conn, since)


class SavedSyncs(_Bound):
    """Saved syncs and the last look at what they brought in (:mod:`litsift.store.syncs`)."""

    def load(self) -> list[SyncSpec]:
        """:func:`~litsift.store.syncs.load_syncs`."""
        with self._lock:
            return syncs.load_syncs(self._conn)

    def save(self, spec: SyncSpec) -> None:
        """:func:`~litsift.store.syncs.save_sync`."""
        with self._lock:
            syncs.save_sync(self._conn, spec)

    def arrivals_seen_at(self) -> str:
        """:func:`~litsift.store.syncs.arrivals_seen_at`."""
        with self._lock:
            return syncs.arrivals_seen_at(self._conn)

    def mark_arrivals_seen(self, when: str) -> None:
        """:func:`~litsift.store.syncs.mark_arrivals_seen`."""
        with self._lock:
            syncs.mark_arrivals_seen(self._conn, when)


class Checkpoints(_Bound):
    """Checkpoints of ``litsift refs fetch`` walks (:mod:`litsift.store.refs_fetches`)."""

    def load(self, source: str, seed: str, direction: Direction) -> Checkpoint:
        """:func:`~litsift.store.refs_fetches.load_checkpoint`."""
        with self._lock:
            return refs_fetches.load_checkpoint(self._conn, source, seed, direction)

    def save(self, source: str, seed: str, direction: Direction, state: Checkpoint) -> None:
        """:func:`~litsift.store.refs_fetches.save_checkpoint`."""
        with self._lock:
            refs_fetches.save_checkpoint(self._conn, source, seed, direction, state)
