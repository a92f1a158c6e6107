"""A stored paper's bibliographic details, as its sources gave them: the record's own type (a
CSL item type, :data:`BIBLIO_TYPES`) and genre, volume, issue, pages, publisher, its editors, and
its authors' and editors' names split into ``(family, given)`` -- the family name with its
particles (``"van de Kuilen"``, ``"Pérez-de la Fuente"``), which a ``"Given Family"`` display
name cannot give back. The exports (:mod:`litsift.export.biblio`) write them; without them they
guess the type from the venue.

One row per paper in ``paper_biblio`` (:data:`litsift.store.schema_tables.BIBLIO_SQL`, its
``editors`` column :data:`~litsift.store.schema_tables.EDITORS_SQL`). A merge
fills what the stored row lacks and never blanks a stored fact (:meth:`Biblio.filled_from`;
a generic type gives way to a specific one, a preprint's to the published version's);
``litsift dedup`` moves a duplicate's row onto its survivor the same way (:func:`move_biblio`).
Callers hold the write transaction for writes; nothing here commits.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace

__all__ = [
    "BIBLIO_FIELDS",
    "BIBLIO_TYPES",
    "GENERIC_TYPE",
    "PREPRINT_TYPE",
    "Biblio",
    "biblio_of",
    "merge_biblio",
    "move_biblio",
    "name_key",
]

#: the text facts of a row, in table order
BIBLIO_FIELDS: tuple[str, ...] = ("type", "genre", "volume", "issue", "pages", "publisher")
#: the item types stored (CSL 1.0.2 item types, the ones the importers map to; source:
#: citation-style-language/schema, ``csl-data.json``, ``type``)
BIBLIO_TYPES = frozenset(
    {
        "article", "article-journal", "article-magazine", "article-newspaper", "book",
        "chapter", "dataset", "document", "entry-encyclopedia", "manuscript", "paper-conference",
        "patent", "post-weblog", "report", "review", "software", "speech", "standard",
        "thesis", "webpage",
    }
)  # fmt: skip
#: the type of a preprint (an arXiv record, OpenAlex's and Zotero's ``preprint``): a merge
#: replaces it by the type of the published version another source gives
PREPRINT_TYPE = "article"
#: the type of a record whose source typed it as nothing in particular (BibTeX ``@misc``, RIS
#: ``GEN``, EndNote's ``Generic``, Crossref's and OpenAlex's ``other``, Zotero's ``document``):
#: a merge replaces it by any other type another source gives, a preprint's included
GENERIC_TYPE = "document"
#: how much a stored type tells, least first: a type gives way to one that tells more
#: (an empty type to any, a generic one to a preprint's or a specific one, a preprint's to
#: a specific one); two specific types tell as much, and the stored one stays
_TYPE_RANK = {"": 0, GENERIC_TYPE: 1, PREPRINT_TYPE: 2}
_SPECIFIC = 3
#: the longest value kept for a fact (a pasted abstract is no volume)
_MAX_CHARS = 300


def name_key(given: str, family: str) -> str:
    """How a ``(family, given)`` pair and a stored display name ``"Given Family"`` are
    matched: the words of ``given family``, case folded."""
    return " ".join(f"{given} {family}".split()).casefold()


@dataclass(frozen=True)
class Biblio:
    """A paper's bibliographic details; ``""`` (or ``()``) where unknown.

    Attributes:
        type: a CSL item type of :data:`BIBLIO_TYPES` (``article-journal``,
            ``paper-conference``, ``chapter``, ``book``, ``thesis``, ``report``...).
        genre: the kind within the type (CSL ``genre``): ``"PhD thesis"``, ``"Master's
            thesis"``, a report's kind.
        volume: as the source wrote it (``"12"``, ``"6017 LNCS"``).
        issue: the issue or number (``"3"``, ``"Suppl 1"``).
        pages: the page range with a hyphen (``"1781-1802"``), or one page / an article
            number (``"e0123456"``).
        publisher: the publisher's name.
        names: ``(family, given)`` per author (then editor) the source split, in order; the
            family name keeps its particles (``("van de Kuilen", "Gijs")``). A lookup of how
            to split a display name (:meth:`name_parts`), not a list of the authors.
        editors: the editors' display names (``"Given Family"``), in order: an edited
            book's or proceedings volume's, or those of the book a chapter is in. Never the
            paper's authors (``Paper.authors``), and not part of its identity.
    """

    type: str = ""
    genre: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    publisher: str = ""
    names: tuple[tuple[str, str], ...] = ()
    editors: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        facts: dict[str, str],
        names: Iterable[tuple[str, str]] = (),
        editors: Iterable[str] = (),
    ) -> Biblio:
        """A :class:`Biblio` from an importer's raw ``{fact: value}`` (keys of
        :data:`BIBLIO_FIELDS`; others ignored), name pairs and editors' display names:
        whitespace collapsed, a type outside :data:`BIBLIO_TYPES` and values over 300
        characters dropped, pairs without a family name and empty names dropped."""
        clean = {k: " ".join(str(facts.get(k) or "").split()) for k in BIBLIO_FIELDS}
        clean = {k: v if len(v) <= _MAX_CHARS else "" for k, v in clean.items()}
        if clean["type"] not in BIBLIO_TYPES:
            clean["type"] = ""
        pairs = tuple(
            (" ".join(f.split()), " ".join(g.split())) for f, g in names if f and f.strip()
        )
        people = tuple(n for n in (" ".join(str(e).split()) for e in editors) if n)
        return cls(names=pairs, editors=people, **clean)

    @property
    def empty(self) -> bool:
        """True when it holds nothing."""
        return not any(getattr(self, f.name) for f in fields(self))

    def filled_from(self, other: Biblio) -> Biblio:
        """This one with its empty facts taken from ``other``, and ``other``'s name pairs of
        people it has no pair for appended; its editors ``other``'s only when it has none (a
        list of people is never replaced by another); nothing stored is replaced but a type
        that tells less than ``other``'s: a generic type (:data:`GENERIC_TYPE`: a BibTeX
        ``@misc`` first, the CSL-JSON ``dataset`` of the same Zotero item then) by a
        preprint's or a specific one, a preprint's (:data:`PREPRINT_TYPE`: an arXiv record
        first, the journal's version then) by a specific one; never the other way round."""
        facts = {k: getattr(self, k) or getattr(other, k) for k in BIBLIO_FIELDS}
        rank = _TYPE_RANK.get
        if rank(other.type, _SPECIFIC) > rank(self.type, _SPECIFIC):
            facts["type"] = other.type
        if other.type and other.type != facts["type"]:  # a genre belongs to its own type
            facts["genre"] = self.genre
        known = {name_key(g, f) for f, g in self.names}
        extra = tuple(p for p in other.names if name_key(p[1], p[0]) not in known)
        editors = self.editors or other.editors
        return replace(self, names=self.names + extra, editors=editors, **facts)

    def name_parts(self) -> dict[str, tuple[str, str]]:
        """``{name_key: (family, given)}`` of :attr:`names` (the first pair of a key wins)."""
        out: dict[str, tuple[str, str]] = {}
        for family, given in self.names:
            out.setdefault(name_key(given, family), (family, given))
        return out


def _json_list(text: object) -> list[object]:
    try:
        raw = json.loads(str(text))
    except ValueError:
        return []
    return raw if isinstance(raw, list) else []


def _row_biblio(row: Sequence[object]) -> Biblio:
    """A :class:`Biblio` of a ``(*BIBLIO_FIELDS, names, editors)`` row."""
    names = tuple(
        (str(p[0]), str(p[1]))
        for p in _json_list(row[6])
        if isinstance(p, list) and len(p) == 2 and p[0]
    )
    editors = tuple(str(e) for e in _json_list(row[7]) if isinstance(e, str) and e)
    facts = {k: str(v or "") for k, v in zip(BIBLIO_FIELDS, row, strict=False)}
    return Biblio(names=names, editors=editors, **facts)


def biblio_of(conn: sqlite3.Connection, doc_ids: Sequence[str]) -> dict[str, Biblio]:
    """``{doc_id: Biblio}`` of the papers of ``doc_ids`` that have a row."""
    out: dict[str, Biblio] = {}
    cols = ", ".join((*BIBLIO_FIELDS, "names", "editors"))
    for start in range(0, len(doc_ids), 500):
        chunk = list(doc_ids[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        for row in conn.execute(
            f"SELECT doc_id, {cols} FROM paper_biblio WHERE doc_id IN ({marks})", chunk
        ):
            out[str(row[0])] = _row_biblio(row[1:])
    return out


def merge_biblio(conn: sqlite3.Connection, doc_id: str, biblio: Biblio) -> None:
    """Fill the stored details of ``doc_id`` from ``biblio`` (:meth:`Biblio.filled_from`);
    a first row when it has none. Nothing is written when nothing is new."""
    stored = biblio_of(conn, [doc_id]).get(doc_id)
    merged = biblio if stored is None else stored.filled_from(biblio)
    if merged == stored or merged.empty:
        return
    names = json.dumps([list(p) for p in merged.names], ensure_ascii=False)
    editors = json.dumps(list(merged.editors), ensure_ascii=False)
    conn.execute(
        f"INSERT OR REPLACE INTO paper_biblio (doc_id, {', '.join(BIBLIO_FIELDS)}, names, "
        "editors) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (doc_id, *(getattr(merged, k) for k in BIBLIO_FIELDS), names, editors),
    )


def move_biblio(conn: sqlite3.Connection, keep: str, other: str) -> None:
    """Fill the details of paper ``keep`` from those of ``other`` (a duplicate about to be
    deleted), then drop ``other``'s row."""
    theirs = biblio_of(conn, [other]).get(other)
    if theirs is not None:
        merge_biblio(conn, keep, theirs)
        conn.execute("DELETE FROM paper_biblio WHERE doc_id = ?", (other,))
