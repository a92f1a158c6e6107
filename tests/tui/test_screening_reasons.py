"""Issue 44: keys 1-9 exclude with the review's reason of that number, under the reviewer's
name and at the stage the screen was opened on (a real review, real SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from litsift.service.facade import LitsiftService
from litsift.store.review_stages import stage_rows
from litsift.tui.app import create_screening_app
from litsift.tui.screens.modals import PromptScreen
from tests.tui.conftest import burst
from tests.tui.test_screening_screen import SIZE, donners_review, wait_idle

REASONS = ["wrong population", "wrong intervention", "wrong design"]


@pytest.fixture
def review_service(tmp_path: Path) -> Iterator[LitsiftService]:
    with donners_review(tmp_path, reasons=REASONS) as svc:
        yield svc


async def test_number_keys_exclude_with_a_reason(review_service: LitsiftService) -> None:
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False, reviewer="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        session = screen.session
        assert session is not None and session.reviewer == "alice"
        bar = str(screen.query_one("#screening-criteria", Static).render())
        keys = str(screen.query_one("#screening-reasons", Static).render())  # a line of its own
        assert "1 wrong population" in keys and "3 wrong design" in keys and "alice" in bar
        first = session.current_paper()
        assert first is not None
        await pilot.press("3")
        screen = await wait_idle(pilot)
        second = session.current_paper()
        assert second is not None and second.id != first.id
        await pilot.press("9")  # no reason 9: nothing is decided
        await wait_idle(pilot)
        assert session.current_paper() == second
        await pilot.press("1")
        await wait_idle(pilot)
    mine = [r for r in stage_rows(svc.store, "donners") if r.source == "user"]
    assert [(r.doc_id, r.decision, r.reason, r.reviewer, r.decided_at[:0]) for r in mine] == [
        (first.id, "exclude", "wrong design", "alice", ""),
        (second.id, "exclude", "wrong population", "alice", ""),
    ]
    assert svc.reviews.prisma("donners").reasons["wrong design"] == 1


async def test_a_burst_of_decisions_reasons_and_a_note_lands_in_typing_order(
    review_service: LitsiftService,
) -> None:
    """Keys typed as one burst, as a terminal delivers a fast reviewer's keys: ``x2`` excludes
    the record on screen without a reason and the next with reason 2 (the digits ran ahead of
    the letters typed before them: the reason landed on the first record); ``n`` then a note,
    Enter and ``i``: the note goes in the note and ``i`` includes that record (the note's
    letters were lost, or ran as decisions)."""
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False, reviewer="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        session = screen.session
        assert session is not None
        first = session.current_paper()
        assert first is not None
        await burst(app, "x", "2")
        for _ in range(3):  # each decision retrains; wait until both have landed
            screen = await wait_idle(pilot)
        third = session.current_paper()
        assert third is not None
        await burst(app, "n", "fast note x", "enter", "i")
        for _ in range(3):
            screen = await wait_idle(pilot)
        assert session.note_of(third.id) == "fast note x"
    mine = [r for r in stage_rows(svc.store, "donners") if r.source == "user"]
    assert [(r.decision, r.reason) for r in mine] == [
        ("exclude", ""),
        ("exclude", "wrong intervention"),
        ("include", ""),
    ]
    assert mine[0].doc_id == first.id and mine[2].doc_id == third.id


async def test_the_command_palette_on_the_screening_screen_offers_its_own_keys(
    review_service: LitsiftService,
) -> None:
    """Ctrl+P on the screening screen lists the screening keys and runs them; it listed the
    search screen's commands, which crashed the app there (no results table)."""
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False, reviewer="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        titles = {c.title for c in app.get_system_commands(screen)}
        assert {"Include", "Exclude", "Maybe", "Undo", "Note", "Help"} <= titles
        assert not titles & {"Keep", "Discard", "Papers", "Citations"}
        first = screen.session.current_paper() if screen.session else None
        assert first is not None
        await pilot.press("ctrl+p")
        await pilot.press(*"Exclude")
        await pilot.pause(0.5)  # the palette searches its providers asynchronously
        await pilot.press("enter")
        await wait_idle(pilot)
    mine = [r for r in stage_rows(svc.store, "donners") if r.source == "user"]
    assert [(r.doc_id, r.decision) for r in mine] == [(first.id, "exclude")]


async def test_ctrl_q_quits_from_the_note_dialog(review_service: LitsiftService) -> None:
    """The note dialog's footer says "^q Quit": ^q quits from there (app bindings are not
    active in a dialog unless they are priority bindings; it did nothing)."""
    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("n")
        for _ in range(50):
            await pilot.pause(0.02)
            if isinstance(app.screen, PromptScreen) and app.focused is not None:
                break
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("q")  # text in the note, not quit
        await pilot.pause()
        assert app.return_code is None
        await pilot.press("ctrl+q")  # the note typed is not saved: the first ^q says so
        await pilot.pause()
        assert app.return_code is None
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.return_code == 0
