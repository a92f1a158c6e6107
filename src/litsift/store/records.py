"""Validation of input records and conversion between table rows and typed records.

:func:`normalize` turns one decoded JSON object into the tuple of column values the store
writes, or raises :class:`InvalidRecord` with a short reason; :func:`row_to_record` turns a
table row back into a :class:`~litsift.types.Paper` or :class:`~litsift.types.Dataset`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from litsift.types import Dataset, Kind, Paper, Record

# LitSearch (`corpusid`) and BEIR (`_id`, `text`) aliases; the first key present wins.
_ID_KEYS = ("id", "corpusid", "_id")
_ABSTRACT_KEYS = ("abstract", "text")
_AUTHOR_SPLIT_RE = re.compile(r"\s*;\s*|\s*,\s*|\s+and\s+")
_DATE_RE = re.compile(r"^([0-9]{4})(?:-[0-9]{2}(?:-[0-9]{2})?)?")
_MIN_YEAR, _MAX_YEAR = 1, 9999
_SHOW_CHARS = 40


class InvalidRecord(ValueError):
    """A record cannot be stored; ``str(err)`` is the one-line reason for the bad-line report."""


def _first(obj: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for key in keys:
        if key in obj and obj[key] is not None:
            return obj[key]
    return None


def _show(value: Any) -> str:
    """``repr(value)`` cut to a few dozen characters, for a one-line reason."""
    if isinstance(value, list | dict):
        return f"of {len(value)} items"
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"of {len(str(abs(value))):,} digits" if abs(value) < 10**4000 else "(huge)"
    text = repr(value)
    return text if len(text) <= _SHOW_CHARS else text[: _SHOW_CHARS - 3] + "..."


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _unicode(key: str, text: str) -> str:
    """``text`` if it is valid Unicode (encodable as UTF-8), else :class:`InvalidRecord`.

    JSON escapes can spell lone surrogates (``"\\ud800"``), which no store or index can hold.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        code = ord(text[err.start])
        raise InvalidRecord(
            f"{key!r} holds a lone surrogate U+{code:04X} at character {err.start + 1}"
        ) from None
    return text


def _id(obj: Mapping[str, Any], keys: Sequence[str]) -> str:
    value = _first(obj, keys)
    if isinstance(value, bool) or not isinstance(value, str | int):
        if value is None:
            raise InvalidRecord(f"missing required field {keys[0]!r}")
        raise InvalidRecord(f"{keys[0]!r} must be a string, got {_type_name(value)}")
    text = _unicode(keys[0], str(value).strip())  # integer ids: LitSearch / S2 ``corpusid``
    if not text:
        raise InvalidRecord(f"empty required field {keys[0]!r}")
    return text


def _text(obj: Mapping[str, Any], key: str, keys: Sequence[str] | None = None) -> str:
    value = _first(obj, keys or (key,))
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidRecord(f"{key!r} must be a string, got {_type_name(value)} {_show(value)}")
    return _unicode(key, value)


