"""EndNote "refer" / tagged text (``.enw``; ``.txt`` exports of Google Scholar, the AIS
eLibrary, CNKI, ACL Anthology), read by content: lines ``%0 Journal Article``, ``%T title``,
``%A author`` (one a line) ...

Records are separated by blank lines; a ``%0`` line in a record that already has one also
starts a new record (some writers leave the blank line out). A line without a tag continues
the tag above (wrapped abstracts). A record with neither a ``%T`` title nor an ``%X``
abstract, or a block whose first line is no tag, is a :class:`BadItem` at its first line (an
untitled record with an abstract goes on: a review's import labels it by its DOI, an ingest
reports it); the other records are read as usual.

Tags read: ``%T`` title, ``%A`` authors (``Family, Given`` or ``Given Family``; an ``Edited
Book``'s are its editors), ``%E`` editors (never authors), ``%D`` year
(else ``%8`` date), ``%J`` journal, else ``%B`` book / proceedings title (the AIS eLibrary
puts journals there), else ``%S`` series: the venue; ``%X`` abstract, ``%K`` keywords (one a
line, or separated by ``;``), ``%R`` DOI, ``%U`` URL (DOI / arXiv / ACL ids read off it),
``%M`` accession number (a PubMed id when ``%~``/``%W`` name PubMed or MEDLINE), ``%2``
PMC id, ``%F`` label (the source key), ``%>`` attached PDFs, ``%Z`` notes; the bibliographic
details: ``%0`` the type (EndNote's reference types, as EndNote XML's
:func:`~litsift.sources.formats.biblio_types.csl_type` ``endnote``), ``%V`` volume, ``%N``
issue, ``%P`` pages, ``%I`` publisher (a thesis's university) and ``%9`` a thesis's or
report's kind ("Ph.D."). ``%@`` (ISSN / ISBN) is read but litsift has no column for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, read_text, year_from
from litsift.sources.formats.biblio_types import biblio, csl_type
from litsift.sources.formats.people import ENDNOTE_TYPES, NOBODY, byline, editor_roles
from litsift.sources.formats.ris_names import tagged_people
from litsift.sources.identity.ids import ids_in_text, normalize_doi, normalize_pmcid, normalize_pmid
from litsift.types import Kind

__all__ = ["FORMATS", "read_refer", "sniff_refer"]

#: a tagged line: ``%`` and one tag character, then a space (or the end of the line)
_TAG_RE = re.compile(r"^%([0-9A-Za-z@!#$&()*+<>?\[\]^~=|\]])(?: (.*))?$")
_HEAD_TAG_RE = re.compile(rb"^%[0-9A-Z@!#$&()*+<>?\[\]^~=|] \S", re.MULTILINE)
#: the tags every refer writer uses; a file must open with one of them
_CORE_TAGS = (b"%0 ", b"%T ", b"%A ")
_PUBMED_DB_RE = re.compile(r"medline|pubmed|\bnlm\b", re.IGNORECASE)
#: tags whose continuation lines are new items, not more text
_LIST_TAGS = {"A", "K", "E", "Y", ">"}


def sniff_refer(head: bytes, path: Path) -> int:
    """85 when the first non-blank line of ``head`` is ``%0 ``, ``%T `` or ``%A `` and at
    least three lines of the first 40 are refer tags; 0 otherwise (a ``.enw`` holding RIS
    ``TY  -`` lines is RIS)."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text.startswith(_CORE_TAGS):
        return 0
    first = b"\n".join(text.replace(b"\r", b"\n").split(b"\n")[:40])
    return 85 if len(_HEAD_TAG_RE.findall(first)) >= 3 else 0


def _blocks(text: str) -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """``(first line, [(tag, value), ...])`` of each record; a line without a tag is
    ``("", text)``."""
    block: list[tuple[str, str]] = []
    start = 0
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            if block:
                yield start, block
            block = []
            continue
        m = _TAG_RE.match(line.rstrip())
        tag, value = (m.group(1), (m.group(2) or "").strip()) if m else ("", line.strip())
        if tag == "0" and any(t == "0" for t, _ in block):
            yield start, block
            block = []
        if not block:
            start = n
        block.append((tag, value))
    if block:
        yield start, block


