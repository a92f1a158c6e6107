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

A Scopus row may hold more cells than the header (exports of ~2022 write a record's further
funding texts in cells without a header after ``Funding Text 1``): they are skipped, so the
cells after them (``PubMed ID``, ``Document Type``, ``EID``) are read under their own columns.

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
from urllib.parse import unquote

from litsift.errors import IngestError
from litsift.sources.base import (
    BadItem,
    Format,
    Notice,
    SourceRecord,
    clean_text,
    decode_text,
    read_bytes,
    untitled_label,
    year_from,
)
from litsift.sources.formats.csv_layouts import (
    ALIASES,
    LAYOUTS,
    Layout,
    aligned,
    citation_parts,
    layout_biblio,
    python_list,
    table_layout,
)
from litsift.sources.formats.csv_people import people
from litsift.sources.formats.rayyan_notes import has_rayyan_notes, rayyan_notes
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
    "ALIASES",
    "FORMATS",
    "LAYOUTS",
    "Layout",
    "has_decisions",
    "read_csv_export",
    "read_csv_labelled",
]


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


def _rows(text: str, delimiter: str = ",") -> Iterator[_Row]:
    """Every row of ``text`` with its first line number and its raw text."""
    consumed: list[str] = []
    lines_before = 0

    def source() -> Iterator[str]:
        for line in io.StringIO(text, newline=""):
            consumed.append(line)
            yield line

    for cells in csv.reader(source(), delimiter=delimiter):
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


def _cut_reason(row: _Row, n_columns: int, seen_last: set[str], delimiter: str = ",") -> str | None:
    """Why the file's last row is cut, or None when it is whole (``seen_last``: the values
    the last column had in the rows before)."""
    try:
        for _ in csv.reader(io.StringIO(row.raw, newline=""), delimiter=delimiter, strict=True):
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


def _delimiter(text: str) -> str:
    """``,``, ``;`` or a tab: the one the header line holds most of outside quotes (a
    spreadsheet saved in a locale whose decimal mark is a comma writes ``;``)."""
    line = re.sub(r'"[^"]*"', "", text.lstrip("\ufeff").split("\n", 1)[0])
    return max((",", ";", "\t"), key=line.count)


def read_csv_export(path: Path) -> Iterator[SourceRecord | BadItem | Notice]:
    """Every row of a database's CSV export (Scopus, IEEE Xplore, SpringerLink, PubMed,
    Embase) or of a table of records whose columns have known names
    (:func:`~litsift.sources.formats.csv_layouts.table_layout`).

    Rows without a title, and a last row the file ends inside (a cut download), are bad items
    at ``line L``; the other rows are records at ``row N``.

    Raises:
        IngestError: the file cannot be read or its header is none of those exports'.
    """
    for item, _ in read_csv_labelled(path):
        yield item


def has_decisions(path: Path) -> bool:
    """Whether ``path`` is a CSV table of records with a decision column (ASReview's
    ``label_included`` and its other names) or a Rayyan export's notes: ``litsift review new``
    then reads its decisions as prior ones, as it does a screening set's (Rayyan's: as its
    reviewers' votes, ``SourceRecord.screening``)."""
    if path.suffix.lower() not in (".csv", ".tsv") or not path.is_file():
        return False
    try:
        with open(path, "rb") as fh:
            head = decode_text(fh.read(64 * 1024))
        header = next(csv.reader(io.StringIO(head), delimiter=_delimiter(head)), [])
    except (OSError, csv.Error):
        return False
    layout = _layout(header) or table_layout(header)
    if layout is not None and layout.notes and not layout.label:  # Rayyan's, anywhere in it
        return has_rayyan_notes(decode_text(read_bytes(path)))
    return layout is not None and bool(layout.label)


