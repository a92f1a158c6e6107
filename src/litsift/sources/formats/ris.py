"""RIS files (Zotero, EndNote, Scopus, Web of Science, Embase, Ovid, ProQuest, Rayyan, IEEE
Xplore) and Web of Science plain-text ("ISI tagged") exports, read line by line with rispy's
tag tables and parser classes, so that every record knows its line.

Tag grammar read (RIS): a line ``XY  - value`` -- two characters (an upper-case letter, then a
letter or digit), two spaces, a hyphen, a space. Files with an RIS tag followed by one space
(``TY - JOUR``: DataCite's and DSpace's RIS, Islandora) are read with one or two spaces before
the hyphen (not every file: a wrapped abstract line "US - based" would become a tag); a
missing space after the hyphen (``A1  -Bergel, F``) and a bare ``ER`` line are accepted, and
so are longer tags before two spaces (APA PsycNET's ``PMID  - 33355555`` and ``DESCRIPTORS  -
...``, which ran on into ``TY`` and lost the type; ``PMID`` is read). Lines
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
``IS``, ``SP``-``EP`` and ``PB`` the record's bibliographic details.

Web of Science: ``TI`` title, ``AB`` abstract, ``AF``/``AU`` authors, ``PY`` year (else the
early-access ``EY``/``EA``, else ``PD``), ``BE`` editors,
``SO`` venue, ``DI`` DOI, ``PM`` PubMed id, ``DE`` + ``ID`` keywords, ``UT`` accession number,
``VL``, ``IS``, ``BP``, ``AR``, ``BN`` the locator; ``DT``, ``VL``, ``IS``, ``BP``-``EP``,
``PU`` the bibliographic details. Tags rispy has no name for (``C3`` affiliations, ``WE``
index, and whatever Clarivate adds next) are kept under ``unknown_tag``, never fatal.

A record is ``TY`` (``PT`` in WoS) ... ``ER``. A file that ends inside a record (a cut
download, a truncated copy) yields that record as a :class:`BadItem` at its first line, and
the complete records before it as usual; so does a record that a new ``TY`` interrupts. Tags
after an ``ER`` start a record even without ``TY``/``PT`` (Rayyan's examples leave it out).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import rispy
from rispy.config import LIST_TYPE_TAGS, TAG_KEY_MAPPING, WOK_LIST_TYPE_TAGS, WOK_TAG_KEY_MAPPING

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, read_text, year_from
from litsift.sources.formats.biblio_types import biblio, csl_type, page_range
from litsift.sources.formats.rayyan_notes import has_rayyan_notes, rayyan_notes
from litsift.sources.formats.ris_names import ris_byline, wos_byline
from litsift.sources.formats.ris_notes import ris_notes
from litsift.sources.formats.subject_terms import subject_heading
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
_RIS_TAG_RE = re.compile(rb"^(?:\xef\xbb\xbf)?(?:\d+\.\s*)?TY {1,2}- ", re.MULTILINE)
_WOS_RE = re.compile(rb"^(?:\xef\xbb\xbf)?FN (?:Clarivate|Thomson|ISI)", re.MULTILINE)
#: a line with an RIS tag and one space before the hyphen (``TY - JOUR``)
_ONE_SPACE_TAG_RE = re.compile(r"^([A-Z][A-Z0-9]) -(?: |$)", re.MULTILINE)
#: databases whose RIS accession number (``AN``) is a PubMed id
_PUBMED_DB_RE = re.compile(r"medline|pubmed|\bnlm\b", re.IGNORECASE)


class TaggedRecord(NamedTuple):
    """One complete record of a tagged file: its first ``line`` (1-based), its ordinal
    ``number`` among the file's records (1-based) and rispy's ``fields`` dict."""

    line: int
    number: int
    fields: dict[str, Any]


class TaggedParser(rispy.RisParser):  # type: ignore[misc]  # rispy ships no type hints
    """rispy's parser read line by line: records carry their first line, and a record the
    file ends inside (or a new start tag interrupts) is a :class:`BadItem`, not lost.

    Subclasses set rispy's ``START_TAG``, ``END_TAG`` (``""`` when a blank line ends a
    record, as in MEDLINE), ``DEFAULT_MAPPING``, ``DEFAULT_LIST_TAGS``, ``DEFAULT_IGNORE``,
    and :attr:`TAG_RE`.
    """

    #: a tagged line: group 1 the tag, group 2 (optional) the value; other lines continue
    #: the tag above
    TAG_RE: ClassVar[re.Pattern[str]] = re.compile(r"^([A-Z][A-Z0-9]{1,11})  -(?: ?(.*))?$")
    #: True: an untagged line continues the last item of a list tag (MEDLINE wraps long
    #: MeSH headings); False: it is a new item (EndNote writes keywords one a line under
    #: one ``KW``)
    JOIN_LIST_CONTINUATION: ClassVar[bool] = False
    #: how messages name the end of a record
    END_NAME: ClassVar[str] = "'ER  - '"
    #: a tag that ends the file, and so the record open before it (WoS ``EF``)
    FILE_END_TAG: ClassVar[str] = "\0"
    #: other tags a record starts with, as its start tag does (ERIC's MEDLINE: ``OWN``)
    OTHER_START_TAGS: ClassVar[frozenset[str]] = frozenset()

    def parse_line(self, line: str) -> tuple[str | None, str]:
        """``(tag, value)`` of a tagged line, ``(None, text)`` of a continuation line (a BOM
        before the tag, where two exports were joined into one file, is dropped)."""
        line = line.removeprefix("\ufeff")
        if self.END_TAG and line.rstrip() == self.END_TAG:
            return self.END_TAG, ""
        m = self.TAG_RE.match(line)
        if m:
            return m.group(1).rstrip(), (m.group(2) or "").strip()
        return None, line.strip()

    def _continue(self, record: dict[str, Any], tag: str, text: str) -> None:
        name = self.mapping.get(tag)
        value = record.get(name) if name else None
        if self.JOIN_LIST_CONTINUATION and tag in self.list_tags and value:
            value[-1] = f"{value[-1]} {text}"
        elif name is not None and name not in record:  # continuing an empty first line
            self._add_tag(record, tag, text)
        else:
            self._add_tag(record, tag, text, extend_multiline=True)

    def complete(self, record: dict[str, Any], ended_by_newline: bool) -> bool:
        """Whether a record the file ends inside is complete anyway (MEDLINE has no end
        tag); False for formats with an end tag."""
        return False

    def records(self, text: str) -> Iterator[TaggedRecord | BadItem]:
        """Every record of ``text`` (line ends already ``\\n``), in file order.

        A record starts at its start tag, or at any other tag after the end of the last one
        (Rayyan's examples leave out ``TY`` / ``PT``); such a record without its start tag
        counts only when its end tag closes it: Ovid writes stray tags (``NL  -``) after
        ``ER`` that belong to no record.
        """
        record: dict[str, Any] | None = None
        start = number = 0
        started = False  # the open record began with the start tag
        last_tag: str | None = None
        lines = text.split("\n")
        ended_by_newline = lines[-1] == ""
        if ended_by_newline:  # the "" after the last line end is not a (blank) line
            lines.pop()
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                if n == len(lines) and not ended_by_newline:
                    continue  # cut inside the indent of a continuation line: not a blank line
                if not self.END_TAG and record is not None:
                    yield TaggedRecord(start, number, record)
                    record = None
                continue
            tag, value = self.parse_line(line)
            if tag == self.START_TAG and record is not None:
                if started:
                    yield BadItem(
                        f"line {start}",
                        f"record has no {self.END_NAME} line before the next record "
                        f"(line {n}); skipped",
                    )
                record = None
            if record is None:
                if tag is None or tag in self.ignore or tag == self.END_TAG:
                    continue
                started = tag == self.START_TAG or tag in self.OTHER_START_TAGS
                record, start, last_tag = {}, n, tag
                number += 1
                self._add_tag(record, tag, value)
                continue
            if tag is None:
                if last_tag is not None and last_tag not in self.ignore:
                    self._continue(record, last_tag, value)
                continue
            last_tag = tag
            if tag == self.END_TAG or tag == self.FILE_END_TAG:
                yield TaggedRecord(start, number, record)
                record = None
            elif tag not in self.ignore:
                self._add_tag(record, tag, value)
        if record is not None and started:
            if self.complete(record, ended_by_newline):
                yield TaggedRecord(start, number, record)
            else:
                yield BadItem(
                    f"line {start}",
                    f"record cut short: the file ends before its {self.END_NAME} line "
                    "(a truncated download or copy?)",
                )


class _RisParser(TaggedParser):
    DEFAULT_IGNORE: ClassVar[list[str]] = []
    #: rispy's table, plus ``ED`` (editors) and ``PMID`` (rispy has no name for them)
    DEFAULT_MAPPING: ClassVar[dict[str, str]] = {
        **TAG_KEY_MAPPING,
        "ED": "editors",
        "PMID": "pubmed_id",
    }
    DEFAULT_LIST_TAGS: ClassVar[list[str]] = [*LIST_TYPE_TAGS, "ED"]

    def _continue(self, record: dict[str, Any], tag: str, text: str) -> None:
        if tag != "N1" or not record.get("notes"):  # an N1's lines stay one item
            return super()._continue(record, tag, text)
        record["notes"][-1] = f"{record['notes'][-1]}\n{text}"


class _RisOneSpaceParser(_RisParser):
    TAG_RE = re.compile(r"^([A-Z][A-Z0-9](?= {1,2}-)|[A-Z][A-Z0-9]{2,11}(?=  -)) *-(?: ?(.*))?$")


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
    ids["pmid"] = normalize_pmid(_first(entry, "pubmed_id")) or ""  # PsycNET: PMID
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
    issue, the first and last pages and ``PB`` / ``PU``; ``keys``: the type, issue, first
    and last page fields."""
    kind, issue, first, last = (_first(entry, k) or "" for k in keys)
    csl = csl_type(scheme, str(kind).split(";")[0])
    genre = _first(entry, "type_of_work") if csl in ("thesis", "report") else ""
    pages = page_range(first, last)
    return biblio(csl, genre=genre, volume=_first(entry, "volume"), issue=issue, pages=pages,
                  publisher=_first(entry, "publisher"))  # fmt: skip


def _ris_record(entry: dict[str, Any], n: int) -> SourceRecord:
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
        biblio=_biblio(entry, "ris", "type_of_reference", "number", "start_page", "end_page"),
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
        biblio=_biblio(entry, "wos", "document_type", "issue", "beginning_page", "ending_page"),
    )


def _parser(text: str, wos: bool) -> TaggedParser:
    if wos:
        return _WosParser()
    one_space = any(m.group(1) in TAG_KEY_MAPPING for m in _ONE_SPACE_TAG_RE.finditer(text))
    return (_RisOneSpaceParser if one_space else _RisParser)(skip_unknown_tags=False)


def _read(path: Path, wos: bool) -> Iterator[SourceRecord | BadItem]:
    text = read_text(path)
    parser = _parser(text, wos)
    found = False
    for item in parser.records(text):
        found = True
        if isinstance(item, BadItem):
            yield item
            continue
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


def read_ris(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every record of an RIS file; a record the file ends inside is a :class:`BadItem`
    located at its first line (``line 120``).

    Raises:
        IngestError: the file cannot be read or holds no RIS record.
    """
    return _read(path, wos=False)


def read_wos(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every record of a Web of Science plain-text export; a record the file ends inside is
    a :class:`BadItem` located at its first line.

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