def _fields(block: list[tuple[str, str]]) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    last = ""
    for tag, value in block:
        if tag:
            fields.setdefault(tag, []).append(value)
            last = tag
        elif last in _LIST_TAGS:
            fields[last].append(value)
        elif last:
            fields[last][-1] = f"{fields[last][-1]} {value}"
    return fields


def _first(fields: dict[str, list[str]], *tags: str) -> str:
    for tag in tags:
        for value in fields.get(tag, ()):
            if clean_text(value):
                return clean_text(value)
    return ""


def _ids(fields: dict[str, list[str]]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for url in fields.get("U", ()):
        ids.update(ids_in_text(url))
    doi = normalize_doi(_first(fields, "R"))
    if doi:
        ids["doi"] = doi
    if _PUBMED_DB_RE.search(_first(fields, "~", "W")):
        ids["pmid"] = normalize_pmid(_first(fields, "M")) or ""
    pmc = _first(fields, "2")
    if re.fullmatch(r"PMC[0-9]+", pmc):
        ids["pmcid"] = normalize_pmcid(pmc) or ""
    return {k: v for k, v in ids.items() if v}


def _byline(fields: dict[str, list[str]]) -> dict[str, Any]:
    """The record's authors (``%A``) and editors (``%E``, refer's editor of any type, as
    Zotero's refer import reads it); an ``Edited Book``'s ``%A`` are its editors (EndNote's
    "Editor" field), and it has no authors (identified by its editors, as when read as its
    authors)."""
    roles = editor_roles(ENDNOTE_TYPES.get(_first(fields, "0").lower(), ""))
    if "primary" in roles:
        return byline(NOBODY, tagged_people(fields.get("A", [])), identified_by_editors=True)
    return byline(tagged_people(fields.get("A", [])), tagged_people(fields.get("E", [])))


def _record(fields: dict[str, list[str]], line: int) -> SourceRecord:
    keywords = [k for v in fields.get("K", ()) for k in re.split(r"[;\n]", v)]
    urls = [clean_text(u) for u in fields.get("U", ()) if clean_text(u)]
    files = [clean_text(f) for f in fields.get(">", ()) if clean_text(f).lower().endswith(".pdf")]
    return SourceRecord(
        location=f"line {line}",
        title=_first(fields, "T"),
        abstract=_first(fields, "X"),
        **_byline(fields),
        year=year_from(_first(fields, "D")) or year_from(_first(fields, "8")),
        venue=_first(fields, "J", "B", "S"),
        url=urls[0] if urls else "",
        ids=_ids(fields),
        tags=[clean_text(k) for k in keywords if clean_text(k)],
        notes=[clean_text(n) for n in fields.get("Z", ()) if clean_text(n)],
        attachments=[Path(f.removeprefix("file://")) for f in files],
        source_key=_first(fields, "F"),
        biblio=_biblio(fields),
    )


def _biblio(fields: dict[str, list[str]]) -> dict[str, str]:
    kind = csl_type("endnote", _first(fields, "0"))
    return biblio(
        kind,
        genre=_first(fields, "9") if kind in ("thesis", "report") else "",
        volume=_first(fields, "V"),
        issue=_first(fields, "N"),
        pages=_first(fields, "P"),
        publisher=_first(fields, "I"),
    )


def read_refer(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every record of an EndNote refer file; a bad record is a :class:`BadItem` at its
    first line (``line 40``).

    Raises:
        IngestError: the file cannot be read or holds no refer record.
    """
    text = read_text(path).removeprefix("\ufeff")
    found = False
    for line, block in _blocks(text):
        if not block[0][0]:
            if found or any(t for t, _ in block):
                yield BadItem(f"line {line}", "not a refer record: its first line has no %X tag")
            continue
        found = True
        fields = _fields(block)
        if not _first(fields, "T") and not _first(fields, "X"):  # an abstract: the writer
            # keeps it where it may (a review's import, a stored paper with its ids)
            yield BadItem(f"line {line}", "record has no title (%T line); skipped")
            continue
        yield _record(fields, line)
    if not found:
        raise IngestError(
            "holds no records: not an EndNote refer file",
            "check that the file is an export with '%0 Journal Article', '%T title' lines",
        )


FORMATS = [
    Format(
        name="refer",
        kind=Kind.PAPER,
        read=read_refer,
        sniff=sniff_refer,
        extensions=(".enw", ".txt"),
        description="EndNote refer / tagged text (.enw: %0, %T, %A lines): Google Scholar",
    ),
]
