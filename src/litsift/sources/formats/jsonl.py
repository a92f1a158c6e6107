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

__all__ = ["FORMATS", "cut_object_keys", "first_object_keys", "sniff_jsonl"]

_PAPER_KEYS = {"title"}
_ID_KEYS = {"id", "corpusid", "_id"}
_DATASET_KEYS = {"variants", "description", "intro_paper_title"}


_DECODER = json.JSONDecoder()
_VALUE_STARTS = frozenset('"[{-0123456789tfn')


def cut_object_keys(text: str) -> set[str] | None:
    """The top-level keys of the JSON object that ``text`` starts and that the head of the file
    ends inside (a first record of millions of characters: a 5M-character abstract), or None
    when ``text`` is no such start. Each complete value is decoded and skipped; the keys up to
    the value the text ends in count (that value must be where the text ends)."""
    pos = 1 if text.startswith("{") else -1
    keys: set[str] = set()
    while 0 < pos < len(text):
        while pos < len(text) and text[pos] in " \t\r":
            pos += 1
        if pos >= len(text):
            break
        try:
            key, pos = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):
            return keys if keys and text[pos] == '"' and '"' not in text[pos + 1 :] else None
        if not isinstance(key, str):
            return None
        keys.add(key)
        rest = text[pos:].lstrip(" \t\r")
        if not rest:
            break
        if not rest.startswith(":"):
            return None
        pos = len(text) - len(rest) + 1
        while pos < len(text) and text[pos] in " \t\r":
            pos += 1
        if pos >= len(text):
            break
        try:
            _, pos = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):  # the value the head ends in, if it starts one
            return keys if text[pos] in _VALUE_STARTS else None
        rest = text[pos:].lstrip(" \t\r")
        if not rest:
            break
        if not rest.startswith(","):
            return None  # "}" ends a complete object, which json.loads would have read
        pos = len(text) - len(rest) + 1
    return keys if pos > 0 else None


def first_object_keys(head: bytes) -> set[str] | None:
    """The top-level keys of the JSON object on the first non-blank line of ``head`` (a file's
    first bytes): a whole line is decoded, a line the head ends inside is read as far as it
    goes (:func:`cut_object_keys`), so a first record longer than the head is still known.
    None when that line is no JSON object."""
    lines = head.split(b"\n")
    for i, raw in enumerate(lines[:5]):
        raw = raw.strip()
        if not raw:
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            if i == len(lines) - 1:  # the head ends inside this line
                return cut_object_keys(raw.decode("utf-8", errors="ignore"))
            return None
        return set(obj) if isinstance(obj, dict) else None
    return None


def sniff_jsonl(head: bytes, path: Path, kind: Kind = Kind.PAPER) -> int:
    """50 when the first non-blank line is a JSON object with an id key and the kind's fields
    (formats with more specific keys -- the arXiv snapshot, S2AG, OpenAlex -- score higher);
    a first line longer than the head is judged by the keys before the cut
    (:func:`first_object_keys`)."""
    keys = first_object_keys(head)
    if keys is None or not (_ID_KEYS & keys):
        return 0
    wanted = _DATASET_KEYS if kind is Kind.DATASET else _PAPER_KEYS
    return 50 if wanted & keys else 0


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
