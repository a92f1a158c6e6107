"""Shared reading of the JSON the scholarly APIs send (OpenAlex, Semantic Scholar, Crossref):
load a file (``.gz``, a JSON document, or JSON Lines), and the page-to-items helper."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Page, SourceRecord, decode_text, read_bytes
from litsift.sources.formats.json_items import RecordsPath, load_json_items, looks_like_json_lines

__all__ = ["fill_page", "load_json_or_lines", "parse_json_page", "read_pages"]


def load_json_or_lines(path: Path) -> tuple[Any, list[tuple[int, Any]]]:
    """``(document, [])`` for one JSON document, or ``(None, [(line, obj | BadItem)])`` for
    JSON Lines.

    Raises:
        IngestError: the file cannot be read or is neither JSON nor JSON Lines.
    """
    text = decode_text(read_bytes(path))
    try:
        return json.loads(text), []
    except (ValueError, RecursionError):
        return None, _json_lines(text)


def _json_lines(text: str) -> list[tuple[int, Any]]:
    lines: list[tuple[int, Any]] = []
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            lines.append((n, json.loads(line)))
        except (ValueError, RecursionError) as err:
            lines.append((n, BadItem(f"line {n}", f"invalid JSON: {err}"[:200])))
    if not lines or all(isinstance(o, BadItem) for _, o in lines):
        raise IngestError("neither JSON nor JSON Lines", "is the file cut?")
    return lines


def read_pages(
    path: Path,
    page_of: Callable[[Any], Page],
    record_of: Callable[[Any, str], SourceRecord | None],
    records_at: Sequence[RecordsPath] = (),
    what: str = "items",
) -> Iterator[SourceRecord | BadItem]:
    """Records of a saved API response (``page_of(document)``) or of JSON Lines of objects
    (``record_of(obj, "line N")``; None = not a paper, skipped).

    A response that is cut (or broken inside its records array) keeps its complete records when
    ``records_at`` names where the array lies (``[("message", "items")]``); the cut record is
    then the last bad item (:func:`~litsift.sources.formats.json_items.load_json_items`).

    Raises:
        IngestError: unreadable, the response is an error / holds no papers, or it breaks
            before its records.
    """
    text = decode_text(read_bytes(path))
    cut: BadItem | None = None
    lines: list[tuple[int, Any]] = []
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        if records_at and not looks_like_json_lines(text):
            document, cut = load_json_items(text, records_at, what)
        else:
            document, lines = None, _json_lines(text)
    if document is not None or cut is not None:
        page = page_of(document)
        if page.error:
            raise IngestError(page.error[:300], "this file holds no papers")
        yield from page.items
        if cut is not None:
            yield cut
        return
    for n, obj in lines:
        if isinstance(obj, BadItem):
            yield obj
            continue
        try:
            rec = record_of(obj, f"line {n}")
        except Exception as err:
            reason = str(err) if isinstance(err, ValueError) else f"unexpected content ({err})"
            yield BadItem(f"line {n}", reason[:200])
            continue
        if rec is not None:
            yield rec


def parse_json_page(data: bytes, page_of: Callable[[Any], Page]) -> Page:
    """``page_of`` applied to a response body parsed as JSON.

    Raises:
        IngestError: the body is not JSON (a cut or non-JSON response).
    """
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as err:
        raise IngestError(f"not JSON ({err})"[:200], "the response is cut") from None
    return page_of(document)


def fill_page(
    page: Page,
    objects: list[Any],
    record_of: Callable[[Any, str], SourceRecord | None],
    label: str,
    stamp_of: Callable[[Any], Any] | None = None,
) -> Page:
    """Append ``record_of(obj, f"{label} N")`` of each object to ``page`` (a ``ValueError`` is a
    bad item, None is skipped) and set ``page.high_water`` to the newest ``stamp_of(obj)``."""
    stamps = []
    for n, obj in enumerate(objects, start=1):
        try:
            rec = record_of(obj, f"{label} {n}")
        except ValueError as err:
            page.items.append(BadItem(f"{label} {n}", str(err)))
            continue
        if rec is None:
            continue
        page.items.append(rec)
        stamp = stamp_of(obj) if stamp_of is not None else None
        if isinstance(stamp, str):
            stamps.append(stamp)
    page.high_water = max(stamps) if stamps else None
    return page
