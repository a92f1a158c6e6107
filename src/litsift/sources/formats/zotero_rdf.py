"""Zotero RDF (``Export Collection... > Zotero RDF``, ``.rdf``), read with lxml and detected by
content (the ``http://www.zotero.org/namespaces/export#`` namespace in an ``rdf:RDF`` root).

An item is any top-level element with a ``z:itemType`` other than ``attachment`` / ``note``
(``bib:Article``, ``bib:Book``, ``bib:BookSection``, ``rdf:Description``, ``bib:Document``...).
Read: ``dc:title``; authors from ``bib:authors`` (``rdf:Seq`` of ``foaf:Person`` with
``foaf:surname`` / ``foaf:givenName``; a name in ``foaf:surname`` alone is a full name);
editors from ``bib:editors`` (the same shape; Zotero writes an item's ``editor`` creators
there), never as authors;
``dc:date`` (year); ``dcterms:abstract``; tags from ``dc:subject`` (plain text or
``z:AutomaticTag`` / ``rdf:value``); identifiers from ``dc:identifier`` (``DOI 10.x/y``,
``dcterms:URI`` / ``rdf:value`` links) of the item and of its container; the venue is the
``dc:title`` of the container (``dcterms:isPartOf``: a ``bib:Journal``, ``bib:Book``... inline
or referred to by ``rdf:resource``; Zotero puts an article's DOI there too); collections from
``z:Collection`` (``dcterms:hasPart`` items and sub-collections, paths joined with ``/``);
attached PDFs from the ``z:Attachment`` of ``link:link`` (``rdf:resource`` paths, relative to
the export's folder); the bibliographic details: ``z:itemType`` (a CSL type), ``prism:volume``
and ``prism:number`` (on the item or, for an article, its journal), ``bib:pages`` and the
publisher's ``foaf:name``. An item without a title is a :class:`BadItem` at its line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, read_bytes, year_from
from litsift.sources.formats.biblio_types import biblio, csl_type
from litsift.sources.formats.people import People, byline
from litsift.sources.identity.ids import ids_in_text, normalize_doi
from litsift.types import Kind

__all__ = ["FORMATS", "read_zotero_rdf", "sniff_zotero_rdf"]

_NS = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "z": "http://www.zotero.org/namespaces/export#",
    "dc": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/",
    "bib": "http://purl.org/net/biblio#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "link": "http://purl.org/rss/1.0/modules/link/",
    "prism": "http://prismstandard.org/namespaces/1.2/basic/",
}
_Z_NS = b"http://www.zotero.org/namespaces/export#"
_ABOUT = f"{{{_NS['rdf']}}}about"
_RESOURCE = f"{{{_NS['rdf']}}}resource"
_NOT_ITEMS = {"attachment", "note"}


def sniff_zotero_rdf(head: bytes, path: Path) -> int:
    """95 for an RDF/XML file that declares Zotero's export namespace; 0 otherwise."""
    return 95 if _Z_NS in head and b"rdf:RDF" in head[:4096] else 0


def _text(el: etree._Element | None, path: str) -> str:
    if el is None:
        return ""
    found = el.find(path, _NS)
    return clean_text("".join(found.itertext())) if found is not None else ""


def _people(item: etree._Element, role: str) -> People:
    """The persons of the item's ``bib:ROLE`` (``authors``, ``editors``), in order."""
    names, families, parts = [], [], []
    for person in item.iterfind(f"bib:{role}/rdf:Seq/rdf:li/foaf:Person", _NS):
        family, given = _text(person, "foaf:surname"), _text(person, "foaf:givenName")
        if not family and not given:
            continue
        names.append(f"{given} {family}".strip())
        families.append(family.split(" ")[-1] if family and not given else family or given)
        if family and given:
            parts.append((family, given))
    return People(names, families, parts)


def _container(item: etree._Element, by_about: dict[str, etree._Element]) -> etree._Element | None:
    part = item.find("dcterms:isPartOf", _NS)
    if part is None:
        return None
    if len(part):
        return part[0]
    return by_about.get(part.get(_RESOURCE, ""))


def _identifiers(el: etree._Element | None, ids: dict[str, str], urls: list[str]) -> None:
    if el is None:
        return
    for ident in el.iterfind("dc:identifier", _NS):
        value = _text(ident, "dcterms:URI/rdf:value")
        if value:
            urls.append(value)
            ids.update({k: v for k, v in ids_in_text(value).items() if k not in ids})
            continue
        text = clean_text("".join(ident.itertext()))
        if text.upper().startswith("DOI"):
            doi = normalize_doi(text[3:].strip(" :"))
            if doi:
                ids["doi"] = doi


