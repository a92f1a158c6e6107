"""Labelled screening sets (``shared/data/eval/screening/*.jsonl.gz``) read as source records.

One JSON object a line: ``title``, ``abstract``, ``year``, ``doi``, ``openalex_id``,
``record_id`` and the review's decision ``label_included`` (0/1, as a number or a string).
``litsift review new NAME --from SET.jsonl.gz`` reads the records through the importer's
writer (so duplicates group as in any import) and the labels as prior decisions.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

from litsift.sources.base import BadItem, SourceRecord, clean_text, untitled_label, year_from
from litsift.sources.identity.ids import normalize_doi, normalize_openalex, reference_keys

__all__ = ["FORMAT", "is_screening_set", "read_screening_set"]

#: The format name in ``provenance``.
FORMAT = "screening-jsonl"


def _open(path: Path) -> Iterator[str]:
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    with opener(path, "rt", encoding="utf-8") as fh:
        yield from fh


def is_screening_set(path: Path, lines: int = 5) -> bool:
    """Whether ``path`` is a JSON Lines file (gzip'd or not) one of whose first ``lines``
    non-empty lines is an object with ``label_included`` (a bad first line does not hide it)."""
    name = path.name.lower()
    if not path.is_file() or not name.removesuffix(".gz").endswith((".jsonl", ".ndjson")):
        return False
    seen = 0
    try:
        for line in _open(path):
            if not line.strip():
                continue
            seen += 1
            try:
                row = json.loads(line)
            except ValueError:
                row = None
            if isinstance(row, dict):
                return "label_included" in row
            if seen >= lines:
                return False
    except (OSError, EOFError, UnicodeDecodeError):
        return False
    return False


def read_screening_set(path: Path) -> Iterator[tuple[SourceRecord | BadItem, int | None]]:
    """Each line as a source record (``location`` = line number) with its label.

    Yields:
        ``(record, label)``: label 1 = included, 0 = excluded, None = no usable label (the
        record is still read); or ``(BadItem, None)`` for a line that is not a JSON object
        or has no title (a line with an abstract and a DOI or OpenAlex id but no title is
        kept, :func:`~litsift.sources.base.untitled_label` standing for its title).

    Raises:
        OSError, EOFError, UnicodeDecodeError: the file cannot be read (the caller reports it).
    """
    for lineno, line in enumerate(_open(path), 1):
        if not line.strip():
            continue
        loc = str(lineno)
        try:
            row = json.loads(line)
        except ValueError:
            yield BadItem(loc, "not a JSON object"), None
            continue
        if not isinstance(row, dict):
            yield BadItem(loc, "not a JSON object"), None
            continue
        ids = {
            scheme: value
            for scheme, value in (
                ("doi", normalize_doi(row.get("doi"))),
                ("openalex", normalize_openalex(row.get("openalex_id"))),
            )
            if value
        }
        title = clean_text(row.get("title")) or untitled_label(ids, row.get("abstract") or "")
        if not title:
            yield BadItem(loc, "no title"), None
            continue
        raw = str(row.get("label_included", "")).strip()
        label = int(raw) if raw in ("0", "1") else None
        rec = SourceRecord(
            location=loc,
            title=title,
            abstract=clean_text(row.get("abstract")),
            year=year_from(row.get("year")),
            ids=ids,
            source_key=str(row.get("record_id") or ""),
            references=reference_keys("openalex", row.get("referenced_works")),
        )
        yield rec, label
