"""Shared reading of the JSON the scholarly APIs send (OpenAlex, Semantic Scholar, Crossref):
load a file (``.gz``, a JSON document, or JSON Lines), and the page-to-items helper."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Page, SourceRecord, decode_text, read_bytes

__all__ = ["fill_page", "load_json_or_lines", "parse_json_page", "read_pages"]


def load_json_or_lines(path: Path) -> tuple[Any, list[tuple[int, Any]]]:
    """``(document, [])`` for one JSON document, or ``(None, [(line, obj | BadItem)])`` for
    JSON Lines.

    Raises:
        IngestError: the file cannot be read or is neither JSON nor JSON Lines.
    """
    raw = read_bytes(path)
    text = decode_text(raw)
    try:
        return json.loads(text), []
    except (ValueError, RecursionError):
        pass
    lines: list[tuple[int, Any]] = []
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            lines.append((n, json.loads(line)))
        except (ValueError, RecursionError) as err:
            lines.append((n, BadItem(f"line {n}", f"invalid JSON: {err}"[:200])))
    if not lines or all(isinstance(o, BadItem) for _, o in lines):
        raise IngestError(f"{path}: neither JSON nor JSON Lines", "is the file cut?")
    return None, lines


def read_pages(
    path: Path, page_of: Callable[[Any], Page], record_of: Callable[[Any, str], SourceRecord | None]
) -> Iterator[SourceRecord | BadItem]:
    """Records of a saved API response (``page_of(document)``) or of JSON Lines of objects
    (``record_of(obj, "line N")``; None = not a paper, skipped).

    Raises:
        IngestError: unreadable, or the response is an error / holds no papers.
    """
    document, lines = load_json_or_lines(path)
    if document is not None:
        page = page_of(document)
        if page.error:
            raise IngestError(f"{path}: {page.error}"[:300], "this file holds no papers")
        yield from page.items
        return
    for n, obj in lines:
        if isinstance(obj, BadItem):
            yield obj
            continue
        try:
            rec = record_of(obj, f"line {n}")
        except ValueError as err:  # what record_of raises for an entry it cannot use
            yield BadItem(f"line {n}", str(err)[:200])
            continue
        except Exception as err:
            yield BadItem(f"line {n}", f"malformed entry ({err})"[:200])
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
