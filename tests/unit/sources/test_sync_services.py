"""``run_sync`` for OpenAlex (cursor), Crossref (cursor) and Semantic Scholar (bulk token)
against a real 127.0.0.1 server replaying their recorded pages in order, a 429, a dropped
connection mid-walk (resumed at the saved cursor) and an expired cursor (HTTP 400: restart)."""

from __future__ import annotations

import pytest

from litsift.errors import LitsiftError
from litsift.paths import shared_data_dir
from litsift.sources.online.http import PoliteClient
from litsift.sources.online.sync import run_sync
from litsift.types import SyncSpec
from tests.unit.sources.recorded_server import RecordedServer

SRC = shared_data_dir() / "sources"
JSON = {"Content-Type": "application/json"}
#: the last answer of a walk when the recordings stop before it: the services' own end
#: markers (Crossref: an empty ``items`` page; S2 bulk search: no ``token``)
END = {
    "crossref": b'{"status":"ok","message-type":"work-list",'
    b'"message":{"items":[],"total-results":60}}',
    "s2": b'{"total": 2000, "data": []}',
}
CHAINS = {  # source -> (params, the recorded pages in walk order, records per sink call)
    "openalex": (
        {"filter": "doi:10.1/x"},
        [
            "openalex/api/works_filter-doi-list_per-page-200_cursor-page1.json",
            "openalex/api/works_filter-doi-list_per-page-200_cursor-page2-last.json",
        ],
        [50, 0],  # the last page is empty with next_cursor null
    ),
    "crossref": (
        {"query": "widget"},
        [f"crossref/works_query-widget_cursor-page{n}.json" for n in (1, 2, 3)],
        [20, 20, 20, 0],
    ),
    "s2": (
        {"query": "kubernetes"},
        [
            "semantic-scholar/graph-api/paper-search-bulk_kubernetes_page1.json",
            "semantic-scholar/graph-api/paper-search-bulk_kubernetes_page2-token.json",
        ],
        [1000, 1000, 0],
    ),
}


@pytest.mark.parametrize("source", sorted(CHAINS))
def test_walks_every_recorded_page_then_stops(source: str) -> None:
    params, files, per_page = CHAINS[source]
    bodies = [(SRC / f).read_bytes() for f in files]
    state = {"n": 0, "throttled": False}

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if not state["throttled"]:  # the first request is told to slow down
            state["throttled"] = True
            return 429, {"Retry-After": "2"}, b'{"message": "Too Many Requests"}'
        n = state["n"]
        state["n"] += 1
        body = bodies[n] if n < len(bodies) else END.get(source, bodies[-1])
        return 200, JSON, body

    got: list[int] = []
    client = PoliteClient(delay_s=0, timeout_s=5, max_retries=2, sleep=lambda s: None)
    with RecordedServer(route) as server:
        result = run_sync(
            SyncSpec("t", source, params),
            server.url,
            client,
            lambda recs, bad, page: got.append(len(recs)),
            mailto="t@example.org",
            api_key="k",
        )
        queries = [q for _, q in server.requests]
        paths = {p for p, _ in server.requests}
    assert client.waits[0] == 2.0  # Retry-After of the 429
    assert got == per_page
    if source == "openalex":
        assert paths == {"/works"} and queries[1]["cursor"] == "*" and queries[1]["mailto"]
        assert queries[2]["cursor"]  # page 1's next_cursor
    if source == "crossref":
        assert len(queries) == 5 and queries[2]["cursor"] != "*"
    if source == "s2":
        assert paths == {"/graph/v1/paper/search/bulk"} and "token" in queries[2]
    assert result.pages == len(got)


#: the paging parameter each service's next page is asked for with
TOKEN_PARAM = {"openalex": "cursor", "crossref": "cursor", "s2": "token"}


@pytest.mark.parametrize("source", sorted(CHAINS))
def test_an_interrupted_cursor_walk_resumes_and_a_stale_cursor_restarts(source: str) -> None:
    """The cursor services as the OAI one: the cursor after each written page is handed to
    ``checkpoint``; a walk started from it asks for that cursor and fetches only the pages not
    yet written; a cursor the service refuses (HTTP 400) starts the walk again from page 1."""
    params, files, per_page = CHAINS[source]
    bodies = [(SRC / f).read_bytes() for f in files]
    key = TOKEN_PARAM[source]
    state = {"n": 0, "drop": True, "stale": ""}

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        asked = query.get(key)
        first = asked in (None, "*")
        if not first and state["drop"]:
            return "drop"  # the network goes away after page 1
        if asked == state["stale"]:
            return 400, JSON, b'{"error": "invalid cursor", "message": "cursor expired"}'
        n = 0 if first else max(state["n"], 1)
        state["n"] = n + 1
        return 200, JSON, bodies[n] if n < len(bodies) else END.get(source, bodies[-1])

    def client() -> PoliteClient:
        return PoliteClient(delay_s=0, timeout_s=5, max_retries=1, sleep=lambda s: None)

    marks: list[tuple[str | None, str | None]] = []
    got: list[int] = []
    spec = SyncSpec("t", source, params)
    with RecordedServer(route) as server:
        with pytest.raises(LitsiftError):
            run_sync(
                spec,
                server.url,
                client(),
                lambda recs, bad, page: got.append(len(recs)),
                checkpoint=lambda t, hw: marks.append((t, hw)),
            )
        assert got == per_page[:1] and len(marks) == 1
        token = marks[0][0]
        assert token and token != "*"
        # the next run starts at the saved cursor and writes only the pages after page 1
        state["drop"] = False
        spec.resume_token, spec.resume_high_water = marks[0]
        n = len(server.requests)
        result = run_sync(
            spec,
            server.url,
            client(),
            lambda recs, bad, page: got.append(len(recs)),
            checkpoint=lambda t, hw: marks.append((t, hw)),
        )
        assert server.requests[n][1][key] == token
        assert result.resumed and got == per_page and marks[-1][0] is None
        # a cursor the service no longer knows: the whole walk again, from page 1
        state["stale"] = spec.resume_token = "expired-cursor"
        n = len(server.requests)
        again: list[int] = []
        redo = run_sync(spec, server.url, client(), lambda recs, bad, page: again.append(len(recs)))
        assert server.requests[n][1][key] == "expired-cursor"
        assert server.requests[n + 1][1].get(key) in (None, "*")
        assert not redo.resumed and again == per_page
