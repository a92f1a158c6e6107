"""Identity matching against the store's indexed identity keys (issue 32).

:class:`StoreIdentityIndex` answers as
:meth:`litsift.sources.identity.IdentityIndex.from_connection`
does while loading, per batch of incoming records, only the stored papers they may be
(:mod:`litsift.store.identities`), so an import's memory and rows read follow its records'
blocks, not the store's size.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from rapidfuzz import fuzz, process

from litsift.sources.identity import (
    SHORT_TITLE_WORDS,
    TITLE_MIN_RATIO,
    IdentityIndex,
    Incoming,
    _Entry,
    first_family,
    title_key,
)
from litsift.sources.ids import ids_in_text
from litsift.store import identities
from litsift.types import Kind

__all__ = ["SYNC_CHUNK", "StoreIdentityIndex"]

#: papers whose keys one committed transaction of :meth:`StoreIdentityIndex.sync` derives
SYNC_CHUNK = 20_000


class StoreIdentityIndex(IdentityIndex):
    """An :class:`IdentityIndex` that holds only the stored records a batch of incoming ones
    may be (issue 32): before matching a batch, :meth:`prefetch` looks up, in the indexed
    identity keys of the store (:mod:`litsift.store.identities`), the papers sharing an
    identifier, the exact title key, or a first-author family + year block (within one year,
    or unknown) with any of them, and adds those (in rowid order, as
    :meth:`IdentityIndex.from_connection` would have). What an import writes is added with
    :meth:`add` as before, so duplicates within one import still merge. Memory and rows read
    per record depend on the record's blocks, not on the store's size; a record without a
    first author is still compared with every stored title (the keys of every paper are then
    listed once, from the key table, and compared as before).

    Answers as :meth:`IdentityIndex.from_connection` does, with one difference in the order
    of ties: a stored paper loaded for a later batch ranks after what earlier batches loaded.
    """

    def __init__(self, conn: sqlite3.Connection, kind: Kind) -> None:
        super().__init__()
        self.conn, self.kind = conn, kind
        #: every stored title key and its doc, rowid order (loaded for a record without a
        #: first author only)
        self._store_docs: list[str] | None = None
        self._store_keys: list[str] = []
        #: the first-author blocks loaded so far: (family, year; None: unknown; "*": every
        #: year) -> the title-key length window loaded
        self._blocks: dict[tuple[str, int | str | None], tuple[int, int]] = {}

    def sync(self, limit: int | None = None) -> int:
        """Derive the keys of the papers changed since the key tables were last current (at
        most ``limit`` of them; all when None) and store them, in the caller's transaction;
        returns how many were derived."""
        done = 0
        while limit is None or done < limit:
            size = SYNC_CHUNK if limit is None else min(SYNC_CHUNK, limit - done)
            rows = identities.papers_since(self.conn, identities.keys_revision(self.conn), size)
            if not rows:
                break
            keys = []
            url_ids = []
            for doc_id, title, authors, year, url, _ in rows:
                keys.append(  # title_len is the store's length() of the key
                    (doc_id, title_key(title), first_family([str(a) for a in authors]), year)
                )
                url_ids += [(doc_id, s, v) for s, v in ids_in_text(url).items()]
            identities.put_keys(self.conn, keys, url_ids, rows[-1][5])
            done += len(rows)
        return done

    def prefetch(self, records: Sequence[Incoming]) -> None:
        """Load the stored records any of ``records`` may be (see the class docstring): one
        query per key kind (identifiers, title keys, family + year blocks) and 450-900 keys."""
        pairs = sorted({(s, v) for rec in records for s, v in rec[3].items()})
        if self.kind is not Kind.PAPER:
            docs = [d for d in identities.docs_with_ids(self.conn, self.kind, pairs)]
            for doc_id, ids in sorted(identities.ids_of_docs(self.conn, self.kind, docs).items()):
                for scheme, value in ids.items():
                    self.by_id.setdefault((scheme, value), doc_id)
            return
        titles: set[str] = set()
        #: (family, year; None: unknown; "*": every year) -> title-key length window wanted
        wanted: dict[tuple[str, int | str | None], tuple[int, int]] = {}

        def want(block: tuple[str, int | str | None], lo: int, hi: int) -> None:
            have = wanted.get(block)
            wanted[block] = (min(lo, have[0]), max(hi, have[1])) if have else (lo, hi)

        need_all = False
        for title, authors, year, _, family_names in records:
            key = title_key(title)
            if not key:
                continue
            titles.add(key)
            if len(key.split()) < SHORT_TITLE_WORDS:
                continue
            family = first_family(authors, family_names)
            lo, hi = _length_window(len(key))
            if not family:
                need_all = True
            elif year is None:
                want((family, "*"), lo, hi)
            else:
                for y in (year - 1, year, year + 1, None):
                    want((family, y), lo, hi)
        blocks: list[tuple[str, int, int, int]] = []
        unknown_year: list[tuple[str, int, int]] = []
        every_year: list[tuple[str, int, int]] = []
        for block, (lo, hi) in sorted(wanted.items(), key=str):
            have = self._blocks.get(block) or self._blocks.get((block[0], "*"))
            if have and have[0] <= lo and hi <= have[1]:
                continue  # loaded for an earlier batch (what this import wrote is added)
            if have:
                lo, hi = min(lo, have[0]), max(hi, have[1])
            self._blocks[block] = (lo, hi)
            name, when = block
            if when == "*":
                every_year.append((name, lo, hi))
            elif when is None:
                unknown_year.append((name, lo, hi))
            else:
                blocks.append((name, int(when), lo, hi))
        if need_all and self._store_docs is None:
            pairs_all = identities.all_title_keys(self.conn)
            self._store_docs = [d for d, _ in pairs_all]
            self._store_keys = [k for _, k in pairs_all]
        id_docs = identities.docs_with_ids(self.conn, Kind.PAPER, pairs)
        rows = identities.keys_of_docs(self.conn, sorted(id_docs - self.entries.keys()))
        rows += identities.keys_with_titles(self.conn, sorted(titles))
        rows += identities.keys_in_blocks(self.conn, blocks, unknown_year, every_year)
        self._load(rows)

    def _candidates(
        self, key: str, family: str, year: int | None, short: bool
    ) -> Iterable[tuple[str, float]]:
        if family or short or self._store_docs is None:
            yield from super()._candidates(key, family, year, short)
            return
        yield from ((d, 100.0) for d in list(self.by_key.get(key, ())))
        # no first author: every stored title (the list), then what this import added or
        # changed (the loaded entries); a listed doc whose key changed since is left to those
        docs, keys = self._store_docs, self._store_keys
        for _, score, i in process.extract(
            key, keys, scorer=fuzz.ratio, score_cutoff=TITLE_MIN_RATIO, limit=5
        ):
            if keys[i] == key:
                continue
            if docs[i] not in self.entries:
                self._load(identities.keys_of_docs(self.conn, [docs[i]]))
            entry = self.entries.get(docs[i])
            if entry is not None and entry.key == keys[i]:
                yield docs[i], score
        yield from super()._candidates(key, family, year, short)

    def _load(self, rows: Iterable[identities.KeyRow]) -> None:
        fresh = {row[1]: row for row in rows if row[1] not in self.entries}
        if not fresh:
            return
        docs = list(fresh)
        stored = identities.ids_of_docs(self.conn, Kind.PAPER, docs)
        from_url = identities.url_ids_of_docs(self.conn, docs)
        for rowid, doc_id, key, family, year in sorted(fresh.values()):
            ids = {**from_url.get(doc_id, {}), **stored.get(doc_id, {})}
            for scheme, value in ids.items():
                self.by_id.setdefault((scheme, value), doc_id)
            if key:
                self.by_key.setdefault(key, []).append(doc_id)
                self._keys = None
            self.entries[doc_id] = _Entry(key, family, year, ids)
            if family:
                self.by_family.setdefault(family, {}).setdefault(year, []).append((rowid, doc_id))

    def add(
        self,
        doc_id: str,
        title: str,
        authors: Sequence[str],
        year: int | None,
        ids: Mapping[str, str],
        family_names: Sequence[str] = (),
    ) -> None:
        """Remember a record this import wrote (ranked after every stored one)."""
        if self._order < _IMPORT_ORDER:
            self._order = _IMPORT_ORDER
        super().add(doc_id, title, authors, year, ids, family_names)


_IMPORT_ORDER = 1 << 62


def _length_window(length: int) -> tuple[int, int]:
    """The title-key lengths (characters) another key may have to reach
    :data:`TITLE_MIN_RATIO` with a key of ``length``: ``fuzz.ratio`` is
    ``100 * (1 - indel / (la + lb))`` and the indel distance is at least ``|la - lb|``, so
    ``lb`` lies within ``la * r / (2 - r) .. la * (2 - r) / r`` (``r`` = ratio / 100); one
    character of slack each side."""
    r = TITLE_MIN_RATIO / 100
    return int(length * r / (2 - r)) - 1, int(length * (2 - r) / r) + 2
