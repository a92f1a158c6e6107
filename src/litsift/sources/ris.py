"""RIS files (Zotero, EndNote, Scopus, Web of Science, Embase, Ovid, ProQuest, Rayyan, IEEE
Xplore) and Web of Science plain-text ("ISI tagged") exports, both parsed by rispy.

Line endings are normalised first (IEEE Xplore mixes CR, LF and CRLF; rispy would see one
record), a UTF-8 BOM is dropped, and Ovid's numbered records (``1.`` before ``TY  -``) are
read as usual. rispy's field names are mapped to litsift's: ``TI``/``T1`` title, ``AB``/``N2``
abstract, ``AU``/``A1`` authors (``Family, Given``), ``PY``/``Y1``/``DA`` year, ``T2``/``JO``/
``JF``/``T3`` venue, ``DO`` DOI, ``UR`` links (DOI / arXiv / ACL ids read off them), ``KW``
tags, ``L1``/``L4`` attachments.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import rispy

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, read_text, year_from
from litsift.sources.ids import ids_in_text, normalize_doi
from litsift.types import Kind

__all__ = ["FORMATS", "read_ris", "read_wos"]

_RIS_TAG_RE = re.compile(rb"^(?:\d+\.\s*)?TY  - ", re.MULTILINE)
_WOS_RE = re.compile(rb"^(?:\xef\xbb\xbf)?FN (?:Clarivate|Thomson|ISI)", re.MULTILINE)


def _first(entry: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        value = entry.get(key)
        if value:
            return value[0] if isinstance(value, list) else value
    return None


def _people(names: list[str]) -> tuple[list[str], list[str]]:
    authors, families = [], []
    for name in names:
        name = clean_text(name)
        if not name:
            continue
        if "," in name:
            family, given = (p.strip() for p in name.split(",", 1))
            authors.append(f"{given} {family}".strip())
            families.append(family)
        else:
            authors.append(name)
            families.append(name.split(" ")[-1])
    return authors, families


def _ids(entry: dict[str, Any]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for url in entry.get("urls") or []:
        ids.update(ids_in_text(url))
    doi = normalize_doi(_first(entry, "doi"))
    if doi:
        ids["doi"] = doi
    return ids


def _ris_record(entry: dict[str, Any], n: int) -> SourceRecord:
    authors, families = _people(list(entry.get("authors") or entry.get("first_authors") or []))
    files = [*(entry.get("file_attachments1") or []), *(entry.get("file_attachments2") or [])]
    urls = entry.get("urls") or []
    return SourceRecord(
        location=f"record {n}",
        title=clean_text(_first(entry, "title", "primary_title", "short_title")),
        abstract=clean_text(_first(entry, "abstract", "notes_abstract")),
        authors=authors,
        family_names=families,
        year=year_from(_first(entry, "year", "publication_year", "date")),
        venue=clean_text(
            _first(entry, "secondary_title", "journal_name", "alternate_title3", "alternate_title1")
        ),
        url=clean_text(urls[0]) if urls else "",
        ids=_ids(entry),
        tags=[clean_text(k) for k in entry.get("keywords") or [] if clean_text(k)],
        attachments=[Path(f) for f in files if isinstance(f, str) and f.lower().endswith(".pdf")],
        source_key=clean_text(_first(entry, "id")),
    )


def _read(path: Path, wos: bool) -> Iterator[SourceRecord | BadItem]:
    text = read_text(path)
    try:
        if wos:
            entries = rispy.loads(text, implementation=rispy.WokParser)
        else:
            entries = rispy.loads(text, skip_unknown_tags=False)
    except Exception as err:
        raise IngestError(
            f"{path}: not {'Web of Science' if wos else 'RIS'} ({type(err).__name__}: {err})",
            "check that the file is a RIS export (records start with 'TY  - ')",
        ) from None
    if not entries:
        raise IngestError(f"{path}: holds no records", "is it an RIS export?")
    for n, entry in enumerate(entries, start=1):
        try:
            if wos:
                authors, families = _people(
                    list(entry.get("author_full_name") or entry.get("authors") or [])
                )
                yield SourceRecord(
                    location=f"record {n}",
                    title=clean_text(_first(entry, "document_title", "title")),
                    abstract=clean_text(_first(entry, "abstract")),
                    authors=authors,
                    family_names=families,
                    year=year_from(_first(entry, "publication_year", "publication_date")),
                    venue=clean_text(_first(entry, "publication_name")),
                    ids={"doi": d} if (d := normalize_doi(_first(entry, "doi"))) else {},
                    tags=[clean_text(k) for k in entry.get("keywords") or [] if clean_text(k)],
                    source_key=clean_text(_first(entry, "accession_number", "unique_id")),
                )
            else:
                yield _ris_record(entry, n)
        except Exception as err:
            yield BadItem(f"record {n}", f"{type(err).__name__}: {err}"[:200])


def read_ris(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every record of an RIS file.

    Raises:
        IngestError: the file cannot be read or is not RIS.
    """
    return _read(path, wos=False)


def read_wos(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every record of a Web of Science plain-text export.

    Raises:
        IngestError: the file cannot be read or is not a WoS export.
    """
    return _read(path, wos=True)


FORMATS = [
    Format(
        name="ris",
        kind=Kind.PAPER,
        read=read_ris,
        sniff=lambda head, path: 90 if _RIS_TAG_RE.search(head.replace(b"\r", b"\n")) else 0,
        extensions=(".ris", ".nbib", ".enw"),
        description="RIS (.ris): Zotero, EndNote, Scopus, Web of Science, Embase, IEEE Xplore",
    ),
    Format(
        name="wos",
        kind=Kind.PAPER,
        read=read_wos,
        sniff=lambda head, path: 95 if _WOS_RE.search(head[:200]) else 0,
        extensions=(".txt",),
        description="Web of Science plain-text (ISI tagged) export",
    ),
]
