"""A BibTeX database over several files: what ``\\bibliography{abbrev,biblio,crossref}`` reads,
read as a stream so that a 200 MB file never sits in memory (issue 43, item 8).

:func:`load` makes a first, cheap pass over every file (:func:`~litsift.sources.formats.
bibtex_stream.scan`): its ``@string`` and ``@preamble`` blocks, and the keys its ``crossref`` and
``xdata`` fields name. It builds one table of ``@string`` macros from all of them (a file's own
definitions first, then the other files' in path order, so the order the files are given in does
not matter), and parses the entries those keys name (:func:`~litsift.sources.formats.
bibtex_stream.referenced_blocks`). :meth:`Database.records` then reads each file a chunk of
blocks at a time (:func:`~litsift.sources.formats.bibtex_stream.chunks`): split (bibtexparser's
splitter), repaired, resolved against the macros
(:class:`~litsift.sources.formats.bibtex_entries.ConcatenationMiddleware`), ``crossref`` and
``xdata`` inherited across the files (:mod:`litsift.sources.formats.bibtex_inherit`), the
argument-less ``\\newcommand`` of the ``@preamble`` blocks expanded; a container named in a
``crossref`` is not a record. What is held at once is one chunk, the macros, the named parents
and the keys seen (for ``entry KEY (2nd)``).

A block bibtexparser cannot parse is a bad item ``line N`` with its reason (a block the file
ends inside: "the file ends inside this entry"), after the repairs of :func:`_salvage`.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from bibtexparser import model

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Notice, SourceRecord
from litsift.sources.encodings import noting_guesses
from litsift.sources.formats.bibtex_chunks import (
    _AND_RE,
    _BibFile,
    _collect,
    _index,
    _keys,
    _read,
    _resolve,
    _split,
)
from litsift.sources.formats.bibtex_entries import (
    _ORDINAL,
    _RECORD_TYPES_SKIP,
    _fields,
    _file_macros,
    _record,
)
from litsift.sources.formats.bibtex_inherit import CONTAINER_TYPES, inherit_crossref, inherit_xdata
from litsift.sources.formats.bibtex_stream import (
    Chunk,
    chunks,
    referenced_blocks,
    scan,
    text_encoding,
)

__all__ = ["Database", "load"]


#: biblatex's granular XDATA reference (``xdata=KEY-FIELD[-N]``, default separators)
_GRANULAR_RE = re.compile(r"xdata=(?P<key>.+?)-(?P<field>[A-Za-z]+)(?:-(?P<n>[0-9]+))?\Z")


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

    def __init__(self, files: list[_BibFile], size: int | None = None) -> None:
        """``size``: blocks per chunk (:data:`~litsift.sources.formats.bibtex_stream.
        CHUNK_BLOCKS` when None)."""
        self.files, self.size = files, size
        self.index: dict[str, tuple[int, model.Entry]] = {}
        for fi in sorted(range(len(files)), key=lambda i: str(files[i].path)):
            for key, entry in files[fi].index.items():
                self.index.setdefault(key, (fi, entry))
        self._memo: dict[tuple[int, str], tuple[dict[str, str], set[str]]] = {}
        self.commands = _preamble_commands(
            [p.raw or "" for bib in files for p in bib.macros.preambles]
        )
        #: the files found unusable while reading them (no BibTeX in them, a parser error)
        self.failed: dict[Path, IngestError] = {}
        #: chunks read so far, all files together
        self.chunks_read = 0

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
            for ref in bib.scan.crossref:
                found = self.lookup(fi, ref)
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
        file in the order given (an entry's notices of :meth:`_notices` before it), each
        file's other notices and bad blocks after its entries. A file
        that turns out to hold no BibTeX, or that the parser fails on, is one
        ``BadItem("", reason)`` (and in :attr:`failed`); its records read before stay."""
        parents = self.parents()
        for fi, bib in enumerate(self.files):
            try:
                for chunk in chunks(bib.path, bib.encoding, self.size, blank_macros=True):
                    self.chunks_read += 1
                    for entry, n, line0 in _read(bib, chunk):
                        item = self._record(fi, entry, n, line0, parents)
                        if item is not None:
                            for notice in self._notices(fi, entry, n, line0):
                                yield bib.path, notice
                            yield bib.path, item
                if not (bib.entries or bib.bad or bib.macros.strings or bib.macros.preambles):
                    raise IngestError(f"{bib.path}: holds no BibTeX entries", "is it a .bib?")
            except IngestError as err:
                self.failed[bib.path] = err
                yield bib.path, BadItem("", err.message.removeprefix(f"{bib.path}: "))
            except Exception as err:  # a library error on this file alone
                reason = f"not BibTeX ({err or 'the parser gave up'})"
                self.failed[bib.path] = IngestError(f"{bib.path}: {reason}", "check the file")
                yield bib.path, BadItem("", reason)
            for notice in bib.notices:
                yield bib.path, notice
            for bad in bib.bad:
                yield bib.path, bad

    def _notices(self, fi: int, entry: model.Entry, n: int, line0: int) -> list[Notice]:
        """Warnings about an entry that is read all the same (``line N``, 1-based): its key
        used by an earlier entry too (BibTeX and biber warn, and a LaTeX document cites only
        one of them), its ``crossref`` naming an entry no file read holds (nothing
        inherited)."""
        out = []
        where, key = f"line {line0 + 1}", entry.key.strip()
        if n > 1 and key:
            out.append(
                Notice(where, f"citation key {key!r} is used by an earlier entry too: both are "
                       f"kept (this one as 'entry {key}{_ORDINAL.get(n, f' ({n}th)')}')")
            )  # fmt: skip
        if any(f.key.lower() == "crossref" for f in entry.fields):
            ref = _fields(entry).get("crossref", "").strip()
            if ref and self.lookup(fi, ref.lower()) is None:
                out.append(
                    Notice(where, f"crossref {ref!r} names no entry of the files read: nothing "
                           "inherited (import the file that holds it together with this one)")
                )  # fmt: skip
        return out

    def _record(
        self, fi: int, entry: model.Entry, n: int, line0: int, parents: set[tuple[int, str]]
    ) -> SourceRecord | BadItem | None:
        """The record of ``entry`` (the ``n``-th of its key, on 0-based line ``line0`` of file
        ``fi``), a bad item when it cannot be read, None when it is no work."""
        if entry.entry_type.lower() in _RECORD_TYPES_SKIP:
            return None
        if n == 1 and (fi, entry.key.lower()) in parents:
            return None
        if entry.key.strip():
            location = f"entry {entry.key}" + _ORDINAL.get(n, f" ({n}th)")
        else:  # Mendeley and some hand-kept files write entries without a key
            location = f"entry without a key, line {line0 + 1}"
        try:
            fields, taken = self.fields(fi, entry)
            if self.commands:
                fields = _expand_commands(fields, self.commands)
            # the volume's editors are the paper's editors, never its authors nor its identity
            own = "editor" not in taken
            return _record(entry.key, entry.entry_type, fields, location, own_editor=own)
        except Exception as err:
            reason = f"cannot be read ({err or 'the parser gave up'})"
            return BadItem(location, reason[:200])


