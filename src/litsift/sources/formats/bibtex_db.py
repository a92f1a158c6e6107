"""A BibTeX database over several files: what ``\\bibliography{abbrev,biblio,crossref}`` reads.

:func:`load` splits every file (bibtexparser's splitter), builds one table of ``@string``
macros from all of them (a file's own definitions first, then the other files' in path order,
so the order the files are given in does not matter), resolves each file against it
(:class:`~litsift.sources.formats.bibtex.ConcatenationMiddleware`), and collects each file's entries
and bad blocks. :class:`Database` then resolves ``crossref`` and ``xdata`` across the files
(:mod:`litsift.sources.formats.bibtex_inherit`), expands the argument-less ``\\newcommand`` of the
``@preamble`` blocks, and yields the records; a container named in a ``crossref`` is not one.

A block bibtexparser cannot parse is a bad item ``line N`` with its reason (a block the file
ends inside: "the file ends inside this entry"), after the repairs of :func:`_salvage`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bibtexparser import model
from bibtexparser.library import Library
from bibtexparser.middlewares.parsestack import default_parse_stack
from bibtexparser.splitter import Splitter

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Notice, SourceRecord, read_text
from litsift.sources.formats.bibtex_blocks import drop_comment_lines, repair_blocks
from litsift.sources.formats.bibtex_entries import (
    _ORDINAL,
    _RECORD_TYPES_SKIP,
    ConcatenationMiddleware,
    _fields,
    _file_macros,
    _parse_string,
    _record,
)
from litsift.sources.formats.bibtex_inherit import CONTAINER_TYPES, inherit_crossref, inherit_xdata

__all__ = ["Database", "load"]


@dataclass
class _BibFile:
    """One file of a BibTeX database: its text and its blocks (split, then resolved)."""

    path: Path
    text: str
    library: Library
    entries: list[tuple[model.Entry, int, int]] = field(default_factory=list)
    bad: list[BadItem] = field(default_factory=list)
    index: dict[str, model.Entry] = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)


def _split(path: Path) -> _BibFile:
    """The blocks of ``path`` as bibtexparser splits them (macros not yet resolved).

    Raises:
        IngestError: the file cannot be read or split.
    """
    text = drop_comment_lines(read_text(path, "latin-1"))  # old files are often Latin-1
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # bad blocks are reported
    try:
        library, notices = repair_blocks(Splitter(bibstr=text).split())
        return _BibFile(path, text, library, notices=notices)
    except Exception as err:
        raise IngestError(
            f"{path}: not BibTeX ({err or 'the parser gave up'})", "check the file"
        ) from None


def _resolve(bib: _BibFile, shared: Mapping[str, str]) -> None:
    """Run the parse stack on ``bib`` (macros from the file, then ``shared``)."""
    library = bib.library
    for middleware in [ConcatenationMiddleware(shared), *default_parse_stack()]:
        library = middleware.transform(library)
    bib.library = library


#: a ``%`` comment after a field (biber reads them; BibTeX and bibtexparser do not)
_FIELD_COMMENT_RE = re.compile(r"(?m)([,}]|^)[ \t]*%[^\n]*$")
_KEYLESS_RE = re.compile(r"@(\w+)\s*\{(?=\s*\n\s*[A-Za-z][\w+\-]*\s*=)")
#: an entry cut in its first line (``@Arti``): bibtexparser sees a comment there
_CUT_HEAD_RE = re.compile(r"(?m)^[ \t]*@[ \t]*[A-Za-z]*[ \t]*\Z")
_CUT_REASON = "the file ends inside this entry (is the file cut short?)"


def _block_text(lines: list[str], start: int) -> str:
    """The lines of the block starting at 0-based line ``start``, up to the next ``@``."""
    end = start + 1
    while end < len(lines) and not lines[end].lstrip().startswith("@"):
        end += 1
    return "\n".join(lines[start:end])


def _salvage(raw: str, start_line: int | None, shared: Mapping[str, str]) -> model.Entry | None:
    """The entry of a block the parser gave up on, after the repairs other tools make: a
    missing key (EndNote) gets ``line-N``; ``\\}`` (a LaTeX line break closing a value, which
    bibtexparser reads as an escaped brace) gets a space; ``%`` comments after fields (which
    biber allows) go. None when it still fails."""
    fixed = _KEYLESS_RE.sub(lambda m: f"@{m.group(1)}{{line-{(start_line or 0) + 1},", raw, count=1)
    fixed = fixed.replace("\\\\}", "\\\\ }")
    fixed = _FIELD_COMMENT_RE.sub(r"\1", fixed)
    if fixed == raw:
        return None
    try:
        lib = _parse_string(fixed, shared)
    except Exception:
        return None
    if len(lib.entries) == 1 and not lib.failed_blocks:
        entry: model.Entry = lib.entries[0]
        return entry
    return None


def _failure(block: model.ParsingFailedBlock) -> str:
    error = block.error
    if "end of file" in str(getattr(error, "abort_reason", "")):
        return _CUT_REASON
    # bibtexparser's BlockAbortedException has an empty str(); its reason is ``abort_reason``
    lines = (
        str(error or "").strip().splitlines()
        or str(getattr(error, "abort_reason", "") or "").strip().splitlines()
    )
    return "unparseable BibTeX: " + (lines[0] if lines else "cannot be parsed")[:200]


def _collect(bib: _BibFile, shared: Mapping[str, str]) -> None:
    """Fill ``bib.entries`` (``(entry, ordinal of its key, 0-based line)``, in file order),
    ``bib.bad`` and ``bib.index`` (lower-case key -> first entry of that key)."""
    library = bib.library
    lines = bib.text.splitlines()
    entries = [(e, 1, e.start_line or 0) for e in library.entries]
    seen = {e.key: 1 for e in library.entries}
    for block in library.failed_blocks:
        kept = block.ignore_error_block
        line0 = block.start_line or 0
        if isinstance(block, model.DuplicateBlockKeyBlock) and isinstance(kept, model.Entry):
            seen[kept.key] = seen.get(kept.key, 1) + 1
            entries.append((kept, seen[kept.key], line0))
            continue
        if isinstance(block, model.DuplicateFieldKeyBlock) and isinstance(kept, model.Entry):
            entries.append((kept, 1, line0))  # a field given twice: the entry is kept (first value)
            seen.setdefault(kept.key, 1)
            continue
        salvaged = _salvage(_block_text(lines, line0), block.start_line, shared)
        if salvaged is not None:
            entries.append((salvaged, 1, line0))
            seen.setdefault(salvaged.key, 1)
            continue
        bib.bad.append(BadItem(f"line {line0 + 1}", _failure(block)))
    last = library.blocks[-1] if library.blocks else None
    if isinstance(last, model.ImplicitComment) and _CUT_HEAD_RE.search(last.raw or ""):
        head = (last.raw or "").rstrip().rsplit("\n", 1)[-1]
        line0 = (last.start_line or 0) + (last.raw or "").rstrip().count("\n")
        bib.bad.append(BadItem(f"line {line0 + 1}", f"{_CUT_REASON} ({head.strip()!r})"))
    entries.sort(key=lambda en: en[2])
    bib.entries = entries
    for entry, n, _ in entries:
        if n == 1:
            bib.index.setdefault(entry.key.lower(), entry)
    for entry, n, _ in entries:  # biblatex's aliases: ``ids = {other, keys}``
        ids = next((f.value for f in entry.fields if f.key.lower() == "ids"), "")
        for alias in _keys(str(ids)) if n == 1 else ():
            bib.index.setdefault(alias, entry)


#: biblatex's granular XDATA reference (``xdata=KEY-FIELD[-N]``, default separators)
_GRANULAR_RE = re.compile(r"xdata=(?P<key>.+?)-(?P<field>[A-Za-z]+)(?:-(?P<n>[0-9]+))?\Z")
_AND_RE = re.compile(r"\s+and\s+")


def _keys(value: str) -> list[str]:
    return [k.strip().lower() for k in value.split(",") if k.strip()]


def _id(found: tuple[int, model.Entry]) -> tuple[int, str]:
    return found[0], found[1].key.lower()


#: a LaTeX command without arguments defined in an ``@preamble``: ``\newcommand{\X}{body}``,
#: ``\providecommand``, ``\renewcommand``, ``\def\X{body}``
_NEWCOMMAND_RE = re.compile(
    r"\\(?:(?:re|provide|new)command\*?\s*(?:\{\s*\\(?P<a>[A-Za-z]+)\s*\}|\\(?P<b>[A-Za-z]+))"
    r"|def\s*\\(?P<c>[A-Za-z]+))\s*\{"
)


def _preamble_commands(preambles: list[str]) -> dict[str, str]:
    """``name -> body`` of the argument-less commands the ``@preamble`` blocks define (a
    command taking arguments, ``\\newcommand{\\X}[1]{..}``, is left alone)."""
    out: dict[str, str] = {}
    for text in preambles:
        for match in _NEWCOMMAND_RE.finditer(text):
            depth, start = 1, match.end()
            for i in range(start, len(text)):
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                if depth == 0:
                    name = match["a"] or match["b"] or match["c"]
                    out.setdefault(name, "{" + text[start:i] + "}")
                    break
    return out


def _expand_commands(fields: dict[str, str], commands: Mapping[str, str]) -> dict[str, str]:
    """``fields`` with the preamble's commands replaced by their bodies (``title =
    {\\MaxMinAntSystem}`` of a group bibliography whose ``abbrev.bib`` defines it)."""
    pattern = re.compile(r"\\(" + "|".join(map(re.escape, commands)) + r")(?![A-Za-z])")
    return {
        k: pattern.sub(lambda m: commands[m.group(1)], v) if "\\" in v else v
        for k, v in fields.items()
    }


class Database:
    """The files of one ``\\bibliography{a,b,c}``: one table of ``@string`` macros and one
    key space for ``crossref`` and ``xdata``; whatever the order of the files, a file's own
    macros and keys come first, then the other files' in path order."""

    def __init__(self, files: list[_BibFile]) -> None:
        self.files = files
        self.index: dict[str, tuple[int, model.Entry]] = {}
        for fi in sorted(range(len(files)), key=lambda i: str(files[i].path)):
            for key, entry in files[fi].index.items():
                self.index.setdefault(key, (fi, entry))
        self._memo: dict[tuple[int, str], tuple[dict[str, str], set[str]]] = {}
        self.commands = _preamble_commands(
            [p.raw or "" for bib in files for p in bib.library.preambles]
        )

    def lookup(self, fi: int, key: str) -> tuple[int, model.Entry] | None:
        """``(file index, entry)`` of the lower-case ``key`` (or ``ids`` alias) as file ``fi``
        sees it: its own entry first, then the database's; None when no file holds it."""
        own = self.files[fi].index.get(key)
        return (fi, own) if own is not None else self.index.get(key)

    def parents(self) -> set[tuple[int, str]]:
        """``(file, key)`` of the containers (``@proceedings``, ``@collection``, ``@book``...)
        that some entry names in its ``crossref``: their data lives on in their children."""
        out = set()
        for fi, bib in enumerate(self.files):
            for entry, _, _ in bib.entries:
                ref = next((f.value for f in entry.fields if f.key.lower() == "crossref"), "")
                found = self.lookup(fi, str(ref).strip().lower()) if ref else None
                if found and found[1].entry_type.lower() in CONTAINER_TYPES:
                    out.add(_id(found))
        return out

    def fields(
        self, fi: int, entry: model.Entry, stack: frozenset[tuple[int, str]] = frozenset()
    ) -> tuple[dict[str, str], set[str]]:
        """The entry's fields after ``xdata`` and ``crossref`` inheritance (parents resolved
        first, cycles cut), and the names of the inherited ones."""
        me = (fi, entry.key.lower())
        memo = self.files[fi].index.get(me[1]) is entry
        if memo and me in self._memo:
            return self._memo[me]
        fields, taken = _fields(entry), set[str]()
        stack = stack | {me}
        for key in _keys(fields.get("xdata", "")):
            found = self.lookup(fi, key)
            if found and found[1].entry_type.lower() == "xdata" and _id(found) not in stack:
                taken |= inherit_xdata(fields, [self.fields(*found, stack)[0]])
        for key, value in fields.items():
            if "xdata=" in value:
                fields[key] = self._granular(fi, value, stack)
        ref = fields.get("crossref", "").strip().lower()
        found = self.lookup(fi, ref) if ref else None
        if found and _id(found) not in stack:
            parent = self.fields(*found, stack)[0]
            parent_type = found[1].entry_type.lower()
            taken |= inherit_crossref(fields, parent, entry.entry_type.lower(), parent_type)
        if memo:
            self._memo[me] = (fields, taken)
        return fields, taken

    def _granular(self, fi: int, value: str, stack: frozenset[tuple[int, str]]) -> str:
        """``value`` with biblatex's granular references expanded: each ``and``-separated
        item ``xdata=KEY-FIELD`` (all of the field) or ``xdata=KEY-FIELD-N`` (its N-th name or
        list item) of an ``@xdata`` entry; a reference that does not resolve stays as written,
        as biber leaves it."""
        out: list[str] = []
        for item in _AND_RE.split(value):
            match = _GRANULAR_RE.match(item.strip())
            found = self.lookup(fi, match["key"].lower()) if match else None
            source = ""
            if (
                match
                and found
                and found[1].entry_type.lower() == "xdata"
                and _id(found) not in stack
            ):
                source = self.fields(*found, stack)[0].get(match["field"].lower(), "")
            parts = _AND_RE.split(source) if source else []
            if match and parts and match["n"] is None:
                out.extend(parts)
            elif match and parts and 1 <= int(match["n"]) <= len(parts):
                out.append(parts[int(match["n"]) - 1])
            else:
                out.append(item)
        return " and ".join(out)

    def records(self) -> Iterator[tuple[Path, SourceRecord | BadItem | Notice]]:
        """``(file, record or bad item)`` of every entry that is a work (not ``@string``,
        ``@preamble``, ``@xdata``, ``@set``, nor a container named in a ``crossref``), file by
        file in the order given, each file's bad blocks after its entries."""
        parents = self.parents()
        for fi, bib in enumerate(self.files):
            for entry, n, line0 in bib.entries:
                if entry.entry_type.lower() in _RECORD_TYPES_SKIP:
                    continue
                if n == 1 and (fi, entry.key.lower()) in parents:
                    continue
                if entry.key.strip():
                    location = f"entry {entry.key}" + _ORDINAL.get(n, f" ({n}th)")
                else:  # Mendeley and some hand-kept files write entries without a key
                    location = f"entry without a key, line {line0 + 1}"
                try:
                    fields, taken = self.fields(fi, entry)
                    if "editor" in taken:  # the volume's editors are not the paper's authors
                        fields = {k: v for k, v in fields.items() if k != "editor"}
                    if self.commands:
                        fields = _expand_commands(fields, self.commands)
                    yield bib.path, _record(entry.key, entry.entry_type, fields, location)
                except Exception as err:
                    reason = f"cannot be read ({err or 'the parser gave up'})"
                    yield bib.path, BadItem(location, reason[:200])
            for notice in bib.notices:
                yield bib.path, notice
            for bad in bib.bad:
                yield bib.path, bad