def read_csv_labelled(
    path: Path,
) -> Iterator[tuple[SourceRecord | BadItem | Notice, int | None]]:
    """:func:`read_csv_export`'s items, each with the review's decision its row holds (1
    include, 0 exclude, None: none, or not a record) when the file has a decision column
    (ASReview's ``label_included``, ``included``, ...).

    Raises:
        IngestError: as :func:`read_csv_export`.
    """
    text = decode_text(read_bytes(path))
    if csv.field_size_limit() < _MAX_CELL:  # Scopus "References" cells pass the 128 KiB default
        csv.field_size_limit(_MAX_CELL)
    delimiter = _delimiter(text)
    rows = _rows(text, delimiter)
    try:
        first = next(rows, None)
        if first is not None and _layout(first.cells) is None and _preamble(first.cells):
            first = next(rows, None)  # IEEE Xplore ~2014-2017: the search URL, then the header
    except csv.Error as err:
        raise IngestError(f"not a readable CSV file ({err})", "check the file") from None
    header = first.cells if first else []
    layout = _layout(header) or table_layout(header)
    if first is None or layout is None:
        raise IngestError(
            "not a CSV export litsift knows, and no title or abstract column",
            "export the records again as CSV with column headers (title, abstract, ...)",
        )
    if not first.raw.endswith(("\n", "\r")):
        raise IngestError(
            "the file ends inside its header row", "the download was cut: export it again"
        )
    col: dict[str, int] = {}
    for i, h in enumerate(header):
        col.setdefault(h.strip().lstrip("\ufeff"), i)
    yield Notice("", layout=layout.name), None
    for name in _missing(layout, col):
        why = f"no column {name!r} in this {layout.name} export: its values are not read"
        yield Notice("", why), None
    pending: tuple[int, _Row] | None = None  # held back until we know it is not the last row
    seen_last: set[str] = set()
    last = first
    try:
        for n, row in enumerate(rows, start=2):
            if pending is not None:
                yield _labelled(*pending, layout, col, len(header), delimiter, last=False)
                seen_last.add(pending[1].cells[-1].strip() if pending[1].cells else "")
            pending = (n, row) if not _blank(row) else None
            last = row
    except csv.Error as err:  # the reader cannot go on past this (an over-long cell)
        line = last.line + len(io.StringIO(last.raw, newline="").readlines())
        why = f"unreadable CSV ({err}); the rows after it are not read"
        yield BadItem(f"line {line}", why), None
        return
    if pending is not None:
        yield _labelled(
            *pending, layout, col, len(header), delimiter, last=True, seen_last=seen_last
        )


#: a decision cell: include / exclude (ASReview writes 1 / 0; spreadsheets yes / no, TRUE)
_LABELS = {"1": 1, "1.0": 1, "yes": 1, "true": 1, "include": 1, "included": 1, "0": 0,
           "0.0": 0, "no": 0, "false": 0, "exclude": 0, "excluded": 0}  # fmt: skip


