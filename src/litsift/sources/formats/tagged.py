"""The line grammar shared by the tagged formats (RIS, Web of Science plain text, MEDLINE):
:class:`TaggedParser` reads rispy's parser classes line by line, so that every record knows
its first line.

A record runs from its start tag (``TY``, ``PT``, ``PMID``) to its end tag (``ER``; a blank
line in MEDLINE). A record whose end tag is missing is kept, as Zotero's and JabRef's RIS
imports keep it, with a warning at its first line: before the next start tag (the new tag
ends it), or at the end of a file that ends with a line break. A file that ends inside a
line of an unended record (a cut download) yields that record as a :class:`BadItem`: its
last field cannot be trusted. Formats without an end tag decide for themselves
(:meth:`TaggedParser.complete`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar, NamedTuple

import rispy

from litsift.sources.base import BadItem

__all__ = ["TaggedParser", "TaggedRecord"]


class TaggedRecord(NamedTuple):
    """One record of a tagged file: its first ``line`` (1-based), its ordinal ``number``
    among the file's records (1-based), rispy's ``fields`` dict, and ``warning``: why the
    record may be incomplete (its end tag missing), ``""`` when it is whole."""

    line: int
    number: int
    fields: dict[str, Any]
    warning: str = ""


class TaggedParser(rispy.RisParser):  # type: ignore[misc]  # rispy ships no type hints
    """rispy's parser read line by line: records carry their first line; a record without
    its end tag is kept with a warning, or is a :class:`BadItem` when the file ends inside
    one of its lines: reported, never silently lost.

    Subclasses set rispy's ``START_TAG``, ``END_TAG`` (``""`` when a blank line ends a
    record, as in MEDLINE), ``DEFAULT_MAPPING``, ``DEFAULT_LIST_TAGS``, ``DEFAULT_IGNORE``,
    and :attr:`TAG_RE`.
    """

    #: a tagged line: group 1 the tag, group 2 (optional) the value; other lines continue
    #: the tag above
    TAG_RE: ClassVar[re.Pattern[str]] = re.compile(r"^([A-Z][A-Z0-9]{1,11})  -(?: ?(.*))?$")
    #: True: an untagged line continues the last item of a list tag (MEDLINE wraps long
    #: MeSH headings); False: it is a new item (EndNote writes keywords one a line under
    #: one ``KW``)
    JOIN_LIST_CONTINUATION: ClassVar[bool] = False
    #: how messages name the end of a record
    END_NAME: ClassVar[str] = "'ER  - '"
    #: a tag that ends the file, and so the record open before it (WoS ``EF``)
    FILE_END_TAG: ClassVar[str] = "\0"
    #: other tags a record starts with, as its start tag does (ERIC's MEDLINE: ``OWN``)
    OTHER_START_TAGS: ClassVar[frozenset[str]] = frozenset()

    def parse_line(self, line: str) -> tuple[str | None, str]:
        """``(tag, value)`` of a tagged line, ``(None, text)`` of a continuation line (a BOM
        before the tag, where two exports were joined into one file, is dropped)."""
        line = line.removeprefix("\ufeff")
        if self.END_TAG and line.rstrip() == self.END_TAG:
            return self.END_TAG, ""
        m = self.TAG_RE.match(line)
        if m:
            return m.group(1).rstrip(), (m.group(2) or "").strip()
        return None, line.strip()

    def _continue(self, record: dict[str, Any], tag: str, text: str) -> None:
        name = self.mapping.get(tag)
        value = record.get(name) if name else None
        if self.JOIN_LIST_CONTINUATION and tag in self.list_tags and value:
            value[-1] = f"{value[-1]} {text}"
        elif name is not None and name not in record:  # continuing an empty first line
            self._add_tag(record, tag, text)
        else:
            self._add_tag(record, tag, text, extend_multiline=True)

    def complete(self, record: dict[str, Any], ended_by_newline: bool) -> bool:
        """Whether a record the file ends inside is complete anyway (MEDLINE has no end
        tag); False for formats with an end tag."""
        return False

    def records(self, text: str) -> Iterator[TaggedRecord | BadItem]:
        """Every record of ``text`` (line ends already ``\\n``), in file order.

        A record starts at its start tag, or at any other tag after the end of the last one
        (Rayyan's examples leave out ``TY`` / ``PT``); such a record without its start tag
        counts only when its end tag closes it: Ovid writes stray tags (``NL  -``) after
        ``ER`` that belong to no record.
        """
        record: dict[str, Any] | None = None
        start = number = 0
        started = False  # the open record began with the start tag
        last_tag: str | None = None
        lines = text.split("\n")
        ended_by_newline = lines[-1] == ""
        if ended_by_newline:  # the "" after the last line end is not a (blank) line
            lines.pop()
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                if n == len(lines) and not ended_by_newline:
                    continue  # cut inside the indent of a continuation line: not a blank line
                if not self.END_TAG and record is not None:
                    yield TaggedRecord(start, number, record)
                    record = None
                continue
            tag, value = self.parse_line(line)
            if tag == self.START_TAG and record is not None:
                if started:  # the new record ends this one, as Zotero's RIS import reads it
                    yield TaggedRecord(
                        start,
                        number,
                        record,
                        f"record has no {self.END_NAME} line before the next record "
                        f"(line {n}): read up to that line",
                    )
                record = None
            if record is None:
                if tag is None or tag in self.ignore or tag == self.END_TAG:
                    continue
                started = tag == self.START_TAG or tag in self.OTHER_START_TAGS
                record, start, last_tag = {}, n, tag
                number += 1
                self._add_tag(record, tag, value)
                continue
            if tag is None:
                if last_tag is not None and last_tag not in self.ignore:
                    self._continue(record, last_tag, value)
                continue
            last_tag = tag
            if tag == self.END_TAG or tag == self.FILE_END_TAG:
                yield TaggedRecord(start, number, record)
                record = None
            elif tag not in self.ignore:
                self._add_tag(record, tag, value)
        if record is not None and started:
            if self.complete(record, ended_by_newline):
                yield TaggedRecord(start, number, record)
            elif self.END_TAG and ended_by_newline:  # whole lines: a writer that omits it
                yield TaggedRecord(
                    start,
                    number,
                    record,
                    f"record has no {self.END_NAME} line: the file ends first; read to the "
                    "end of the file (if the file was cut short, check the record)",
                )
            else:
                yield BadItem(
                    f"line {start}",
                    f"record cut short: the file ends before its {self.END_NAME} line "
                    "(a truncated download or copy?)",
                )
