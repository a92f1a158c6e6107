"""Reading JSONL / JSONL.gz input one line at a time, where one bad byte costs one line.

The file (or its gzip stream, recognised by its magic bytes whatever the file is called) is
read as bytes and split on ``b"\\n"`` only -- never ``str.splitlines()``, which also breaks on
U+2028. Each line is then decoded on its own as strict UTF-8 and parsed with :mod:`json`; every
failure of one line (invalid UTF-8, a NUL byte, invalid JSON, nesting deeper than the
interpreter allows, a number too long to convert) becomes an
:class:`~litsift.store.records.InvalidRecord` for that line, and reading goes on. Only a file
that cannot be opened or read at all raises.
"""

from __future__ import annotations

import codecs
import gzip
import io
import json
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, cast

from litsift.errors import IngestError
from litsift.store.records import InvalidRecord
from litsift.store.report import Problem

_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"


#: byte-order marks, longest first (UTF-32 LE's BOM starts with UTF-16 LE's)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def wide_encoding(raw: bytes) -> str | None:
    """The UTF-16 / UTF-32 encoding of ``raw``, or None for byte-wide text (UTF-8, Latin-1...).

    Windows tools (EndNote's "Unicode" export, PowerShell's ``>``, Notepad's "Unicode") write
    UTF-16. Judged by the byte-order mark, else -- for text without one -- by NUL bytes at
    every other position of the first 4 KiB (ASCII-range text in UTF-16 LE or BE).

    Returns:
        ``"utf-32"`` / ``"utf-16"`` (BOM; the codec reads and drops it), ``"utf-16-le"`` /
        ``"utf-16-be"`` (no BOM), or None.
    """
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return encoding
    sample = raw[:4096]
    half = len(sample) // 2
    if half < 2 or b"\x00" not in sample:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    if odd > 0.4 * half and even < 0.05 * half:
        return "utf-16-le"
    if even > 0.4 * half and odd < 0.05 * half:
        return "utf-16-be"
    return None


class _WideLines:
    """A UTF-16 / UTF-32 file read as UTF-8 lines (split on ``\\n`` only), so the line reader
    below works unchanged; an odd trailing byte becomes U+FFFD."""

    def __init__(self, raw: BinaryIO, encoding: str) -> None:
        self._text = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="\n")

    def __enter__(self) -> _WideLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._text.close()

    def __iter__(self) -> Iterator[bytes]:
        for line in self._text:
            yield line.encode("utf-8", "surrogatepass")


#: one input line that was skipped: ``Problem(file, str(line_no), reason)``
BadLine = Problem


class NotText(InvalidRecord):
    """A line that is not UTF-8 text (an invalid byte sequence or a NUL byte)."""


def open_input(path: Path) -> BinaryIO:
    """Open ``path`` for binary reading, through gzip when it starts with the gzip magic, and as
    UTF-8 lines when it is UTF-16 / UTF-32 text (:func:`wide_encoding`).

    Raises:
        IngestError: ``path`` is a directory, does not exist or cannot be read.
    """
    if path.is_dir():
        raise IngestError(f"{path} is a directory", "give a .jsonl or .jsonl.gz file")
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
        if head[: len(_GZIP_MAGIC)] == _GZIP_MAGIC:
            return cast(BinaryIO, gzip.open(path, "rb"))
        wide = wide_encoding(head)
        if wide is not None:  # PowerShell's ">" writes UTF-16
            return cast(BinaryIO, _WideLines(path.open("rb"), wide))
        return path.open("rb")
    except OSError as err:
        raise IngestError(
            f"cannot read {path}: {err.strerror or err}",
            "check the path and its permissions",
        ) from err


def decode_line(raw: bytes) -> str:
    """Decode one line as strict UTF-8.

    Raises:
        NotText: an invalid UTF-8 sequence or a NUL byte; the reason gives its 1-based column
            (in bytes).
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise NotText(
            f"not UTF-8: byte 0x{raw[err.start]:02X} at column {err.start + 1} ({err.reason})"
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        raise NotText(f"NUL byte at column {len(text[:nul].encode('utf-8')) + 1}")
    return text


def parse_json(text: str) -> Any:
    """Parse one line of JSON text.

    Raises:
        InvalidRecord: invalid JSON, nesting too deep for the parser, or an integer with more
            digits than Python converts (``sys.get_int_max_str_digits()``, 4,300 by default).
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidRecord(f"invalid JSON: {err.msg} (column {err.colno})") from None
    except RecursionError:
        raise InvalidRecord("invalid JSON: nested too deeply") from None
    except ValueError as err:  # int("1" * 5000): "Exceeds the limit (4300 digits) ..."
        if "digits" in str(err):
            limit = sys.get_int_max_str_digits()
            raise InvalidRecord(f"a number has more than {limit:,} digits") from None
        raise InvalidRecord(f"invalid JSON: {str(err)[:80]}") from None


class JsonlReader:
    """Iterate over a JSONL file: ``(line_no, decoded JSON or an InvalidRecord)`` per line.

    Blank lines are skipped (their numbers still count); a UTF-8 byte order mark on line 1 is
    dropped. A gzip stream that ends early or is corrupt ends the iteration and adds one
    :class:`BadLine` (at the line after the last one read) to ``stream_errors``.

    Attributes:
        path: the input file.
        stream_errors: whole-stream failures, at most one.
        parsed: lines that were valid JSON (of any shape).
        not_text: lines that were not UTF-8 text.
        first_not_text: the first such line, for a whole-file error.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stream_errors: list[Problem] = []
        self.parsed = 0
        self.not_text = 0
        self.first_not_text: Problem | None = None

    def is_binary(self) -> bool:
        """True when no line was JSON and some were not text: the file is not JSONL at all."""
        return self.parsed == 0 and self.not_text > 0

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        line_no = 0
        with open_input(self.path) as fh:
            try:
                for line_no, raw in enumerate(fh, start=1):
                    if line_no == 1 and raw.startswith(_BOM):
                        raw = raw[len(_BOM) :]
                    if not raw.strip():
                        continue
                    yield line_no, self._parse(line_no, raw)
            except (EOFError, zlib.error, gzip.BadGzipFile) as err:
                self.stream_errors.append(
                    Problem(
                        str(self.path),
                        str(line_no + 1),
                        f"gzip stream ends early or is corrupt ({err})",
                    )
                )
            except OSError as err:
                raise IngestError(f"cannot read {self.path}: {err}", "check the file") from err

    def _parse(self, line_no: int, raw: bytes) -> Any:
        try:
            obj = parse_json(decode_line(raw))
        except NotText as err:
            self.not_text += 1
            if self.first_not_text is None:
                self.first_not_text = Problem(str(self.path), str(line_no), str(err))
            return err
        except InvalidRecord as err:
            return err
        self.parsed += 1
        return obj
