"""The entries of a BibTeX file: sniffing, fields, names, LaTeX, ``@string`` macros and ``#``
concatenation, and the record an entry becomes; the format itself is
:mod:`litsift.sources.formats.bibtex`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bibtexparser import model
from bibtexparser.entrypoint import parse_string
from bibtexparser.library import Library
from bibtexparser.middlewares.middleware import LibraryMiddleware
from bibtexparser.middlewares.names import (
    InvalidNameError,
    NameParts,
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.middlewares.parsestack import default_parse_stack

from litsift.sources.base import (
    SourceRecord,
    clean_text,
    looks_binary,
    unique_tags,
    year_from,
)
from litsift.sources.formats.biblio_types import biblio, bibtex_type
from litsift.sources.formats.bibtex_latex import ESCAPE_RE, latex
from litsift.sources.formats.people import People, byline
from litsift.sources.formats.rayyan_notes import rayyan_notes
from litsift.sources.identity.ids import ids_in_text, normalize_arxiv, normalize_doi, normalize_pmid
from litsift.sources.identity.locators import locator

__all__ = ["ConcatenationMiddleware", "sniff_bibtex"]

#: an entry's opening at a line start (``\r`` alone ends lines in old Mac files)
_ENTRY_RE = re.compile(rb"(?:^|[\r\n])[ \t]*@\s*[A-Za-z]+\s*[{(]")
_RECORD_TYPES_SKIP = {"string", "preamble", "comment", "set", "xdata"}


_ORDINAL = {1: "", 2: " (2nd)", 3: " (3rd)"}
#: entry types whose ``number`` is a report's number, not an issue
_REPORT_TYPES = frozenset({"techreport", "report", "manual", "patent"})
#: fields that hold identifiers and links, read without LaTeX (:func:`_verbatim`)
_VERBATIM = frozenset({"doi", "url", "eprint", "pmid", "biburl", "bibsource"})


def sniff_bibtex(head: bytes, path: Path) -> int:
    """90 for text with ``@type{`` entry openings; 0 otherwise."""
    if head.startswith(b"%PDF") or looks_binary(head):
        return 0
    hits = len(_ENTRY_RE.findall(head))
    if hits == 0:
        return 0
    return 90 if hits >= 1 else 0


#: initials, as Scopus's BibTeX of ~2017 writes them: maybe followed by the author's
#: affiliation letters (``A.T.a``, ``A.a  b  c``)
_INITIALS_RE = re.compile(r"^((?:[A-Z][a-z]?\.[- ]?)+)((?:\s*[a-z]\b)*)$")
#: a generational suffix (BibTeX's "Jr" part)
_SUFFIX_RE = re.compile(r"^(?:Jr|Sr|II|III|IV|V|2nd|3rd)\.?$", re.IGNORECASE)


def _scopus_2017(value: str) -> str:
    """``value`` as a BibTeX name list: Scopus's BibTeX of ~2017 separated its authors with
    commas (``D'Ambrosio, A.a , Aria, M.a , Iorio, C.b``; ``Siciliano, R., Aria, M.``), which
    reads as one person; such a list (no ``and``, four or more comma-separated parts, an even
    count, every second one initials) is rejoined with ``and``. Any other value is returned
    as is."""
    if re.search(r"\sand\s", value):
        return value
    parts = [p.strip() for p in value.split(",")]
    if len(parts) < 4 or len(parts) % 2 or not all(_INITIALS_RE.match(g) for g in parts[1::2]):
        return value
    return " and ".join(f"{f}, {g}" for f, g in zip(parts[::2], parts[1::2], strict=True))


def _semicolons(value: str) -> str:
    """``value`` as a BibTeX name list: a list of ``Family, I`` names separated by ``;`` and
    no ``and`` (Web of Science's ``AU`` written into BibTeX by R tools, ``Luna, JP; Perez, C``,
    kept so by Zotero), which reads as one person, is rejoined with ``and``; a ``;`` inside
    braces does not count. Any other value is returned as is."""
    if ";" not in value or re.search(r"\sand\s", value) or re.search(r"\{[^{}]*;", value):
        return value
    parts = [p.strip() for p in value.split(";") if p.strip()]
    return " and ".join(parts) if len(parts) > 1 else value


#: a name in biblatex's extended name format: ``family=Doorn, given=Jan, prefix=van``
_EXTENDED_RE = re.compile(r"^\s*(?:family|given|prefix|suffix)\s*=", re.IGNORECASE)


def _extended(person: str) -> NameParts | None:
    """The parts of a name in biblatex's extended name format (biblatex manual §3.4;
    Better BibTeX writes names with particles so: ``family=Doorn, given=Jan, prefix=van,
    useprefix=true``): ``key=value`` pairs separated by commas outside braces, a later key
    winning; None for any other name."""
    if not _EXTENDED_RE.match(person):
        return None
    pairs: dict[str, str] = {}
    depth, start = 0, 0
    for i, char in enumerate(person + ","):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            key, _, val = person[start:i].partition("=")
            pairs[key.strip().lower()] = val.strip()
            start = i + 1
    return NameParts(
        *([pairs[k]] if pairs.get(k) else [] for k in ("given", "prefix", "family", "suffix"))
    )


def _names(value: str) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """Display names, family names (without particles, for matching) and ``(family with
    particles, given)`` pairs of a BibTeX name list; Scopus's affiliation letters after the
    initials (``A.T.a``) are dropped, and its comma-separated lists of ~2017
    (:func:`_scopus_2017`) and lists separated by ``;`` (:func:`_semicolons`) read as lists;
    biblatex's extended name format is read by its keys (:func:`_extended`).
    ``Family, Given, Jr`` (the suffix last, as ProQuest writes it and RIS has it) is read as
    BibTeX's ``Family, Jr, Given``: a given name is never ``III``."""
    authors, families, parts_out = [], [], []
    for person in split_multiple_persons_names(_scopus_2017(_semicolons(value))):
        if not person.strip() or person.strip().lower() == "others":
            continue
        try:
            parts = _extended(person) or parse_single_name_into_parts(person, strict=False)
        except (InvalidNameError, ValueError):
            authors.append(latex(person))
            families.append(latex(person).split(" ")[-1])
            continue
        if len(parts.first) == 1 and _SUFFIX_RE.match(parts.first[0]) and parts.jr:
            if not _SUFFIX_RE.match(" ".join(parts.jr)):  # "Family, Given, III"
                parts.first, parts.jr = parts.jr, parts.first
        first = latex(" ".join(parts.first))
        if (initials := _INITIALS_RE.match(first)) and initials.group(2):
            first = initials.group(1).strip()
        family = latex(" ".join([*parts.von, *parts.last]))
        jr = latex(" ".join(parts.jr))
        display = " ".join(p for p in (first, family) if p) + (f" {jr}" if jr else "")
        if display:
            authors.append(display)
            families.append(latex(" ".join(parts.last)) or family)
            if family:
                parts_out.append((family, first))
    return authors, families, parts_out


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


def _verbatim(value: str | None) -> str:
    """A DOI, URL or id as written in a ``.bib`` file, LaTeX escapes undone: dblp writes
    ``doi = {10.1007/3-540-48749-2\\_2}``, others ``{\\%}`` or braces."""
    return ESCAPE_RE.sub(r"\1", value or "").replace("{", "").replace("}", "")


def _record(
    key: str, etype: str, fields: dict[str, str], location: str, own_editor: bool = True
) -> SourceRecord:
    """The record of one entry's fields; ``own_editor``: False when ``editor`` was inherited
    from a ``crossref`` parent (the volume's editors: still the entry's editors, but never
    part of its identity)."""
    # an edited book: identified by its editors, as when they were read as its authors
    people = byline(
        People(*_names(fields.get("author") or "")),
        People(*_names(fields.get("editor") or "")),
        identified_by_editors=own_editor and not fields.get("author"),
    )
    fields = {k: _verbatim(fields.get(k)) if k in _VERBATIM else v for k, v in fields.items()}
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
    # a @misc's howpublished (a preprint's server, a web page's site) before its publisher,
    # unless it is only a link
    web = re.match(r"\s*(\\url\s*\{|https?:|www\.)", fields.get("howpublished") or "", re.I)
    how = ("publisher", "howpublished") if web else ("howpublished", "publisher")
    venue = next(
        (
            latex(fields[k])
            for k in (
                "journal",
                "journaltitle",
                "booktitle",
                "school",
                "institution",
                "series",  # a book's (litsift's export of Scopus's @BOOK journal)
                *how,
            )
            if fields.get(k)
        ),
        "",
    )
    notes = [latex(fields[k]) for k in ("annote", "annotation") if fields.get(k)]
    rayyan = rayyan_notes(clean_text(fields.get("note", "")))  # Rayyan's export writes ``note``
    return SourceRecord(
        location=location,
        title=latex(fields.get("title", "")),
        abstract=latex(fields.get("abstract", "")),
        **people,
        year=year_from(fields.get("year")) or year_from(fields.get("date")),
        venue=venue,
        url=clean_text(fields.get("url", "")),
        ids=ids,
        tags=unique_tags(  # Scopus writes the authors' keywords apart from its index terms,
            _split_list(fields.get("author_keywords", ""))  # Web of Science its Keywords Plus
            + _split_list(fields.get("keywords", ""))  # after the authors' ``keywords``
            + _split_list(fields.get("keywords-plus", ""))
            + (rayyan.labels if rayyan else [])
        ),
        collections=_split_list(fields.get("groups", "")),
        notes=[n for n in notes if n] + (rayyan.note_lines(labels=False) if rayyan else []),
        screening=clean_text(fields.get("note", "")) if rayyan else "",
        attachments=_attachments(fields.get("file", "")),
        source_key=key,
        locator=locator(
            latex(fields.get("volume", "")),
            "" if etype in _REPORT_TYPES else latex(fields.get("number", "")),  # a report's no.
            latex(fields.get("pages", "")),
            latex(fields.get("eid") or fields.get("articleno") or ""),
            fields.get("isbn", ""),
        ),
        biblio=_biblio(etype, fields),
    )


def _biblio(etype: str, fields: dict[str, str]) -> dict[str, str]:
    """The entry's type and genre (a thesis's ``type`` field, else its entry type's), volume,
    number, pages and publisher (a thesis's school, a report's institution)."""
    csl, genre = bibtex_type(etype)
    publishers = ("publisher", "school", "institution")
    if csl in ("thesis", "report"):  # who grants the degree, who issues the report
        publishers = ("school", "institution", "publisher")
    return biblio(
        csl,
        genre=(latex(fields.get("type", "")) if csl in ("thesis", "report") else "") or genre,
        volume=latex(fields.get("volume", "")),
        issue=latex(fields.get("number") or fields.get("issue") or ""),
        pages=latex(fields.get("pages", "")),
        publisher=latex(next((fields[k] for k in publishers if fields.get(k)), "")),
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
    if "#" not in value:
        return None
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
