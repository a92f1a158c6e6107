"""The formats litsift imports, and detection of a path's format from its content.

Each importer module defines ``FORMATS: list[Format]``; :data:`MODULES` lists them. Modules are
imported on first use, so ``litsift search`` never pays for lxml or pymupdf.

Detection (:func:`detect`): every format's ``sniff(head, path)`` scores the path's first 64 KiB
(decompressed when gzip) from 0 to 100; the best positive score wins, the file-name extension
breaking ties. ``--format NAME`` skips detection.
"""

from __future__ import annotations

import gzip
import importlib
from functools import cache
from pathlib import Path

from litsift.errors import IngestError
from litsift.sources.base import Format
from litsift.store.jsonl import wide_encoding

__all__ = ["HEAD_BYTES", "MODULES", "detect", "formats", "get", "read_head"]

#: Importer modules under ``litsift.sources.formats``, each defining ``FORMATS``.
MODULES: tuple[str, ...] = (
    "jsonl",
    # reference managers and database exports
    "bibtex",
    "ris",
    "refer",
    "medline",
    "pubmed_xml",
    "endnote_xml",
    "csl_json",
    "zotero",
    "zotero_rdf",
    "csv_exports",
    "wos_tabular",
    # scholarly services (files saved from their APIs / bulk dumps)
    "arxiv",
    "openalex",
    "s2",
    "crossref",
    # full text and dataset descriptions
    "pdf",
    "fulltext",
    # dataset descriptions
    "dataset_cards",
)

HEAD_BYTES = 64 * 1024


@cache
def formats() -> dict[str, Format]:
    """Every registered format by name."""
    out: dict[str, Format] = {}
    for name in MODULES:
        module = importlib.import_module(f"litsift.sources.formats.{name}")
        for fmt in module.FORMATS:
            out[fmt.name] = fmt
    return out


def get(name: str) -> Format:
    """The format called ``name``.

    Raises:
        IngestError: no such format (the hint lists them).
    """
    table = formats()
    if name not in table:
        raise IngestError(f"unknown format {name!r}", "use one of: " + ", ".join(sorted(table)))
    return table[name]


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    """The first ``size`` bytes of ``path``, decompressed when it is gzip; b"" for a directory.

    UTF-16 / UTF-32 text (:func:`~litsift.store.jsonl.wide_encoding`) is returned as UTF-8,
    so the formats' sniffers, which look for ASCII markers, recognise it.

    Raises:
        IngestError: the file cannot be read.
    """
    if path.is_dir():
        return b""
    try:
        with path.open("rb") as fh:
            head = fh.read(size)
        if head[:2] == b"\x1f\x8b":
            try:
                with gzip.open(path, "rb") as gz:
                    head = gz.read(size)
            except (OSError, EOFError) as err:
                raise IngestError(f"{path}: broken gzip file ({err})", "re-download it") from None
    except OSError as err:
        raise IngestError(
            f"{path}: cannot be read ({err.strerror or err})", "check the path"
        ) from None
    wide = wide_encoding(head)
    if wide is not None:  # sniffers look for ASCII markers: show them UTF-8
        head = head[: len(head) - len(head) % 4].decode(wide, errors="replace").encode()
    return head


def detect(path: Path) -> Format | None:
    """The format of ``path`` judged from its content, or None when no format claims it."""
    head = read_head(path)
    best: tuple[int, int, str] | None = None
    name_lower = path.name.lower().removesuffix(".gz")
    for fmt in formats().values():
        if fmt.directory != path.is_dir():
            continue
        score = fmt.sniff(head, path)
        if score <= 0:
            continue
        hint = int(any(name_lower.endswith(ext) for ext in fmt.extensions))
        key = (score, hint, fmt.name)
        if best is None or key[:2] > best[:2]:
            best = key
    return formats()[best[2]] if best else None
