"""Each format's item types mapped to one vocabulary, the CSL item types
(:data:`litsift.store.biblio.BIBLIO_TYPES`), and the small helpers the readers share to fill
:attr:`~litsift.sources.base.SourceRecord.biblio` and
:attr:`~litsift.sources.base.SourceRecord.name_parts`.

Sources of the type lists: BibTeX (btxdoc) and biblatex manual §2.1; RIS (the RIS format
specification's reference types, as rispy lists them); EndNote's reference types (the
``name`` of an EndNote XML ``ref-type``); Crossref REST API ``/types``; OpenAlex
``work.type`` and ``source.type``; Semantic Scholar's ``publicationTypes`` (Graph API
paper fields); the type columns of Scopus's, IEEE Xplore's and
SpringerLink's CSV exports (the values found in real exports); Zotero's item types
(``itemTypes`` table); CSL 1.0.2 ``csl-data.json``. A type a map does not know gives ``""``
(the exports then guess from the venue, as before).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rispy.config import TYPE_OF_REFERENCE_MAPPING

from litsift.sources.formats.people import ENDNOTE_TYPES
from litsift.store.biblio import BIBLIO_TYPES

__all__ = [
    "TYPE_MAPS",
    "biblio",
    "bibtex_type",
    "csl_type",
    "inverted_parts",
    "page_range",
    "ris_type_code",
]

_THESIS = {"phdthesis": "PhD thesis", "mastersthesis": "Master's thesis"}

#: scheme -> {the format's type, lower case: CSL item type}
TYPE_MAPS: dict[str, dict[str, str]] = {
    "bibtex": {
        "article": "article-journal", "inproceedings": "paper-conference",
        "conference": "paper-conference", "proceedings": "book", "book": "book",
        "mvbook": "book", "booklet": "book", "collection": "book", "mvcollection": "book",
        "inbook": "chapter", "incollection": "chapter", "bookinbook": "chapter",
        "suppbook": "chapter", "inreference": "entry-encyclopedia", "phdthesis": "thesis",
        "mastersthesis": "thesis", "thesis": "thesis", "techreport": "report",
        "report": "report", "manual": "report", "unpublished": "manuscript",
        "online": "webpage", "electronic": "webpage", "www": "webpage", "dataset": "dataset",
        "data": "dataset", "software": "software", "patent": "patent", "misc": "document",
        "periodical": "book", "standard": "standard",
    },
    "ris": {
        "jour": "article-journal", "jfull": "article-journal", "ejour": "article-journal",
        "abst": "article-journal", "inpr": "article-journal", "mgzn": "article-magazine",
        "news": "article-newspaper", "conf": "paper-conference", "cpaper": "paper-conference",
        "chap": "chapter", "echap": "chapter", "book": "book", "ebook": "book",
        "edbook": "book", "thes": "thesis", "rprt": "report", "govdoc": "report",
        "data": "dataset", "elec": "webpage", "web": "webpage", "unpb": "manuscript",
        "manscpt": "manuscript", "comp": "software", "pat": "patent", "gen": "document",
        "stand": "standard", "blog": "post-weblog", "encyc": "entry-encyclopedia",
        "dict": "entry-encyclopedia",
    },
    "crossref": {
        "journal-article": "article-journal", "proceedings-article": "paper-conference",
        "book-chapter": "chapter", "book-section": "chapter", "book-part": "chapter",
        "book": "book", "monograph": "book", "edited-book": "book", "reference-book": "book",
        "book-set": "book", "dissertation": "thesis", "report": "report",
        "report-component": "report", "dataset": "dataset", "posted-content": "article",
        "standard": "standard", "reference-entry": "entry-encyclopedia",
        "peer-review": "review", "other": "document",
    },
    "openalex": {
        "book-chapter": "chapter", "book": "book", "dissertation": "thesis",
        "report": "report", "dataset": "dataset", "preprint": "article",
        "standard": "standard", "peer-review": "review", "libguides": "webpage",
        "paratext": "document", "other": "document",
    },
    # Semantic Scholar ``publicationTypes`` (a list: the reader picks one, see s2.py)
    "s2": {
        "journalarticle": "article-journal", "review": "article-journal",
        "editorial": "article-journal", "lettersandcomments": "article-journal",
        "news": "article-journal", "casereport": "article-journal",
        "clinicaltrial": "article-journal", "metaanalysis": "article-journal",
        "study": "article-journal", "conference": "paper-conference", "book": "book",
        "booksection": "chapter", "dataset": "dataset",
    },
    "zotero": {
        "journalarticle": "article-journal", "conferencepaper": "paper-conference",
        "booksection": "chapter", "book": "book", "thesis": "thesis", "report": "report",
        "dataset": "dataset", "webpage": "webpage", "manuscript": "manuscript",
        "preprint": "article", "magazinearticle": "article-magazine",
        "newspaperarticle": "article-newspaper", "blogpost": "post-weblog",
        "computerprogram": "software", "patent": "patent",
        "encyclopediaarticle": "entry-encyclopedia", "dictionaryentry": "entry-encyclopedia",
        "standard": "standard", "presentation": "speech", "document": "document",
    },
    "wos": {
        "article": "article-journal", "review": "article-journal", "letter": "article-journal",
        "editorial material": "article-journal", "proceedings paper": "paper-conference",
        "book chapter": "chapter", "book": "book", "data paper": "dataset",
        "journal paper": "article-journal", "conference paper": "paper-conference",  # Inspec
    },
    "endnote": {
        "journal article": "article-journal", "electronic article": "article-journal",
        "magazine article": "article-magazine", "newspaper article": "article-newspaper",
        "conference paper": "paper-conference", "conference proceedings": "paper-conference",
        "book section": "chapter", "electronic book section": "chapter", "book": "book",
        "edited book": "book", "electronic book": "book", "thesis": "thesis",
        "report": "report", "government document": "report", "dataset": "dataset",
        "web page": "webpage", "unpublished work": "manuscript", "manuscript": "manuscript",
        "computer program": "software", "patent": "patent", "standard": "standard",
        "encyclopedia": "entry-encyclopedia", "dictionary": "entry-encyclopedia",
        "blog": "post-weblog", "generic": "document",
    },
    # the CSV exports' type columns: Scopus "Document Type", IEEE Xplore "Document
    # Identifier", SpringerLink "Content Type"
    "vendor-csv": {
        "article": "article-journal", "review": "article-journal", "letter": "article-journal",
        "note": "article-journal", "editorial": "article-journal", "erratum": "article-journal",
        "short survey": "article-journal", "data paper": "article-journal",
        "conference paper": "paper-conference", "conference review": "paper-conference",
        "conferencepaper": "paper-conference", "book chapter": "chapter", "chapter": "chapter",
        "book": "book", "ieee conferences": "paper-conference",
        "ieee conference publications": "paper-conference", "ieee journals": "article-journal",
        "ieee journals & magazines": "article-journal", "ibm journals": "article-journal",
        "ieee early access articles": "article-journal", "ieee magazines": "article-magazine",
        "ieee standards": "standard", "referenceworkentry": "entry-encyclopedia",
    },
    "csl": {t: t for t in BIBLIO_TYPES},
}  # fmt: skip
#: OpenAlex's journal-like work types, typed by where the work appeared (``source.type``)
_OPENALEX_BY_SOURCE = {
    "journal": "article-journal",
    "conference": "paper-conference",
    "repository": "article",
    "book series": "chapter",
    "ebook platform": "chapter",
}
_OPENALEX_ARTICLES = {"article", "review", "letter", "editorial", "erratum", "retraction"}
_DASHES_RE = re.compile(r"\s*(?:-+|–|—|‐|‑)\s*")
#: one field holding a range whose first and last page are the same (``179-179``)
_SAME_PAGES_RE = re.compile(r"^([^-]+)-\1$")
#: what Ovid (PsycInfo, through Mendeley's BibTeX as ``No Pagination Specified-No Pagination
#: Specified``) writes for the pages of a paper that has none
_NO_PAGES = "no pagination specified"


def csl_type(scheme: str, value: object, source_type: object = "") -> str:
    """The CSL item type of ``value``, a type of format ``scheme`` (a key of
    :data:`TYPE_MAPS`), case and spaces ignored; ``""`` when unknown. For ``openalex`` an
    ``article`` (or review, letter, ...) is typed by ``source_type``, where it appeared
    (journal, conference, repository: ``article-journal``, ``paper-conference``,
    ``article``)."""
    key = re.sub(r"[\s_]", "", str(value or "")).lower() if scheme == "zotero" else ""
    key = key or " ".join(str(value or "").split()).lower()
    if scheme == "openalex" and key in _OPENALEX_ARTICLES:
        return _OPENALEX_BY_SOURCE.get(str(source_type or "").lower(), "article-journal")
    return TYPE_MAPS.get(scheme, {}).get(key, "")


#: an RIS type spelled out (lower case) -> its code: the names the RIS specification gives its
#: types (as rispy lists them: ``Journal``, ``Whole book``, ``Book chapter``) and EndNote's
#: names of the same types (``Journal Article``, ``Book Section``: eLibrary.ru's RIS export
#: writes ``TY  - Journal Article``). Zotero's RIS import knows only the codes, upper-cased
#: (``Book`` is a book there; any other value a journal article, its default).
_RIS_TYPE_NAMES: dict[str, str] = {
    **{str(name).lower(): str(code) for code, name in TYPE_OF_REFERENCE_MAPPING.items()},
    **ENDNOTE_TYPES,
}


def ris_type_code(value: object) -> str:
    """The RIS code (``JOUR``) of an RIS ``TY`` value: a code as written, any case
    (``Jour``), or a type spelled out (``Journal Article``, ``Book Section``); ``value`` as
    written when it is neither (``""`` for None)."""
    text = " ".join(str(value or "").split())
    if text.upper() in TYPE_OF_REFERENCE_MAPPING or text.lower() in TYPE_MAPS["ris"]:
        return text.upper()
    return _RIS_TYPE_NAMES.get(text.lower(), text)


def page_range(first: object, last: object = "") -> str:
    """``"1781-1802"`` from a first and a last page, or from one field written ``1781--1802``
    / ``1781–1802``; ``"1781"`` when there is no last page or it repeats the first, in two
    fields or in one (Crossref's and CSL's ``179-179``, BibTeX's ``1242--1242``, ``e191-e191``);
    ``""`` for Ovid's placeholder of a paper without pages (``No Pagination Specified``, its
    RIS ``SP  - No`` / ``EP  - Specified``). A range of different pages (``xii-xiv``), an
    article number (``e0123456``, ``41103-1``) and any other value stay as written."""
    a = " ".join(str(first or "").split())
    b = " ".join(str(last or "").split())
    a, b = _DASHES_RE.sub("-", a), _DASHES_RE.sub("-", b)
    if (a.casefold(), b.casefold()) == ("no", "specified"):
        return ""
    if b and b != a:
        a = f"{a}-{b}" if a else b
    if same := _SAME_PAGES_RE.match(a):
        a = same.group(1)
    return "" if a.casefold() == _NO_PAGES else a


def biblio(
    type_: str = "",
    *,
    genre: object = "",
    volume: object = "",
    issue: object = "",
    pages: object = "",
    publisher: object = "",
) -> dict[str, str]:
    """The :attr:`~litsift.sources.base.SourceRecord.biblio` of a record: the facts given,
    as text with whitespace collapsed (``pages`` through :func:`page_range`); empty ones left
    out."""
    facts = {
        "type": type_,
        "genre": genre,
        "volume": volume,
        "issue": issue,
        "pages": page_range(pages),
        "publisher": publisher,
    }
    out = {k: " ".join(str(v or "").split()) for k, v in facts.items()}
    return {k: v for k, v in out.items() if v}


def bibtex_type(etype: str) -> tuple[str, str]:
    """``(CSL type, genre)`` of a BibTeX entry type (``phdthesis`` -> ``("thesis", "PhD
    thesis")``)."""
    key = etype.lower()
    return csl_type("bibtex", key), _THESIS.get(key, "")


def inverted_parts(names: Iterable[str]) -> list[tuple[str, str]]:
    """``(family, given)`` of each ``"Family, Given"`` name (RIS ``AU``, MEDLINE ``FAU``; a
    third part, a suffix, is left out); names without a comma are left out (their split is
    not known)."""
    out = []
    for name in names:
        if not isinstance(name, str) or "," not in name:
            continue
        family, given = (" ".join(p.split()) for p in name.split(",", 2)[:2])
        if family:
            out.append((family, given))
    return out