def _attachments(
    item: etree._Element, by_about: dict[str, etree._Element], folder: Path
) -> list[Path]:
    files = []
    for link in item.iterfind("link:link", _NS):
        attachment = by_about.get(link.get(_RESOURCE, ""))
        if attachment is None:
            continue
        for res in attachment.iterfind("rdf:resource", _NS):
            ref = res.get(_RESOURCE, "")
            if ref.lower().endswith(".pdf"):
                files.append(folder / ref if not ref.startswith(("/", "file:")) else Path(ref))
    return files


def _collections(root: etree._Element) -> dict[str, list[str]]:
    """Item ``rdf:about`` -> the paths (``Parent/Child``) of the collections holding it."""
    colls = root.findall("z:Collection", _NS)
    names = {c.get(_ABOUT, ""): _text(c, "dc:title") for c in colls}
    parent: dict[str, str] = {}
    members: dict[str, list[str]] = {}
    for c in colls:
        about = c.get(_ABOUT, "")
        for part in c.iterfind("dcterms:hasPart", _NS):
            ref = part.get(_RESOURCE, "")
            if ref in names:
                parent.setdefault(ref, about)
            else:
                members.setdefault(ref, []).append(about)

    def path(about: str) -> str:
        parts, seen = [], set()
        while about and about not in seen:
            seen.add(about)
            parts.append(names.get(about, "") or "?")
            about = parent.get(about, "")
        return "/".join(reversed(parts))

    return {item: [path(c) for c in cs] for item, cs in members.items()}


def _record(
    item: etree._Element,
    by_about: dict[str, etree._Element],
    collections: dict[str, list[str]],
    folder: Path,
) -> SourceRecord:
    about = item.get(_ABOUT, "")
    container = _container(item, by_about)
    ids: dict[str, str] = {}
    urls: list[str] = []
    _identifiers(item, ids, urls)
    _identifiers(container, ids, [])
    if not urls and about.startswith("http"):
        urls.append(about)
        ids.update({k: v for k, v in ids_in_text(about).items() if k not in ids})
    tags = []
    for subject in item.iterfind("dc:subject", _NS):
        tag = _text(subject, ".//rdf:value") or clean_text(subject.text)
        if tag:
            tags.append(tag)
    return SourceRecord(
        location=f"line {item.sourceline}",
        title=_text(item, "dc:title"),
        abstract=_text(item, "dcterms:abstract"),
        **byline(_people(item, "authors"), _people(item, "editors")),
        year=year_from(_text(item, "dc:date")),
        venue=_text(container, "dc:title"),
        url=urls[0] if urls else "",
        ids=ids,
        tags=tags,
        collections=collections.get(about, []),
        attachments=_attachments(item, by_about, folder),
        source_key=about,
        biblio=_biblio(item, container),
    )


def _biblio(item: etree._Element, container: etree._Element | None) -> dict[str, str]:
    def either(path: str) -> str:
        return _text(item, path) or _text(container, path)

    return biblio(
        csl_type("zotero", _text(item, "z:itemType")),
        volume=either("prism:volume"),
        issue=either("prism:number"),
        pages=_text(item, "bib:pages"),
        publisher=_text(item, "dc:publisher/foaf:Organization/foaf:name"),
    )


def read_zotero_rdf(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every item of a Zotero RDF export.

    Raises:
        IngestError: the file cannot be read, is no XML, or holds no Zotero RDF.
    """
    parser = etree.XMLParser(
        recover=True, huge_tree=True, resolve_entities=False, no_network=True, load_dtd=False
    )
    root = etree.fromstring(read_bytes(path), parser)
    if root is None or root.tag != f"{{{_NS['rdf']}}}RDF":
        raise IngestError(
            "not Zotero RDF: no rdf:RDF root element", "export the collection again as Zotero RDF"
        )
    by_about = {el.get(_ABOUT): el for el in root if el.get(_ABOUT)}
    collections = _collections(root)
    for el in root:
        kind = _text(el, "z:itemType") if isinstance(el.tag, str) else ""
        if not kind or kind in _NOT_ITEMS:
            continue
        record = _record(el, by_about, collections, path.parent)
        if not record.title and not record.abstract:  # with one the writer decides
            yield BadItem(record.location, f"{kind} item has no title (dc:title); skipped")
            continue
        yield record


FORMATS = [
    Format(
        name="zotero-rdf",
        kind=Kind.PAPER,
        read=read_zotero_rdf,
        sniff=sniff_zotero_rdf,
        extensions=(".rdf",),
        description="Zotero RDF export (.rdf): items, tags, collections, attached PDFs",
    ),
]
