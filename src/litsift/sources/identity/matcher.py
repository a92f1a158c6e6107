"""Who is who: the matcher that decides whether an incoming record is a paper already stored.

The rule (issue 16; papis ``docmatcher`` does the same two steps; issue 27 added the checks):

1. **Same identifier** -- any normalised ``(scheme, value)`` of :mod:`litsift.sources.identity.ids`
   shared with a stored record -> that record, unless the two titles are clearly different
   (rapidfuzz ``fuzz.token_set_ratio`` of the :func:`title_key` forms below
   :data:`ID_CONFLICT_MAX_RATIO`): then it is a :class:`Conflict` (a DOI pasted into the wrong
   entry, a chapter carrying its book's DOI), reported and not merged.
2. **Otherwise title + first author + year**: the normalised titles are near-identical
   (rapidfuzz ``fuzz.ratio`` >= :data:`TITLE_MIN_RATIO` on :func:`title_key`) and agree on
   every distinguishing token (:func:`titles_agree`: numbers, years, ordinals, roman numerals,
   part/edition words, a substituted short token such as ATSP/STSP), the first authors' family
   names agree when both are known (:func:`person_key`), and the years are within one of each
   other when both are known (a preprint and its proceedings version). Short titles (fewer
   than :data:`SHORT_TITLE_WORDS` words: "Introduction", "Editorial") must match exactly, with
   the first author and the year.

A match by title is vetoed when both records carry a DOI (not arXiv's own ``10.48550``), an arXiv
id or a Scopus EID and those differ, or when their locators conflict
(:func:`~litsift.sources.identity.locators.locator_conflict`: a different volume, issue or
part, first page, article number or ISBN): they are different works that share a title -- the
volumes of a proceedings series, the editorials of a journal's issues (errata, versions in two
venues are rare enough that a missed merge is cheaper than a wrong one). Among equally good
title matches the one whose locator agrees on the most facts wins.

Everything the index knows of a stored record is derived from its stored row (title, author
strings, year, ``record_ids``, url, and the locator a ``key:`` id carries:
:func:`~litsift.sources.identity.locators.locator_of_id`), never from how one source spelled
it, so an index rebuilt from the store answers as the one kept current during an import:
re-importing a file is idempotent. (The locator of a record stored under an identifier is
known only to the import that wrote it.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process

from litsift.sources.identity.ids import ids_in_text, preferred
from litsift.sources.identity.locators import (
    locator_agreement,
    locator_conflict,
    locator_of_id,
    locator_suffix,
)
from litsift.sources.identity.person_keys import (
    first_family,
)
from litsift.sources.identity.titles import (
    title_key,
    title_tokens,
    titles_agree,
)
from litsift.store.repositories import Identities
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.store.repo import Store

__all__ = [
    "ID_CONFLICT_MAX_RATIO",
    "SHORT_TITLE_WORDS",
    "TITLE_MIN_RATIO",
    "Conflict",
    "IdentityIndex",
    "Match",
    "Resolution",
    "reference_key",
    "reference_label",
    "title_key",
    "title_ref_key",
    "title_tokens",
    "titles_agree",
    "work_key",
]

#: rapidfuzz ratio (0-100) two title keys need to be the same work (tuned on the labelled
#: cross-format set of benchmarks/dedup_quality.py).
TITLE_MIN_RATIO = 93.0
SHORT_TITLE_WORDS = 4
#: Below this ``fuzz.token_set_ratio`` (0-100) of the title keys, two records that share an
#: identifier are a conflict, not one work. On the 661 identifier-sharing pairs of
#: ``../shared/data/sources`` the scores are bimodal: 653 pairs score 100 and one 98.8 (the same
#: work; token_set_ratio ignores an added subtitle or a "| Elsevier Enhanced Reader" suffix),
#: and 7 pairs score 43-48.4, every one two different works (a chapter with its book's DOI, a
#: wrong DOI pasted into another entry). 60 sits in the empty gap, nearer the low mode.
ID_CONFLICT_MAX_RATIO = 60.0

_ARXIV_DOI_PREFIX = "10.48550/"


def work_key(
    title: str,
    authors: Sequence[str],
    year: int | None,
    family_names: Sequence[str] = (),
    locator: Mapping[str, str] | None = None,
) -> str:
    """``key:`` + a 12-hex hash of (:func:`title_key`, :func:`first_family`, year), then the
    record's locator (:func:`~litsift.sources.identity.locators.locator_suffix`:
    ``key:14f04b8ebc49:v6017:n2``): the id a paper without identifiers gets in the store."""
    basis = f"{title_key(title)}|{first_family(authors, family_names)}|{year}"
    digest = hashlib.blake2b(basis.encode(), digest_size=6).hexdigest()
    return f"key:{digest}{locator_suffix(locator or {})}"


def title_ref_key(title: str, authors: Sequence[str], family_names: Sequence[str] = ()) -> str:
    """``title:`` + a 12-hex hash of (:func:`title_key`, :func:`first_family`): the citation key
    of a reference that names no identifier (most GROBID ``biblStruct``, a Crossref
    ``reference`` without DOI). No year: a parsed reference's year and a stored record's often
    disagree or one is missing."""
    basis = f"{title_key(title)}|{first_family(authors, family_names)}"
    return "title:" + hashlib.blake2b(basis.encode(), digest_size=6).hexdigest()


def reference_label(title: str, authors: Sequence[str] = (), year: int | None = None) -> str:
    """A cited work as a reader names it: ``"Title (First author, 2019)"`` (``""`` without a
    title)."""
    title = " ".join(title.split())
    if not title:
        return ""
    first = next((" ".join(a.split()) for a in authors if a and a.strip()), "")
    extra = ", ".join(
        p for p in (first + (" et al." if len(authors) > 1 else ""), str(year or "")) if p
    )
    return f"{title} ({extra})" if extra else title


def reference_key(
    ids: Mapping[str, str], title: str = "", authors: Sequence[str] = ()
) -> str | None:
    """The citation key of a cited work: its best identifier (``doi:...``, ``arxiv:...``; the
    one :func:`litsift.sources.identity.ids.preferred` gives a record id), else
    :func:`title_ref_key` of
    its title and first author; None for a reference with neither."""
    best = preferred(ids)
    if best:
        return best
    return title_ref_key(title, authors) if len(title_key(title)) >= 8 else None


@dataclass(frozen=True)
class Match:
    """An incoming record matched a stored one: ``doc_id``, ``reason`` (``"doi"`` ... for an
    identifier, ``"title"`` for the fuzzy rule) and ``score`` (title ratio 0-100; 100 for ids)."""

    doc_id: str
    reason: str
    score: float


@dataclass(frozen=True)
class Conflict:
    """An incoming record shares identifier ``scheme``:``value`` with stored ``doc_id`` but
    its title is clearly different (``score``: ``fuzz.token_set_ratio`` of the title keys,
    0-100, below :data:`ID_CONFLICT_MAX_RATIO`): reported, not merged."""

    doc_id: str
    scheme: str
    value: str
    score: float


@dataclass(frozen=True)
class Resolution:
    """What :meth:`IdentityIndex.resolve` found: the ``match`` (or None) and the identifier
    ``conflicts`` met on the way."""

    match: Match | None
    conflicts: tuple[Conflict, ...] = ()


@dataclass
class _Entry:
    key: str
    family: str
    year: int | None
    ids: dict[str, str] = field(default_factory=dict)
    #: volume, issue, first page ... (:mod:`litsift.sources.identity.locators`)
    locator: dict[str, str] = field(default_factory=dict)


def _strong_ids(ids: Mapping[str, str]) -> dict[str, str]:
    out = {}
    doi = ids.get("doi")
    if doi and not doi.startswith(_ARXIV_DOI_PREFIX):
        out["doi"] = doi
    for scheme in ("arxiv", "scopus"):
        if ids.get(scheme):
            out[scheme] = ids[scheme]
    return out


class IdentityIndex:
    """Identifiers, title keys and first authors of the records of one kind, for matching.

    Built from the whole store (:meth:`from_store`) or, as an import does, from the
    stored records a batch may be (:class:`StoreIdentityIndex`), then kept current with
    :meth:`add` as records are written, so duplicates within one import merge too.

    The fuzzy-title candidates of a record are blocked by first author *and year*
    (``by_family[family][year]``): only the years a match may have (within one, or any year
    when either is unknown) are compared, so a common family name (Wang: 2.6 % of the sample)
    costs a few years' papers of that name, not all of them (issue 32).
    """

    def __init__(self) -> None:
        self.by_id: dict[tuple[str, str], str] = {}
        self.by_key: dict[str, list[str]] = {}
        #: family -> year (None: unknown) -> ``(insertion order, doc id)``
        self.by_family: dict[str, dict[int | None, list[tuple[int, str]]]] = {}
        self._order = 0
        self.entries: dict[str, _Entry] = {}
        self._keys: list[str] | None = None
        self._key_docs: list[str] = []

    @classmethod
    def from_store(cls, store: Store, kind: Kind) -> IdentityIndex:
        """The index over every stored record of ``kind`` and its identifiers.

        Identifiers are also read off each paper's ``url`` (an ACL Anthology, arXiv or DOI
        link), so records ingested from JSONL match imported ones.
        """
        index = cls()
        stored = Identities(store)
        ids = stored.ids_by_doc(kind)
        if kind is Kind.PAPER:
            for doc_id, title, authors, year, url in stored.identity_rows():
                doc_ids = {**ids_in_text(url), **ids.get(doc_id, {})}
                index.add(doc_id, title, [str(a) for a in authors], year, doc_ids)
        else:
            for doc_id, doc_ids in ids.items():
                for scheme, value in doc_ids.items():
                    index.by_id.setdefault((scheme, value), doc_id)
        return index

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
        """Remember a record (or refresh what is known of it after a merge: ``locator`` facts
        it did not know are added; those its ``key:`` id carries are always known)."""
        for scheme, value in ids.items():
            self.by_id.setdefault((scheme, value), doc_id)
        key = title_key(title)
        family = first_family(authors, family_names)
        old = self.entries.get(doc_id)
        if old is None or old.key != key:
            if key:
                self.by_key.setdefault(key, []).append(doc_id)
                self._keys = None
        merged_ids = {**(old.ids if old else {}), **ids}
        facts = {**(locator or {}), **(old.locator if old else {}), **locator_of_id(doc_id)}
        entry = _Entry(
            key or (old.key if old else ""),
            family or (old.family if old else ""),
            year if year is not None else (old.year if old else None),
            merged_ids,
            facts,
        )
        self.entries[doc_id] = entry
        if entry.family and (old is None or (old.family, old.year) != (entry.family, entry.year)):
            self._order += 1  # a moved entry stays in its old block too: _compatible skips it
            years = self.by_family.setdefault(entry.family, {})
            years.setdefault(entry.year, []).append((self._order, doc_id))

    def match(
        self,
        title: str,
        authors: Sequence[str],
        year: int | None,
        ids: Mapping[str, str],
        family_names: Sequence[str] = (),
        exclude: str | None = None,
        locator: Mapping[str, str] | None = None,
    ) -> Match | None:
        """The stored record the incoming one is, or None (see the module docstring)."""
        return self.resolve(title, authors, year, ids, family_names, exclude, locator).match

    def resolve(
        self,
        title: str,
        authors: Sequence[str],
        year: int | None,
        ids: Mapping[str, str],
        family_names: Sequence[str] = (),
        exclude: str | None = None,
        locator: Mapping[str, str] | None = None,
    ) -> Resolution:
        """The stored record the incoming one is (or None) and the identifier conflicts met:
        a stored record sharing an identifier whose title is clearly different is skipped and
        reported, and the title rule still runs (the record may be stored under its title).
        ``locator``: the record's volume, issue, pages ... (a title match whose locator
        conflicts with it is no match)."""
        key = title_key(title)
        conflicts: list[Conflict] = []
        for scheme, value in ids.items():
            doc_id = self.by_id.get((scheme, value))
            if doc_id is None or doc_id == exclude:
                continue
            entry = self.entries.get(doc_id)
            if entry is None or not key or not entry.key:
                return Resolution(Match(doc_id, scheme, 100.0), tuple(conflicts))
            score = fuzz.token_set_ratio(key, entry.key)
            if score >= ID_CONFLICT_MAX_RATIO:
                return Resolution(Match(doc_id, scheme, 100.0), tuple(conflicts))
            if all(c.doc_id != doc_id for c in conflicts):
                conflicts.append(Conflict(doc_id, scheme, value, score))
        if not key:
            return Resolution(None, tuple(conflicts))
        family = first_family(authors, family_names)
        short = len(key.split()) < SHORT_TITLE_WORDS
        strong = _strong_ids(ids)
        facts = locator or {}
        best: Match | None = None
        best_agree = -1
        for doc_id, score in self._candidates(key, family, year, short):
            if doc_id == exclude:
                continue
            entry = self.entries[doc_id]
            if not self._compatible(entry, family, year, strong, short):
                continue
            if locator_conflict(facts, entry.locator):
                continue
            if score < 100.0 and not titles_agree(key, entry.key):
                continue
            agree = locator_agreement(facts, entry.locator)
            if best is None or (score, agree) > (best.score, best_agree):
                best, best_agree = Match(doc_id, "title", score), agree
        if best is not None:  # a stored record this one is; the others were conflicts
            conflicts = [c for c in conflicts if c.doc_id != best.doc_id]
        return Resolution(best, tuple(conflicts))

    def _family_pool(self, family: str, year: int | None) -> list[str]:
        """The stored records of first author ``family`` whose year may match ``year`` (within
        one, or unknown on either side), in the order they were added."""
        years = self.by_family.get(family)
        if not years:
            return []
        if year is None:
            blocks = list(years.values())
        else:
            blocks = [years.get(y, []) for y in (year - 1, year, year + 1, None)]
        if len(blocks) == 1 or sum(1 for b in blocks if b) <= 1:
            return [doc_id for block in blocks for _, doc_id in block]
        return [doc_id for _, doc_id in sorted(p for block in blocks for p in block)]

    def _candidates(
        self, key: str, family: str, year: int | None, short: bool
    ) -> Iterable[tuple[str, float]]:
        for doc_id in self.by_key.get(key, ()):
            yield doc_id, 100.0
        if short:
            return
        if family:
            for doc_id in self._family_pool(family, year):
                entry = self.entries[doc_id]
                if entry.key and entry.key != key:
                    score = fuzz.ratio(key, entry.key)
                    if score >= TITLE_MIN_RATIO:
                        yield doc_id, score
            return
        if self._keys is None:  # no first author: compare with every title (C speed)
            self._key_docs = [d for d, e in self.entries.items() if e.key]
            self._keys = [self.entries[d].key for d in self._key_docs]
        for _, score, i in process.extract(
            key, self._keys, scorer=fuzz.ratio, score_cutoff=TITLE_MIN_RATIO, limit=5
        ):
            if self._keys[i] != key:
                yield self._key_docs[i], score

    @staticmethod
    def _compatible(
        entry: _Entry, family: str, year: int | None, strong: Mapping[str, str], short: bool
    ) -> bool:
        if family and entry.family and family != entry.family:
            return False
        if year is not None and entry.year is not None:
            if abs(year - entry.year) > (0 if short else 1):
                return False
        elif short:
            return False
        if short and not (family and entry.family):
            return False
        other = _strong_ids(entry.ids)
        return not any(strong[s] != other[s] for s in strong.keys() & other.keys())


#: ``(title, authors, year, ids, family_names)`` of an incoming record, as
#: :meth:`IdentityIndex.resolve` takes them
Incoming = tuple[str, Sequence[str], int | None, Mapping[str, str], Sequence[str]]
