"""PubMed MEDLINE text (``.nbib``; PubMed's "Save > Format: PubMed", ``pubmed-*-set.txt``),
read line by line with rispy's parser machinery
(:class:`~litsift.sources.formats.tagged.TaggedParser`).

Grammar (NLM, "MEDLINE/PubMed Data Element (Field) Descriptions"): a line is a tag of up to
four characters padded to four, ``- ``, and the value (``PMID- 27919275``, ``TI  - Rayyan``);
a line indented six spaces continues the field above; a blank line ends a record. Other
writers pad differently (ERIC: ``ISSN - ISSN-0013-1784``, ``ISBN - ...``; other tools
``PMID  - 21730035``, ``TI   - ...``): a line that starts with a tag of two to four capitals or
digits, any spaces and ``-`` is a tag line however it is padded (as an indented line never
does), so such a line never runs on into the field above (ERIC's abstracts ended in "ISSN -
ISSN-...").

Fields read: ``PMID`` (PubMed id), ``TI`` (``BTI`` for books) title, ``AB`` abstract, ``FAU``
full author names and ``CN`` collective authors in file order (``AU`` names with initials when
there is no ``FAU``, as in records before 2002), ``FED`` (else ``ED``) the editors of an NCBI
Bookshelf book or of the book a chapter is in (never authors), ``DP`` year, ``LID``/``AID`` ids
marked ``[doi]``, ``PMC`` PMC id, ``JT`` journal (``TA`` abbreviation when there is no ``JT``),
``MH`` MeSH headings (qualifiers and ``*`` removed) and ``OT`` author keywords (NLM's marks
removed, a keyword's own ``/`` kept: :mod:`~litsift.sources.formats.subject_terms`) as tags; ``VI``,
``IP``, ``PG``, ``PB`` and the type (a book's chapter or a book when ``BTI`` is there, a
preprint when ``PT`` says so, else a journal article) the bibliographic details. Other tags are
ignored.

ERIC's ``.nbib`` export uses the same grammar: its records start with ``OWN - ERIC`` (no
``PMID``), write ``AU`` as ``Family, Given``, and give links in ``AID``/``LID`` (a DOI read
off them; the first is the record's URL).

PubMed writes ``SO`` (source) as the last line of every record, so the record the file ends in
is complete only when it has its ``SO`` line and the file ends with a line break, or that line
is whole without one (it names a year and ends with ``.``, as PubMed's ``Cell. 1993 Oct
8;75(1):25-36.``: a record copied out of PubMed's page, a file written without a last line
break); otherwise it is reported as cut (unless the file's earlier records show that its
writer omits ``SO``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

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
from litsift.sources.formats.biblio_types import biblio, inverted_parts
from litsift.sources.formats.people import People, byline
from litsift.sources.formats.subject_terms import subject_heading
from litsift.sources.formats.tagged import TaggedParser, TaggedRecord
from litsift.sources.identity.ids import ids_in_text, normalize_doi, normalize_pmcid, normalize_pmid
from litsift.types import Kind

__all__ = ["FORMATS", "read_medline"]

#: a PubMed record's first line, or an ERIC record's (``OWN - ERIC``)
_SNIFF_RE = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*(?:PMID *- ?[0-9]|OWN - [A-Z])")
_ID_MARK_RE = re.compile(r"^(.*?)\s*\[([a-z\-]+)\]\s*$")
#: a whole ``SO`` line: a year in it, a full stop at its end
_WHOLE_SOURCE_RE = re.compile(r"\b(?:1[89]|20)[0-9]{2}\b.*\.\s*$", re.DOTALL)

#: MEDLINE tag -> field name (the order of FAU, AU and CN lines is kept apart, in "bylines")
_MAPPING: dict[str, str] = {
    "PMID": "pmid",
    "TI": "title",
    "BTI": "book_title",
    "AB": "abstract",
    "FAU": "full_authors",
    "CN": "collective_authors",
    "AU": "authors",
    "FED": "full_editors",
    "ED": "editors",
    "DP": "date",
    "LID": "ids",
    "AID": "ids",
    "PMC": "pmcid",
    "JT": "journal",
    "TA": "journal_abbreviation",
    "MH": "mesh_headings",
    "OT": "other_terms",
    "SO": "source",
    "VI": "volume",
    "IP": "issue",
    "PG": "pages",
    "PT": "publication_types",
    "PB": "publisher",
}
_LIST_TAGS = ["FAU", "CN", "AU", "FED", "ED", "LID", "AID", "MH", "OT", "PT"]
_BYLINE_TAGS = ("FAU", "AU", "CN")


class _MedlineParser(TaggedParser):
    START_TAG = "PMID"
    OTHER_START_TAGS = frozenset({"OWN"})  # ERIC's records have no PMID
    END_TAG = ""
    DEFAULT_MAPPING: ClassVar[dict[str, str]] = _MAPPING
    DEFAULT_LIST_TAGS: ClassVar[list[str]] = _LIST_TAGS
    DEFAULT_DELIMITER_MAPPING: ClassVar[dict[str, str]] = {}
    DEFAULT_IGNORE: ClassVar[list[str]] = []
    #: the tag, padded to four characters (``PMID-``, ``FAU -``, ``TI  -``) or otherwise
    #: (``ISSN - ``, ``PMID  - ``); continuation lines are indented
    TAG_RE = re.compile(r"^([A-Z][A-Z0-9]{1,3}) *-(?: (.*))?$")
    JOIN_LIST_CONTINUATION = True
    END_NAME = "'SO  - ' (source)"

    def __init__(self) -> None:
        super().__init__(skip_unknown_tags=True)
        #: a record that a blank line ended had no SO: this writer does not write it
        self.writes_source = True

    def records(self, text: str) -> Iterator[TaggedRecord | BadItem]:
        for item in super().records(text):
            if isinstance(item, TaggedRecord) and "source" not in item.fields:
                self.writes_source = False
            yield item

    def complete(self, record: dict[str, Any], ended_by_newline: bool) -> bool:
        if "pmid" not in record:  # ERIC writes SO for journal articles only: no end mark
            return "title" in record
        if "source" in record and not ended_by_newline:  # a last line without its break
            return bool(_WHOLE_SOURCE_RE.search(str(record["source"])))
        return ended_by_newline and ("source" in record or not self.writes_source)

    def _add_tag(
        self, record: dict[str, Any], tag: str, content: str, extend_multiline: bool = False
    ) -> None:
        if tag in _BYLINE_TAGS and not extend_multiline:  # persons and groups, in file order
            record.setdefault("bylines", []).append((tag, content))
        super()._add_tag(record, tag, content, extend_multiline=extend_multiline)

    def _continue(self, record: dict[str, Any], tag: str, text: str) -> None:
        bylines = record.get("bylines")
        if tag in _BYLINE_TAGS and bylines and bylines[-1][0] == tag:  # a long group name
            bylines[-1] = (tag, f"{bylines[-1][1]} {text}")
        super()._continue(record, tag, text)


def _person(name: str, initials: bool) -> tuple[str, str]:
    """``(display name, family name)`` of ``Qin, Shukui`` (FAU) or ``Qin S`` (AU)."""
    if "," in name:
        family, given = (p.strip() for p in name.split(",", 1))
        return f"{given} {family}".strip(), family
    parts = name.rsplit(" ", 1)
    if initials and len(parts) == 2 and parts[1].isupper() and len(parts[1]) <= 4:
        return f"{parts[1]} {parts[0]}", parts[0]
    return name, name  # a collective name (CN) is its own family name


def _editors(entry: dict[str, Any]) -> People:
    """The editors of a book or of the book a chapter is in: ``FED`` (``Family, Given``),
    else ``ED`` (``Family GI``, as ``AU``)."""
    full = [clean_text(n) for n in entry.get("full_editors") or [] if clean_text(n)]
    short = [clean_text(n) for n in entry.get("editors") or [] if clean_text(n)]
    people = [_person(n, initials=not full) for n in full or short]
    return People([p[0] for p in people], [p[1] for p in people], inverted_parts(full))


def _heading(value: str) -> str:
    """``Carcinoma, Hepatocellular`` from ``Carcinoma, Hepatocellular/*drug therapy``."""
    return clean_text(value.split("/", 1)[0].lstrip("*"))


def _record(entry: dict[str, Any], n: int) -> SourceRecord:
    bylines: list[tuple[str, str]] = entry.get("bylines") or []
    person_tag = "FAU" if any(tag == "FAU" for tag, _ in bylines) else "AU"
    people = [
        _person(clean_text(name), initials=tag == "AU")
        for tag, name in bylines
        if tag in (person_tag, "CN") and clean_text(name)
    ]
    ids: dict[str, str] = {}
    pmid = normalize_pmid(entry.get("pmid"))
    if pmid:
        ids["pmid"] = pmid
    pmc = normalize_pmcid(entry.get("pmcid"))
    if pmc:
        ids["pmcid"] = pmc
    links: list[str] = []
    for value in entry.get("ids") or []:
        m = _ID_MARK_RE.match(value)
        if m and m.group(2) == "doi" and "doi" not in ids:
            doi = normalize_doi(m.group(1))
            if doi:
                ids["doi"] = doi
        elif m and m.group(2) == "pmc" and "pmcid" not in ids:
            ids["pmcid"] = normalize_pmcid(m.group(1)) or ""
        elif not m:  # ERIC: links, a DOI one among them
            links.append(value.strip())
            for scheme, found in ids_in_text(value).items():
                ids.setdefault(scheme, found)
    tags: list[str] = []
    for tag in [
        *(_heading(h) for h in entry.get("mesh_headings") or []),
        *(subject_heading(t) for t in entry.get("other_terms") or []),  # keeps "HIV/AIDS"
    ]:
        if tag and tag not in tags:
            tags.append(tag)
    return SourceRecord(
        location=f"record {n}",
        title=clean_text(entry.get("title") or entry.get("book_title")),
        abstract=clean_text(entry.get("abstract")),
        **byline(
            People(
                [p[0] for p in people],
                [p[1] for p in people],
                inverted_parts(name for tag, name in bylines if tag == person_tag),
            ),
            _editors(entry),
        ),
        year=year_from(entry.get("date")),
        venue=clean_text(entry.get("journal") or entry.get("journal_abbreviation")),
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else next(iter(links), ""),
        ids={k: v for k, v in ids.items() if v},
        tags=tags,
        source_key=pmid or "",
        biblio=biblio(
            _type(entry),
            volume=entry.get("volume"),
            issue=entry.get("issue"),
            pages=entry.get("pages"),
            publisher=entry.get("publisher"),
        ),
    )


def _type(entry: dict[str, Any]) -> str:
    """A CSL type: PubMed holds journal articles, preprints and NCBI Bookshelf books and
    chapters (``BTI``: the book's title; with a ``TI`` too, the record is a chapter)."""
    if entry.get("book_title"):
        return "chapter" if entry.get("title") else "book"
    kinds = {str(t).strip().lower() for t in entry.get("publication_types") or []}
    return "article" if "preprint" in kinds else "article-journal"


def read_medline(path: Path) -> Iterator[SourceRecord | BadItem | Notice]:
    """Every record of a PubMed MEDLINE text file; a record the file ends inside is a
    :class:`BadItem` located at its ``PMID`` line (``line 120``); one that the next
    ``PMID`` line ends (no blank line between) comes after a :class:`Notice` there.

    Raises:
        IngestError: the file cannot be read or holds no ``PMID-`` record.
    """
    text = read_text(path)
    found = False
    for item in _MedlineParser().records(text):
        found = True
        if isinstance(item, BadItem):
            yield item
            continue
        if item.warning:
            yield Notice(f"line {item.line}", item.warning)
        try:
            yield _record(item.fields, item.number)
        except (TypeError, ValueError, AttributeError) as err:  # a field of an odd shape
            yield BadItem(f"line {item.line}", f"record cannot be read ({err})"[:200])
    if not found:
        raise IngestError(
            "holds no PubMed records (none starts with 'PMID- ')",
            "export from PubMed with Save > Format: PubMed (MEDLINE text)",
        )


FORMATS = [
    Format(
        name="medline",
        kind=Kind.PAPER,
        read=read_medline,
        sniff=lambda head, path: 95 if _SNIFF_RE.match(head) else 0,
        extensions=(".nbib", ".medline", ".txt"),
        description="PubMed MEDLINE text (.nbib, PubMed's 'PubMed' format); ERIC's .nbib",
    ),
]
