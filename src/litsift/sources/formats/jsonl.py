"""litsift's own JSONL schema (``shared/data/README.md``) as a registered format.

``litsift ingest papers|datasets FILE.jsonl[.gz]`` reads it with
:func:`litsift.store.ingest.ingest_jsonl` (the record id is given by the file); the registry
entry exists so detection knows the format and ``--format jsonl`` forces it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord
from litsift.types import Kind

__all__ = ["FORMATS", "sniff_jsonl"]

_PAPER_KEYS = {"title"}
_ID_KEYS = {"id", "corpusid", "_id"}
_DATASET_KEYS = {"variants", "description", "intro_paper_title"}


def _first_object(head: bytes) -> dict[str, object] | None:
    for raw in head.split(b"\n")[:5]:
        raw = raw.strip()
        if not raw:
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        return obj if isinstance(obj, dict) else None
    return None


def sniff_jsonl(head: bytes, path: Path, kind: Kind = Kind.PAPER) -> int:
    """50 when the first non-blank line is a JSON object with an id key and the kind's fields
    (formats with more specific keys -- the arXiv snapshot, S2AG, OpenAlex -- score higher)."""
    obj = _first_object(head)
    if obj is None or not (_ID_KEYS & obj.keys()):
        return 0
    wanted = _DATASET_KEYS if kind is Kind.DATASET else _PAPER_KEYS
    return 50 if wanted & obj.keys() else 0


def _read(path: Path) -> Iterator[SourceRecord | BadItem]:
    raise IngestError(
        f"{path}: litsift JSONL is read by the JSONL ingest, not record by record",
        "run: litsift ingest papers FILE.jsonl",
    )
    yield  # pragma: no cover


FORMATS = [
    Format(
        name="jsonl",
        kind=Kind.PAPER,
        read=_read,
        sniff=sniff_jsonl,
        extensions=(".jsonl", ".ndjson"),
        description="litsift JSONL: one paper per line (id, title, abstract, authors, year, ...)",
    ),
    Format(
        name="jsonl-datasets",
        kind=Kind.DATASET,
        read=_read,
        sniff=lambda head, path: sniff_jsonl(head, path, Kind.DATASET),
        extensions=(".jsonl", ".ndjson"),
        description="litsift JSONL: one dataset per line (id, variants, description, ...)",
    ),
]
