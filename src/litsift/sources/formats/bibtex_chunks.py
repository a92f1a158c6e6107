"""One chunk of a BibTeX file parsed into entries (used by
:mod:`litsift.sources.formats.bibtex_db`):
the file's state across chunks (:class:`_BibFile`), bibtexparser's splitter run on a chunk with
its line numbers shifted back to the file's, ``@string`` macros resolved, broken blocks
salvaged or reported with bibtexparser's reason, and the entries indexed by key.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bibtexparser import model
from bibtexparser.library import Library
from bibtexparser.middlewares.parsestack import default_parse_stack
from bibtexparser.splitter import Splitter

from litsift.sources.base import BadItem, Notice
from litsift.sources.formats.bibtex_blocks import repair_blocks
from litsift.sources.formats.bibtex_entries import (
    ConcatenationMiddleware,
    _parse_string,
)
from litsift.sources.formats.bibtex_stream import (
    Chunk,
    Scan,
)


@dataclass
class _BibFile:
    """One file of a BibTeX database: what the first pass found, and what reading it has
    gathered so far."""

    path: Path
    encoding: tuple[str, str]
    scan: Scan
    #: its ``@string`` and ``@preamble`` blocks, split and repaired (macros not resolved)
    macros: Library
    #: the macros its entries see: its own, then the database's
    resolve: Mapping[str, str] = field(default_factory=dict)
    #: lower-case key (or ``ids`` alias) -> the first entry of that key, for the keys some
    #: ``crossref`` or ``xdata`` names
    index: dict[str, model.Entry] = field(default_factory=dict)
    bad: list[BadItem] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    #: key -> how many entries of that key were read so far
    seen: dict[str, int] = field(default_factory=dict)
    entries: int = 0


def _shift(block: model.Block, lines: int, done: set[int]) -> None:
    """Move ``block`` (and the block a failed one keeps) ``lines`` lines down: bibtexparser
    counts lines from the start of the text it splits, a chunk starts further on."""
    if id(block) in done:
        return
    done.add(id(block))
    if block.start_line is not None:
        block._start_line_in_file = block.start_line + lines  # no setter in bibtexparser 2
    kept = getattr(block, "ignore_error_block", None)
    if isinstance(kept, model.Block):
        _shift(kept, lines, done)


def _split(text: str, first_line: int) -> tuple[Library, list[Notice]]:
    """The blocks of ``text`` (which starts on 0-based line ``first_line`` of its file) as
    bibtexparser splits them, repaired (:func:`~litsift.sources.formats.bibtex_blocks.
    repair_blocks`); macros not yet resolved."""
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # bad blocks are reported
    library = Splitter(bibstr=text).split()
    if first_line:
        done: set[int] = set()
        for block in library.blocks:
            _shift(block, first_line, done)
    return repair_blocks(library)


def _resolve(library: Library, macros: Mapping[str, str]) -> Library:
    """Run the parse stack on ``library`` (``macros``: what its entries' macros mean)."""
    for middleware in [ConcatenationMiddleware(macros), *default_parse_stack()]:
        library = middleware.transform(library)
    return library


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


def _collect(
    bib: _BibFile, library: Library, chunk: Chunk, macros: Mapping[str, str]
) -> list[tuple[model.Entry, int, int]]:
    """The entries of ``library`` (the parsed ``chunk`` of ``bib``) as ``(entry, ordinal of
    its key in the file, 0-based line)``, in file order; its bad blocks go to ``bib.bad``
    and ``bib.seen`` counts the keys."""
    lines = chunk.text.splitlines()
    seen = bib.seen
    entries = []
    for e in library.entries:
        seen[e.key] = seen.get(e.key, 0) + 1  # 1 unless an earlier chunk had the key
        entries.append((e, seen[e.key], e.start_line or 0))
    for block in library.failed_blocks:
        kept = block.ignore_error_block
        line0 = block.start_line or 0
        if isinstance(block, model.DuplicateBlockKeyBlock) and isinstance(kept, model.Entry):
            seen[kept.key] = seen.get(kept.key, 1) + 1
            # the parse stack passes over failed blocks: a key's later entries go through it
            # here, as they do when they come in a later chunk than the first
            parsed = _resolve(Library([kept]), macros).entries
            entries.append((parsed[0] if parsed else kept, seen[kept.key], line0))
            continue
        if isinstance(block, model.DuplicateFieldKeyBlock) and isinstance(kept, model.Entry):
            entries.append((kept, 1, line0))  # a field given twice: the entry is kept (first value)
            seen.setdefault(kept.key, 1)
            continue
        text = _block_text(lines, line0 - chunk.first_line)
        salvaged = _salvage(text, block.start_line, macros)
        if salvaged is not None:
            entries.append((salvaged, 1, line0))
            seen.setdefault(salvaged.key, 1)
            continue
        bib.bad.append(BadItem(f"line {line0 + 1}", _failure(block)))
    last = library.blocks[-1] if library.blocks else None
    raw = (last.raw or "") if isinstance(last, model.ImplicitComment) else ""
    if chunk.last and _CUT_HEAD_RE.search(raw):
        head = raw.rstrip().rsplit("\n", 1)[-1]
        line0 = ((last.start_line if last else 0) or 0) + raw.rstrip().count("\n")
        bib.bad.append(BadItem(f"line {line0 + 1}", f"{_CUT_REASON} ({head.strip()!r})"))
    entries.sort(key=lambda en: en[2])
    bib.entries += len(entries)
    return entries


def _read(bib: _BibFile, chunk: Chunk) -> list[tuple[model.Entry, int, int]]:
    """The entries of ``chunk`` of ``bib`` (see :func:`_collect`), its notices to
    ``bib.notices``."""
    library, notices = _split(chunk.text, chunk.first_line)
    bib.notices.extend(notices)
    return _collect(bib, _resolve(library, bib.resolve), chunk, bib.resolve)


def _index(entries: list[tuple[model.Entry, int, int]]) -> dict[str, model.Entry]:
    """Lower-case key -> the first entry of that key, then the ``ids`` aliases (biblatex)
    of the entries not yet indexed under them."""
    index: dict[str, model.Entry] = {}
    for entry, n, _ in entries:
        if n == 1:
            index.setdefault(entry.key.lower(), entry)
    for entry, n, _ in entries:  # biblatex's aliases: ``ids = {other, keys}``
        ids = next((f.value for f in entry.fields if f.key.lower() == "ids"), "")
        for alias in _keys(str(ids)) if n == 1 else ():
            index.setdefault(alias, entry)
    return index


_AND_RE = re.compile(r"\s+and\s+")


def _keys(value: str) -> list[str]:
    return [k.strip().lower() for k in value.split(",") if k.strip()]
