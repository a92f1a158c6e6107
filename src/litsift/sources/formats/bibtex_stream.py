"""A ``.bib`` file read as a stream of chunks of whole blocks, so that a 200 MB file is never
held at once (issue 43, item 8; used by :mod:`litsift.sources.formats.bibtex_db`).

* :func:`text_encoding` decides the file's encoding as :func:`~litsift.sources.base.read_text`
  does (UTF-16/32 by its head, else UTF-8 if every byte decodes, else the code page JabRef's
  ``% Encoding:`` line names if the bytes decode in it, else the legacy encoding
  :func:`~litsift.sources.encodings.legacy_encoding` finds, Latin-1 for a Western file),
  reading the bytes a block at a time;
* :func:`chunks` yields the file's lines in chunks of at most :data:`CHUNK_BLOCKS` blocks,
  cut only where a line starts a block (``@type{`` or ``@type(`` after optional blanks): there
  bibtexparser's splitter starts a new block whatever came before (it gives up an unclosed
  entry at such a line), so the chunks split as the whole file would. ``%`` comment lines
  outside entries are emptied on the way (:func:`~litsift.sources.formats.bibtex_blocks.
  drop_comment_line`, the brace depth carried from chunk to chunk), line numbers kept;
* :func:`scan` is the cheap first pass: the ``@string`` and ``@preamble`` blocks (every entry
  of the file may use them) and the keys that ``crossref`` and ``xdata`` fields name (the
  entries the others inherit from).
"""

from __future__ import annotations

import codecs
import gzip
import io
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from litsift.errors import IngestError
from litsift.sources.encodings import declared_encoding, legacy_encoding, note_guess
from litsift.sources.formats.bibtex_blocks import drop_comment_line
from litsift.store.jsonl import wide_encoding

__all__ = ["CHUNK_BLOCKS", "Chunk", "Scan", "chunks", "scan", "text_encoding"]

#: blocks (entries, macros, comments) per chunk: about 3 MB of text and 30 MB parsed
CHUNK_BLOCKS = 2000
_READ_BYTES = 1 << 20
_BLOCK_START_RE = re.compile(r"@\w*[ \t]*[{(]")
_MACRO_START_RE = re.compile(r"@[ \t]*(?:string|preamble)[ \t]*[{(]", re.IGNORECASE)
#: a ``crossref`` / ``xdata`` field and its value (braced, quoted or bare)
_REF_RE = re.compile(
    r"(?im)(?:^|[,{(])\s*(?P<name>crossref|xdata)\s*=\s*"
    r"(?:\{+(?P<braced>[^{}]*)\}+|\"(?P<quoted>[^\"]*)\"|(?P<bare>[^\s,}]+))"
)
#: a granular reference inside another field: ``xdata=KEY-FIELD[-N]``
_GRANULAR_RE = re.compile(r"(?i)xdata=([^\s,{}\"]+)")
_HEAD_KEY_RE = re.compile(r"@\w*[ \t]*[{(]\s*([^,\s]*)")
_IDS_RE = re.compile(r"(?im)(?:^|[,{(])\s*ids\s*=\s*[{\"]([^{}\"]*)")


def _open_bytes(path: Path) -> BinaryIO:
    """``path`` for reading bytes, decompressed when it is gzip (by its magic bytes).

    Raises:
        IngestError: the file cannot be opened.
    """
    try:
        raw = path.open("rb")
        if raw.read(2) == b"\x1f\x8b":
            raw.close()
            return gzip.open(path, "rb")  # type: ignore[return-value]
        raw.seek(0)
        return raw
    except OSError as err:
        raise IngestError(f"{path}: cannot be read ({err.strerror})", "check the path") from None


def _read_error(path: Path, err: Exception) -> IngestError:
    if isinstance(err, OSError) and not isinstance(err, gzip.BadGzipFile) and err.strerror:
        return IngestError(f"{path}: cannot be read ({err.strerror})", "check the path")
    return IngestError(f"{path}: broken gzip file ({err})", "re-download it")


