"""BibTeX / biblatex files (``.bib``): Zotero, Better BibTeX, JabRef, Mendeley, EndNote, hand-kept.

Parsing is bibtexparser v2 (``@string`` macros resolved, enclosing braces removed; ``#``
concatenation, which bibtexparser 2.x leaves as written, by :class:`ConcatenationMiddleware`);
LaTeX in values becomes Unicode with pylatexenc (``{\\"o}`` -> ``ö``, math kept readable); names are
split with bibtexparser's BibTeX name rules (``von Last, Jr, First``). On top of the parser:

* ``crossref``: a child entry inherits the fields it lacks from its parent (biblatex's
  inheritance: the parent's ``title`` becomes the child's ``booktitle``);
* duplicate keys: every entry is kept (``entry KEY (2nd)``); de-duplication decides;
* JabRef groups (``groups = {A, B}``) and ``keywords`` -> collections and tags; ``file``
  fields (Zotero/BBT ``path:type``, JabRef ``desc:path:type``, Mendeley) -> attachments;
  ``annote``/``annotation`` -> notes;
* identifiers: ``doi``, ``eprint`` with ``archiveprefix``/``eprinttype`` arXiv, ``pmid``,
  ACL Anthology / arXiv / DOI links in ``url``.

A block bibtexparser cannot parse is a bad item ``line N`` with its reason; everything else
in the file is kept.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bibtexparser import model
from bibtexparser.entrypoint import parse_string
from bibtexparser.library import Library
from bibtexparser.middlewares.middleware import LibraryMiddleware
from bibtexparser.middlewares.names import (
    InvalidNameError,
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.middlewares.parsestack import default_parse_stack
from bibtexparser.splitter import Splitter
from pylatexenc.latex2text import LatexNodes2Text

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, read_text, year_from
from litsift.sources.bibtex_inherit import CONTAINER_TYPES, inherit_crossref, inherit_xdata
from litsift.sources.ids import ids_in_text, normalize_arxiv, normalize_doi, normalize_pmid
from litsift.types import Kind

__all__ = ["FORMATS", "read_bibtex", "read_bibtex_database", "sniff_bibtex"]

_ENTRY_RE = re.compile(rb"^\s*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)
_RECORD_TYPES_SKIP = {"string", "preamble", "comment", "set", "xdata"}
_L2T = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
_ORDINAL = {1: "", 2: " (2nd)", 3: " (3rd)"}


def sniff_bibtex(head: bytes, path: Path) -> int:
    """90 for text with ``@type{`` entry openings; 0 otherwise."""
    if head.startswith(b"%PDF") or b"\x00" in head[:4096]:
        return 0
    hits = len(_ENTRY_RE.findall(head))
    if hits == 0:
        return 0
    return 90 if hits >= 1 else 0


#: what pylatexenc would change in a value; text without any of it is returned as it is
_LATEX_RE = re.compile(r"[\\{}$~%^_&#]|--|``|''|<<|>>|!`|\?`")


def latex(text: Any) -> str:
    """A BibTeX value as plain Unicode text (pylatexenc; braces and commands removed).

    Text with nothing LaTeX would interpret (:data:`_LATEX_RE`) skips pylatexenc: on the 400
    titles and abstracts of the arXiv snapshot sample, 0.72 ms a value instead of 1.39."""
    if not isinstance(text, str) or not text:
        return ""
    if _LATEX_RE.search(text) is None:
        return clean_text(text)
    try:
        out = _L2T.latex_to_text(text)
    except Exception:
        out = re.sub(r"[{}]|\\[a-zA-Z]+\s*", "", text)
    return clean_text(out)


def _names(value: str) -> tuple[list[str], list[str]]:
    authors, families = [], []
    for person in split_multiple_persons_names(value):
        if not person.strip() or person.strip().lower() == "others":
            continue
        try:
            parts = parse_single_name_into_parts(person, strict=False)
        except (InvalidNameError, ValueError):
            authors.append(latex(person))
            families.append(latex(person).split(" ")[-1])
            continue
        first = latex(" ".join(parts.first))
        family = latex(" ".join([*parts.von, *parts.last]))
        jr = latex(" ".join(parts.jr))
        display = " ".join(p for p in (first, family) if p) + (f" {jr}" if jr else "")
        if display:
            authors.append(display)
            families.append(latex(" ".join(parts.last)) or family)
    return authors, families


_PATH_RE = re.compile(r"([A-Za-z]:\\[^:;]+|/[^:;]+|[^:;]*\.pdf)", re.IGNORECASE)


def _attachments(value: str) -> list[Path]:
    """Local files of a ``file`` field: Zotero / Better BibTeX ``C\\:\\\\x.pdf`` (escaped
    ``:`` and ``\\``), JabRef ``desc:path:type``, Mendeley ``:path:pdf``; ``;`` separates files."""
    out = []
    for item in re.split(r"(?<!\\);", value):
        text = re.sub(r"\\(.)", r"\1", item.strip())
        match = _PATH_RE.search(text)
        if match and match.group(1).strip():
            out.append(Path(match.group(1).strip()))
    return out


def _split_list(value: str) -> list[str]:
    return [latex(v) for v in re.split(r"\s*[,;]\s*", value) if latex(v)]


def _fields(entry: model.Entry) -> dict[str, str]:
    return {
        f.key.lower(): f.value if isinstance(f.value, str) else str(f.value) for f in entry.fields
    }


def _record(key: str, etype: str, fields: dict[str, str], location: str) -> SourceRecord:
    authors, families = _names(fields.get("author") or fields.get("editor") or "")
    ids: dict[str, str] = {}
    ids.update(ids_in_text(fields.get("url", "")))
    # dblp's own exports name the record in biburl / bibsource
    dblp = ids_in_text(f"{fields.get('biburl', '')} {fields.get('bibsource', '')}").get("dblp")
    if dblp:
        ids.setdefault("dblp", dblp)
    doi = normalize_doi(fields.get("doi"))
    if doi:
        ids["doi"] = doi
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").lower()
    eprint = fields.get("eprint") or ""
    if eprint and (prefix == "arxiv" or (not prefix and normalize_arxiv(eprint))):
        arxiv = normalize_arxiv(eprint)
        if arxiv:
            ids["arxiv"] = arxiv
    pmid = normalize_pmid(fields.get("pmid"))
    if pmid:
        ids["pmid"] = pmid
    venue = next(
        (
            latex(fields[k])
            for k in (
                "journal",
                "journaltitle",
                "booktitle",
                "school",
                "institution",
                "publisher",
                "howpublished",
            )
            if fields.get(k)
        ),
        "",
    )
    notes = [latex(fields[k]) for k in ("annote", "annotation") if fields.get(k)]
    return SourceRecord(
        location=location,
        title=latex(fields.get("title", "")),
        abstract=latex(fields.get("abstract", "")),
        authors=authors,
        family_names=families,
        year=year_from(fields.get("year")) or year_from(fields.get("date")),
        venue=venue,
        url=clean_text(fields.get("url", "")),
        ids=ids,
        tags=_split_list(fields.get("keywords", "")),
        collections=_split_list(fields.get("groups", "")),
        notes=[n for n in notes if n],
        attachments=_attachments(fields.get("file", "")),
        source_key=key,
    )


#: BibTeX's predefined month macros (btxdoc, "The month field")
_MONTHS = dict(
    zip(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        (
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ),
        strict=True,
    )
)


def _concat_parts(value: str) -> list[str] | None:
    """The ``#``-separated parts of a raw field value, or None when it has no ``#`` outside
    braces and quotes (``{C# and F#}`` and ``"a # b"`` are single values)."""
    parts: list[str] = []
    depth, quoted, start = 0, False, 0
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "#" and depth == 0 and not quoted:
            parts.append(value[start:i].strip())
            start = i + 1
    if not parts:
        return None
    parts.append(value[start:].strip())
    return parts


class _Macros:
    """``@string`` macros while a file is read: the file's own (case-insensitive, later
    definitions win, a macro may concatenate earlier ones), then ``shared`` ones of the other
    files of the database, then BibTeX's month macros. Values are plain contents, no quotes."""

    def __init__(self, shared: Mapping[str, str] | None = None) -> None:
        self.own: dict[str, str] = {}
        self.shared = shared or {}

    def get(self, name: str) -> str | None:
        low = name.lower()
        return self.own.get(low, self.shared.get(low))

    def literal(self, part: str) -> str:
        if len(part) >= 2 and part[0] + part[-1] in ('""', "{}"):
            return part[1:-1]
        found = self.get(part)
        if found is not None:
            return found
        return _MONTHS.get(part.lower(), part)

    def resolve(self, value: Any) -> Any:
        """A raw field value with its macros expanded, braced; other values as they are."""
        if not isinstance(value, str):
            return value
        parts = _concat_parts(value)
        if parts is not None:
            return "{" + "".join(self.literal(p) for p in parts) + "}"
        bare = value.strip()
        if bare and bare[0] not in '{"' and not bare.isdigit():
            found = self.get(bare)
            if found is not None:
                return "{" + found + "}"
        return value

    def define(self, name: str, raw: Any) -> None:
        self.own[name.lower()] = self.literal(str(self.resolve(raw)))


class ConcatenationMiddleware(LibraryMiddleware):
    """Resolve ``@string`` macros and concatenation: ``title = pre # " Learning for " # {x}``.

    Each part is a quoted or braced literal (its content), an ``@string`` macro (its value;
    names are case-insensitive, later definitions win, macros may concatenate earlier ones),
    a month macro (``jan`` -> ``January``) or a number; an unknown macro stays as written. A
    bare macro (``journal = tec``) is resolved too, from the file's own macros and then from
    ``shared`` (the macros of the other files of a multi-file database). The resolved value
    is braced, so the default stack's enclosing remover strips it like any other. Runs before
    bibtexparser's default parse stack (BibTeX semantics per btxdoc, "String").
    """

    def __init__(self, shared: Mapping[str, str] | None = None) -> None:
        super().__init__(allow_inplace_modification=True)
        self.shared = shared

    @classmethod
    def metadata_key(cls) -> str:
        return "ResolveConcatenation"

    def transform(self, library: Library) -> Library:
        macros = _Macros(self.shared)
        for string in library.strings:
            string.value = macros.resolve(string.value)
            macros.define(string.key, string.value)
        for entry in library.entries:
            for f in entry.fields:
                f.value = macros.resolve(f.value)
        return library


def _file_macros(raw: Library, shared: Mapping[str, str]) -> dict[str, str]:
    """The ``@string`` macros a split (not yet resolved) file defines: lower-case name ->
    value; the file is not changed."""
    macros = _Macros(shared)
    for string in raw.strings:
        macros.define(string.key, string.value)
    return macros.own


def _parse_string(text: str, shared: Mapping[str, str] | None = None) -> Library:
    return parse_string(text, [ConcatenationMiddleware(shared), *default_parse_stack()])


@dataclass
class _BibFile:
    """One file of a BibTeX database: its text and its blocks (split, then resolved)."""

    path: Path
    text: str
    library: Library
    entries: list[tuple[model.Entry, int, int]] = field(default_factory=list)
    bad: list[BadItem] = field(default_factory=list)
    index: dict[str, model.Entry] = field(default_factory=dict)


def _split(path: Path) -> _BibFile:
    """The blocks of ``path`` as bibtexparser splits them (macros not yet resolved).

    Raises:
        IngestError: the file cannot be read or split.
    """
    text = read_text(path, "latin-1")  # old BibTeX files are often Latin-1
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # bad blocks are reported
    try:
        return _BibFile(path, text, Splitter(bibstr=text).split())
    except Exception as err:
        raise IngestError(
            f"{path}: not BibTeX ({type(err).__name__}: {err})", "check the file"
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
    lines = str(error or "").strip().splitlines()
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


class _Database:
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

    def records(self) -> Iterator[tuple[Path, SourceRecord | BadItem]]:
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
                    yield bib.path, BadItem(location, f"{type(err).__name__}: {err}"[:200])
            for bad in bib.bad:
                yield bib.path, bad


def _load(paths: Sequence[Path]) -> tuple[_Database, list[tuple[Path, IngestError]]]:
    """Split every file, build the database's macro table, resolve each file against it."""
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
            unusable.append((bib.path, IngestError(f"not BibTeX ({type(err).__name__})", "")))
            continue
        library = bib.library
        if not (bib.entries or bib.bad or library.strings or library.preambles):
            unusable.append(
                (bib.path, IngestError(f"{bib.path}: holds no BibTeX entries", "is it a .bib?"))
            )
            continue
        usable.append(bib)
    return _Database(usable), unusable


def read_bibtex_database(
    paths: Sequence[Path],
) -> Iterator[tuple[Path, SourceRecord | BadItem]]:
    """Every entry of the ``.bib`` files ``paths`` read as ONE BibTeX database, as
    ``\\bibliography{abbrev,biblio,crossref}`` makes them: an ``@string`` of one file expands
    in the others, a ``crossref`` or ``xdata`` key may be in any file, and the order of the
    files does not matter (a file's own macros and keys come first).

    A container (``@proceedings``, ``@collection``, ``@book``, ``@mv*``, ``@periodical``) that
    some entry names in its ``crossref`` is not a paper: its fields go to its children (see
    :mod:`litsift.sources.bibtex_inherit`). ``@string``, ``@preamble``, ``@xdata`` and
    ``@set`` blocks are not papers either, so a file of macros or of parents yields nothing
    and is no error.

    Args:
        paths: ``.bib`` files (``.gz`` too).

    Yields:
        ``(file, record or bad item)``, file by file in the order given. A file that cannot be
        read, or holds no BibTeX at all, is one ``BadItem("", reason)``.
    """
    database, unusable = _load(paths)
    for path, err in unusable:
        yield path, BadItem("", err.message.removeprefix(f"{path}: "))
    yield from database.records()


def read_bibtex(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every entry of one ``.bib`` file (a database of one file, see
    :func:`read_bibtex_database`) as a record; unparseable blocks as bad items.

    Raises:
        IngestError: the file cannot be read or holds no BibTeX entry at all.
    """
    database, unusable = _load([path])
    if unusable:
        raise unusable[0][1]
    for _, item in database.records():
        yield item


FORMATS = [
    Format(
        name="bibtex",
        kind=Kind.PAPER,
        read=read_bibtex,
        sniff=sniff_bibtex,
        extensions=(".bib", ".bibtex", ".biblatex"),
        description="BibTeX / biblatex (.bib): Zotero, Better BibTeX, JabRef, Mendeley, EndNote",
        read_database=read_bibtex_database,
    )
]