def _year(value: Any, key: str = "year") -> int | None:
    """A JSON integer (``2020`` or ``2020.0``) in 1..9999, or None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidRecord(f"{key!r} must be an integer, got {_type_name(value)} {_show(value)}")
    if isinstance(value, float) and not value.is_integer():
        raise InvalidRecord(f"{key!r} must be an integer, got {_show(value)}")
    year = int(value)
    if not _MIN_YEAR <= year <= _MAX_YEAR:
        raise InvalidRecord(
            f"{key!r} out of range: {_show(year)} (must be {_MIN_YEAR}..{_MAX_YEAR})"
        )
    return year


def _str_list(obj: Mapping[str, Any], key: str, split: bool) -> list[str]:
    value = obj.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        parts = _AUTHOR_SPLIT_RE.split(_unicode(key, value)) if split else [_unicode(key, value)]
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            if isinstance(item, Mapping) and isinstance(item.get("name"), str):
                item = item["name"]  # Semantic Scholar style {"name": ..., "authorId": ...}
            if not isinstance(item, str):
                raise InvalidRecord(
                    f"{key!r} must be a list of strings, got {_type_name(item)} {_show(item)} in it"
                )
            if item.strip():
                out.append(_unicode(key, item.strip()))
        return out
    raise InvalidRecord(
        f"{key!r} must be a list of strings or one string, got {_type_name(value)} {_show(value)}"
    )


def normalize(kind: Kind, obj: Any) -> tuple[Any, ...]:
    """Validate and coerce one input object into column values.

    Args:
        kind: papers or datasets; decides the required fields and the columns.
        obj: one decoded JSON value.

    Returns:
        The values of ``CONTENT_COLUMNS[kind]``, in that order; list fields as JSON text.

    Types are not coerced: ``title: 12345``, ``year: "2019"`` or ``authors: [1, 2]`` are
    errors. Accepted as documented in the README: an integer id (LitSearch's ``corpusid``),
    authors as one string ``"A, B and C"`` or as Semantic Scholar ``{"name": ...}`` objects, a
    year as any integral JSON number, and for datasets a ``date`` YYYY-MM-DD giving the year.

    Raises:
        InvalidRecord: not an object; a required field is missing or empty; a field has the
            wrong type (e.g. ``year: "abc"``, ``title: 12345``); a year outside 1..9999; a
            string holding a lone surrogate (a JSON ``\\ud800`` escape).
    """
    if not isinstance(obj, Mapping):
        raise InvalidRecord(f"not a JSON object (got {type(obj).__name__})")
    if kind is Kind.PAPER:
        doc_id = _id(obj, _ID_KEYS)
        title = _text(obj, "title").strip()
        if not title:
            what = "empty" if obj.get("title") is not None else "missing"
            raise InvalidRecord(f"{what} required field 'title'")
        return (
            doc_id,
            title,
            _text(obj, "abstract", _ABSTRACT_KEYS),
            json.dumps(_str_list(obj, "authors", split=True), ensure_ascii=False),
            _year(obj.get("year")),
            _text(obj, "venue"),
            _text(obj, "status"),
            _text(obj, "url"),
            _text(obj, "license"),
        )
    doc_id = _id(obj, ("id",))
    date = _text(obj, "date").strip()
    m = _DATE_RE.match(date)
    if date and not m:
        raise InvalidRecord(f"'date' must be YYYY-MM-DD, got {date!r}")
    year = _year(obj.get("year"))
    if year is None and m:
        year = _year(int(m.group(1)), "date")
    return (
        doc_id,
        json.dumps(
            list(dict.fromkeys(_str_list(obj, "variants", split=False))), ensure_ascii=False
        ),
        _text(obj, "description"),
        _text(obj, "intro_paper_title"),
        year,
        date,
        _text(obj, "url"),
    )


def content_hash(values: tuple[Any, ...]) -> str:
    """A 128-bit BLAKE2b hex digest of the column values, the test for "content changed"."""
    payload = json.dumps(values, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(payload.encode("utf-8"), digest_size=16).hexdigest()


def row_to_record(kind: Kind, row: Sequence[Any]) -> Record:
    """Build a record from ``(rowid, *RECORD_COLUMNS[kind])`` as selected by the store."""
    if kind is Kind.PAPER:
        rowid, doc_id, title, abstract, authors, year, venue, status, url, lic, prob, meth = row
        return Paper(
            id=doc_id,
            title=title,
            abstract=abstract,
            authors=tuple(json.loads(authors)),
            year=year,
            venue=venue,
            status=status,
            url=url,
            license=lic,
            problem=prob,
            method=meth,
            rowid=rowid,
        )
    rowid, doc_id, variants, description, intro, year, date, url = row
    return Dataset(
        id=doc_id,
        variants=tuple(json.loads(variants)),
        description=description,
        intro_paper_title=intro,
        year=year,
        date=date,
        url=url,
        rowid=rowid,
    )
