"""A paper's stored bibliographic details (:class:`~litsift.store.biblio.Biblio`: its own CSL
item type, genre, volume, issue, pages, publisher, editors) as each export format writes them:
the BibTeX entry type and fields, the RIS reference type and tags, the CSL variables. A paper
without a stored type keeps the type guessed from its venue
(:func:`litsift.export.venues.venue_of`); a rejected or withdrawn submission is always written
as one (``@misc``, ``UNPB``).

Type maps: CSL 1.0.2 item types to BibTeX (btxdoc's standard entry types) and to the RIS
reference types (the RIS specification, as rispy lists them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from litsift.export.names import Person, split_authors
from litsift.export.venues import Venue
from litsift.store.biblio import Biblio
from litsift.store.repo import Store
from litsift.types import Kind, Record

__all__ = [
    "biblios",
    "bibtex_fields",
    "bibtex_type",
    "csl_fields",
    "editors_of",
    "is_publisher",
    "own_type",
    "ris_fields",
    "ris_type",
]

#: CSL item type -> BibTeX entry type (the rest: ``misc``)
_BIBTEX = {
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "review": "article",
    "paper-conference": "inproceedings",
    "chapter": "incollection",
    "entry-encyclopedia": "incollection",
    "book": "book",
    "thesis": "phdthesis",
    "report": "techreport",
    "manuscript": "unpublished",
}
#: CSL item type -> RIS ``TY`` (the rest: ``GEN``)
_RIS = {
    "article-journal": "JOUR",
    "review": "JOUR",
    "article-magazine": "MGZN",
    "article-newspaper": "NEWS",
    "paper-conference": "CONF",
    "chapter": "CHAP",
    "entry-encyclopedia": "ENCYC",
    "book": "BOOK",
    "thesis": "THES",
    "report": "RPRT",
    "dataset": "DATA",
    "webpage": "ELEC",
    "post-weblog": "BLOG",
    "manuscript": "UNPB",
    "software": "COMP",
    "patent": "PAT",
    "standard": "STAND",
}
#: BibTeX entry type -> the field that names its container (a book's: the series it is in,
#: where Scopus's ``@BOOK`` has it in ``journal``, which BibTeX styles ignore for a book)
_CONTAINER = {
    "article": "journal",
    "inproceedings": "booktitle",
    "incollection": "booktitle",
    "book": "series",
}
#: BibTeX entry type -> the field the publisher goes in
_PUBLISHER = {"phdthesis": "school", "mastersthesis": "school", "techreport": "institution"}
_RANGE_RE = re.compile(r"^(\S+?)\s*-+\s*(\S+)$")


def biblios(store: Store, records: Sequence[Record]) -> dict[str, Biblio]:
    """``{paper id: Biblio}`` of the papers among ``records`` that have stored details."""
    from litsift.store.repositories import Biblios

    ids = [r.id for r in records if r.kind is Kind.PAPER]
    return Biblios(store).of(ids) if ids else {}


def editors_of(b: Biblio | None) -> list[Person]:
    """The paper's editors as people (``[]``: none), split as their source split them
    (:func:`~litsift.export.names.split_authors`): what BibTeX writes as ``editor``, RIS as
    ``ED``, CSL as ``editor``."""
    return split_authors(b.editors, b.name_parts()) if b is not None else []


def own_type(b: Biblio | None, v: Venue) -> str:
    """The stored type, unless there is none or the paper is an unpublished submission
    (``""``: the venue's guess stands)."""
    return "" if b is None or v.unpublished else b.type


def is_publisher(b: Biblio | None, venue: str) -> bool:
    """Whether ``venue`` is only the paper's stored publisher (a book imported without a
    series or journal takes its publisher as venue), so no container field repeats it."""
    return (
        b is not None
        and bool(venue)
        and " ".join(venue.split()).casefold() == " ".join(b.publisher.split()).casefold()
    )


def bibtex_type(b: Biblio | None, v: Venue) -> tuple[str, str]:
    """``(entry type, container field)``: from the stored type (``@phdthesis`` becomes
    ``@mastersthesis`` for a master's thesis), else the venue's guess; the container field
    (``journal``, ``booktitle``, a book's ``series``) is ``""`` for types without one."""
    own = own_type(b, v)
    if not own:
        slot = "booktitle" if v.bibtex_type == "inproceedings" else "journal"
        return v.bibtex_type, slot
    entry = _BIBTEX.get(own, "misc")
    if entry == "phdthesis" and b is not None and "master" in b.genre.lower():
        entry = "mastersthesis"
    return entry, _CONTAINER.get(entry, "")


def _pages_bibtex(pages: str, encode: Callable[[str], str]) -> str:
    m = _RANGE_RE.match(pages)
    return f"{encode(m.group(1))}--{encode(m.group(2))}" if m else encode(pages)


def bibtex_fields(
    b: Biblio | None, entry_type: str, encode: Callable[[str], str]
) -> list[tuple[str, str]]:
    """``volume``, ``number``, ``pages`` (``1--10``), ``publisher`` (``school`` for a thesis,
    ``institution`` for a report) and ``type`` (a report's or thesis's genre), each value
    passed through ``encode`` (LaTeX)."""
    if b is None:
        return []
    out = [("volume", encode(b.volume)), ("number", encode(b.issue))]
    out.append(("pages", _pages_bibtex(b.pages, encode) if b.pages else ""))
    out.append((_PUBLISHER.get(entry_type, "publisher"), encode(b.publisher)))
    if entry_type == "techreport":
        out.append(("type", encode(b.genre)))
    return [(k, v) for k, v in out if v]


def ris_type(b: Biblio | None, v: Venue) -> str:
    """The RIS ``TY``: from the stored type, else :attr:`Venue.ris_type`."""
    own = own_type(b, v)
    return _RIS.get(own, "GEN") if own else v.ris_type


def ris_fields(b: Biblio | None) -> dict[str, str]:
    """rispy fields: ``volume`` (``VL``), ``number`` (``IS``), ``start_page`` /
    ``end_page`` (``SP`` / ``EP``), ``publisher`` (``PB``), ``type_of_work`` (``M3``, the
    genre)."""
    if b is None:
        return {}
    m = _RANGE_RE.match(b.pages)
    first, last = (m.group(1), m.group(2)) if m else (b.pages, "")
    out = {
        "volume": b.volume,
        "number": b.issue,
        "start_page": first,
        "end_page": last,
        "publisher": b.publisher,
        "type_of_work": b.genre,
    }
    return {k: v for k, v in out.items() if v}


def csl_fields(b: Biblio | None, v: Venue) -> dict[str, str]:
    """CSL variables: ``type`` (stored, else the venue's guess), ``genre``, ``volume``,
    ``issue``, ``page`` (``1-10``), ``publisher``."""
    out = {"type": own_type(b, v) or v.csl_type}
    if b is not None:
        facts = {"genre": b.genre, "volume": b.volume, "issue": b.issue, "page": b.pages}
        out.update({k: val for k, val in facts.items() if val})
        if b.publisher:
            out["publisher"] = b.publisher
    return out
