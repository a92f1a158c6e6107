"""CSV exports of bibliographic databases: Scopus, IEEE Xplore, SpringerLink.

Each is recognised by its header row and read with the csv module (UTF-8 with or without BOM):

* **Scopus** (``Authors``, ``Title``, ``Source title``). Authors come from ``Author full
  names`` when the export has it (since ~2022: ``Surname, Given (author id); ...``), else from
  ``Authors`` in either convention: ``Surname I.; Surname I.`` (since ~2022) or ``Surname I.,
  Surname I.`` (older exports); the count of ``Author(s) ID`` decides between them when a name
  holds a comma (``Vaccaro M., Jr.``). ``DOI`` (or the DOI inside ``Link``), ``PubMed ID``,
  ``EID`` (the source key), ``Author Keywords``; ``Volume``, ``Issue``, ``Page start``,
  ``Art. No.``, ``ISBN`` (the locator, as IEEE Xplore's ``Volume``, ``Issue``, ``Start Page``,
  ``ISBNs`` and SpringerLink's ``Journal Volume``, ``Journal Issue``).
* **IEEE Xplore**, the full export (``Document Title``, ``Publication Title``; ``Authors``
  ``Given Family; Given Family``) and the short one (``Title``, ``Authors``, ``Affiliations``,
  ``Publication``, ``Category``, ``DOI``; ``Given Family, Given Family``).
* **SpringerLink** (``Item Title``, ``Item DOI``): ``Authors`` runs the names together
  (``Araz R. AlievNigar T. Ismayilova``); they are split where a lower-case letter meets an
  upper-case one inside a name that already has a given and a family part, except after the
  name prefixes ``Mc``, ``Mac``, ``De``, ``Di``, ``Le``, ``La``, ... (``McDonald``); honorifics
  (``Prof.``, ``Dr.``) are dropped.

Authors are read as persons by :func:`litsift.sources.formats.csv_people.people`.

Vendors rename columns between export versions: each column is read under every name it has
had (:data:`ALIASES`: IEEE Xplore and SpringerLink have written the year as ``Year`` and as
``Publication Year``), and IEEE Xplore exports of ~2014-2017 start with a line holding the
search URL before the header (skipped). The layout recognised is a
:class:`~litsift.sources.base.Notice` (``files[].layout`` in ``litsift ingest --json``), and
each column the layout reads that the header lacks is a warning, so a renamed column is never
lost in silence.

Records are located as ``row N`` (the header is row 1). A row the file ends inside -- an open
quoted cell, fewer cells than the header, or a last cell cut before its line break -- is a
:class:`~litsift.sources.base.BadItem` at ``line L`` (the row's first line), never a record. A
last row without a line break whose last cell is unquoted is whole when that cell holds a value
the column already had (SpringerLink's ``Article``, ``Chapter``), else it may be cut.
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
from litsift.sources.formats.csv_people import people
from litsift.sources.identity.ids import ids_in_text, normalize_doi, normalize_pmid
from litsift.sources.identity.locators import locator
from litsift.types import Kind

__all__ = ["ALIASES", "FORMATS", "LAYOUTS", "Layout", "read_csv_export"]


@dataclass(frozen=True)
class Layout:
    """The columns of one vendor's CSV export ("" = the export has no such column).

    Attributes:
        name: ``scopus``, ``ieee``, ``ieee-short`` or ``springer``.
        required: header columns that identify the export.
        names: how the ``authors`` column writes people (see :func:`people`).
    """

    name: str
    required: tuple[str, ...]
    title: str
    authors: str
    names: str
    year: str
    venue: str
    doi: str
    url: str = ""
    abstract: str = ""
    keywords: str = ""
    full_names: str = ""
    author_ids: str = ""
    pmid: str = ""
    key: str = ""
    #: the locator's columns (:func:`litsift.sources.identity.locators.locator`)
    volume: str = ""
    issue: str = ""
    page: str = ""
    article: str = ""
    isbn: str = ""


LAYOUTS: tuple[Layout, ...] = (
    Layout(
        name="scopus",
        required=("Authors", "Title", "Source title"),
        title="Title",
        authors="Authors",
        names="scopus",
        year="Year",
        venue="Source title",
        doi="DOI",
        url="Link",
        abstract="Abstract",
        keywords="Author Keywords",
        full_names="Author full names",
        author_ids="Author(s) ID",
        pmid="PubMed ID",
        key="EID",
        volume="Volume",
        issue="Issue",
        page="Page start",
        article="Art. No.",
        isbn="ISBN",
    ),
    Layout(
        name="ieee",
        required=("Document Title", "Publication Title"),
        title="Document Title",
        authors="Authors",
        names="given-family;",
        year="Publication Year",
        venue="Publication Title",
        doi="DOI",
        url="PDF Link",
        abstract="Abstract",
        keywords="Author Keywords",
        volume="Volume",
        issue="Issue",
        page="Start Page",
        isbn="ISBNs",
    ),
    Layout(
        name="ieee-short",
        required=("Title", "Authors", "Affiliations", "Publication", "Category", "DOI"),
        title="Title",
        authors="Authors",
        names="given-family,",
        year="",
        venue="Publication",
        doi="DOI",
        abstract="Abstract",
    ),
    Layout(
        name="springer",
        required=("Item Title", "Item DOI"),
        title="Item Title",
        authors="Authors",
        names="run-together",
        year="Publication Year",
        venue="Publication Title",
        doi="Item DOI",
        url="URL",
        volume="Journal Volume",
        issue="Journal Issue",
    ),
)


#: other names a column has had in the vendors' exports (read when the layout's is absent)
ALIASES: dict[str, tuple[str, ...]] = {
    "Publication Year": ("Year", "Publication year"),
    "Year": ("Publication Year",),
    "Publication Title": ("Publication", "Source Title"),
    "Author Keywords": ("Author keywords", "Keywords"),
    "PDF Link": ("Document URL", "URL"),
    "Item DOI": ("DOI",),
    "URL": ("Link",),
}
#: columns a layout reads that are worth a warning when the header lacks them
_EXPECTED = ("authors", "year", "venue", "doi")


def _header_names(header: list[str]) -> set[str]:
    return {h.strip().lstrip("\ufeff") for h in header}


def _layout(header: list[str]) -> Layout | None:
    names = _header_names(header)
    for layout in LAYOUTS:
        if set(layout.required) <= names:
            return layout
    return None


def _column(name: str, col: dict[str, int]) -> int:
    """The index of column ``name`` under its own name or an alias; -1 when absent."""
    if not name:
        return -1
    for candidate in (name, *ALIASES.get(name, ())):
        if candidate in col:
            return col[candidate]
    return -1


def _missing(layout: Layout, col: dict[str, int]) -> list[str]:
    """The expected columns of ``layout`` that the header has under none of their names."""
    return [
        getattr(layout, f)
        for f in _EXPECTED
        if getattr(layout, f) and _column(getattr(layout, f), col) < 0
    ]


# --- rows --------------------------------------------------------------------------------


#: the longest cell read (characters)
_MAX_CELL = 16 * 1024 * 1024


@dataclass
class _Row:
    line: int  # the row's first line
    cells: list[str]
    raw: str  # the row's text as in the file, line breaks included


def _rows(text: str) -> Iterator[_Row]:
    """Every row of ``text`` with its first line number and its raw text."""
    consumed: list[str] = []
    lines_before = 0

    def source() -> Iterator[str]:
        for line in io.StringIO(text, newline=""):
            consumed.append(line)
            yield line

    for cells in csv.reader(source()):
        raw = "".join(consumed)
        yield _Row(lines_before + 1, cells, raw)
        lines_before += len(consumed)
        consumed.clear()


def _blank(row: _Row) -> bool:
    """An empty line (or empty cells) that ends with its line break; a last row cut right
    after its opening quote has empty cells too, but is not blank."""
    return not any(c.strip() for c in row.cells) and (
        row.raw.endswith(("\n", "\r")) or not row.raw.strip()
    )


def _cut_reason(row: _Row, n_columns: int, seen_last: set[str]) -> str | None:
    """Why the file's last row is cut, or None when it is whole (``seen_last``: the values
    the last column had in the rows before)."""
    try:
        for _ in csv.reader(io.StringIO(row.raw, newline=""), strict=True):
            pass
    except csv.Error as err:
        if "unexpected end of data" in str(err):
            return "the file ends inside a quoted cell of this row"
    if row.raw.endswith(("\n", "\r")):
        return None
    if len(row.cells) < n_columns:
        return f"the file ends after {len(row.cells)} of the {n_columns} columns of this row"
    if not row.raw.endswith('"') and row.cells[-1].strip() not in seen_last:
        return "the file ends inside the last cell of this row (no line break after it)"
    return None


def read_csv_export(path: Path) -> Iterator[SourceRecord | BadItem | Notice]:
    """Every row of a Scopus / IEEE Xplore / SpringerLink CSV export.

    Rows without a title, and a last row the file ends inside (a cut download), are bad items
    at ``line L``; the other rows are records at ``row N``.

    Raises:
        IngestError: the file cannot be read or its header is none of those exports'.
    """
    text = decode_text(read_bytes(path))
    if csv.field_size_limit() < _MAX_CELL:  # Scopus "References" cells pass the 128 KiB default
        csv.field_size_limit(_MAX_CELL)
    rows = _rows(text)
    try:
        first = next(rows, None)
        if first is not None and _layout(first.cells) is None and _preamble(first.cells):
            first = next(rows, None)  # IEEE Xplore ~2014-2017: the search URL, then the header
    except csv.Error as err:
        raise IngestError(f"not a readable CSV file ({err})", "check the file") from None
    header = first.cells if first else []
    layout = _layout(header)
    if first is None or layout is None:
        raise IngestError(
            "not a Scopus, IEEE Xplore or SpringerLink CSV export",
            "export the search results again as CSV with the column headers",
        )
    if not first.raw.endswith(("\n", "\r")):
        raise IngestError(
            "the file ends inside its header row", "the download was cut: export it again"
        )
    col: dict[str, int] = {}
    for i, h in enumerate(header):
        col.setdefault(h.strip().lstrip("\ufeff"), i)
    yield Notice("", layout=layout.name)
    for name in _missing(layout, col):
        why = f"no column {name!r} in this {layout.name} export: its values are not read"
        yield Notice("", why)
    pending: tuple[int, _Row] | None = None  # held back until we know it is not the last row
    seen_last: set[str] = set()
    last = first
    try:
        for n, row in enumerate(rows, start=2):
            if pending is not None:
                yield _item(*pending, layout, col, len(header), last=False)
                seen_last.add(pending[1].cells[-1].strip() if pending[1].cells else "")
            pending = (n, row) if not _blank(row) else None
            last = row
    except csv.Error as err:  # the reader cannot go on past this (an over-long cell)
        line = last.line + len(io.StringIO(last.raw, newline="").readlines())
        yield BadItem(f"line {line}", f"unreadable CSV ({err}); the rows after it are not read")
        return
    if pending is not None:
        yield _item(*pending, layout, col, len(header), last=True, seen_last=seen_last)


def _preamble(cells: list[str]) -> bool:
    """A line before the header that IEEE Xplore wrote: the search URL (and the date)."""
    return bool(cells) and cells[0].strip().startswith(("http://", "https://")) and len(cells) <= 3


def _item(
    n: int,
    row: _Row,
    layout: Layout,
    col: dict[str, int],
    n_columns: int,
    last: bool,
    seen_last: set[str] | None = None,
) -> SourceRecord | BadItem:
    if last:
        reason = _cut_reason(row, n_columns, seen_last or set())
        if reason:
            return BadItem(f"line {row.line}", f"row {n} is cut: {reason}; it is not imported")
    cells = row.cells

    def get(name: str) -> str:
        i = _column(name, col)
        value = clean_text(cells[i]) if 0 <= i < len(cells) else ""
        return "" if value == "NA" else value  # R's write.csv marks empty cells NA

    title = get(layout.title)
    if not title:
        has_title = len(cells) > _column(layout.title, col)
        why = "no title" if has_title else f"only {len(cells)} columns"
        return BadItem(f"line {row.line}", f"row {n}: {why}, the header has {n_columns}")
    authors, families = people(
        get(layout.authors), layout.names, get(layout.full_names), get(layout.author_ids)
    )
    url = get(layout.url)
    ids = ids_in_text(url)
    doi = normalize_doi(get(layout.doi))
    if doi:
        ids["doi"] = doi
    pmid = normalize_pmid(get(layout.pmid))
    if pmid:
        ids["pmid"] = pmid
    return SourceRecord(
        location=f"row {n}",
        title=title,
        abstract=get(layout.abstract),
        authors=authors,
        family_names=families,
        year=year_from(get(layout.year)),
        venue=get(layout.venue),
        url=url,
        ids=ids,
        tags=[k for k in (clean_text(k) for k in get(layout.keywords).split(";")) if k],
        source_key=_eid(cells) if layout.name == "scopus" else get(layout.key),
        locator=locator(
            get(layout.volume),
            get(layout.issue),
            get(layout.page),
            get(layout.article),
            get(layout.isbn),
        ),
    )


#: a Scopus record id (EID)
_EID_RE = re.compile(r"^2-s2\.0-[0-9]+$")


def _eid(cells: list[str]) -> str:
    """The Scopus EID of a row: the last cell, or the one after it in exports whose rows hold
    one more cell than their header (a column Scopus added without a header, as in 2022)."""
    for cell in reversed(cells[-3:]):
        if _EID_RE.match(cell.strip()):
            return cell.strip()
    return ""


def _sniff(head: bytes, path: Path) -> int:
    try:
        lines = head.decode("utf-8-sig", errors="replace").splitlines()[:2]
        rows = list(csv.reader(lines))
    except csv.Error:
        return 0
    if rows and _layout(rows[0]) is None and _preamble(rows[0]):
        rows = rows[1:]
    return 90 if rows and _layout(rows[0]) else 0


FORMATS = [
    Format(
        name="csv-export",
        kind=Kind.PAPER,
        read=read_csv_export,
        sniff=_sniff,
        extensions=(".csv",),
        description="Scopus / IEEE Xplore / SpringerLink CSV export",
    )
]
