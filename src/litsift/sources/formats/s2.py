"""Semantic Scholar: Graph API responses and S2AG bulk dataset files.

* Graph API (api.semanticscholar.org/api-docs/graph): a paper object; a batch response (a
  list, ``null`` for unknown ids -> bad item); ``{"data": [...]}`` pages of search (``next``
  offset), bulk search (``token``), author papers, recommendations (``recommendedPapers``);
  citation / reference pages (``data[].citingPaper`` / ``citedPaper``); an author with nested
  ``papers``; a citation / reference page with ``data: null`` (the publisher elided the list)
  is an empty page whose ``withheld`` says so.
* S2AG datasets (api.semanticscholar.org/api-docs/datasets): ``papers`` lines (corpusid,
  externalids, title, authors, venue, year) -- format ``s2ag`` -- and ``abstracts`` lines
  (corpusid + abstract only: stored onto the paper with that corpus id, when there is one).

Identifiers: ``paperId`` -> s2, ``corpusId`` -> corpusid, ``externalIds`` (DOI, ArXiv, ACL,
PubMed, PubMedCentral, MAG, DBLP, CorpusId).

Container: ``venue``, else ``publicationVenue.name``, else ``journal.name``. Bibliographic facts
(:attr:`~litsift.sources.base.SourceRecord.biblio`, as the OpenAlex and Crossref readers fill
them): the type from ``publicationTypes`` and ``publicationVenue.type``
(:func:`_csl_type`), the volume, issue and pages from ``journal`` (``{"name": "Annals of
plastic surgery", "volume": "92 5", "pages": "487-488"}``: PubMed's volume and issue in one,
split); not from the ``journal`` S2 gives an arXiv preprint (DBLP's CoRR: ``{"name": "ArXiv",
"volume": "abs/2404.13957"}``), which is typed a preprint (``article``) when its venue is
arXiv.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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
from litsift.sources.formats.scholarly_json import parse_json_page, read_pages
from litsift.sources.identity.ids import normalize_corpusid, normalize_ids, normalize_s2
from litsift.sources.identity.matcher import reference_key, reference_label
from litsift.types import Kind

__all__ = ["FORMATS", "paper_record", "parse_page"]

#: where a response keeps its papers: a batch list, search / bulk / citation pages,
#: recommendations, an author's papers (a cut file keeps the complete ones)
_RECORDS_AT = [(), ("data",), ("recommendedPapers",), ("papers",)]
_PAPER_KEYS = ("paperId", "corpusId", "corpusid", "externalIds", "externalids")


#: a type of ``publicationTypes`` before another (a paper typed ``JournalArticle`` and
#: ``Conference`` is a proceedings paper: S2 types a conference paper both ways)
_TYPE_ORDER = ("chapter", "dataset", "paper-conference", "article-journal", "book")
#: ``publicationVenue.type`` -> the type of a paper that appeared there
_BY_VENUE = {"journal": "article-journal", "conference": "paper-conference"}
_ARXIV_RE = re.compile(r"^arxiv(?:\.org)?$", re.IGNORECASE)
#: PubMed's volume and issue as S2 gives them in one (``"92 5"``)
_VOLUME_ISSUE_RE = re.compile(r"^(\d+)\s+(\d+(?:-\d+)?)$")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _csl_type(obj: dict[str, Any], venue: str) -> str:
    """A paper's CSL type: ``article`` (a preprint) when its venue is arXiv; else the type of
    its ``publicationVenue.type`` (journal, conference) unless ``publicationTypes`` name a
    book, a chapter or a dataset; else the first of ``publicationTypes`` by
    :data:`_TYPE_ORDER`; ``""`` when none is known."""
    if _ARXIV_RE.match(venue):
        return "article"
    kinds = obj.get("publicationTypes") or obj.get("publicationtypes") or []
    types = {csl_type("s2", k) for k in kinds if isinstance(k, str)} - {""}
    by_venue = _BY_VENUE.get(str(_dict(obj.get("publicationVenue")).get("type") or "").lower())
    if by_venue and types <= set(_BY_VENUE.values()):
        return by_venue
    return next((t for t in _TYPE_ORDER if t in types), "")


def _biblio(obj: dict[str, Any], venue: str) -> dict[str, str]:
    """The type (:func:`_csl_type`), and ``journal``'s volume, issue and pages unless it is
    the arXiv preprint's (DBLP's CoRR: ``"volume": "abs/2404.13957"``)."""
    journal = _dict(obj.get("journal"))
    volume, issue = clean_text(journal.get("volume")), ""
    if _ARXIV_RE.match(clean_text(journal.get("name"))) or volume.startswith("abs/"):
        return biblio(_csl_type(obj, venue))
    if m := _VOLUME_ISSUE_RE.match(volume):
        volume, issue = m.groups()
    return biblio(_csl_type(obj, venue), volume=volume, issue=issue, pages=journal.get("pages"))


def _is_paper(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and any(k in obj for k in _PAPER_KEYS)
        and ("title" in obj or "abstract" in obj)
    )


def _paper_ids(obj: dict[str, Any]) -> dict[str, str]:
    ext = obj.get("externalIds") or obj.get("externalids") or {}
    if not ext and isinstance(obj.get("openaccessinfo"), dict):
        ext = obj["openaccessinfo"].get("externalids") or {}
    ids = normalize_ids({k: v for k, v in ext.items() if v is not None})
    corpus = normalize_corpusid(obj.get("corpusId") or obj.get("corpusid"))
    if corpus:
        ids["corpusid"] = corpus
    s2 = normalize_s2(obj.get("paperId") or (obj.get("url") or "").rsplit("/", 1)[-1])
    if s2:
        ids["s2"] = s2
    return ids


def _linked_keys(papers: Any, edge_key: str) -> dict[str, str]:
    """Keys of the nested ``references`` / ``citations`` of a paper object: paper objects, or
    edge objects holding one under ``citedPaper`` / ``citingPaper`` (``edge_key``)."""
    keys: dict[str, str] = {}
    for item in papers if isinstance(papers, list) else []:
        if isinstance(item, dict) and isinstance(item.get(edge_key), dict):
            item = item[edge_key]
        if not isinstance(item, dict):
            continue
        names = [clean_text((a or {}).get("name")) for a in item.get("authors") or []]
        names = [n for n in names if n]
        title = clean_text(item.get("title"))
        key = reference_key(_paper_ids(item), title, names)
        if key and not keys.get(key):
            keys[key] = reference_label(title, names, year_from(item.get("year")))
    return keys


def paper_record(obj: Any, location: str) -> SourceRecord | None:
    """A record from an S2 paper object or S2AG ``papers`` / ``abstracts`` line (None: not a
    paper). An ``abstracts`` line has no title: the import stores its abstract onto the paper
    with its corpus id."""
    if not _is_paper(obj):
        return None
    ids = _paper_ids(obj)
    corpus, s2 = ids.get("corpusid"), ids.get("s2")
    authors = [
        clean_text((a or {}).get("name")) for a in obj.get("authors") or [] if isinstance(a, dict)
    ]
    authors = [a for a in authors if a]
    venue = clean_text(
        obj.get("venue")
        or _dict(obj.get("publicationVenue")).get("name")
        or _dict(obj.get("journal")).get("name")
    )
    return SourceRecord(
        location=location,
        title=clean_text(obj.get("title")),
        abstract=clean_text(obj.get("abstract")),
        authors=authors,
        family_names=[a.split(" ")[-1] for a in authors],
        year=year_from(obj.get("year"))
        or year_from(obj.get("publicationDate") or obj.get("publicationdate")),
        venue=venue,
        url=clean_text(obj.get("url")),
        ids=ids,
        source_key=s2 or (f"CorpusId:{corpus}" if corpus else ""),
        biblio=_biblio(obj, venue),
        references=list(refs := _linked_keys(obj.get("references"), "citedPaper")),
        cited_by=list(citers := _linked_keys(obj.get("citations"), "citingPaper")),
        reference_labels=labelled({**citers, **refs}),
    )


def _papers_of(doc: Any) -> list[Any] | None:
    if isinstance(doc, list):
        return doc
    if not isinstance(doc, dict):
        return None
    if _is_paper(doc) and "papers" not in doc:
        return [doc]
    if "citingPaper" in doc or "citedPaper" in doc:  # one citation / reference edge
        return [doc.get("citingPaper") or doc.get("citedPaper")]
    for key in ("data", "recommendedPapers", "papers"):
        if isinstance(doc.get(key), list):
            out = []
            for item in doc[key]:
                if isinstance(item, dict) and not _is_paper(item):
                    item = item.get("citingPaper") or item.get("citedPaper") or item
                out.append(item)
            return out
    return None


def _page(doc: Any) -> Page:
    page = Page()
    if isinstance(doc, dict) and ("error" in doc or ("message" in doc and "data" not in doc)):
        page.error = clean_text(str(doc.get("error") or doc.get("message")))[:300]
        return page
    if isinstance(doc, dict) and "data" in doc and doc["data"] is None:
        # a citation / reference page of a paper whose publisher elided the list: HTTP 200,
        # ``{"data": null, "citingPaperInfo": {... "elided by the publisher" ...}}`` -- an
        # answer (there is nothing to give), not an error
        elided = "elided by the publisher" in json.dumps(doc).lower()
        page.withheld = "its publisher withheld them" if elided else "the list is withheld"
        return page
    papers = _papers_of(doc)
    if papers is None:
        page.error = "holds no Semantic Scholar papers"
        return page
    for n, obj in enumerate(papers, start=1):
        if obj is None:
            page.items.append(BadItem(f"item {n}", "not found (null in the batch response)"))
            continue
        rec = paper_record(obj, f"item {n}")
        if rec is not None:
            page.items.append(rec)
    if not page.items and papers:
        page.error = "holds no Semantic Scholar papers (no paper objects)"
    if isinstance(doc, dict):
        total = doc.get("total")
        page.total = total if isinstance(total, int) else None
        token = doc.get("token")
        following = doc.get("next")
        page.next = (
            str(token) if token else (str(following) if isinstance(following, int) else None)
        )
    return page


def parse_page(data: bytes) -> Page:
    """One Graph API response body as a page (``next`` = bulk ``token`` or next offset).

    Raises:
        IngestError: the body is not JSON.
    """
    return parse_json_page(data, _page)


def read_s2(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Papers of a saved Graph API response, or of S2AG ``papers`` / ``abstracts`` lines.

    Raises:
        IngestError: unreadable, an error body, or no papers.
    """
    return read_pages(path, _page, paper_record, _RECORDS_AT, "papers")


def _sniff(head: bytes, path: Path) -> int:
    top = head[:20000]
    if b'"paperId"' in top or b'"corpusid"' in top or b'"corpusId"' in top:
        return 90 if (b'"title"' in top or b'"abstract"' in top) else 0
    return 0


FORMATS = [
    Format(
        "s2",
        Kind.PAPER,
        read_s2,
        _sniff,
        (".json", ".jsonl"),
        False,
        "Semantic Scholar Graph API responses and S2AG papers / abstracts lines",
    ),
]