def _labelled(
    n: int,
    row: _Row,
    layout: Layout,
    col: dict[str, int],
    n_columns: int,
    delimiter: str,
    last: bool,
    seen_last: set[str] | None = None,
) -> tuple[SourceRecord | BadItem, int | None]:
    item = _item(n, row, layout, col, n_columns, last, seen_last, delimiter)
    i = _column(layout.label, col)
    if isinstance(item, BadItem) or not 0 <= i < len(row.cells):
        return item, None
    return item, _LABELS.get(row.cells[i].strip().lower())


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
    delimiter: str = ",",
) -> SourceRecord | BadItem:
    if last:
        reason = _cut_reason(row, n_columns, seen_last or set(), delimiter)
        if reason:
            return BadItem(f"line {row.line}", f"row {n} is cut: {reason}; it is not imported")
    cells = aligned(layout, row.cells, col)

    def get(name: str) -> str:
        i = _column(name, col)
        value = clean_text(cells[i]) if 0 <= i < len(cells) else ""
        return "" if value == "NA" else value  # R's write.csv marks empty cells NA

    url = get(layout.url)
    ids = ids_in_text(unquote(url) if "%2F" in url.upper() else url)  # Embase: doi:10.4103%2F…
    for scheme, value in (
        ("doi", normalize_doi(get(layout.doi))),
        ("pmid", normalize_pmid(get(layout.pmid))),
        ("pmcid", normalize_pmcid(get(layout.pmcid))),
    ):
        if value:
            ids[scheme] = value
    key, art = _eid(cells) if layout.name == "scopus" else get(layout.key), get(layout.article)
    ids = {**own_ids(key), **ids}  # a review export's id (openalex:W1): the record it was
    abstract = get(layout.abstract)
    title = get(layout.title)
    if not title and layout.name == "table":  # a table of records may lack a title (ASReview)
        title = untitled_label(ids, abstract)
    has_title = len(cells) > _column(layout.title, col)
    if not title and not (has_title and abstract):  # else the writer decides: a review's
        # import keeps a record with an abstract and a DOI, an ingest says "no title"
        why = "no title" if has_title else f"only {len(cells)} columns"
        return BadItem(f"line {row.line}", f"row {n}: {why}, the header has {n_columns}")
    names = get(layout.authors)
    if (listed := python_list(names)) is not None:  # ASReview: "['Marx, Karl', 'Doe, J']"
        names = "; ".join(listed)
    authors, families = people(names, layout.names, get(layout.full_names), get(layout.author_ids))
    cited = citation_parts(layout.name, get(layout.citation)) if layout.citation else {}
    volume = get(layout.volume) or cited.get("volume", "")
    issue = get(layout.issue) or cited.get("issue", "")
    pages = get(layout.page) or cited.get("pages", "")
    keywords = get(layout.keywords)
    if (listed := python_list(keywords)) is not None:
        keywords = "; ".join(listed)
    rayyan = rayyan_notes(get(layout.notes)) if layout.notes else None
    tags = [clean_text(k) for k in re.split(_KEYWORD_SEP[layout.name], keywords)]
    return SourceRecord(
        location=f"row {n}",
        title=title,
        abstract=abstract,
        authors=authors,
        family_names=families,
        year=year_from(get(layout.year) or cited.get("year", "")),
        venue=get(layout.venue) or cited.get("venue", ""),
        url=url,
        ids=ids,
        tags=[k for k in tags if k] + (rayyan.labels if rayyan else []),
        notes=rayyan.note_lines(labels=False) if rayyan else [],
        screening=get(layout.notes) if rayyan else "",
        source_key=key,
        locator={**locator_of_id(key), **locator(volume, issue, pages, art, get(layout.isbn))},
        biblio=layout_biblio(layout, get, volume, issue, pages),
    )


#: how a layout's keyword cell separates its keywords (Embase's Emtree terms: ", "; the
#: others "; ")
_KEYWORD_SEP: dict[str, str] = {"embase": r",\s+(?![^()]*\))"} | dict.fromkeys(
    ("scopus", "ieee", "ieee-short", "springer", "pubmed", "pubmed-legacy", "table"), ";"
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
    """90 for a database's export (its header), 40 for a table with a title or an abstract
    column (a ``.csv`` / ``.tsv`` file), else 0."""
    try:
        text = head.decode("utf-8-sig", errors="replace")
        lines = text.splitlines()[:2]
        rows = list(csv.reader(lines, delimiter=_delimiter(text)))
    except csv.Error:
        return 0
    if rows and _layout(rows[0]) is None and _preamble(rows[0]):
        rows = rows[1:]
    if not rows:
        return 0
    if _layout(rows[0]):
        return 90
    table = path.suffix.lower() in (".csv", ".tsv") and table_layout(rows[0]) is not None
    return 40 if table else 0


FORMATS = [
    Format(
        name="csv-export",
        kind=Kind.PAPER,
        read=read_csv_export,
        sniff=_sniff,
        extensions=(".csv", ".tsv"),
        description="CSV: Scopus, IEEE Xplore, SpringerLink, PubMed, Embase exports; any table "
        "with title / abstract columns (ASReview, Rayyan, Covidence)",
    )
]
