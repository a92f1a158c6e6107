"""The JSON values in a model's reply, read as models write them.

Asked for JSON, real models wrap it in a ```json fence, put prose before or after it, write
Python literals (single quotes: Qwen3-Coder; parsers such as vLLM's fall back to
``ast.literal_eval``), leave trailing commas, or stop at the output limit mid-array. Each
outermost ``[...]`` or ``{...}`` of the reply that parses (as JSON, then without trailing
commas, then as a Python literal) is one value, in reply order; brackets inside strings do not
count. A value that does not close (a reply cut at the output limit) or does not parse gives
the complete values inside it instead: the items written in full are kept, the one cut is not
completed (nothing the model did not write is made up).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["json_values"]

_PAIRS = {"]": "[", "}": "{"}
_TRAILING_COMMA_RE = re.compile(r",\s*([}\]])")
#: a single quote opens a Python-style string only where a value or key starts
_VALUE_START = "[{,:"
#: levels of brackets inside a value read (an answer has 2 or 3)
_MAX_DEPTH = 16


def json_values(text: str) -> list[Any]:
    """The outermost JSON (or Python-literal) lists and objects in ``text``, in order.

    Args:
        text: a model's reply (prose, fences, JSON).

    Returns:
        Each parsed list or dict; ``[]`` when there is none.
    """
    out: list[Any] = []
    covered = 0
    for start, end in _bracket_spans(text):
        if start < covered:
            continue  # inside a value already read
        value = _parse(text[start : end + 1])
        if value is not None:
            out.append(value)
            covered = end + 1
    return out


def _bracket_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each matched bracket pair outside strings, by ``start``.

    Strings are double-quoted, or single-quoted where a value starts (after ``[{,:``), so an
    apostrophe in prose opens none; a string ends at its closing quote or at a line end
    (model JSON never breaks a string over lines), so an odd quote in prose spoils one line
    at most. A closing bracket that matches no open one is ignored; so are pairs with more
    than :data:`_MAX_DEPTH` levels inside (no answer nests so deep; parsing each level of a
    degenerate ``[[[[...]]]]`` would take time quadratic in its length)."""
    spans: list[tuple[int, int]] = []
    stack: list[list[Any]] = []  # [bracket, where, levels nested inside]
    opened = {"[": 0, "{": 0}
    quote = ""
    last = ""  # the last character outside strings that is not white space
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote or ch == "\n":
                quote = ""
                last = ch
        elif ch == '"' or (ch == "'" and last in _VALUE_START):
            quote = ch
        elif ch in "[{":
            stack.append([ch, i, 0])
            opened[ch] += 1
        elif ch in _PAIRS and opened[_PAIRS[ch]]:
            inner = 0
            while True:
                open_ch, at, levels = stack.pop()
                opened[open_ch] -= 1
                inner = max(inner, levels)
                if open_ch == _PAIRS[ch]:
                    break
            if inner <= _MAX_DEPTH:
                spans.append((at, i))
            if stack:
                stack[-1][2] = max(stack[-1][2], inner + 1)
        if not quote and not ch.isspace():
            last = ch
        i += 1
    return iter(sorted(spans))


def _parse(span: str) -> Any:
    """``span`` as a list or dict, or None when it is neither JSON nor a Python literal."""
    for attempt in (span, _TRAILING_COMMA_RE.sub(r"\1", span)):
        try:
            value = json.loads(attempt)
        except (ValueError, RecursionError):  # RecursionError: brackets nested thousands deep
            continue
        return value if isinstance(value, (list, dict)) else None
    try:
        value = ast.literal_eval(span)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (list, dict)) else None
