"""``litsift refs fetch``: the citation trail of one paper from OpenAlex or Semantic Scholar,
page by page -- its references (backward) and the papers citing it (forward).

* ``openalex`` -- backward: ``/works?filter=cited_by:W…`` (the works the seed's
  ``referenced_works`` lists, as full Work objects), forward: ``/works?filter=cites:W…``;
  ``cursor`` paging (``per-page`` 200), ``mailto`` for the polite pool. A seed without an
  OpenAlex id is looked up first by DOI or PMID (``/works/doi:…``; one request).
* ``s2`` -- backward: ``/graph/v1/paper/{id}/references``, forward: ``…/citations``;
  ``offset`` paging (``limit`` 100, the response's ``next``); the paper id is the S2 id, else
  ``DOI:``, ``ARXIV:``, ``CorpusId:``, ``PMID:`` or ``ACL:`` + the stored identifier; the API
  key (``x-api-key``) from the environment variable named in config.

Each page goes to ``sink(records, bad, page_no)`` as soon as it is parsed; the caller writes
the works (stubs for the ones not stored yet) and their edges, then ``checkpoint(token)``
receives the token of the next page (None at the end), which the caller keeps per
(source, seed, direction): an interrupted walk resumes at its first unwritten page. A token
the server no longer accepts (an HTTP 4xx on the first resumed page) restarts the walk.
Waiting on 429 / ``Retry-After`` is the polite client's (:mod:`litsift.sources.online.http`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from litsift.errors import LitsiftError
from litsift.net.bodies import html_title
from litsift.sources.base import BadItem, Page, SourceRecord
from litsift.sources.identity.ids import normalize_ids, normalize_openalex, reference_keys
from litsift.sources.online.http import FetchError, PoliteClient
from litsift.store.refs_fetches import Direction

__all__ = [
    "DIRECTIONS",
    "SEED_SCHEMES",
    "TRAIL_SOURCES",
    "TrailError",
    "TrailResult",
    "fetch_trail",
    "seed_key",
]

DIRECTIONS: tuple[Direction, ...] = ("backward", "forward")
_NAMES = {"openalex": "OpenAlex", "s2": "Semantic Scholar"}
TRAIL_SOURCES = ("openalex", "s2")

#: fields asked of S2 for each cited / citing paper (enough for a stub that can be triaged)
S2_TRAIL_FIELDS = "title,year,externalIds,authors,venue,abstract"
S2_PAGE = 100
OPENALEX_PAGE = 200

#: S2 Graph API id prefixes for the identifiers litsift stores (api.semanticscholar.org/
#: api-docs/graph, "paper_id"), in the order tried
_S2_PREFIX = (
    ("s2", ""),
    ("doi", "DOI:"),
    ("arxiv", "ARXIV:"),
    ("corpusid", "CorpusId:"),
    ("pmid", "PMID:"),
    ("acl", "ACL:"),
)

Sink = Callable[[list[SourceRecord], list[BadItem], int], None]


class TrailError(LitsiftError):
    """A seed cannot be walked (no identifier the service knows, an error it reported)."""


@dataclass
class TrailResult:
    """One walk of one seed in one direction.

    Attributes:
        pages: pages fetched and handed to the sink.
        records: works on them.
        total: the count the service reports (OpenAlex ``meta.count``, S2 none), if any.
        resumed: the walk continued an interrupted one from its saved token.
        restarted: the saved token was refused and the walk began again.
        complete: the walk reached the last page (False after ``max_pages``).
        withheld: why the service answered without the list (S2's ``data: null`` when the
            publisher elided a paper's references), else None.
    """

    pages: int = 0
    records: int = 0
    total: int | None = None
    resumed: bool = False
    restarted: bool = False
    complete: bool = False
    withheld: str | None = None


#: the identifiers :func:`seed_key` can walk from, per source (for the message when none is)
SEED_SCHEMES = {
    "openalex": "an OpenAlex id, DOI, PMID or arXiv id",
    "s2": "a DOI, arXiv id, PMID, ACL Anthology id, S2 paper id or corpus id",
}


def seed_key(source: str, ids: Mapping[str, str]) -> str | None:
    """The id a service knows the seed by, from its stored identifiers, or None.

    OpenAlex: ``W…``, else ``doi:10.…`` / ``pmid:…`` (looked up first), else for an arXiv
    paper the DOI arXiv gives every article (``doi:10.48550/arxiv.2101.00001``, arXiv's
    "articles are now automatically assigned DOIs", 2022, which OpenAlex resolves: most
    ML and NLP papers are known by their arXiv id alone); S2: the 40-hex paper id, else
    ``DOI:…``, ``ARXIV:…``, ``CorpusId:…``, ``PMID:…``, ``ACL:…``.
    """
    if source == "openalex":
        if ids.get("openalex"):
            return ids["openalex"]
        for scheme in ("doi", "pmid"):
            if ids.get(scheme):
                return f"{scheme}:{ids[scheme]}"
        if ids.get("arxiv"):
            return f"doi:10.48550/arxiv.{ids['arxiv'].lower()}"
        return None
    for scheme, prefix in _S2_PREFIX:
        if ids.get(scheme):
            return prefix + ids[scheme]
    return None


def _parser(source: str) -> Callable[[bytes], Page]:
    if source == "openalex":
        from litsift.sources.formats.openalex import parse_page as openalex_page

        return openalex_page
    from litsift.sources.formats.s2 import parse_page as s2_page

    return s2_page


def _openalex_work_id(
    client: PoliteClient, base_url: str, key: str, mailto: str
) -> tuple[str, SourceRecord | None]:
    """(``W…``, the seed's own record) for a ``doi:``/``pmid:`` key; a ``W…`` key as is."""
    from litsift.sources.formats.openalex import work_record

    if not key.startswith(("doi:", "pmid:")):
        return key, None
    params = {"mailto": mailto} if mailto else None
    try:
        body = client.get(f"{base_url.rstrip('/')}/works/{key}", params=params)
    except FetchError as err:
        if err.status == 404:
            raise TrailError(
                f"OpenAlex has no work with {key}", "try --source s2, or fetch another paper"
            ) from None
        raise
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    wid = normalize_openalex(doc.get("id")) if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or not wid:
        said = doc.get("message") or doc.get("error") if isinstance(doc, dict) else None
        raise TrailError(
            f"OpenAlex did not answer {key} with a work" + (f": {said}" if said else ""),
            "try --source s2, or try again later",
        )
    try:
        record = work_record(doc, wid)
    except ValueError:  # a Work without a title (it happens): its ids still name the seed
        raw = doc.get("ids")
        ids = normalize_ids({**(raw if isinstance(raw, dict) else {}), "doi": doc.get("doi") or ""})
        record = SourceRecord(
            location=wid,
            ids={**ids, "openalex": wid},
            source_key=wid,
            references=reference_keys("openalex", doc.get("referenced_works")),
        )
    return wid, record


def _request(
    source: str, base_url: str, key: str, direction: Direction, mailto: str
) -> tuple[str, dict[str, str]]:
    base = base_url.rstrip("/")
    if source == "openalex":
        flt = f"cited_by:{key}" if direction == "backward" else f"cites:{key}"
        params = {"filter": flt, "per-page": str(OPENALEX_PAGE), "cursor": "*"}
        if mailto:
            params["mailto"] = mailto
        return f"{base}/works", params
    what = "references" if direction == "backward" else "citations"
    params = {"fields": S2_TRAIL_FIELDS, "limit": str(S2_PAGE), "offset": "0"}
    return f"{base}/graph/v1/paper/{key}/{what}", params


def _next(source: str, first: dict[str, str], token: str) -> dict[str, str]:
    return {**first, "cursor" if source == "openalex" else "offset": token}


def fetch_trail(
    source: str,
    base_url: str,
    client: PoliteClient,
    key: str,
    direction: Direction,
    sink: Sink,
    *,
    mailto: str = "",
    api_key: str | None = None,
    resume_token: str | None = None,
    max_pages: int | None = None,
    checkpoint: Callable[[str | None], None] | None = None,
    seed_found: Callable[[SourceRecord], None] | None = None,
) -> TrailResult:
    """Walk the references (``backward``) or citing papers (``forward``) of one seed.

    Args:
        source: ``openalex`` or ``s2``.
        base_url: the service's base URL (``[sources.NAME] base_url`` or the public one).
        client: the polite HTTP client (delay, retries, 429 / Retry-After, deadline).
        key: the seed as :func:`seed_key` gives it.
        direction: ``backward`` (its references) or ``forward`` (papers citing it).
        sink: ``sink(records, bad, page_no)`` after each page, before its checkpoint.
        mailto: contact for OpenAlex's polite pool.
        api_key: Semantic Scholar API key.
        resume_token: the token of the first page an interrupted walk did not write.
        max_pages: stop after this many pages (the checkpoint keeps the next token).
        checkpoint: ``checkpoint(token)`` after each page went to ``sink``: the token of the
            next page, or None once the walk is over.
        seed_found: receives the seed's own OpenAlex Work when it had to be looked up.

    Returns:
        The :class:`TrailResult`.

    Raises:
        TrailError: the service does not know the seed or reported an error in a body.
        FetchError: the service could not be reached (after the client's retries) or
            answered with an error status.
    """
    if source not in TRAIL_SOURCES:
        raise TrailError(f"unknown source {source!r}", f"use one of: {', '.join(TRAIL_SOURCES)}")
    if source == "openalex":
        key, seed_record = _openalex_work_id(client, base_url, key, mailto)
        if seed_record is not None and seed_found is not None:
            seed_found(seed_record)
    parse = _parser(source)
    url, first = _request(source, base_url, key, direction, mailto)
    headers = {"x-api-key": api_key} if api_key and source == "s2" else None
    result = TrailResult()
    params = dict(first)
    if resume_token:
        params = _next(source, first, resume_token)
        result.resumed = True
    seen: set[str] = set()
    while True:
        try:
            body = client.get(url, params=params, headers=headers)
        except FetchError as err:
            status = err.status
            if status == 404 and result.pages == 0 and not result.resumed:
                raise TrailError(
                    f"{source} has no paper {key}", "try the other --source, or another paper"
                ) from None
            if result.resumed and result.pages == 0 and status is not None and 400 <= status < 500:
                params, result.resumed, result.restarted = dict(first), False, True
                continue  # the saved token is no longer accepted: walk again from the start
            raise
        try:
            page = parse(body)
        except LitsiftError as err:
            page_title = html_title(body[:65536].decode("utf-8", "replace"))
            if page_title is not None:  # a proxy's or a login page where the API should be
                raise TrailError(
                    f"{_NAMES[source]} answered with a web page, not its API's JSON "
                    f"(“{page_title}”)",
                    f"check base_url under [sources.{source}] in config.toml, and that no "
                    "proxy or network login page stands in the way",
                ) from None
            raise TrailError(
                f"{_NAMES[source]} sent a response litsift cannot read: {err.message}",
                "try again later; if it persists, the service changed its format",
            ) from None
        if page.error and not (source == "s2" and "no paper objects" in page.error):
            raise TrailError(f"{source} said: {page.error}"[:400], "check the paper's ids")
        result.pages += 1
        result.withheld = page.withheld or result.withheld
        records = [i for i in page.items if isinstance(i, SourceRecord)]
        bad = [i for i in page.items if isinstance(i, BadItem)]
        sink(records, bad, result.pages)
        result.records += len(records)
        if page.total is not None:
            result.total = page.total
        more = bool(page.next and page.items) and page.next not in seen
        if checkpoint is not None:
            checkpoint(page.next if more else None)
        if not more:
            result.complete = True
            break
        if max_pages and result.pages >= max_pages:
            break
        assert page.next is not None
        seen.add(page.next)
        params = _next(source, first, page.next)
    return result


def describe(result: TrailResult) -> dict[str, Any]:
    """``result`` as JSON-ready fields."""
    return {
        "pages": result.pages,
        "records": result.records,
        "total": result.total,
        "resumed": result.resumed,
        "restarted": result.restarted,
        "complete": result.complete,
        "withheld": result.withheld,
    }
