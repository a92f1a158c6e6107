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
import zlib
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
    A gzip stream cut short gives the bytes before the cut (its reader reports the cut).

    UTF-16 / UTF-32 text (:func:`~litsift.store.jsonl.wide_encoding`) is returned as UTF-8,
    so the formats' sniffers, which look for ASCII markers, recognise it.

    Raises:
        IngestError: the file cannot be read, or is gzip of which nothing can be decompressed.
    """
    return _head(path, size)[0]


def _head(path: Path, size: int) -> tuple[bytes, IngestError | None]:
    """:func:`read_head`, and the "broken gzip file" error of a stream cut short or corrupt
    after its first bytes (None for any other file)."""
    if path.is_dir():
        return b"", None
    broken: IngestError | None = None
    try:
        with path.open("rb") as fh:
            head = fh.read(size)
        if head[:2] == b"\x1f\x8b":
            head, broken = _gzip_head(path, size)
    except OSError as err:
        raise IngestError(
            f"{path}: cannot be read ({err.strerror or err})", "check the path"
        ) from None
    wide = wide_encoding(head)
    if wide is not None:  # sniffers look for ASCII markers: show them UTF-8
        head = head[: len(head) - len(head) % 4].decode(wide, errors="replace").encode()
    return head, broken


def _gzip_head(path: Path, size: int) -> tuple[bytes, IngestError | None]:
    """The first ``size`` decompressed bytes of the gzip file ``path``, with the error of a
    stream that breaks before them. A stream cut short (a download stopped early) gives the
    bytes before the cut, so that a reader that can keeps its complete records and reports
    where it ends: gzip.read(size) raised EOFError for such a file whenever it held less
    than ``size`` bytes, and detection refused it whole; a corrupt block's zlib.error was
    not caught at all ("litsift failed unexpectedly").

    Raises:
        IngestError: not one byte can be decompressed (a corrupt header or first block).
    """
    chunks: list[bytes] = []
    got = 0
    try:
        with gzip.open(path, "rb") as gz:
            while got < size:
                chunk = gz.read1(size - got)
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
    except (OSError, EOFError, zlib.error) as err:
        broken = IngestError(f"{path}: broken gzip file ({err})", "re-download it")
        if not got:
            raise broken from None
        return b"".join(chunks), broken
    return b"".join(chunks), None


def detect(path: Path) -> Format | None:
    """The format of ``path`` judged from its content, or None when no format claims it.

    Raises:
        IngestError: the file cannot be read; or it is gzip that breaks off before any
            format could tell it is theirs ("broken gzip file", not "no format litsift reads").
    """
    head, broken = _head(path, HEAD_BYTES)
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
    if best is None and broken is not None:
        raise broken
    return formats()[best[2]] if best else None
