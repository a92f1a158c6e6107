"""Identity matching against the store's indexed identity keys (issue 32).

:class:`StoreIdentityIndex` answers as
:meth:`litsift.sources.identity.matcher.IdentityIndex.from_store`
does while loading, per batch of incoming records, only the stored papers they may be
(:mod:`litsift.store.identities`), so an import's memory and rows read follow its records'
blocks, not the store's size.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from litsift.sources.identity.ids import ids_in_text
from litsift.sources.identity.locators import locator_of_id
from litsift.sources.identity.matcher import (
    SHORT_TITLE_WORDS,
    TITLE_MIN_RATIO,
    IdentityIndex,
    Incoming,
    _Entry,
    title_key,
    title_tokens,
)
from litsift.sources.identity.person_keys import first_family
from litsift.store import identities
from litsift.store.repositories import Identities
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.store.repo import Store

__all__ = ["BLOCK_TOKENS", "BLOCK_WORDS", "SYNC_CHUNK", "StoreIdentityIndex", "title_blocks"]

#: papers whose keys one committed transaction of :meth:`StoreIdentityIndex.sync` derives
SYNC_CHUNK = 20_000
#: how many of a title's rarest words (in the store) a record's fuzzy-title candidates share
#: one of: a near-identical title (``fuzz.ratio`` >= 93) keeps most of its words, so a stored
#: version is missed only when all of these are spelt otherwise in it
BLOCK_TOKENS = 3
#: how many of a title's words (the first in a fixed order: :func:`title_blocks`) its title
#: blocks are drawn from
BLOCK_WORDS = 5


_U64 = 1 << 64
#: added to a 2-word (1-word) block's sum so that it is not a 3-word block's (odd constants)
_PAIR = 0x9E3779B97F4A7C15
_SINGLE = 0xC2B2AE3D27D4EB4F


@lru_cache(maxsize=1 << 18)
def _word_rank(word: str) -> int:
    """A word's place in the fixed order blocks draw words in: its 64-bit BLAKE2b digest, an
    unsigned integer."""
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")


def _signed(value: int) -> int:
    """``value`` modulo 2**64 as a signed 64-bit integer (an SQLite INTEGER)."""
    value %= _U64
    return value - _U64 if value >= 1 << 63 else value


def title_blocks(key: str) -> list[int]:
    """The title blocks of a :func:`~litsift.sources.identity.matcher.title_key` form, sorted signed
    64-bit ids, from its words (:func:`~litsift.sources.identity.matcher.title_tokens`): one per
    3-word subset of its :data:`BLOCK_WORDS` words of smallest :func:`_word_rank` (a BLAKE2b
    digest: a fixed order, not the store's counts, which drift as it grows); for a title of at
    most 4 words one per 2-word subset too, and for one of at most 3 words one per word; at
    most 10 blocks (``[]`` for a title without words). A block's id is the sum of its words'
    ranks modulo 2**64 (plus a constant for 2 and 1 words): two word sets share an id by
    chance with odds about 2**-64.

    Why a near-identical title shares a block: let ``A`` and ``B`` be the word sets of two
    titles, ``S`` their common words, ``a = |A - S|`` and ``b = |B - S|``, and ``m`` =
    :data:`BLOCK_WORDS`. Each of the ``min(|S|, m - max(a, b))`` smallest-ranked words of ``S``
    has fewer than ``m - max(a, b)`` smaller words in ``S`` and at most ``a`` (``b``) smaller
    ones outside it, so it is among the ``m`` drawn from ``A`` and from ``B``. Hence the two
    share a 3-word block when ``|S| >= 3`` and ``max(a, b) <= m - 3`` (two substituted,
    added or dropped words on either side), and a 2-word block when both have at most 4 words
    and ``|S| >= 2``, and a 1-word block when both have at most 3 words and ``|S| >= 1``.
    A 3-word block's postings are the titles holding all three words among their first
    ``m``, far fewer than any one word's: for the 10K records without authors that
    ``benchmarks/scale.py`` imports, 3.5 postings a record in its 100K store and 16.6 in its
    1M store (where each real title's halves recur in ~50 synthetic titles), where 867 and
    8,751 papers (means) hold one of their 3 rarest words. A 1-word block's postings are
    the titles of at most 3 words holding that word (some 5 % of titles).
    """
    words = title_tokens(key)
    ranks = sorted(_word_rank(w) for w in words)[:BLOCK_WORDS]
    blocks = {_signed(a + b + c) for a, b, c in combinations(ranks, 3)}
    if len(words) <= 4:
        blocks.update(_signed(a + b + _PAIR) for a, b in combinations(ranks, 2))
    if len(words) <= 3:
        blocks.update(_signed(a + _SINGLE) for a in ranks)
    return sorted(blocks)


class StoreIdentityIndex(IdentityIndex):
    """An :class:`IdentityIndex` that holds only the stored records a batch of incoming ones
    may be (issue 32): before matching a batch, :meth:`prefetch` looks up, in the indexed
    identity keys of the store (:mod:`litsift.store.identities`), the papers sharing an
    identifier or the exact title key with any of them, and, for the fuzzy title rule, the
    papers the rule allows (a year within one or unknown, a title length that can reach the
    ratio) that are likely near-identical:

    * a record with a first author: that author's papers whose title holds one of the
      record's :data:`BLOCK_TOKENS` rarest title words
      (:func:`~litsift.sources.identity.matcher.title_tokens`, rarest by the store's counts;
      postings
      ``paper_family_tokens``), not every paper holding a common word in its year window;
    * a record without one: the papers sharing one of its :func:`title_blocks` (three of its
      words in a fixed order; postings ``paper_title_blocks``), not every paper holding one
      of its rarest words, whose postings grow with the store.

    Rows read and memory thus follow the records' words and authors, not the store's size.
    What an import writes is added with :meth:`add` as before, so duplicates within one
    import still merge.

    Answers as :meth:`IdentityIndex.from_store` does, except for the stored versions
    these keys miss (a first author's near-identical title spelling each of the rarest words
    otherwise; a title without a first author differing in more than two of its first
    :data:`BLOCK_WORDS` words: :func:`title_blocks`), and for one difference in the order of
    ties: a stored paper loaded for a later batch ranks after what earlier batches loaded.
    """

    def __init__(self, store: Store, kind: Kind) -> None:
        super().__init__()
        self.stored, self.kind = Identities(store), kind
        #: doc -> rank among loaded (rowid) and added (after every stored one) docs
        self._rank: dict[str, int] = {}
        #: title word -> stored papers holding it (0: none), as prefetch first read it
        self._counts: dict[str, int] = {}
        #: the ``(token, family, year, lo, hi)`` postings looked up so far
        self._asked: set[tuple[str, str, int | None, int, int]] = set()
        #: title block -> the docs holding it (:func:`title_blocks`) that its looked-up
        #: postings gave or that this import added: records without a first author are
        #: compared with the docs sharing one of their blocks
        self.by_block: dict[int, set[str]] = {}
        #: the ``(block, year, lo, hi)`` postings looked up so far
        self._asked_blocks: set[tuple[int, int | None, int, int]] = set()

    def sync(self, limit: int | None = None) -> int:
        """Derive the keys of the papers changed since the key tables were last current (at
        most ``limit`` of them; all when None) and store them, in the caller's transaction;
        returns how many were derived."""
        done = 0
        while limit is None or done < limit:
            size = SYNC_CHUNK if limit is None else min(SYNC_CHUNK, limit - done)
            rows = self.stored.papers_since(self.stored.keys_revision(), size)
            if not rows:
                break
            keys = []
            url_ids = []
            for doc_id, title, authors, year, url, _ in rows:
                keys.append(  # title_len is the store's length() of the key
                    (doc_id, title_key(title), first_family([str(a) for a in authors]), year)
                )
                url_ids += [(doc_id, s, v) for s, v in ids_in_text(url).items()]
            self.stored.put_keys(keys, url_ids, rows[-1][5], title_tokens, title_blocks)
            done += len(rows)
        return done

    def prefetch(self, records: Sequence[Incoming]) -> None:
        """Load the stored records any of ``records`` may be (see the class docstring): one
        query per key kind (identifiers, title keys, title tokens) and 450-900 keys, and one
        for the counts of the records' title words."""
        pairs = sorted({(s, v) for rec in records for s, v in rec[3].items()})
        if self.kind is not Kind.PAPER:
            docs = [d for d in self.stored.docs_with_ids(self.kind, pairs)]
            for doc_id, ids in sorted(self.stored.ids_of_docs(self.kind, docs).items()):
                for scheme, value in ids.items():
                    self.by_id.setdefault((scheme, value), doc_id)
            return
        titles: set[str] = set()
        fuzzy: list[tuple[str, str, int | None]] = []
        blocks: set[tuple[int, int | None, int, int]] = set()
        for title, authors, year, _, family_names in records:
            key = title_key(title)
            if not key:
                continue
            titles.add(key)
            if len(key.split()) < SHORT_TITLE_WORDS:
                continue
            family = first_family(authors, family_names)
            if family:  # that first author's postings of its rarest words
                fuzzy.append((key, family, year))
            else:  # no first author: the papers sharing a title block
                lo, hi = _length_window(len(key))
                blocks.update((b, year, lo, hi) for b in title_blocks(key))
        blocks -= self._asked_blocks
        self._asked_blocks |= blocks
        words = sorted({t for key, _, _ in fuzzy for t in title_tokens(key)} - self._counts.keys())
        self._counts.update(dict.fromkeys(words, 0))
        self._counts.update(self.stored.token_counts(words))
        wanted: set[tuple[str, str, int | None, int, int]] = set()
        for key, family, year in fuzzy:
            lo, hi = _length_window(len(key))
            wanted.update((t, family, year, lo, hi) for t in self._rarest(key))
        wanted -= self._asked  # looked up for an earlier batch (what this import wrote is added)
        self._asked |= wanted
        id_docs = self.stored.docs_with_ids(Kind.PAPER, pairs)
        rows = self.stored.keys_of_docs(sorted(id_docs - self.entries.keys()))
        rows += self.stored.keys_with_titles(sorted(titles))
        rows += self.stored.keys_sharing_tokens(
            sorted(wanted, key=lambda w: (w[0], w[1], w[2] or 0, w[3], w[4]))
        )
        held = self.stored.keys_sharing_blocks(
            sorted(blocks, key=lambda w: (w[0], w[1] or 0, w[2], w[3]))
        )
        self._load(rows + [row[1:] for row in held])
        for block, _, doc_id, *_ in held:  # what a record without a first author is shown
            self.by_block.setdefault(block, set()).add(doc_id)

    def _rarest(self, key: str) -> list[str]:
        """The :data:`BLOCK_TOKENS` words of title key ``key`` that the fewest stored papers
        hold (and at least one), ties by the word."""
        rare = sorted((n, t) for t in title_tokens(key) if (n := self._counts.get(t, 0)))
        return [t for _, t in rare[:BLOCK_TOKENS]]

    def _candidates(
        self, key: str, family: str, year: int | None, short: bool
    ) -> Iterable[tuple[str, float]]:
        if family or short:
            yield from super()._candidates(key, family, year, short)
            return
        yield from ((d, 100.0) for d in list(self.by_key.get(key, ())))
        # no first author: the loaded and added titles sharing a title block with it (what
        # prefetch looked up, and what this import added), best first as process.extract
        # ranks them
        pool = {d for b in title_blocks(key) for d in self.by_block.get(b, ())}
        scored = []
        for doc_id in pool:
            other = self.entries[doc_id].key
            if other and other != key:
                score = fuzz.ratio(key, other)
                if score >= TITLE_MIN_RATIO:
                    scored.append((-score, self._rank[doc_id], doc_id))
        for score, _, doc_id in sorted(scored):
            yield doc_id, -score

    def _load(self, rows: Iterable[identities.KeyRow]) -> None:
        fresh = {row[1]: row for row in rows if row[1] not in self.entries}
        if not fresh:
            return
        docs = list(fresh)
        stored = self.stored.ids_of_docs(Kind.PAPER, docs)
        from_url = self.stored.url_ids_of_docs(docs)
        for rowid, doc_id, key, family, year in sorted(fresh.values()):
            ids = {**from_url.get(doc_id, {}), **stored.get(doc_id, {})}
            for scheme, value in ids.items():
                self.by_id.setdefault((scheme, value), doc_id)
            if key:
                self.by_key.setdefault(key, []).append(doc_id)
                self._keys = None
            self.entries[doc_id] = _Entry(key, family, year, ids, locator_of_id(doc_id))
            self._rank[doc_id] = rowid
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
        locator: Mapping[str, str] | None = None,
    ) -> None:
        """Remember a record this import wrote (ranked after every stored one)."""
        if self._order < _IMPORT_ORDER:
            self._order = _IMPORT_ORDER
        super().add(doc_id, title, authors, year, ids, family_names, locator)
        self._rank.setdefault(doc_id, _IMPORT_ORDER + len(self._rank))
        for block in title_blocks(self.entries[doc_id].key):
            self.by_block.setdefault(block, set()).add(doc_id)


_IMPORT_ORDER = 1 << 62


def _length_window(length: int) -> tuple[int, int]:
    """The title-key lengths (characters) another key may have to reach
    :data:`TITLE_MIN_RATIO` with a key of ``length``: ``fuzz.ratio`` is
    ``100 * (1 - indel / (la + lb))`` and the indel distance is at least ``|la - lb|``, so
    ``lb`` lies within ``la * r / (2 - r) .. la * (2 - r) / r`` (``r`` = ratio / 100); one
    character of slack each side."""
    r = TITLE_MIN_RATIO / 100
    return int(length * r / (2 - r)) - 1, int(length * (2 - r) / r) + 2
