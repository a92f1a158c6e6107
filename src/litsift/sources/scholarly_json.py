"""Shared reading of the JSON the scholarly APIs send (OpenAlex, Semantic Scholar, Crossref):
load a file (``.gz``, a JSON document, or JSON Lines), and the page-to-items helper."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Page, SourceRecord

__all__ = ["load_json_or_lines", "read_pages"]


def load_json_or_lines(path: Path) -> tuple[Any, list[tuple[int, Any]]]:
    """``(document, [])`` for one JSON document, or ``(None, [(line, obj | BadItem)])`` for
    JSON Lines.

    Raises:
        IngestError: the file cannot be read or is neither JSON nor JSON Lines.
    """
    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
    except (OSError, EOFError) as err:
        raise IngestError(f"{path}: cannot be read ({err})"[:300], "check the file") from None
    text = raw.decode("utf-8-sig", errors="replace")
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
        except Exception as err:
            yield BadItem(f"line {n}", f"{type(err).__name__}: {err}"[:200])
            continue
        if rec is not None:
            yield rec