def load(paths: Sequence[Path]) -> tuple[Database, list[tuple[Path, IngestError]]]:
    """Split every file, build the database's macro table, resolve each file against it.

    Returns:
        The database of the usable files, and ``(file, error)`` for each file that cannot be
        read, is not BibTeX, or holds no BibTeX block at all (no entry, ``@string``,
        ``@preamble`` nor bad block).
    """
    files: list[_BibFile] = []
    unusable: list[tuple[Path, IngestError]] = []
    for path in paths:
        try:
            files.append(_split(Path(path)))
        except IngestError as err:
            unusable.append((Path(path), err))
    first: dict[str, str] = {}
    for bib in sorted(files, key=lambda b: str(b.path)):
        for key, value in _file_macros(bib.library, {}).items():
            first.setdefault(key, value)
    shared: dict[str, str] = {}  # again, for macros made of other files' macros
    for bib in sorted(files, key=lambda b: str(b.path)):
        for key, value in _file_macros(bib.library, first).items():
            shared.setdefault(key, value)
    usable = []
    for bib in files:
        try:
            _resolve(bib, shared)
            _collect(bib, shared)
        except Exception as err:  # a library error on this file alone
            reason = f"not BibTeX ({err or 'the parser gave up'})"
            unusable.append((bib.path, IngestError(reason, "check the file")))
            continue
        library = bib.library
        if not (bib.entries or bib.bad or library.strings or library.preambles):
            unusable.append(
                (bib.path, IngestError(f"{bib.path}: holds no BibTeX entries", "is it a .bib?"))
            )
            continue
        usable.append(bib)
    return Database(usable), unusable
