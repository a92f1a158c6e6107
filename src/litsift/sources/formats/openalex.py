"""OpenAlex works: a ``/works`` response page (``{"meta": ..., "results": [...]}``), a plain
JSON list of Works (what pyalex's ``Works().get()`` and other clients dump), a single Work, or
JSON Lines of Works (the snapshot's ``works`` part files, ``.gz`` or not, have the API's Work
shape).

Abstracts come as ``abstract_inverted_index`` (word -> positions) and are rebuilt in position
order; identifiers from ``ids`` (openalex, doi, pmid, pmcid, mag) and ``doi``; authors from
``authorships[].author.display_name``; venue from ``primary_location.source.display_name``, or
from ``host_venue.display_name`` in Works written before the 2023 schema (snapshots and dumps
of 2021-2023); licence and landing page from the same place. A Work with neither ``title`` nor
``display_name`` is a bad item. A JSON list or page cut short (a cut download) keeps its
complete Works and reports the cut one. (OpenAlex API docs:
docs.openalex.org/api-entities/works/work-object.)
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litsift.sources.base import BadItem, Format, Page, SourceRecord, clean_text
from litsift.sources.formats.biblio_types import biblio, csl_type, page_range
from litsift.sources.formats.scholarly_json import fill_page, parse_json_page, read_pages
from litsift.sources.identity.ids import normalize_ids, reference_keys
from litsift.types import Kind

__all__ = ["FORMATS", "parse_page", "work_record"]


#: inline markup publishers leave in OpenAlex abstracts (``<i>``, ``<sup>``, ``<br>``, JATS tags)
_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9:_-]*(?:\s[^<>]*)?/?>")


def abstract_from_inverted_index(index: Any) -> str:
    """The abstract text of an ``abstract_inverted_index`` (words joined in position order),
    as plain text: inline markup tags removed and HTML entities (``&amp;``) decoded. The 2021
    snapshots wrap the index the way Microsoft Academic Graph did (``{"IndexLength": n,
    "InvertedIndex": {...}}``); both shapes are read."""
    if not isinstance(index, dict):
        return ""
    if isinstance(index.get("InvertedIndex"), dict):
        index = index["InvertedIndex"]
    slots: dict[int, str] = {}
    for word, positions in index.items():
        for p in positions if isinstance(positions, list) else []:
            if isinstance(p, int):
                slots[p] = word
    text = " ".join(slots[i] for i in sorted(slots))
    return clean_text(html.unescape(_TAG_RE.sub(" ", text)))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _is_work(obj: Any) -> bool:
    return isinstance(obj, dict) and str(obj.get("id", "")).startswith("https://openalex.org/W")


def work_record(work: Any, location: str) -> SourceRecord | None:
    """A record from one Work object; None for a non-Work object.

    Raises:
        ValueError: the Work has no title.
    """
    if not _is_work(work):
        return None
    title = clean_text(work.get("title") or work.get("display_name"))
    if not title:
        raise ValueError("no title (title and display_name are null)")
    authors, families = [], []
    for a in work.get("authorships") if isinstance(work.get("authorships"), list) else []:
        name = clean_text(_dict(_dict(a).get("author")).get("display_name"))
        if name:
            authors.append(name)
            families.append(name.split(" ")[-1])
    raw_ids = work.get("ids") if isinstance(work.get("ids"), dict) else {}
    ids = normalize_ids({**raw_ids, "doi": work.get("doi") or ""})
    ids.setdefault("openalex", str(work["id"]).rsplit("/", 1)[-1])
    location_ = _dict(work.get("primary_location"))
    source = _dict(location_.get("source"))
    host = _dict(work.get("host_venue"))  # the Work schema before 2023
    return SourceRecord(
        location=location,
        title=title,
        abstract=abstract_from_inverted_index(work.get("abstract_inverted_index")),
        authors=authors,
        family_names=families,
        year=work.get("publication_year")
        if isinstance(work.get("publication_year"), int)
        else None,
        venue=clean_text(source.get("display_name")) or clean_text(host.get("display_name")),
        url=clean_text(
            location_.get("landing_page_url") or host.get("url") or work.get("doi") or ""
        ),
        license=clean_text(location_.get("license")) or clean_text(host.get("license")),
        ids=ids,
        source_key=ids["openalex"],
        references=reference_keys("openalex", work.get("referenced_works")),
        biblio=_biblio(work, source),
    )


def _biblio(work: dict[str, Any], source: dict[str, Any]) -> dict[str, str]:
    """``type`` (an ``article`` typed by its source's type), ``biblio.volume`` / ``issue`` /
    ``first_page``-``last_page``, and the source's ``host_organization_name``."""
    facts = _dict(work.get("biblio"))
    return biblio(
        csl_type("openalex", work.get("type"), source.get("type")),
        volume=clean_text(facts.get("volume")),
        issue=clean_text(facts.get("issue")),
        pages=page_range(clean_text(facts.get("first_page")), clean_text(facts.get("last_page"))),
        publisher=clean_text(source.get("host_organization_name")),
    )


def _page(doc: Any) -> Page:
    page = Page()
    if isinstance(doc, dict) and ("error" in doc or "message" in doc) and "results" not in doc:
        page.error = clean_text(f"{doc.get('error', '')}: {doc.get('message', '')}".strip(": "))[
            :300
        ]
        return page
    if _is_work(doc):
        works = [doc]
    elif isinstance(doc, list) and (not doc or any(_is_work(w) for w in doc)):
        works = doc  # pyalex & co. dump lists; [] is what a list cut in its first work keeps
    elif isinstance(doc, dict) and isinstance(doc.get("results"), list):
        works = doc["results"]
        meta = doc.get("meta") or {}
        page.total = meta.get("count") if isinstance(meta.get("count"), int) else None
        page.next = meta.get("next_cursor") or None
        if doc.get("group_by"):
            page.error = "holds a group_by aggregation, not works"
            return page
    else:
        page.error = "holds no OpenAlex works"
        return page
    return fill_page(page, works, work_record, "work", lambda w: w.get("updated_date"))


def parse_page(data: bytes) -> Page:
    """One OpenAlex ``/works`` response body (or a single Work) as a page.

    Raises:
        IngestError: the body is not JSON.
    """
    return parse_json_page(data, _page)


def read_openalex(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Works of a saved ``/works`` page, a JSON list of Works, a single Work, or JSON Lines of
    Works; of a cut list or page, the complete Works and a bad item for the cut one
    (:func:`~litsift.sources.formats.json_items.load_json_items`).

    Raises:
        IngestError: unreadable, an error body, no works, or cut before its first Work.
    """
    return read_pages(path, _page, work_record, [(), ("results",)], "works")


def _sniff(head: bytes, path: Path) -> int:
    return 92 if b'"https://openalex.org/W' in head[:20000] else 0


FORMATS = [
    Format(
        "openalex",
        Kind.PAPER,
        read_openalex,
        _sniff,
        (".json", ".jsonl"),
        False,
        "OpenAlex works (API pages, JSON lists of works, single works, snapshot JSON Lines)",
    ),
]
