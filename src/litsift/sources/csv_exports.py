"""CSV exports of bibliographic databases: Scopus, IEEE Xplore, SpringerLink.

Each is recognised by its header row (Scopus: ``Authors``, ``Title``, ``Source title``;
IEEE Xplore: ``Document Title``, ``Publication Title``; SpringerLink: ``Item Title``,
``Item DOI``) and read with the csv module (UTF-8 with or without BOM). One row = one record,
``row N`` counting the header as row 1.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from litsift.errors import IngestError
from litsift.sources.base import (
    BadItem,
    Format,
    SourceRecord,
    clean_text,
    decode_text,
    read_bytes,
    year_from,
)
from litsift.sources.ids import ids_in_text, normalize_doi
from litsift.types import Kind

__all__ = ["FORMATS", "read_csv_export"]

#: export -> (required header columns, title, abstract, authors, author separator, year, venue,
#: doi, url, keywords)
LAYOUTS: dict[str, tuple[tuple[str, ...], str, str, str, str, str, str, str, str, str]] = {
    "scopus": (
        ("Authors", "Title", "Source title"),
        "Title",
        "Abstract",
        "Authors",
        ",",
        "Year",
        "Source title",
        "DOI",
        "Link",
        "Author Keywords",
    ),
    "ieee": (
        ("Document Title", "Publication Title"),
        "Document Title",
        "Abstract",
        "Authors",
        ";",
        "Publication Year",
        "Publication Title",
        "DOI",
        "PDF Link",
        "Author Keywords",
    ),
    "springer": (
        ("Item Title", "Item DOI"),
        "Item Title",
        "",
        "Authors",
        "",
        "Publication Year",
        "Publication Title",
        "Item DOI",
        "URL",
        "",
    ),
}


def _layout(header: list[str]) -> str | None:
    names = {h.strip().lstrip("\ufeff") for h in header}
    for name, spec in LAYOUTS.items():
        if set(spec[0]) <= names:
            return name
    return None


def _people(text: str, sep: str) -> list[str]:
    if not text or not sep:
        return [text] if text else []  # SpringerLink runs names together: kept as one string
    if sep == ",":  # Scopus "Phillips J.C., Braun R."
        return [clean_text(p) for p in text.split(",") if clean_text(p)]
    return [clean_text(p) for p in text.split(sep) if clean_text(p)]


def read_csv_export(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every row of a Scopus / IEEE Xplore / SpringerLink CSV export.

    Raises:
        IngestError: the file cannot be read or its header is none of those exports'.
    """
    text = decode_text(read_bytes(path))
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    layout = _layout(header or [])
    if header is None or layout is None:
        raise IngestError(f"{path}: not a Scopus, IEEE Xplore or SpringerLink CSV export", "")
    _, title, abstract, authors, sep, year, venue, doi, url, keywords = LAYOUTS[layout]
    col = {h.strip().lstrip("\ufeff"): i for i, h in enumerate(header)}
    for n, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= col[title]:  # a cut row; longer rows (Scopus adds a cell) are fine
            yield BadItem(f"row {n}", f"{len(row)} columns, the header has {len(header)}")
            continue

        def get(name: str, row: list[str] = row) -> str:
            return clean_text(row[col[name]]) if name in col and col[name] < len(row) else ""

        people = _people(get(authors), sep)
        ids = ids_in_text(get(url))
        if normalize_doi(get(doi)):
            ids["doi"] = normalize_doi(get(doi)) or ""
        yield SourceRecord(
            location=f"row {n}",
            title=get(title),
            abstract=get(abstract),
            authors=people,
            family_names=[p.split(" ")[0] if sep == "," else p.split(" ")[-1] for p in people],
            year=year_from(get(year)),
            venue=get(venue),
            url=get(url),
            ids=ids,
            tags=[clean_text(k) for k in get(keywords).split(";") if clean_text(k)],
        )


def _sniff(head: bytes, path: Path) -> int:
    try:
        first = head.decode("utf-8-sig", errors="replace").splitlines()[0]
        header = next(csv.reader([first]))
    except (IndexError, csv.Error, StopIteration):
        return 0
    return 90 if _layout(header) else 0


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
