"""The screening screen with a second terminal on the same review and reviewer (another
session on the same home's store; the Donners 2021 set, real SQLite): a key on a record the
other terminal decided since is not written over it, the screen loads that decision, shows the
next record and says so once; ``u`` takes back the screen's own last decision."""

from __future__ import annotations

import pytest

from litsift.service.facade import LitsiftService
from litsift.store.reviews import current_decisions
from litsift.tui.app import create_screening_app
from litsift.tui.screens.screening import ScreeningScreen
from tests.tui import test_screening_round2 as round2
from tests.tui.test_screening_screen import SIZE, wait_idle

#: the Donners review with criteria, a keyword and two priors (test_screening_screen's)
review_service = round2.review_service
line, wait_for = round2.line, round2.wait_for
opened, other_terminal = round2.opened, round2.other_terminal


async def test_a_key_on_a_record_decided_in_the_other_terminal_loads_that_decision(
    review_service: LitsiftService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within the two seconds between the screen's looks at the store, a key on the record
    both terminals opened on wrote a second decision over the other terminal's, silently."""
    monkeypatch.setattr(ScreeningScreen, "SYNC_S", 3600.0)  # no look at the store on its own
    monkeypatch.setattr(ScreeningScreen, "SWAP_GRACE_S", 0.0)  # keys at once (test below)
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        screen, session, first = await opened(pilot)
        with LitsiftService(svc.paths) as other_svc:
            other = other_terminal(other_svc)
            assert other.current_paper() == first  # one order: the same record first
            other.decide("exclude", "wrong population")
            await pilot.press("i")
            screen = await wait_for(pilot, "1 decision made elsewhere was loaded")
            assert "the record on screen was decided there, so the next one is shown" in line(
                screen
            )
            users = [(d, v) for d, v, s in current_decisions(svc.store, "donners") if s == "user"]
            assert users == [(first.id, "exclude")]
            assert session.decisions[session.row_of[first.id]] == "exclude"
            mine = session.current_paper()
            assert mine is not None and mine != first
            assert mine.title[:30] in line(screen, "#screening-record")
            await pilot.press("x")
            screen = await wait_idle(pilot)
            assert "elsewhere" not in line(screen)  # told once
            # the other terminal decides its next record; u here takes back this one's own
            assert other.sync() == (1, 0)
            theirs = other.current_paper()
            assert theirs is not None and theirs.id not in (first.id, mine.id)
            other.decide("include")
            await pilot.press("u")
            screen = await wait_idle(pilot)
            assert session.current_paper() == mine
            assert mine.title[:30] in line(screen, "#screening-record")
            stored = [d for d, _, s in current_decisions(svc.store, "donners") if s == "user"]
            assert stored == [first.id, theirs.id]


async def test_a_key_never_decides_a_record_that_is_not_on_screen_yet(
    review_service: LitsiftService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look at the store (its worker) can move the session past a record decided elsewhere
    a moment before the screen redraws: a key in between decided the next record, which the
    reviewer had not seen. The key now shows that record and decides nothing."""
    monkeypatch.setattr(ScreeningScreen, "SYNC_S", 3600.0)
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        screen, session, first = await opened(pilot)
        with LitsiftService(svc.paths) as other_svc:
            other_terminal(other_svc).decide("exclude")
        assert session.sync()[0] == 1  # as the worker does, before the screen is told
        unseen = session.current_paper()
        assert unseen is not None and unseen != first
        assert first.title[:30] in line(screen, "#screening-record")  # still on screen
        await pilot.press("i")
        screen = await wait_idle(pilot)
        users = [(d, v) for d, v, s in current_decisions(svc.store, "donners") if s == "user"]
        assert users == [(first.id, "exclude")]  # the unseen record was not included
        assert unseen.title[:30] in line(screen, "#screening-record")  # now it is shown
        await pilot.press("i")
        screen = await wait_idle(pilot)
        users = [(d, v) for d, v, s in current_decisions(svc.store, "donners") if s == "user"]
        assert users == [(first.id, "exclude"), (unseen.id, "include")]


async def test_a_key_just_after_the_other_terminal_swapped_the_record_decides_nothing(
    review_service: LitsiftService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record on screen is replaced because the other terminal decided it; a key pressed
    in the same moment was meant for the record that was there, so within SWAP_GRACE_S it
    decides nothing and says so; after it, keys decide the record now on screen."""
    monkeypatch.setattr(ScreeningScreen, "SYNC_S", 3600.0)
    monkeypatch.setattr(ScreeningScreen, "SWAP_GRACE_S", 3600.0)
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        _screen, session, first = await opened(pilot)
        with LitsiftService(svc.paths) as other_svc:
            other_terminal(other_svc).decide("include")
        await pilot.press("x")  # on the record the other terminal decided: loads it, swaps
        await wait_for(pilot, "the record on screen was decided there")
        shown = session.current_paper()
        assert shown is not None and shown != first
        await pilot.press("x")  # typed at the record that was there a moment ago
        await wait_idle(pilot)
        users = [(d, v) for d, v, s in current_decisions(svc.store, "donners") if s == "user"]
        assert users == [(first.id, "include")]
        assert session.current_paper() == shown
        said = [n.message for n in app._notifications]
        assert any("nothing decided" in m for m in said), said
        monkeypatch.setattr(ScreeningScreen, "SWAP_GRACE_S", 0.0)
        await pilot.press("x")
        await wait_idle(pilot)
        users = [(d, v) for d, v, s in current_decisions(svc.store, "donners") if s == "user"]
        assert users == [(first.id, "include"), (shown.id, "exclude")]
