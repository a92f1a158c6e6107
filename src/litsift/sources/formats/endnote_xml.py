"""EndNote XML (EndNote's File > Export, "Save as type: XML"; also written by Bookends and
others), streamed record by record (:mod:`litsift.sources.formats.xml_records`) and detected
by content (an ``<xml>`` root holding ``<records><record>``).

A ``<record>`` holds one field per element, its text wrapped in one or more ``<style face=...
font=... size=...>`` elements (a title in italics and roman is several of them: their texts are
joined). Read: ``titles/title``; ``contributors/authors/author`` (``Family, Given``; a name
ending in a comma, ``World Health Organization,``, is a group, its own family name); the
editors from ``contributors/secondary-authors`` or ``tertiary-authors`` as the reference type
names them (:func:`~litsift.sources.formats.people.editor_roles`: a book section's secondary
authors, a book's tertiary authors), or an ``Edited Book``'s authors (EndNote's "Editor"
field), never as authors; the venue
from ``titles/secondary-title``, else ``periodical/full-title`` / ``abbr-1``; ``dates/year``
(else ``pub-dates/date``); ``abstract``; ``keywords/keyword`` as tags (one a line or separated
by ``;``; a MeSH subheading as PubMed writes it, ``Neoplasms/*epidemiology``, removed:
:mod:`~litsift.sources.formats.subject_terms`);
``electronic-resource-num`` (the DOI); ``accession-num`` as the PubMed id when
``remote-database-name`` / ``-provider`` names MEDLINE / PubMed / NLM or a related URL is that
PubMed page (``ISI:...`` numbers are not); ``custom2`` ``PMC...``; ``urls/related-urls`` (the
URL, and identifiers in them); ``urls/pdf-urls`` as attached PDFs (``internal-pdf://12/x.pdf``
lies in the library's ``NAME.Data/PDF/12/x.pdf`` next to the export; ``file://`` URLs and
paths as given); ``notes``, ``research-notes`` and ``label`` as notes; ``ref-type``'s ``name``
(:data:`~litsift.sources.formats.biblio_types.TYPE_MAPS` ``endnote``), ``volume``, ``number``,
``pages``, ``publisher`` and ``work-type`` for the bibliographic details; ``rec-number`` as the
record's key. A record without a title is yielded all the same: the writer reports it (``no
title``) or, in a review, keeps it under its DOI and abstract.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lxml import etree

from litsift.sources.base import (
    BadItem,
    Format,
    SourceRecord,
    year_from,
)
from litsift.sources.formats.biblio_types import biblio, csl_type
from litsift.sources.formats.people import ENDNOTE_TYPES, NOBODY, People, byline, editor_roles
from litsift.sources.formats.subject_terms import subject_heading
from litsift.sources.formats.xml_records import first_text, read_records, text_of, xml_records
from litsift.sources.identity.ids import ids_in_text, normalize_doi, normalize_pmcid, normalize_pmid
from litsift.types import Kind

__all__ = ["FORMATS", "read_endnote_xml", "sniff_endnote_xml"]

_SNIFF_RE = re.compile(rb"<xml>\s*<records>\s*<record[\s>]")
_HINT = "export from EndNote with File > Export, Save as type: XML"
_PUBMED_DB_RE = re.compile(r"medline|pubmed|\bnlm\b", re.IGNORECASE)
_KEYWORD_SPLIT_RE = re.compile(r"[\r\n;]+")
_LINKS_SPLIT_RE = re.compile(r"\s+(?=https?://)")


def sniff_endnote_xml(head: bytes, path: Path) -> int:
    """95 for a file whose first 4 KiB open ``<xml><records><record>``; 0 otherwise."""
    return 95 if _SNIFF_RE.search(head[:4096]) else 0


def _all(rec: etree._Element, path: str) -> list[str]:
    return [t for t in (text_of(el) for el in rec.iterfind(path)) if t]


def _people(rec: etree._Element, role: str) -> People:
    """The persons of ``contributors/ROLE/author`` (``authors``, ``secondary-authors``...),
    in order."""
    authors, families, parts = [], [], []
    for name in _all(rec, f"./contributors/{role}/author"):
        if name.endswith(","):  # a group: "World Health Organization,"
            group = name.rstrip(", ")
            authors.append(group)
            families.append(group)
        elif "," in name:
            family, given = (p.strip() for p in name.split(",", 2)[:2])
            authors.append(f"{given} {family}".strip())
            families.append(family)
            parts.append((family, given))
        else:
            authors.append(name)
            families.append(name.split(" ")[-1])
    return People(authors, families, parts)


#: an editor role of :func:`~litsift.sources.formats.people.editor_roles` -> its element
_ROLE_ELEMENTS = {
    "primary": "authors",
    "secondary": "secondary-authors",
    "tertiary": "tertiary-authors",
}


def _byline(rec: etree._Element, ref_type: str) -> dict[str, Any]:
    """The record's authors and editors: its editors are the secondary or tertiary authors
    that its reference type names so (a book section's secondary authors, a book's tertiary
    authors), or an edited book's authors, which then have no authors (identified by its
    editors' names, as when read as its authors)."""
    roles = editor_roles(ENDNOTE_TYPES.get(ref_type.lower(), ""))
    found = (_people(rec, _ROLE_ELEMENTS[role]) for role in roles)
    editors = next((people for people in found if people.names), NOBODY)
    edited = "primary" in roles
    authors = NOBODY if edited else _people(rec, "authors")
    return byline(authors, editors, identified_by_editors=edited)