def _first_pass(path: Path, size: int | None) -> _BibFile:
    """The file ``path`` after the first pass: encoding, macros, named keys.

    Raises:
        IngestError: the file cannot be read, or is not BibTeX.
    """
    try:
        with noting_guesses() as guesses:  # not UTF-8, not Western, not named: told
            encoding = text_encoding(path)
        found = scan(path, encoding, size)
        macros, notices = _split(found.macros, 0)
        notices[:0] = [Notice("", note) for note in guesses]
    except IngestError:
        raise
    except Exception as err:
        raise IngestError(
            f"{path}: not BibTeX ({err or 'the parser gave up'})", "check the file"
        ) from None
    return _BibFile(path, encoding, found, macros, notices=notices)


def load(
    paths: Sequence[Path], size: int | None = None
) -> tuple[Database, list[tuple[Path, IngestError]]]:
    """The first pass over every file (see the module docstring): the database's macro table
    and the entries that ``crossref`` and ``xdata`` name; the entries themselves are read by
    :meth:`Database.records`.

    Args:
        paths: ``.bib`` files (``.gz`` too).
        size: blocks per chunk (:data:`~litsift.sources.formats.bibtex_stream.CHUNK_BLOCKS`
            when None).

    Returns:
        The database of the readable files, and ``(file, error)`` for each file that cannot be
        read or is not BibTeX (a file found to hold no BibTeX block at all while it is read is
        one ``BadItem("", reason)`` of :meth:`Database.records`).
    """
    files: list[_BibFile] = []
    unusable: list[tuple[Path, IngestError]] = []
    for path in paths:
        try:
            files.append(_first_pass(Path(path), size))
        except IngestError as err:
            unusable.append((Path(path), err))
    first: dict[str, str] = {}
    for bib in sorted(files, key=lambda b: str(b.path)):
        for key, value in _file_macros(bib.macros, {}).items():
            first.setdefault(key, value)
    shared: dict[str, str] = {}  # again, for macros made of other files' macros
    for bib in sorted(files, key=lambda b: str(b.path)):
        for key, value in _file_macros(bib.macros, first).items():
            shared.setdefault(key, value)
    named = set().union(*(bib.scan.crossref | bib.scan.xdata for bib in files))
    usable = []
    for bib in files:
        bib.resolve = ChainMap(_file_macros(bib.macros, shared), shared)
        try:  # the macro blocks the parser gave up on are bad items
            _collect(bib, _resolve(bib.macros, bib.resolve), Chunk(0, bib.scan.macros, 0), shared)
            if named:
                chunk = referenced_blocks(bib.path, bib.encoding, named, size)
                parents = _BibFile(bib.path, bib.encoding, bib.scan, bib.macros, bib.resolve)
                bib.index = _index(_read(parents, chunk))
        except IngestError as err:
            unusable.append((bib.path, err))
            continue
        except Exception as err:  # a library error on this file alone
            reason = f"not BibTeX ({err or 'the parser gave up'})"
            unusable.append((bib.path, IngestError(reason, "check the file")))
            continue
        bib.entries = 0
        usable.append(bib)
    return Database(usable, size), unusable
