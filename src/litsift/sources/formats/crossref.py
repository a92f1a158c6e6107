"""Crossref works: ``/works`` list responses (``message.items``), a single work
(``message-type: work``), or JSON Lines of works.

Abstracts are JATS XML (``<jats:p>``, ``<jats:sec><jats:title>``) and become plain text with
lxml (tags dropped, section titles kept as words); years from ``issued`` / ``published-print``
/ ``published-online`` / ``created`` date-parts. (Crossref REST API:
api.crossref.org/swagger-ui; JATS: jats.nlm.nih.gov.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lxml import etree

from litsift.sources.base import (
    BadItem,
    Format,
    Page,
    SourceRecord,
    clean_text,
    labelled,
    year_from,
)
from litsift.sources.formats.biblio_types import biblio, csl_type
from litsift.sources.formats.people import People, byline
from litsift.sources.formats.scholarly_json import fill_page, parse_json_page, read_pages
from litsift.sources.identity.ids import normalize_doi
from litsift.sources.identity.matcher import reference_key, reference_label
from litsift.types import Kind

__all__ = ["FORMATS", "jats_text", "parse_page", "work_record"]

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)
_JATS_NS = (
    'xmlns:jats="http://www.ncbi.nlm.nih.gov/JATS1" xmlns:mml="http://www.w3.org/1998/Math/MathML"'
)


def jats_text(markup: Any) -> str:
    """A JATS (or HTML) fragment as plain text; tags stripped when it does not parse."""
    if not isinstance(markup, str) or not markup.strip():
        return ""
    try:
        root = etree.fromstring(f"<root {_JATS_NS}>{markup}</root>".encode(), parser=_PARSER)
        if root is not None:
            parts = []
            for el in root.iter():
                name = etree.QName(el).localname if isinstance(el.tag, str) else ""
                if name == "title" and el.text and el.text.strip().lower() == "abstract":
                    continue  # the heading "Abstract" itself
                if el.text:
                    parts.append(el.text)
                if el.tail:
                    parts.append(el.tail)
                parts.append(" ")
            return clean_text("".join(parts))
    except (etree.XMLSyntaxError, ValueError):
        pass
    return clean_text(re.sub(r"<[^>]+>", " ", markup))


def _year(work: dict[str, Any]) -> int | None:
    for key in ("issued", "published-print", "published-online", "published", "created"):
        parts = (work.get(key) or {}).get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            year = year_from(parts[0][0])
            if year:
                return year
    return None


def _people(names: Any) -> People:
    """The persons of a work's ``author`` or ``editor`` list (``given``/``family``, or
    ``name`` for an organisation), in order. An organisation (AIS eLibrary deposits its
    authors' universities so: ``{"name": "Paderborn University", "sequence": "first"}``) is
    one name, its family name its whole name and its parts ``(name, "")``, as a BibTeX
    ``{Org Name}`` is stored (and as Zotero reads it: one field), never split into a given
    and a family name."""
    people = People([], [], [])
    for a in names if isinstance(names, list) else []:
        if not isinstance(a, dict):
            continue
        given, family = clean_text(a.get("given")), clean_text(a.get("family"))
        if name := " ".join(p for p in (given, family) if p):
            people.names.append(name)
            people.families.append(family or name.split(" ")[-1])
            if family:
                people.parts.append((family, given))
        elif group := clean_text(a.get("name")):
            people.names.append(group)
            people.families.append(group)
            people.parts.append((group, ""))
    return people


def work_record(work: Any, location: str) -> SourceRecord | None:
    """A record from one Crossref work (its ``editor`` list its editors: a book's, a
    chapter's book's, a journal article's handling editor); None for a non-work object.

    Raises:
        ValueError: the work has no title.
    """
    if not isinstance(work, dict) or "DOI" not in work:
        return None
    titles = work.get("title") or []
    title = clean_text(titles[0] if isinstance(titles, list) and titles else titles)
    if not title:
        raise ValueError(f"no title (DOI {work.get('DOI')})")
    doi = normalize_doi(work.get("DOI"))
    venue = work.get("container-title") or []
    licenses = work.get("license") or []
    return SourceRecord(
        location=location,
        title=jats_text(title) or title,
        abstract=jats_text(work.get("abstract")),
        **byline(_people(work.get("author")), _people(work.get("editor"))),
        year=_year(work),
        venue=clean_text(venue[0] if isinstance(venue, list) and venue else venue),
        url=clean_text(work.get("URL")),
        license=clean_text(licenses[0].get("URL"))
        if licenses and isinstance(licenses[0], dict)
        else "",
        ids={"doi": doi} if doi else {},
        source_key=doi or "",
        references=list(refs := _reference_keys(work.get("reference"))),
        reference_labels=labelled(refs),
        biblio=biblio(
            csl_type("crossref", work.get("type")),
            volume=clean_text(work.get("volume")),
            issue=clean_text(work.get("issue")),
            pages=clean_text(work.get("page") or work.get("article-number")),
            publisher=clean_text(work.get("publisher")),
        ),
    )


def _reference_keys(refs: Any) -> dict[str, str]:
    """Keys of a work's ``reference`` list: the DOI, else the title key of ``article-title``
    (or ``volume-title``) and ``author``; an ``unstructured``-only entry names none."""
    keys: dict[str, str] = {}
    for ref in refs if isinstance(refs, list) else []:
        if not isinstance(ref, dict):
            continue
        doi = normalize_doi(ref.get("DOI"))
        title = clean_text(ref.get("article-title") or ref.get("volume-title"))
        author = clean_text(ref.get("author"))
        names = [author] if author else []
        key = reference_key({"doi": doi} if doi else {}, title, names)
        if key and not keys.get(key):
            keys[key] = reference_label(title, names, year_from(ref.get("year")))
    return keys


def _page(doc: Any) -> Page:
    page = Page()
    if not isinstance(doc, dict):
        page.error = "holds no Crossref works"
        return page
    if doc.get("status") not in (None, "ok"):
        page.error = clean_text(json.dumps(doc.get("message"))[:300])
        return page
    message = doc.get("message", doc)
    if isinstance(message, dict) and message.get("DOI"):
        works = [message]
    elif isinstance(message, dict) and isinstance(message.get("items"), list):
        works = message["items"]
        total = message.get("total-results")
        page.total = total if isinstance(total, int) else None
        page.next = (message.get("next-cursor") or None) if works else None
    else:
        page.error = "holds no Crossref works"
        return page
    return fill_page(
        page, works, work_record, "item", lambda w: (w.get("indexed") or {}).get("date-time")
    )


def parse_page(data: bytes) -> Page:
    """One Crossref ``/works`` response body as a page (``next`` = ``next-cursor``).

    Raises:
        IngestError: the body is not JSON.
    """
    return parse_json_page(data, _page)


def read_crossref(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Works of a saved Crossref response or JSON Lines of works.

    Raises:
        IngestError: unreadable, an error body, or no works.
    """
    return read_pages(path, _page, work_record, [("message", "items")], "works")


def _sniff(head: bytes, path: Path) -> int:
    top = head[:3000]
    return 92 if b'"message-type"' in top and (b'"work' in top) else 0


FORMATS = [
    Format(
        "crossref",
        Kind.PAPER,
        read_crossref,
        _sniff,
        (".json", ".jsonl"),
        False,
        "Crossref /works responses (JATS abstracts)",
    ),
]
