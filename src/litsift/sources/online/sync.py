"""``litsift sync``: fetch new papers from online sources, page by page, and remember how far
each saved sync got (its high-water mark), so the next run asks only for what is new.

Sources (base URLs in ``[sources.NAME]``, :data:`litsift.config.SOURCE_BASE_URLS`):

* ``arxiv-oai`` -- OAI-PMH ``ListRecords`` (``set``, ``from``, ``metadataPrefix`` arXiv);
  paging by ``resumptionToken``; high water = newest record datestamp, sent as ``from`` next
  time (OAI-PMH 2.0 selective harvesting). A token the server no longer knows
  (``badResumptionToken``) restarts the walk from the high-water mark.
* ``arxiv-api`` -- the arXiv API (``search_query``), newest updated first, ``start`` paging;
  stops at the first page whose newest entry is older than the high water.
* ``openalex`` -- ``/works`` with ``search`` / ``filter``, ``cursor`` paging, ``mailto`` for
  the polite pool; high water = newest ``updated_date``, sent as ``from_updated_date``.
* ``crossref`` -- ``/works`` with ``query``, ``cursor`` paging, ``mailto``; high water = newest
  ``indexed`` date, sent as ``from-index-date``.
* ``s2`` -- Semantic Scholar bulk search ``/graph/v1/paper/search/bulk`` with ``token`` paging
  and the API key from the environment variable named in config (``x-api-key``); no
  server-side "since" filter exists, so every run walks the query and the store's matcher
  turns known papers into ``unchanged``.

Each page's records go to ``sink(records, bad, page_no)`` as soon as it is parsed (the caller
writes them: a sync stopped midway keeps every page it wrote); then ``checkpoint(token, high
water)`` receives the token of the next page, which the service saves with the sync
(``saved_syncs.resume_token``). A sync interrupted midway (network gone, Ctrl-C, ``--max-pages``)
therefore resumes at the first page it did not write instead of walking the query again; a
token the server no longer accepts restarts the walk from the high-water mark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from litsift.errors import LitsiftError
from litsift.sources.base import BadItem, Page, SourceRecord
from litsift.sources.online.http import FetchError, PoliteClient
from litsift.store.syncs import SyncSpec

__all__ = [
    "SOURCES",
    "SyncResult",
    "SyncSpec",
    "run_sync",
]

Sink = Callable[[list[SourceRecord], list[BadItem], int], None]
Parser = Callable[[bytes], Page]


class SyncError(LitsiftError):
    """A sync cannot run (unknown source, missing parameter, a service error)."""


@dataclass
class SyncResult:
    """One run: pages fetched, records and bad items handed to the sink, the new high water."""

    pages: int = 0
    records: int = 0
    bad: int = 0
    high_water: str | None = None
    stopped_early: bool = False
    #: the walk continued an interrupted one from its saved token
    resumed: bool = False


def _parser(source: str) -> Parser:
    if source == "arxiv-oai":
        from litsift.sources.formats.arxiv import parse_oai_page

        return parse_oai_page
    if source == "arxiv-api":
        from litsift.sources.formats.arxiv import parse_atom_page

        return parse_atom_page
    if source == "openalex":
        from litsift.sources.formats.openalex import parse_page as openalex_page

        return openalex_page
    if source == "crossref":
        from litsift.sources.formats.crossref import parse_page as crossref_page

        return crossref_page
    if source == "s2":
        from litsift.sources.formats.s2 import parse_page as s2_page

        return s2_page
    raise SyncError(f"unknown source {source!r}", f"use one of: {', '.join(SOURCES)}")


#: source -> (path below base_url, required params)
SOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "arxiv-oai": ("", ()),
    "arxiv-api": ("", ("search_query",)),
    "openalex": ("/works", ()),
    "crossref": ("/works", ("query",)),
    "s2": ("/graph/v1/paper/search/bulk", ("query",)),
}

S2_FIELDS = "title,abstract,authors,year,venue,externalIds,url,publicationDate"


def _first_params(spec: SyncSpec, mailto: str) -> dict[str, str]:
    p, hw = spec.params, spec.high_water
    if spec.source == "arxiv-oai":
        out = {"verb": "ListRecords", "metadataPrefix": p.get("metadataPrefix", "arXiv")}
        if p.get("set"):
            out["set"] = p["set"]
        since = hw[:10] if hw else p.get("from")
        if since:
            out["from"] = since
        if p.get("until"):
            out["until"] = p["until"]
        return out
    if spec.source == "arxiv-api":
        return {
            "search_query": p["search_query"],
            "start": "0",
            "max_results": p.get("max_results", "100"),
            "sortBy": "lastUpdatedDate",
            "sortOrder": "descending",
        }
    if spec.source == "openalex":
        filters = [f for f in (p.get("filter", ""),) if f]
        if hw:
            filters.append(f"from_updated_date:{hw[:10]}")
        out = {"per-page": p.get("per_page", "200"), "cursor": "*"}
        if p.get("search"):
            out["search"] = p["search"]
        if filters:
            out["filter"] = ",".join(filters)
        if mailto:
            out["mailto"] = mailto
        return out
    if spec.source == "crossref":
        out = {"query": p["query"], "rows": p.get("rows", "100"), "cursor": "*"}
        if hw:
            out["filter"] = f"from-index-date:{hw[:10]}"
        if mailto:
            out["mailto"] = mailto
        return out
    return {"query": p["query"], "fields": S2_FIELDS}


def _next_params(spec: SyncSpec, first: dict[str, str], token: str) -> dict[str, str]:
    if spec.source == "arxiv-oai":
        return {"verb": "ListRecords", "resumptionToken": token}
    if spec.source == "arxiv-api":
        return {**first, "start": token}
    if spec.source == "s2":
        return {**first, "token": token}
    return {**first, "cursor": token}


def run_sync(
    spec: SyncSpec,
    base_url: str,
    client: PoliteClient,
    sink: Sink,
    *,
    mailto: str = "",
    api_key: str | None = None,
    max_pages: int | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    checkpoint: Callable[[str | None, str | None], None] | None = None,
) -> SyncResult:
    """Walk ``spec``'s query to its end (or ``max_pages``), feeding every page to ``sink``.

    Args:
        spec: what to fetch; ``spec.high_water`` (from the last run) limits it to what is new.
        base_url: the source's base URL (``[sources.NAME] base_url`` or the public one).
        client: the polite HTTP client.
        sink: ``sink(records, bad, page_no)`` after each page.
        mailto: contact address for OpenAlex / Crossref polite pools.
        api_key: Semantic Scholar API key (``x-api-key``).
        max_pages: stop after this many pages (a partial walk: ``checkpoint`` keeps the token
            of the next page, so the service's next run goes on from there).
        progress: ``progress(records so far, total or None)`` after each page.
        checkpoint: ``checkpoint(token, high water so far)`` after each page has gone to
            ``sink``: the token to continue from, or None when the walk is over (its end, the
            high water reached, a repeated token); after ``max_pages`` the last token stays.
            With ``spec.resume_token`` set, the walk starts at that token (with
            ``spec.resume_high_water`` as the high water so far); if the server rejects it, the
            walk starts again from the beginning.

    Returns:
        The :class:`SyncResult`; ``high_water`` is what the next run should start from.

    Raises:
        SyncError: unknown source, a missing parameter, or an error the service reported.
        FetchError: the service could not be reached (after the client's retries).
    """
    path, required = SOURCES.get(spec.source, ("", None))
    if required is None:
        raise SyncError(f"unknown source {spec.source!r}", f"use one of: {', '.join(SOURCES)}")
    missing = [r for r in required if not spec.params.get(r)]
    if missing:
        raise SyncError(f"sync {spec.name!r} needs {', '.join(missing)}", "see litsift sync --help")
    parse = _parser(spec.source)
    url = base_url.rstrip("/") + path if path else base_url
    headers = {"x-api-key": api_key} if api_key and spec.source == "s2" else None
    first = _first_params(spec, mailto)
    params: dict[str, Any] = dict(first)
    result = SyncResult(high_water=spec.high_water)
    restarted = False
    seen_tokens: set[str] = set()
    if spec.resume_token:
        params = _next_params(spec, first, spec.resume_token)
        result.resumed = True
        seen_tokens.add(spec.resume_token)
        if spec.resume_high_water and (
            result.high_water is None or spec.resume_high_water > result.high_water
        ):
            result.high_water = spec.resume_high_water
    while True:
        try:
            body = client.get(url, params=params, headers=headers)
        except FetchError as err:
            # a cursor the server has forgotten is an HTTP 4xx: walk again from the start
            if result.resumed and result.pages == 0 and not restarted and _client_error(err):
                restarted, params = True, dict(first)
                result.resumed, result.high_water = False, spec.high_water
                continue
            raise
        try:
            page = parse(body)
        except LitsiftError as err:
            raise SyncError(
                f"{spec.source} sent a response litsift cannot read: {err.message}",
                "try again later; if it persists, the service changed its format",
            ) from None
        if page.error:
            if "badResumptionToken" in page.error and not restarted:
                restarted, params = True, dict(first)  # the walk starts again from the high water
                result.resumed, result.high_water = False, spec.high_water
                continue
            raise SyncError(
                f"{spec.source} said: {page.error}"[:400], "check the sync's parameters"
            )
        result.pages += 1
        records = [i for i in page.items if isinstance(i, SourceRecord)]
        bad = [i for i in page.items if isinstance(i, BadItem)]
        if spec.source == "arxiv-api" and spec.high_water:
            new = [r for r in records if r.source_key]  # entries are newest first
            if page.high_water is not None and page.high_water <= spec.high_water:
                result.stopped_early = True
                if checkpoint is not None:
                    checkpoint(None, result.high_water)
                break
            records = new
        sink(records, bad, result.pages)
        result.records += len(records)
        result.bad += len(bad)
        if page.high_water and (result.high_water is None or page.high_water > result.high_water):
            result.high_water = page.high_water
        if progress is not None:
            progress(result.records, page.total)
        more = bool(page.next and page.items)
        # a server handing out the same token again would loop forever: stop (Crossref is the
        # exception: its deep-paging cursor stays the same string; its walk ends on no items)
        looping = more and spec.source != "crossref" and page.next in seen_tokens
        if checkpoint is not None:
            checkpoint(page.next if more and not looping else None, result.high_water)
        if not more or (max_pages and result.pages >= max_pages):
            result.stopped_early = more
            break
        if looping or page.next is None:
            result.stopped_early = True
            break
        seen_tokens.add(page.next)
        params = _next_params(spec, first, page.next)
    return result


def _client_error(err: FetchError) -> bool:
    """True when the server answered with an HTTP 4xx (it refused the request itself)."""
    return err.status is not None and 400 <= err.status < 500


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


__all__ += ["FetchError", "SyncError", "now_utc"]
