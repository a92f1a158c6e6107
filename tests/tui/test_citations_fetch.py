"""The citations screen's ``F`` while the walk waits on the network: a real 127.0.0.1 server
replaying recorded OpenAlex pages holds the citing-works page until the test lets it go.

Before, the whole fetch ran under the search screen's service lock: every search typed
meanwhile showed "searching…" until the last page of the walk had come (minutes for a
much-cited paper at OpenAlex's one request a second, or behind a Retry-After), and the status
line said "fetching the citation trail…" with no progress."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from litsift.service.facade import LitsiftService
from litsift.store import citations
from litsift.tui.app import create_app
from litsift.tui.screens.citations import CitationsScreen
from tests.tui.conftest import search, settle
from tests.tui.test_citations import CITES, GLOVE, JSON, LAST, glove_home, until_idle
from tests.unit.sources.recorded_server import RecordedServer

ASKED, RELEASE = threading.Event(), threading.Event()


@pytest.fixture
def server() -> Iterator[RecordedServer]:
    """The citing works' first page waits for RELEASE (ASKED says it was asked for)."""
    ASKED.clear()
    RELEASE.clear()

    def route(path: str, query: dict[str, str]):  # type: ignore[no-untyped-def]
        if query["filter"].startswith("cites:") and query["cursor"] == "*":
            ASKED.set()
            RELEASE.wait(60)
            return 200, JSON, CITES.read_bytes()
        return 200, JSON, LAST.read_bytes()

    with RecordedServer(route) as srv:
        try:
            yield srv
        finally:
            RELEASE.set()


@pytest.fixture
def service(tmp_path: Path, encoder: Any, server: RecordedServer) -> Iterator[LitsiftService]:
    with glove_home(tmp_path, encoder, server.url) as svc:
        yield svc


async def glove_citations(app: Any, pilot: Any) -> CitationsScreen:
    """GloVe found and its citations screen (``C``) loaded."""
    await search(pilot, "GloVe global vectors for word representation")
    await pilot.press("C")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, CitationsScreen)
    await until_idle(pilot, screen)
    return screen


async def test_a_fetch_waiting_on_the_network_leaves_the_service_free(
    service: LitsiftService,
) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await glove_citations(app, pilot)
        before = len(screen.neighbours.cited_by) if screen.neighbours else -1
        await pilot.press("F")
        for _ in range(3000):  # until the walk waits on the server (not a time limit)
            if ASKED.is_set():
                break
            await pilot.pause(0.01)
        assert ASKED.is_set()
        # the references walk is written; the citing works' page is on its way: a search
        # (which takes the service lock) is not kept waiting
        free = service.calls_lock.acquire(blocking=False)
        if free:
            service.calls_lock.release()
        status = str(screen.query_one("#cite-status", Static).visual)
        RELEASE.set()
        assert free, "the fetch held the service lock while it waited on the network"
        assert "fetching the trail… references: 0 so far" in status
        await until_idle(pilot, screen)
        await until_idle(pilot, screen)  # the reload after the fetch
        assert screen.neighbours is not None
        assert len(screen.neighbours.cited_by) == before + 5
        assert len(citations.cited_by(service.store._conn, GLOVE)) == before + 5


async def test_f_on_a_trail_fetched_before_says_so_and_f_again_walks_it_anew(
    service: LitsiftService, server: RecordedServer
) -> None:
    """Once both walks were stored, ``F`` said "fetched: 0 new citation links" (at once
    replaced by the counts) and could do no more: new citing works were out of reach from the
    app. Now it says the trail is stored, and ``F`` again walks it anew."""
    RELEASE.set()  # the pages come at once here
    app = create_app(service, show_timings=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await glove_citations(app, pilot)

        def status() -> str:
            return str(screen.query_one("#cite-status", Static).visual)

        async def press_f() -> None:
            await pilot.press("F")
            await until_idle(pilot, screen)
            await until_idle(pilot, screen)  # the reload after the fetch
            await settle(pilot)

        await press_f()
        first = status()
        assert first.startswith("fetched: ") and not first.startswith("fetched: 0 "), first
        asked = len(server.requests)
        await press_f()
        assert len(server.requests) == asked  # stored: nothing asked
        assert "fetched before and is stored" in status() and "F again" in status(), status()
        await press_f()
        assert len(server.requests) > asked  # walked anew
        assert "fetched: 0 new citation links" in status(), status()