def text_encoding(path: Path, fallback: str = "latin-1") -> tuple[str, str]:
    """``(encoding, errors)`` to read ``path`` with, decided as
    :func:`~litsift.sources.base.decode_text` decides it for the whole file: UTF-16 / UTF-32
    by the head, else UTF-8 (a BOM dropped) when every byte decodes -- or only the last
    character is cut, in a file that is not plain ASCII before it -- else the code page the
    file names on JabRef's ``% Encoding: NAME`` line
    (:func:`~litsift.sources.encodings.declared_encoding`) when the bytes up to the end of the
    block (up to 1 MiB) where UTF-8 failed decode in it, else the encoding
    :func:`~litsift.sources.encodings.legacy_encoding` finds in that block: ``fallback`` for a
    Western file, a name of :data:`~litsift.sources.encodings.CANDIDATES` for GBK, Shift_JIS,
    Windows-1251 and the like (a guess, told to
    :func:`~litsift.sources.encodings.note_guess`).

    Raises:
        IngestError: the file cannot be read, or is a broken gzip file.
    """
    with _open_bytes(path) as f:
        try:
            head = f.read(4096)
            wide = wide_encoding(head)
            if wide is not None:
                return wide, "replace"
            decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")
            declared = _Declared(declared_encoding(head))
            ascii_so_far = True
            block = head
            while True:
                final = len(block) == 0
                try:
                    decoder.decode(block, final=final)
                except UnicodeDecodeError as err:
                    cut = final and err.reason == "unexpected end of data"
                    utf8 = head.startswith(codecs.BOM_UTF8) or not ascii_so_far
                    if cut and utf8:
                        return "utf-8-sig", "replace"
                    if declared.decodes(block):
                        return declared.name, "replace"
                    guess = legacy_encoding(block, fallback)
                    if guess != fallback:
                        note_guess(guess)
                    return guess, "replace"
                if final:
                    return "utf-8-sig", "strict"
                declared.decodes(block)
                ascii_so_far = ascii_so_far and block.isascii()
                block = f.read(_READ_BYTES)
        except (OSError, EOFError, zlib.error) as err:
            raise _read_error(path, err) from None


class _Declared:
    """The encoding a file names (or None), and whether its bytes so far decode in it."""

    def __init__(self, name: str | None) -> None:
        self.name = name or ""
        self._decoder = codecs.getincrementaldecoder(name)("strict") if name else None

    def decodes(self, block: bytes) -> bool:
        """Whether the bytes so far, ``block`` the last of them, decode in the encoding."""
        if self._decoder is None:
            return False
        try:
            self._decoder.decode(block)
        except UnicodeDecodeError:
            self._decoder = None
            return False
        return True


@dataclass
class Chunk:
    """Whole blocks of a file: ``text`` starts on 0-based line ``first_line``; ``blocks``
    is how many blocks start in it; ``last``: the file ends with it."""

    first_line: int
    text: str
    blocks: int
    last: bool = False


def _lines(path: Path, encoding: tuple[str, str]) -> Iterator[str]:
    with _open_bytes(path) as raw:
        text = io.TextIOWrapper(raw, encoding=encoding[0], errors=encoding[1], newline=None)
        try:
            for line in text:
                yield line[:-1] if line.endswith("\n") else line
        except (OSError, EOFError, zlib.error) as err:
            raise _read_error(path, err) from None


