"""Who is who: the matcher that decides whether an incoming record is a paper already stored.

The rule (issue 16; papis ``docmatcher`` does the same two steps):

1. **Same identifier** -- any normalised ``(scheme, value)`` of :mod:`litsift.sources.ids`
   shared with a stored record -> that record.
2. **Otherwise title + first author + year**: the normalised titles are near-identical
   (rapidfuzz ``fuzz.ratio`` >= :data:`TITLE_MIN_RATIO` on :func:`title_key`), the first
   authors' family names agree when both are known, and the years are within one of each other
   when both are known (a preprint and its proceedings version). Short titles (fewer than
   :data:`SHORT_TITLE_WORDS` words: "Introduction", "Editorial") must match exactly, with the
   first author and the year.

A match is vetoed when both records carry a DOI (not arXiv's own ``10.48550``) or an arXiv id and
those differ: they are different works that share a title (errata, versions in two venues are
rare enough that a missed merge is cheaper than a wrong one).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from anyascii import anyascii
from rapidfuzz import fuzz, process

from litsift.sources.ids import ids_in_text

__all__ = [
    "SHORT_TITLE_WORDS",
    "TITLE_MIN_RATIO",
    "IdentityIndex",
    "Match",
    "family_key",
    "first_family",
    "title_key",
]

#: rapidfuzz ratio (0-100) two title keys need to be the same work (tuned on the labelled
#: cross-format set of benchmarks/dedup_quality.py).
TITLE_MIN_RATIO = 93.0
SHORT_TITLE_WORDS = 4

_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")
_LATEX_CMD_RE = re.compile(r"\\[a-zA-Z]+\s*")
_ARXIV_DOI_PREFIX = "10.48550/"


def title_key(title: str) -> str:
    """``title`` folded for matching: ASCII (anyascii), lower case, LaTeX commands, braces and
    punctuation removed, single spaces. ``"{BERT}: Pre-training..." -> "bert pre training ..."``."""
    text = anyascii(_LATEX_CMD_RE.sub(" ", title or "")).lower()
    return _NON_ALNUM_RE.sub(" ", text).strip()


def family_key(name: str) -> str:
    """A family name folded for matching (ASCII letters only, lower case)."""
    return re.sub(r"[^a-z]", "", anyascii(name or "").lower())


def first_family(authors: Sequence[str], family_names: Sequence[str] = ()) -> str:
    """The first author's folded family name: ``family_names[0]`` when given, else the part
    before the comma of ``"Family, Given"``, else the last word of ``"Given Family"``."""
    if family_names and family_names[0].strip():
        return family_key(family_names[0])
    if not authors:
        return ""
    name = authors[0].strip()
    if "," in name:
        return family_key(name.split(",", 1)[0])
    words = name.split()
    return family_key(words[-1]) if words else ""


@dataclass(frozen=True)
class Match:
    """An incoming record matched a stored one: ``doc_id``, ``reason`` (``"doi"`` ... for an
    identifier, ``"title"`` for the fuzzy rule) and ``score`` (title ratio 0-100; 100 for ids)."""

    doc_id: str
    reason: str
    score: float


@dataclass
class _Entry:
    key: str
    family: str
    year: int | None
    ids: dict[str, str] = field(default_factory=dict)


def _strong_ids(ids: Mapping[str, str]) -> dict[str, str]:
    out = {}
    doi = ids.get("doi")
    if doi and not doi.startswith(_ARXIV_DOI_PREFIX):
        out["doi"] = doi
    if ids.get("arxiv"):
        out["arxiv"] = ids["arxiv"]
    return out


class IdentityIndex:
    """Identifiers, title keys and first authors of the records of one kind, for matching.

    Built once per import from the store (:meth:`from_connection`), then kept current with
    :meth:`add` as records are written, so duplicates within one import merge too.
    """

    def __init__(self) -> None:
        self.by_id: dict[tuple[str, str], str] = {}
        self.by_key: dict[str, list[str]] = {}
        self.by_family: dict[str, list[str]] = {}
        self.entries: dict[str, _Entry] = {}
        self._keys: list[str] | None = None
        self._key_docs: list[str] = []

    @classmethod
    def from_connection(
        cls, conn: sqlite3.Connection, kind_value: str, table: str
    ) -> IdentityIndex:
        """The index over every record of ``table`` and its ``record_ids`` rows.

        Identifiers are also read off each record's ``url`` (an ACL Anthology, arXiv or DOI
        link), so records ingested from JSONL match imported ones.
        """
        index = cls()
        ids: dict[str, dict[str, str]] = {}
        for doc_id, scheme, value in conn.execute(
            "SELECT doc_id, scheme, value FROM record_ids WHERE kind = ?", (kind_value,)
        ):
            ids.setdefault(doc_id, {})[scheme] = value
        if table == "papers":
            rows = conn.execute("SELECT id, title, authors, year, url FROM papers")
            for doc_id, title, authors_json, year, url in rows:
                try:
                    authors = json.loads(authors_json) if authors_json else []
                except ValueError:
                    authors = []
                doc_ids = {**ids_in_text(url), **ids.get(doc_id, {})}
                index.add(
                    doc_id, title, authors if isinstance(authors, list) else [], year, doc_ids
                )
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
    ) -> None:
        """Remember a record (or refresh what is known of it after a merge)."""
        for scheme, value in ids.items():
            self.by_id.setdefault((scheme, value), doc_id)
        key = title_key(title)
        family = first_family(authors, family_names)
        old = self.entries.get(doc_id)
        if old is None or old.key != key:
            if key:
                self.by_key.setdefault(key, []).append(doc_id)
                self._keys = None
        if family and (old is None or old.family != family):
            self.by_family.setdefault(family, []).append(doc_id)
        merged_ids = {**(old.ids if old else {}), **ids}
        self.entries[doc_id] = _Entry(
            key or (old.key if old else ""),
            family or (old.family if old else ""),
            year if year is not None else (old.year if old else None),
            merged_ids,
        )

    def match(
        self,
        title: str,
        authors: Sequence[str],
        year: int | None,
        ids: Mapping[str, str],
        family_names: Sequence[str] = (),
        exclude: str | None = None,
    ) -> Match | None:
        """The stored record the incoming one is, or None (see the module docstring)."""
        for scheme, value in ids.items():
            doc_id = self.by_id.get((scheme, value))
            if doc_id is not None and doc_id != exclude:
                return Match(doc_id, scheme, 100.0)
        key = title_key(title)
        if not key:
            return None
        family = first_family(authors, family_names)
        short = len(key.split()) < SHORT_TITLE_WORDS
        strong = _strong_ids(ids)
        best: Match | None = None
        for doc_id, score in self._candidates(key, family, short):
            if doc_id == exclude:
                continue
            entry = self.entries[doc_id]
            if not self._compatible(entry, family, year, strong, short):
                continue
            if best is None or score > best.score:
                best = Match(doc_id, "title", score)
        return best

    def _candidates(self, key: str, family: str, short: bool) -> Iterable[tuple[str, float]]:
        for doc_id in self.by_key.get(key, ()):
            yield doc_id, 100.0
        if short:
            return
        if family:
            pool = self.by_family.get(family, ())
            for doc_id in pool:
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
