"""RIS files (Zotero, EndNote, Scopus, Web of Science, Embase, Ovid, ProQuest, Rayyan, IEEE
Xplore) and Web of Science plain-text ("ISI tagged") exports, read line by line with rispy's
tag tables and parser classes, so that every record knows its line.

Tag grammar read (RIS): a line ``XY  - value`` -- two characters (an upper-case letter, then a
letter or digit), two spaces, a hyphen, a space. A missing space after the hyphen
(``A1  -Bergel, F``) and a bare ``ER`` line are accepted, and so are longer tags before two spaces
(APA PsycNET's ``PMID  - 33355555`` and ``DESCRIPTORS  - ...``, which ran on into ``TY`` and
lost the type; ``PMID`` is read). A record whose ``TY`` line has one space or a tab before
the hyphen (``TY - JOUR``: Islandora's ``TY -  BOOK``, RIS copied off a web page, PubMed-to-RIS
converters, hand edits) has its other lines read so too (``AU - Smith, J``, ``PMID - 12345``:
a 2-4 character tag rispy or this reader knows, :data:`_LOOSE_TAG_RE`), and so does a
record with two spaces where such a line stands between tags (CoLRev's ``KW - keyword2``,
``PMID - 12345678``); never a tag unknown here, nor a line repeating the single-valued tag
it continues, nor, in a record with two spaces, a line under an abstract, a note or an
address: a wrapped abstract's line may start "US - based" or "AB - ". Lines
without a tag continue the tag above (EndNote writes several keywords under one ``KW``). Line
ends are normalised (IEEE Xplore mixes CR, LF and CRLF), a UTF-8 BOM is dropped, and Ovid's
record numbers (``1.`` before ``TY  -``) are skipped.

rispy's field names are mapped to litsift's: ``TI``/``T1`` title, ``AB``/``N2`` abstract,
``AU``/``A1`` authors (``Family, Given``; Embase's ``Family I.``: see
:mod:`~litsift.sources.formats.ris_names`), ``ED`` editors (or ``A2``/``A3``/an ``EDBOOK``'s
``AU`` where the type says so: :func:`~litsift.sources.formats.ris_names.ris_byline`),
``PY``/``Y1``/``DA`` year, ``T2``/``JO``/``JF``/
``T3``/``JA`` venue, ``DO`` DOI, ``UR`` links (DOI / arXiv / ACL ids read off them, a
publisher's page name such as ``/full`` cut off), ``KW`` tags (subject headings without their
``*`` and MeSH subheadings: :mod:`~litsift.sources.formats.subject_terms`; and a Rayyan
``N1``'s labels, its reviewers' notes as notes: :mod:`~litsift.sources.formats.rayyan_notes`),
``N1`` the note (unless a database's: :mod:`~litsift.sources.formats.ris_notes`), ``L1``/``L4``
attachments; ``AN`` (EndNote, Ovid) or ``C5`` (Embase) is a PubMed id when
``DB``/``DP`` name MEDLINE, PubMed or NLM, ``C2`` a PMC id when it reads ``PMC123``; ``VL``,
``IS``, ``SP``, ``C7`` (article number) and the ISBNs of ``SN`` are the locator (a litsift
review export's ``ID`` ``key:...:v6017:n2`` gives it too); ``TY`` (a CSL type), ``VL``,
``IS``, ``SP``-``EP`` (else ``C7``) and ``PB`` the record's bibliographic details.
eLibrary.ru's RIS spells its types out (``TY  - Journal Article``: read as the code EndNote
writes for that type) and writes the volume as ``VO`` (read where there is no ``VL``).

Web of Science: ``TI`` title, ``AB`` abstract, ``AF``/``AU`` authors, ``PY`` year (else the
early-access ``EY``/``EA``, else ``PD``), ``BE`` editors,
``SO`` venue, ``DI`` DOI, ``PM`` PubMed id, ``DE`` + ``ID`` keywords, ``UT`` accession number,
``VL``, ``IS``, ``BP``, ``AR``, ``BN`` the locator; ``DT``, ``VL``, ``IS``, ``BP``-``EP``
(else the article number ``AR``: a paper's pages, as Crossref's ``page`` is its
``article-number``), ``PU`` the bibliographic details (a record of WoS's Inspec database
reads ``ID``, ``DE`` and an article number's pages as Inspec writes them:
:mod:`~litsift.sources.formats.wos_inspec`). Tags rispy has no
name for (``C3`` affiliations, ``WE`` index, and whatever Clarivate adds next) are kept under
``unknown_tag``, never fatal.

A record is ``TY`` (``PT`` in WoS) ... ``ER`` (:mod:`~litsift.sources.formats.tagged`). A
record without its ``ER`` is kept with a warning at its first line (a :class:`Notice`), as
Zotero and JabRef keep it: the next ``TY`` ends it, and so does the end of a file that ends
with a line break; a file that ends inside a line of such a record (a cut download, a
truncated copy) yields that record as a :class:`BadItem` at its first line, and the complete
records before it as usual. Tags after an ``ER`` start a record even without ``TY``/``PT``
(Rayyan's examples leave it out).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from rispy.config import LIST_TYPE_TAGS, TAG_KEY_MAPPING, WOK_LIST_TYPE_TAGS, WOK_TAG_KEY_MAPPING

from litsift.errors import IngestError
from litsift.sources.base import (
    BadItem,
    Format,
    Notice,
    SourceRecord,
    clean_text,
    read_text,
    year_from,
)
from litsift.sources.formats.biblio_types import biblio, csl_type, page_range, ris_type_code
from litsift.sources.formats.rayyan_notes import has_rayyan_notes, rayyan_notes
from litsift.sources.formats.ris_names import ris_byline, wos_byline
from litsift.sources.formats.ris_notes import ris_notes
from litsift.sources.formats.subject_terms import subject_heading
from litsift.sources.formats.tagged import TaggedParser, TaggedRecord
from litsift.sources.formats.wos_inspec import inspec_fields
from litsift.sources.identity.ids import (
    ids_in_text,
    normalize_doi,
    normalize_pmcid,
    normalize_pmid,
    own_ids,
)
from litsift.sources.identity.locators import locator, locator_of_id
from litsift.types import Kind

__all__ = [
    "FORMATS",
    "REASON_PREFIX",
    "TaggedParser",
    "TaggedRecord",
    "read_ris",
    "read_wos",
]

#: a record's first line; a UTF-8 BOM may stand before it (the file's first line: a file of one
#: record has no other ``TY`` line to be known by)
_RIS_TAG_RE = re.compile(rb"^(?:\xef\xbb\xbf)?(?:\d+\.\s*)?TY(?: {1,2}|\t)-[ \t]", re.MULTILINE)
_WOS_RE = re.compile(rb"^(?:\xef\xbb\xbf)?FN (?:Clarivate|Thomson|ISI)", re.MULTILINE)
#: a tag line written loosely: a 2-4 character tag, one space or a tab (or two spaces) before
#: the hyphen (``TY - JOUR``, ``PMID - 12345``, ``AU\t- Smith, J``); group 1 the tag, group 2
#: the value
_LOOSE_TAG_RE = re.compile(r"^([A-Z][A-Z0-9]{1,3})(?: {1,2}|\t)-(?:[ \t]?(.*))?$")
#: tags whose values wrap onto untagged lines (abstracts, notes, addresses): in a record written
#: with two spaces, a loosely written line under them is their text ("US - based", "AB - ...")
_WRAPPED_TEXT_TAGS = frozenset({"AB", "N2", "N1", "AD"})
#: databases whose RIS accession number (``AN``) is a PubMed id
_PUBMED_DB_RE = re.compile(r"medline|pubmed|\bnlm\b", re.IGNORECASE)


class _RisParser(TaggedParser):
    DEFAULT_IGNORE: ClassVar[list[str]] = []
    #: rispy's table, plus ``ED`` (editors) and ``PMID`` (rispy has no name for them)
    DEFAULT_MAPPING: ClassVar[dict[str, str]] = {
        **TAG_KEY_MAPPING,
        "ED": "editors",
        "PMID": "pubmed_id",
        "VO": "volume_vo",  # eLibrary.ru's volume tag: read where there is no VL
    }
    DEFAULT_LIST_TAGS: ClassVar[list[str]] = [*LIST_TYPE_TAGS, "ED"]

    #: the record being read has its ``TY`` written loosely (``TY - JOUR``): so are its tags
    _loose = False
    #: the tag of the last tag line read
    _last_tag: str | None = None

    def parse_line(self, line: str) -> tuple[str | None, str]:
        """``(tag, value)`` as :meth:`TaggedParser.parse_line` reads it, or a loosely written
        tag line (:data:`_LOOSE_TAG_RE`) where it cannot be text: a ``TY`` or ``ER`` line, or a
        line with a tag this reader knows, unless it repeats the single-valued tag it would
        continue (an abstract's line "AB - ...") or, in a record whose ``TY`` has two spaces,
        follows a tag whose text wraps (:data:`_WRAPPED_TEXT_TAGS`)."""
        tag, value = super().parse_line(line)
        if tag is None and (m := _LOOSE_TAG_RE.match(line.removeprefix("\ufeff"))):
            loose, last = m.group(1), self._last_tag
            known = loose in self.mapping and loose != self.UNKNOWN_TAG
            repeats = loose == last and loose not in self.list_tags
            text = not self._loose and last in _WRAPPED_TEXT_TAGS
            if loose in (self.START_TAG, self.END_TAG) or (known and not repeats and not text):
                tag, value = loose, (m.group(2) or "").strip()
                self._loose = self._loose or loose == self.START_TAG
        elif tag == self.START_TAG:
            self._loose = False
        if tag is not None:
            self._last_tag = tag
        return tag, value

    def _continue(self, record: dict[str, Any], tag: str, text: str) -> None:
        if tag != "N1" or not record.get("notes"):  # an N1's lines stay one item
            return super()._continue(record, tag, text)
        record["notes"][-1] = f"{record['notes'][-1]}\n{text}"


class _WosParser(TaggedParser):
    START_TAG = "PT"
    DEFAULT_IGNORE: ClassVar[list[str]] = ["FN", "VR", "EF"]
    #: rispy's WoS table, plus tags it has no name for yet; "UK" files any other tag under
    #: ``unknown_tag`` instead of failing on it
    DEFAULT_MAPPING: ClassVar[dict[str, str]] = {
        **WOK_TAG_KEY_MAPPING,
        "C3": "affiliations",
        "WE": "web_of_science_index",
        "UK": "unknown_tag",
    }
    DEFAULT_LIST_TAGS: ClassVar[list[str]] = [*WOK_LIST_TYPE_TAGS, "BE"]  # one editor a line
    DEFAULT_DELIMITER_MAPPING: ClassVar[dict[str, str]] = {}
    TAG_RE = re.compile(r"^([A-Z][A-Z0-9])(?: (.*))?$")
    END_NAME = "'ER'"
    FILE_END_TAG = "EF"


def _first(entry: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value = entry.get(key)
        if value:
            return value[0] if isinstance(value, list) else value
    return None


def _ids(entry: dict[str, Any]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for url in entry.get("urls") or []:
        ids.update(ids_in_text(url))
    doi = normalize_doi(_first(entry, "doi"))
    if doi:
        ids["doi"] = doi
    database = " ".join(
        str(_first(entry, k) or "") for k in ("name_of_database", "database_provider")
    )
    pmid = str(_first(entry, "pubmed_id") or "")  # PsycNET's PMID; else its first word (a
    # line that is no tag ran on into it: CoLRev's sample, ``% Comment``)
    ids["pmid"] = normalize_pmid(pmid) or normalize_pmid(pmid.partition(" ")[0]) or ""
    if _PUBMED_DB_RE.search(database):  # EndNote / Ovid: AN; Embase: C5
        for key in ("accession_number", "custom5"):
            value = _first(entry, key)
            if isinstance(value, str) and value.strip().isdigit():
                ids["pmid"] = normalize_pmid(value) or ""
                break
    for scheme, value in own_ids(_first(entry, "id")).items():  # a review export's ID
        ids.setdefault(scheme, value)
    pmc = _first(entry, "custom2")
    if isinstance(pmc, str) and re.fullmatch(r"\s*PMC[0-9]+\s*", pmc):
        ids["pmcid"] = normalize_pmcid(pmc) or ""
    return {k: v for k, v in ids.items() if v}


def _biblio(entry: dict[str, Any], scheme: str, *keys: str) -> dict[str, str]:
    """``TY`` / ``DT`` as a CSL type, ``M3`` as a thesis's or report's genre, ``VL``, the
    issue, the first and last pages (else the article number, as Crossref's ``page`` is a
    paper's ``article-number`` where it has no pages) and ``PB`` / ``PU``; ``keys``: the
    type, issue, first page, last page and article number fields."""
    kind, issue, first, last, article = (_first(entry, k) or "" for k in keys)
    csl = csl_type(scheme, str(kind).split(";")[0])
    genre = _first(entry, "type_of_work") if csl in ("thesis", "report") else ""
    pages = page_range(first, last) if str(first).strip() else page_range(article)
    return biblio(csl, genre=genre, volume=_first(entry, "volume"), issue=issue, pages=pages,
                  publisher=_first(entry, "publisher"))  # fmt: skip


def _elibrary_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with ``TY`` as its RIS code where the type is spelled out (eLibrary.ru's
    ``TY  - Journal Article``: :func:`~litsift.sources.formats.biblio_types.ris_type_code`)
    and ``VO`` as the volume where there is no ``VL`` (eLibrary.ru's ``VO  - 8``)."""
    kind = _first(entry, "type_of_reference")
    out = {**entry, "type_of_reference": ris_type_code(kind)} if kind else entry
    if not _first(out, "volume") and _first(out, "volume_vo"):
        out = {**out, "volume": _first(out, "volume_vo")}
    return out


def _ris_record(entry: dict[str, Any], n: int) -> SourceRecord:
    entry = _elibrary_fields(entry)
    files = [*(entry.get("file_attachments1") or []), *(entry.get("file_attachments2") or [])]
    urls = entry.get("urls") or []
    screening = [str(n) for n in entry.get("notes") or [] if has_rayyan_notes(str(n))]
    rayyan = [got for n in screening if (got := rayyan_notes(n)) is not None]
    return SourceRecord(
        location=f"record {n}",
        title=clean_text(_first(entry, "title", "primary_title", "short_title")),
        abstract=clean_text(_first(entry, "abstract", "notes_abstract")),
        **ris_byline(entry),
        year=year_from(_first(entry, "year", "publication_year", "date")),
        venue=clean_text(
            _first(
                entry,
                "secondary_title",
                "journal_name",
                "alternate_title3",
                "alternate_title1",
                "alternate_title2",  # JA: the only journal field of Cochrane CENTRAL
                "publisher",  # a book's without a series, as BibTeX's import takes it
            )
        ),
        url=clean_text(urls[0]) if urls else "",
        ids=_ids(entry),
        tags=[  # MeSH / Emtree / PsycInfo marks removed, as from MEDLINE: ``*Memory``
            t
            for k in [*(entry.get("keywords") or []), *(t for r in rayyan for t in r.labels)]
            if (t := subject_heading(k))
        ],
        notes=[*(line for r in rayyan for line in r.note_lines(labels=False)), *ris_notes(entry)],
        screening="\n".join(screening),
        attachments=[Path(f) for f in files if isinstance(f, str) and f.lower().endswith(".pdf")],
        source_key=clean_text(_first(entry, "id")),
        locator=_locator(entry, "number", "start_page", "custom7", "issn"),
        biblio=_biblio(
            entry, "ris", "type_of_reference", "number", "start_page", "end_page", "custom7"
        ),
    )


def _locator(
    entry: dict[str, Any], issue: str, page: str, article: str, isbn: str
) -> dict[str, str]:
    own = _first(entry, "id")  # a litsift review export's ``key:`` id carries its locator
    found = locator_of_id(own.strip()) if isinstance(own, str) else {}
    text = [str(_first(entry, k) or "") for k in ("volume", issue, page, article, isbn)]
    return {**found, **locator(*text)}


#: where a WoS record's year is, best first (rispy's names of PY, EY, EA, PD)
_WOS_YEAR_KEYS = ("publication_year", "early_access_year", "early_access_date", "publication_date")


def _wos_record(entry: dict[str, Any], n: int) -> SourceRecord:
    from litsift.sources.base import unique_tags  # here: the module is at its size limit

    entry = inspec_fields(entry)  # WoS's Inspec: ID the identifiers, DE indexing sections
    key = clean_text(_first(entry, "accession_number", "unique_id"))
    ids = {
        "doi": normalize_doi(_first(entry, "doi")),
        # a record of WoS's MEDLINE database: ``UT MEDLINE:16735938``
        "pmid": normalize_pmid(_first(entry, "pubmed_id") or key.partition("MEDLINE:")[2]),
    }
    return SourceRecord(
        location=f"record {n}",
        title=clean_text(_first(entry, "document_title", "title")),
        abstract=clean_text(_first(entry, "abstract")),
        **wos_byline(entry),  # AF / AU authors, BE editors
        # an early-access record has no PY yet: EY / EA, as the tab-delimited reader does
        year=year_from(_first(entry, *_WOS_YEAR_KEYS)),
        venue=clean_text(_first(entry, "publication_name")),
        ids={k: v for k, v in ids.items() if v},
        tags=unique_tags((_first(entry, "author_keywords"), _first(entry, "keywords_plus")), ";"),
        source_key=key,
        locator=_locator(entry, "issue", "beginning_page", "article_number", "isbn"),
        biblio=_biblio(
            entry,
            "wos",
            "document_type",
            "issue",
            "beginning_page",
            "ending_page",
            "article_number",
        ),
    )


def _parser(wos: bool) -> TaggedParser:
    return _WosParser() if wos else _RisParser(skip_unknown_tags=False)


def _read(path: Path, wos: bool) -> Iterator[SourceRecord | BadItem | Notice]:
    text = read_text(path)
    parser = _parser(wos)
    found = False
    for item in parser.records(text):
        found = True
        if isinstance(item, BadItem):
            yield item
            continue
        if item.warning:
            yield Notice(f"line {item.line}", item.warning)
        try:
            yield (_wos_record if wos else _ris_record)(item.fields, item.number)
        except (TypeError, ValueError, AttributeError) as err:  # a field of an odd shape
            yield BadItem(f"line {item.line}", f"record cannot be read ({err})"[:200])
    if not found:
        what = "Web of Science export (records start with 'PT ')" if wos else "RIS"
        raise IngestError(
            f"holds no records: not {'a ' if wos else ''}{what}",
            "check that the file is an export with 'TY  - ' ... 'ER  - ' records",
        )


def read_ris(path: Path) -> Iterator[SourceRecord | BadItem | Notice]:
    """Every record of an RIS file; a record without its ``ER`` line comes after a
    :class:`Notice` located at its first line (``line 120``), unless the file ends inside
    one of its lines: then it is a :class:`BadItem` located there.

    Raises:
        IngestError: the file cannot be read or holds no RIS record.
    """
    return _read(path, wos=False)


def read_wos(path: Path) -> Iterator[SourceRecord | BadItem | Notice]:
    """Every record of a Web of Science plain-text export; a record without its ``ER`` line
    as in :func:`read_ris`.

    Raises:
        IngestError: the file cannot be read or holds no WoS record.
    """
    return _read(path, wos=True)


FORMATS = [
    Format(
        name="ris",
        kind=Kind.PAPER,
        read=read_ris,
        sniff=lambda head, path: 90 if _RIS_TAG_RE.search(head.replace(b"\r", b"\n")) else 0,
        extensions=(".ris", ".enw"),
        description="RIS (.ris): Zotero, EndNote, Scopus, WoS, Embase, Ovid, IEEE Xplore",
    ),
    Format(
        name="wos",
        kind=Kind.PAPER,
        read=read_wos,
        sniff=lambda head, path: 95 if _WOS_RE.search(head[:200]) else 0,
        extensions=(".txt", ".ciw"),
        description="Web of Science plain-text (ISI tagged) export",
    ),
]


#: How ``litsift review export --format ris`` writes an exclusion reason as an ``N1`` line (not
#: read back as a note; :mod:`litsift.sources.formats.ris_review` reads a review's marks back).
REASON_PREFIX = "Exclusion reason: "