def chunks(
    path: Path,
    encoding: tuple[str, str],
    size: int | None = None,
    blank_macros: bool = False,
    macros: list[str] | None = None,
) -> Iterator[Chunk]:
    """The text of ``path`` in chunks of at most ``size`` (default :data:`CHUNK_BLOCKS`)
    blocks, cut where a line starts a block; ``%`` comment lines outside entries emptied.

    An ``@string`` or ``@preamble`` block is taken to run from its first line to the first
    line after which the brace depth is 0 again.

    Args:
        path: a ``.bib`` file (``.gz`` too).
        encoding: ``(encoding, errors)`` from :func:`text_encoding`.
        size: blocks per chunk.
        blank_macros: empty the lines of ``@string`` and ``@preamble`` blocks (read on their
            own, see :func:`scan`); the line numbers stay.
        macros: when given, the lines of the ``@string`` and ``@preamble`` blocks are
            appended to it, each at its own line number (the lines between them empty).

    Raises:
        IngestError: the file cannot be read, or is a broken gzip file.
    """
    size = size or CHUNK_BLOCKS
    lines: list[str] = []
    first = depth = count = 0
    in_macro = False
    ready: Chunk | None = None  # held back until it is known whether the file goes on
    for n, line in enumerate(_lines(path, encoding)):
        line, depth = drop_comment_line(line, depth)
        bare = line.lstrip()
        if bare.startswith("@") and _BLOCK_START_RE.match(bare):
            if count >= size:
                if ready is not None:
                    yield ready
                ready = Chunk(first, "\n".join(lines), count)
                lines, first, count = [], n, 0
            count += 1
            in_macro = _MACRO_START_RE.match(bare) is not None
        if in_macro and macros is not None:
            macros.extend([""] * (n - len(macros)))
            macros.append(line)
        lines.append("" if in_macro and blank_macros else line)
        in_macro = in_macro and depth > 0
    if ready is not None:
        if not lines:
            ready.last = True
        yield ready
    if lines or ready is None:
        yield Chunk(first, "\n".join(lines), count, last=True)


@dataclass
class Scan:
    """What the first pass over a file found: its ``@string`` / ``@preamble`` blocks (one
    text, each block on its own lines, other lines empty) and the lower-case keys its
    ``crossref`` fields and its ``xdata`` fields or granular references name."""

    macros: str = ""
    crossref: set[str] = field(default_factory=set)
    xdata: set[str] = field(default_factory=set)


def _granular_keys(ref: str) -> list[str]:
    """Every key a granular ``KEY-FIELD[-N]`` may name (keys may hold ``-``)."""
    parts = ref.lower().split("-")
    return ["-".join(parts[:i]) for i in range(1, len(parts))]


def scan(path: Path, encoding: tuple[str, str], size: int | None = None) -> Scan:
    """The first pass over ``path`` (see :class:`Scan`).

    Raises:
        IngestError: the file cannot be read, or is a broken gzip file.
    """
    out = Scan()
    macro_lines: list[str] = []
    for chunk in chunks(path, encoding, size, macros=macro_lines):
        for match in _REF_RE.finditer(chunk.text):
            value = match["braced"] or match["quoted"] or match["bare"] or ""
            keys = {k.strip().lower() for k in value.split(",") if k.strip()}
            (out.crossref if match["name"].lower() == "crossref" else out.xdata).update(keys)
        for match in _GRANULAR_RE.finditer(chunk.text):
            out.xdata.update(_granular_keys(match.group(1)))
    out.macros = "\n".join(macro_lines)
    return out


def referenced_blocks(
    path: Path, encoding: tuple[str, str], keys: set[str], size: int | None = None
) -> Chunk:
    """The blocks of ``path`` that may be the entries ``keys`` (lower case) name -- by their
    key or an ``ids`` alias, and every block whose key this cheap reading cannot tell -- as
    one chunk from line 0 (other lines empty), ``@string`` / ``@preamble`` blocks left out.

    Raises:
        IngestError: the file cannot be read, or is a broken gzip file.
    """
    out: list[str] = []
    count = 0
    for chunk in chunks(path, encoding, size, blank_macros=True):
        out.extend([""] * (chunk.first_line - len(out)))
        block: list[str] = []
        for line in [*chunk.text.split("\n"), "@end{"]:
            bare = line.lstrip()
            if bare.startswith("@") and _BLOCK_START_RE.match(bare):
                if block and _wanted(block, keys):
                    out.extend(block)
                    count += 1
                else:
                    out.extend([""] * len(block))
                block = []
            block.append(line)
    while out and not out[-1]:
        out.pop()
    return Chunk(0, "\n".join(out), count)


def _wanted(block: list[str], keys: set[str]) -> bool:
    head = block[0].lstrip()
    if not head.startswith("@"):
        return False  # text before the first block
    match = _HEAD_KEY_RE.match(head)
    key = match.group(1).lower() if match else ""
    if not key or key in keys:
        return True
    text = "\n".join(block)
    return any(
        alias.strip().lower() in keys
        for found in _IDS_RE.finditer(text)
        for alias in found.group(1).split(",")
    )
