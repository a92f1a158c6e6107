"""Garbage collection stays out of the frame that paints a new result set (issue 29 item 5):
a full collection walks every object of the process (100-190 ms on the DataFinder eval home,
the tail of keystroke -> painted results). Collection is off from the search request to the
painted rows and on again after them; what the app started with is frozen while it runs and
unfrozen when it closes. Pilot tests over the real session store (2,000 papers), read-only."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from litsift.tui import collector
from litsift.tui.app import create_app
from litsift.types import Kind
from tests.tui.conftest import search, settle

SIZE = (120, 40)


async def test_no_collection_between_the_request_and_the_painted_rows(service: Any) -> None:
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        assert gc.get_freeze_count() > 0  # the objects the app started with are frozen
        screen, table = app.search_screen, app.search_screen.table(Kind.PAPER)
        frames: list[tuple[tuple[str, ...], bool]] = []  # (rows shown, collection on) per frame
        real = screen._compositor_refresh

        def frame() -> None:
            frames.append((tuple(h.docid for h in table.hits), gc.isenabled()))
            real()

        screen._compositor_refresh = frame  # type: ignore[method-assign]
        await search(pilot, "dialogue state tracking")
        new = tuple(h.docid for h in table.hits)
        assert new and (new, False) in frames  # the rows were painted with collection off
        assert gc.isenabled() and not screen.collector.held  # and it is on again after them
    assert gc.get_freeze_count() == 0 and gc.isenabled()  # closed: nothing left frozen


async def test_a_hold_ends_by_itself_or_with_the_app_and_leaves_collection_as_it_was(
    service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collector, "HOLD_LIMIT_S", 0.05)
    app = create_app(service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hold = app.search_screen.collector
        hold.hold()  # a request whose rows never come (a screen pushed over, a lost message)
        assert not gc.isenabled() and hold.held
        await pilot.pause(0.2)
        assert gc.isenabled() and not hold.held
        gc.disable()  # off already (Textual's scroll animations, the program): left off
        try:
            hold.hold()
            hold.release()
            assert not gc.isenabled()
        finally:
            gc.enable()
        hold.hold()  # the app closes before the rows come: collection is on again after it
        assert not gc.isenabled()
    assert gc.isenabled() and not hold.held
