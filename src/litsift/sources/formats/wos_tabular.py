"""Web of Science "full record" exports as a table: tab-delimited text (``savedrecs.txt``, "Tab
delimited (Win/Mac, UTF-8)" or the older UTF-16 "Tab-delimited (Win)") and the Excel export
saved as CSV (comma or, in some locales, semicolon separated).

Recognised by the header row, whatever the file's name:

* **tags** (``PT AU BA BE GP AF BF CA TI SO SE ... UT PM OA HC HP DA``): WoS's two-letter field
  tags, as in the plain-text export and the tab-delimited text up to today;
* **full names** (``Publication Type``, ``Authors``, ``Article Title``, ``Source Title``,
  ``Publication Year``, ``DOI``, ``Pubmed Id``, ``UT (Unique WOS ID)``, ...): the Excel export
  since WoS's 2020 interface, ``UT (Unique ID)`` in searches of all databases.

Each field is read under every name WoS has given it (:data:`COLUMNS`), from the first of its
columns that holds a value (exports repeat ``DOI``): title ``TI``; authors ``AF`` (full names,
``Family, Given``) or else ``AU``, then the book authors (``BF`` / ``BA``), then the group
authors (``CA`` / ``GP``) when there are no persons; the editors ``BE`` (a book's, or those of
the proceedings a paper is in; never authors); year ``PY``, else the early-access date
``EA`` / ``EY`` (early-access records have no ``PY`` yet), else ``PD``; venue ``SO`` or the
book series ``SE``; ``AB``; DOI ``DI`` or ``D2`` (book DOI); PubMed id ``PM``; keywords ``DE``
and Keywords Plus ``ID`` as tags; the WoS accession number ``UT`` (``WOS:000717496600001``) as
the record's source key (litsift has no identifier scheme for it); ``VL``, ``IS``, ``BP``,
``AR``, ``BN`` the locator (volume, issue, first page, article number, ISBN); ``DT`` (the type,
as the plain-text export's), ``VL``, ``IS``, ``BP``-``EP`` (else ``AR``) and ``PU`` the
bibliographic details. A cell ``NA`` is empty (R's ``write.csv`` writes empty cells so, and
bibliometrix users save WoS tables with it).

The tab-delimited text quotes nothing (a title may hold a ``"``): each line is one row, and WoS
ends every row with one more tab than the header has. The CSV is read with the csv module's
quoting, so a quoted cell may span lines. Records are located as ``row N`` (the header is row
1); a row whose cells do not line up with the header (fewer, or more that hold values), a row
with neither title nor abstract (one with an abstract goes on to the writer, which keeps it in
a review's import and reports it in an ingest), and a last row the file ends inside, are
:class:`~litsift.sources.base.BadItem`
at ``line L`` (the row's first line), and the rows around them are read as usual.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from litsift.errors import IngestError
from litsift.sources.base import (
    BadItem,
    Format,
    Notice,
    SourceRecord,
    clean_text,
    decode_text,
    read_bytes,
    year_from,
)
from litsift.sources.formats.biblio_types import biblio, csl_type, page_range
from litsift.sources.formats.people import People, byline
from litsift.sources.formats.ris_names import tagged_people
from litsift.sources.identity.ids import normalize_doi, normalize_pmid
from litsift.sources.identity.locators import locator
from litsift.types import Kind

__all__ = ["COLUMNS", "FORMATS", "Header", "read_header", "read_wos_table"]

#: every name WoS has given a column litsift reads: its tag, then its full names (compared
#: without regard to case)
COLUMNS: dict[str, tuple[str, ...]] = {
    "title": ("TI", "Article Title", "Title"),
    "full_names": ("AF", "Author Full Names", "Author Full Name"),
    "authors": ("AU", "Authors"),
    "book_full_names": ("BF", "Book Author Full Names"),
    "book_authors": ("BA", "Book Authors"),
    "editors": ("BE", "Book Editors"),
    "groups": ("CA", "Group Authors"),
    "book_groups": ("GP", "Book Group Authors"),
    "year": ("PY", "Publication Year"),
    "early_access_year": ("EY", "Early Access Year"),
    "early_access": ("EA", "Early Access Date"),
    "date": ("PD", "Publication Date"),
    "venue": ("SO", "Source Title"),
    "series": ("SE", "Book Series Title"),
    "abstract": ("AB", "Abstract"),
    "doi": ("DI", "DOI"),
    "book_doi": ("D2", "Book DOI"),
    "doi_link": ("DL", "DOI Link"),
    "pmid": ("PM", "Pubmed Id", "PubMed ID"),
    "keywords": ("DE", "Author Keywords"),
    "keywords_plus": ("ID", "Keywords Plus"),
    "ut": ("UT", "UT (Unique WOS ID)", "UT (Unique ID)", "Unique WOS ID"),
    "volume": ("VL", "Volume"),
    "issue": ("IS", "Issue"),
    "page": ("BP", "Start Page"),
    "article": ("AR", "Article Number"),
    "isbn": ("BN", "ISBN"),
    "doc_type": ("DT", "Document Type"),
    "end_page": ("EP", "End Page"),
    "publisher": ("PU", "Publisher"),
}
#: columns worth a warning when the header has them under none of their names, with what
#: stands for them
_EXPECTED: dict[str, tuple[str, ...]] = {
    "authors": ("full_names", "authors", "book_full_names", "book_authors", "groups"),
    "year": ("year", "early_access_year", "early_access", "date"),
    "venue": ("venue", "series"),
    "doi": ("doi", "book_doi", "doi_link"),
    "ut": ("ut",),
}
#: tags only a WoS header has together (PT, AU, TI alone are RIS's and MEDLINE's too)
_WOS_TAGS = frozenset(
    "AF BF CA SO SE BS LA DT CT CY CL SP HO DE ID AB C1 C3 RP EM RI OI FU FP FX CR NR TC Z9 U1 "
    "U2 PU PI PA SN EI BN J9 JI PD PY VL IS PN SU SI MA BP EP AR DI DL D2 EA EY PG WC WE SC GA "
    "UT PM OA HC HP DA".split()
)
#: full-name columns only a WoS header has (Scopus writes ``Title``, ``Source title``)
_WOS_NAMES = frozenset(
    n.lower()
    for n in (
        "Article Title",
        "Author Full Names",
        "Keywords Plus",
        "UT (Unique WOS ID)",
        "UT (Unique ID)",
        "Times Cited, WoS Core",
        "Times Cited, All Databases",
        "Web of Science Index",
        "WoS Categories",
        "Journal ISO Abbreviation",
        "IDS Number",
        "Cited Reference Count",
        "Since 2013 Usage Count",
        "180 Day Usage Count",
    )
)
#: the longest cell read (characters)
_MAX_CELL = 16 * 1024 * 1024
_DELIMITERS = {"\t": "tab", ",": "csv", ";": "csv"}
_LINE_END_RE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Header:
    """A recognised WoS header row.

    Attributes:
        layout: ``wos-tags-tab``, ``wos-tags-csv``, ``wos-names-tab`` or ``wos-names-csv``.
        delimiter: ``\\t``, ``,`` or ``;``.
        names: the header's cells, stripped (BOM removed).
        columns: field (a key of :data:`COLUMNS`) -> the indexes of its columns, in order.
    """

    layout: str
    delimiter: str
    names: tuple[str, ...]
    columns: dict[str, tuple[int, ...]]


def _recognise(names: list[str], delimiter: str) -> Header | None:
    names = [n.strip().lstrip("\ufeff").strip() for n in names]
    lower = [n.lower() for n in names]
    tags = {n for n in names if len(n) == 2}
    if "TI" in tags and len(tags & _WOS_TAGS) >= 6:
        kind = "tags"
    elif "article title" in lower and len(set(lower) & _WOS_NAMES) >= 2:
        kind = "names"
    else:
        return None
    columns: dict[str, tuple[int, ...]] = {}
    for field, aliases in COLUMNS.items():
        wanted = {a.lower() for a in aliases[1:]} if kind == "names" else {aliases[0].lower()}
        found = tuple(i for i, n in enumerate(lower) if n in wanted)
        if found:
            columns[field] = found
    layout = f"wos-{kind}-{_DELIMITERS[delimiter]}"
    return Header(layout, delimiter, tuple(names), columns)


def read_header(first_line: str) -> Header | None:
    """The WoS header that ``first_line`` (a file's first line, without its line break) is,
    tried with a tab, a comma and a semicolon as separator; None when it is none."""
    for delimiter in _DELIMITERS:
        if delimiter not in first_line:
            continue
        if delimiter == "\t":
            cells = first_line.split("\t")
        else:
            try:
                cells = next(csv.reader([first_line], delimiter=delimiter))
            except (csv.Error, StopIteration):
                continue
        header = _recognise(cells, delimiter)
        if header is not None:
            return header
    return None


@dataclass
class _Row:
    line: int  # the row's first line
    cells: list[str]
    complete: bool  # the row ends with its line break


def _tab_rows(text: str) -> Iterator[_Row]:
    lines = _LINE_END_RE.split(text)
    for i, line in enumerate(lines[1:], start=2):
        last = i == len(lines)
        if last and not line:
            return
        yield _Row(i, line.split("\t"), not last)


def _csv_rows(text: str, delimiter: str) -> Iterator[_Row]:
    consumed: list[str] = []
    line = 1

    def source() -> Iterator[str]:
        for piece in io.StringIO(text, newline=""):
            consumed.append(piece)
            yield piece

    for n, cells in enumerate(csv.reader(source(), delimiter=delimiter)):
        raw = "".join(consumed)
        consumed.clear()
        if n:
            yield _Row(line, cells, raw.endswith(("\n", "\r")))
        line += len(io.StringIO(raw, newline="").readlines()) or 1


def read_wos_table(path: Path) -> Iterator[SourceRecord | BadItem | Notice]:
    """Every row of a Web of Science tab-delimited or CSV full-record export.

    Yields first a :class:`~litsift.sources.base.Notice` naming the layout (``wos-tags-tab``,
    ``wos-names-csv``, ...), then one for each expected column the header lacks; then a
    record per row (``row N``), or a bad item (``line L``) for a row that cannot be read.

    Raises:
        IngestError: the file cannot be read or its first line is no WoS header.
    """
    text = decode_text(read_bytes(path))
    first, *rest = _LINE_END_RE.split(text, maxsplit=1)
    header = read_header(first)
    if header is None:
        raise IngestError(
            "not a Web of Science tab-delimited or CSV export (no WoS header row)",
            "export the records again from Web of Science as 'Tab delimited file' or Excel, "
            "with the full record",
        )
    if not rest:
        raise IngestError("the file holds its header row only", "export the records again")
    if csv.field_size_limit() < _MAX_CELL:  # cited references pass the 128 KiB default
        csv.field_size_limit(_MAX_CELL)
    yield Notice("", layout=header.layout)
    for what, fields in _EXPECTED.items():
        if not any(f in header.columns for f in fields):
            names = " / ".join(n for f in fields for n in COLUMNS[f][:2])
            yield Notice("", f"no {what} column ({names}) in this export: not read")
    named = len(header.names)
    while named and not header.names[named - 1]:  # a last header cell with no name
        named -= 1
    rows = _tab_rows(text) if header.delimiter == "\t" else _csv_rows(text, header.delimiter)
    n = 1
    try:
        for n, row in enumerate(rows, start=2):
            if not any(c.strip() for c in row.cells):
                continue
            yield _item(n, row, header, named)
    except csv.Error as err:  # the reader cannot go on past this (an over-long cell)
        yield BadItem(f"row {n + 1}", f"unreadable CSV ({err}); the rows after it are not read")


def _item(n: int, row: _Row, header: Header, named: int) -> SourceRecord | BadItem:
    cells = row.cells
    where = f"line {row.line}"
    if len(cells) < named:
        if not row.complete:
            why = f"the file ends inside this row, after {len(cells)} of its {named} columns"
            return BadItem(where, f"row {n} is cut: {why}; it is not imported")
        return BadItem(where, f"row {n} has {len(cells)} columns, the header {named}: not read")
    if any(c.strip() for c in cells[len(header.names) :]):
        extra = len(cells) - named
        why = f"{extra} more columns than the header (a separator inside a cell?)"
        return BadItem(where, f"row {n} has {why}: its columns do not line up, not read")

    def get(field: str) -> str:
        for i in header.columns.get(field, ()):
            value = clean_text(cells[i]) if i < len(cells) else ""
            if value and value != "NA":  # R's write.csv marks empty cells NA
                return value
        return ""

    title = get("title")
    if not title and not get("abstract"):  # with an abstract the writer decides (a review's
        # import keeps it, labelled by its DOI and first words; an ingest reports "no title")
        return BadItem(where, f"row {n} has no title: not read")
    people = [p for p in get("full_names").split(";") if p.strip()]
    people = people or [p for p in get("authors").split(";") if p.strip()]
    people = people or [p for p in get("book_full_names").split(";") if p.strip()]
    people = people or [p for p in get("book_authors").split(";") if p.strip()]
    authors = tagged_people(people)
    if not authors.names:
        groups = [clean_text(g) for g in (get("groups") or get("book_groups")).split(";")]
        authors = People([g for g in groups if g], [g for g in groups if g], [])
    editors = tagged_people([p for p in get("editors").split(";") if p.strip()])
    ids: dict[str, str] = {}
    doi = normalize_doi(get("doi")) or normalize_doi(get("book_doi"))
    doi = doi or normalize_doi(get("doi_link"))
    if doi:
        ids["doi"] = doi
    pmid = normalize_pmid(get("pmid"))
    if pmid:
        ids["pmid"] = pmid
    tags: list[str] = []
    for cell in (get("keywords"), get("keywords_plus")):
        for tag in (clean_text(t) for t in cell.split(";")):
            if tag and tag not in tags:
                tags.append(tag)
    year = year_from(get("year")) or year_from(get("early_access_year"))
    return SourceRecord(
        location=f"row {n}",
        title=title,
        abstract=get("abstract"),
        **byline(authors, editors),
        year=year or year_from(get("early_access")) or year_from(get("date")),
        venue=get("venue") or get("series"),
        url=get("doi_link"),
        ids=ids,
        tags=tags,
        source_key=get("ut"),
        locator=locator(*(get(f) for f in ("volume", "issue", "page", "article", "isbn"))),
        biblio=biblio(
            csl_type("wos", get("doc_type").split(";")[0]),
            volume=get("volume"),
            issue=get("issue"),
            # no pages: the article number, as Crossref's ``page`` is then its article-number
            pages=page_range(get("page"), get("end_page")) or get("article"),
            publisher=get("publisher"),
        ),
    )


def _sniff(head: bytes, path: Path) -> int:
    first = _LINE_END_RE.split(head.decode("utf-8-sig", errors="replace"), maxsplit=1)[0]
    return 95 if read_header(first) else 0


FORMATS = [
    Format(
        name="wos-tab",
        kind=Kind.PAPER,
        read=read_wos_table,
        sniff=_sniff,
        # no ".txt": savedrecs.txt is recognised by its header row, and the message for a .txt
        # no format reads keeps naming the plain-text formats (wos, refer, medline)
        extensions=(".tsv", ".tab", ".csv"),
        description="Web of Science full-record export: tab-delimited savedrecs.txt or CSV",
    )
]
