"""JSON exports that may be cut: keep the complete items of a truncated (or damaged) array.

A download that stopped early, a copy cut at a size limit or an export with one broken item
leaves a JSON document that ``json.loads`` rejects whole. :func:`load_json_items` then reads it
again value by value with the standard library's ``json.JSONDecoder.raw_decode``: the
containers on the way to the records array (``message`` -> ``items`` in a Crossref response,
the top-level array of a CSL-JSON export) are opened one member at a time and every array
element is decoded on its own, so each complete item before the break is kept and the break is
reported with its line: the cut item, or the first item that is not valid JSON (the items after
a broken one cannot be found reliably and are not read).

Only arrays the caller names as records arrays are read this way. A break anywhere else (a
single cut work, a cut ``facets`` block before the items) leaves nothing safe to keep: that is
an :class:`~litsift.errors.IngestError` with the line and column of the break, never a record
built from half an object.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import BadItem

__all__ = ["RecordsPath", "load_json_items", "looks_like_json_lines"]

#: the keys leading from the top of a document to a records array; ``()`` = the top level
RecordsPath = tuple[str, ...]

_DECODER = json.JSONDecoder()
_WS = " \t\n\r"


class _Break(Exception):
    """The document stops being readable at ``pos`` (``msg``: the decoder's words)."""

    def __init__(self, pos: int, msg: str, truncated: bool) -> None:
        super().__init__(msg)
        self.pos = pos
        self.msg = msg
        self.truncated = truncated


def _where(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _count(n: int, plural: str) -> str:
    return f"{n:,} {plural if n != 1 else plural.removesuffix('s')}"


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _truncated(text: str, pos: int, msg: str) -> bool:
    """True when the break is the end of the text: an unterminated string runs to the end, or
    nothing but a cut token (``tru``, ``1.``, ``"\\u00``) follows the break."""
    return msg.startswith("Unterminated string") or len(text[pos:].strip()) <= 6


def _decode(text: str, pos: int) -> tuple[Any, int]:
    if pos >= len(text):
        raise _Break(pos, "the text ends", True)
    try:
        return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as err:
        msg = err.msg.removesuffix(" starting at")  # "Unterminated string starting at"
        raise _Break(
            err.pos, msg[:1].lower() + msg[1:], _truncated(text, err.pos, err.msg)
        ) from None
    except RecursionError:
        raise _Break(pos, "nested too deeply", False) from None


def _expect(text: str, pos: int, chars: str, what: str) -> tuple[str, int]:
    pos = _skip(text, pos)
    if pos >= len(text):
        raise _Break(pos, "the text ends", True)
    if text[pos] not in chars:
        raise _Break(pos, f"expected {what}", _truncated(text, pos, ""))
    return text[pos], pos + 1


class _Reader:
    """One pass over ``text``; fills ``root`` as it goes, so what was read survives a break."""

    def __init__(self, text: str, paths: Sequence[RecordsPath]) -> None:
        self.text = text
        self.paths = [tuple(p) for p in paths]
        self.root: Any = None
        #: (1-based index of the element being read, its start) while inside a records array
        self.element: tuple[int, int] | None = None
        self.elements_done = 0
        self.entered = False

    def _leads_to_records(self, path: RecordsPath) -> bool:
        return any(len(p) > len(path) and p[: len(path)] == path for p in self.paths)

    def value(self, pos: int, path: RecordsPath, attach: Any) -> int:
        """Read the value at ``pos`` (``path`` from the top); ``attach(value)`` stores it in
        its parent -- before it is filled when it is a container on a records path."""
        pos = _skip(self.text, pos)
        opener = self.text[pos] if pos < len(self.text) else ""
        if opener == "[" and path in self.paths:
            items: list[Any] = []
            attach(items)
            return self.records(pos + 1, items)
        if opener == "{" and self._leads_to_records(path):
            members: dict[str, Any] = {}
            attach(members)
            return self.members(pos + 1, path, members)
        value, end = _decode(self.text, pos)
        attach(value)
        return end

    def members(self, pos: int, path: RecordsPath, out: dict[str, Any]) -> int:
        pos = _skip(self.text, pos)
        if self.text.startswith("}", pos):
            return pos + 1
        while True:
            pos = _skip(self.text, pos)
            key, pos = _decode(self.text, pos)
            if not isinstance(key, str):
                raise _Break(pos, "expected a member name", False)
            _, pos = _expect(self.text, pos, ":", "':'")
            pos = self.value(pos, (*path, key), lambda v, k=key: out.__setitem__(k, v))
            sep, pos = _expect(self.text, pos, ",}", "',' or '}'")
            if sep == "}":
                return pos

    def records(self, pos: int, out: list[Any]) -> int:
        self.entered = True
        pos = _skip(self.text, pos)
        if self.text.startswith("]", pos):
            return pos + 1
        while True:
            pos = _skip(self.text, pos)
            self.element = (len(out) + 1, pos)
            value, pos = _decode(self.text, pos)
            out.append(value)
            self.element = None
            self.elements_done = len(out)
            sep, pos = _expect(self.text, pos, ",]", "',' or ']'")
            if sep == "]":
                return pos


def load_json_items(
    text: str, paths: Sequence[RecordsPath], what: str = "items"
) -> tuple[Any, BadItem | None]:
    """The JSON document in ``text``, or as much of it as can be kept when it is cut.

    Args:
        text: the whole file as text.
        paths: where records arrays may be: ``[()]`` for a top-level array, ``[("items",)]``
            for ``{"items": [...]}``, ``[("message", "items")]`` for a Crossref response.
        what: the records' name in messages (``"items"``, ``"works"``, ``"papers"``).

    Returns:
        ``(document, None)`` when ``text`` is valid JSON. Otherwise ``(partial, problem)``:
        the document with each records array holding its complete elements (containers on
        the way closed where the text stopped, other members read so far kept), and a
        :class:`~litsift.sources.base.BadItem` at ``line N`` naming the cut or broken item.

    Raises:
        IngestError: the text is not JSON, or breaks before any records array is reached
            (the message gives the line and column).
    """
    try:
        return json.loads(text), None
    except (ValueError, RecursionError):
        pass
    reader = _Reader(text, paths)
    start = _skip(text, 0)

    def keep(value: Any) -> None:
        reader.root = value

    try:
        end = reader.value(start, (), keep)
        end = _skip(text, end)
        if end < len(text):
            raise _Break(end, "extra text after the document", False)
    except _Break as brk:
        # a cut is where the text ends (the decoder names the start of a cut string)
        line, column = _where(text, len(text.rstrip()) if brk.truncated else brk.pos)
        if not reader.entered:
            state = "cut off" if brk.truncated else "not valid JSON"
            raise IngestError(
                f"{state} at line {line}, column {column} ({brk.msg}), before any {what}",
                "export or download it again" if brk.truncated else "check the file",
            ) from None
        done = reader.elements_done
        if reader.element is not None:
            n, at = reader.element
            item_line = _where(text, at)[0]
            if brk.truncated:
                reason = (
                    f"item {n} is cut off: the file ends inside it at line {line}, column {column} "
                    f"(a truncated export?); kept the {_count(done, what)} before it"
                )
            else:
                reason = (
                    f"item {n} is not valid JSON ({brk.msg} at line {line}, column {column}); "
                    f"kept the {_count(done, what)} before it, none after it"
                )
            return reader.root, BadItem(f"line {item_line}", reason)
        if brk.truncated:
            reason = f"the file ends at line {line} before the JSON is closed (a truncated export?)"
        else:
            reason = f"not valid JSON after item {done} ({brk.msg} at line {line}, column {column})"
        return reader.root, BadItem(
            f"line {line}", f"{reason}; kept the {_count(done, what)} before that"
        )
    return reader.root, None


def looks_like_json_lines(text: str) -> bool:
    """True when ``text`` starts with a complete JSON value followed by a newline and more
    text: JSON Lines, not one (cut) document."""
    start = _skip(text, 0)
    try:
        _, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return False
    rest = text[end:]
    return "\n" in rest and bool(rest.strip())