def _tags(rec: etree._Element) -> list[str]:
    tags: list[str] = []
    for keyword in rec.iterfind("./keywords/keyword"):
        for raw in _KEYWORD_SPLIT_RE.split("".join(keyword.itertext())):
            tag = subject_heading(raw)
            if tag and tag not in tags:
                tags.append(tag)
    return tags


def _ids(rec: etree._Element, urls: list[str]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for url in urls:
        ids.update({k: v for k, v in ids_in_text(url).items() if k not in ids})
    eid = text_of(rec.find("./electronic-resource-num"))
    doi = normalize_doi(eid) or ids_in_text(eid).get("doi")
    if doi:
        ids["doi"] = doi
    accession = text_of(rec.find("./accession-num"))
    database = " ".join(
        text_of(rec.find(p)) for p in ("./remote-database-name", "./remote-database-provider")
    )
    pubmed_page = re.compile(rf"pubmed(?:\.ncbi\.nlm\.nih\.gov)?/{re.escape(accession)}\b")
    if accession.isdigit() and (
        _PUBMED_DB_RE.search(database) or any(pubmed_page.search(u) for u in urls)
    ):
        ids["pmid"] = normalize_pmid(accession) or ""
    pmc = text_of(rec.find("./custom2"))
    if re.fullmatch(r"PMC[0-9]+", pmc):
        ids["pmcid"] = normalize_pmcid(pmc) or ""
    return {k: v for k, v in ids.items() if v}


def _attachments(rec: etree._Element, folder: Path) -> list[Path]:
    database = rec.find("./database")
    library = database.get("name", "") if database is not None else ""
    data = f"{Path(library).stem}.Data" if library else ""
    files = []
    for url in _all(rec, "./urls/pdf-urls/url"):
        if url.startswith("internal-pdf://"):
            rest = unquote(url[len("internal-pdf://") :])
            files.append(folder / data / "PDF" / rest if data else folder / rest)
        elif url.startswith("file:"):
            files.append(Path(unquote(urlparse(url).path)))
        elif "://" not in url:
            files.append(folder / url)
    return files


def _notes(rec: etree._Element) -> list[str]:
    notes = _all(rec, "./notes")
    notes += [f"Research notes: {n}" for n in _all(rec, "./research-notes")]
    notes += [f"Label: {n}" for n in _all(rec, "./label")]
    return notes


def _record(rec: etree._Element, n: int, folder: Path) -> SourceRecord:
    links = _all(rec, "./urls/related-urls/url") + _all(rec, "./urls/web-urls/url")
    urls = [u for link in links for u in _LINKS_SPLIT_RE.split(link)]  # several in one <url>
    ids = _ids(rec, urls)
    abstract = text_of(rec.find("./abstract"))
    title = text_of(rec.find("./titles/title"))  # none: the writer reports it or keeps it
    ref_type = rec.find("./ref-type")
    type_name = ref_type.get("name", "") if ref_type is not None else ""
    kind = csl_type("endnote", type_name)
    return SourceRecord(
        location=f"record {n}",
        title=title,
        abstract=abstract,
        **_byline(rec, type_name),
        year=year_from(first_text(rec, "./dates/year", "./dates/pub-dates/date")),
        venue=first_text(
            rec, "./titles/secondary-title", "./periodical/full-title", "./periodical/abbr-1"
        ),
        url=next((u for u in urls if u.startswith("http")), ""),
        ids=ids,
        tags=_tags(rec),
        notes=_notes(rec),
        attachments=_attachments(rec, folder),
        source_key=text_of(rec.find("./rec-number")),
        biblio=biblio(
            kind,
            genre=text_of(rec.find("./work-type")) if kind in ("thesis", "report") else "",
            volume=text_of(rec.find("./volume")),
            issue=text_of(rec.find("./number")),
            pages=text_of(rec.find("./pages")),
            publisher=text_of(rec.find("./publisher")),
        ),
    )


def read_endnote_xml(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every ``<record>`` of an EndNote XML export (maybe gzip); one that cannot be read is
    a :class:`BadItem` at ``record N``.

    Raises:
        IngestError: the file cannot be read, is not XML, is not EndNote XML or holds no
            record.
    """
    roots = {"xml", "records"}
    records = xml_records(path, ("record",), roots.__contains__, "EndNote record", _HINT)
    yield from read_records(records, lambda el, n: _record(el, n, path.parent))


FORMATS = [
    Format(
        name="endnote-xml",
        kind=Kind.PAPER,
        read=read_endnote_xml,
        sniff=sniff_endnote_xml,
        extensions=(".xml",),
        description="EndNote XML export (.xml): records, keywords, notes, attached PDFs",
    ),
]
