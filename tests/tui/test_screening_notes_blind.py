"""Blind screening in one home: bob's screening screen showed alice's note on the record
("exclude: wrong population") and opened it in his note editor, leaking her judgement. Now
each reviewer's screen shows and edits their own note only (a real review, real SQLite)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_screening_app
from litsift.tui.screens.modals import PromptScreen
from tests.tui.test_screening_screen import SIZE, donners_review, wait_idle

HERS = "exclude: wrong population"


@pytest.fixture
def review_service(tmp_path: Path) -> Iterator[LitsiftService]:
    with donners_review(tmp_path) as svc:
        alice = svc.reviews.open("donners", reviewer="alice")
        for paper in alice.papers:  # alice noted every record
            alice.set_note(HERS, paper.id)
        yield svc


def _shown(screen: Any) -> str:
    return str(screen.query_one("#screening-record", Static).render())


async def _note(app: Any, pilot: Any) -> Input:
    await pilot.press("n")
    for _ in range(100):
        await pilot.pause(0.02)
        if isinstance(app.screen, PromptScreen):
            break
    assert isinstance(app.screen, PromptScreen)
    return app.screen.query_one("#prompt-input", Input)


async def test_bob_sees_and_edits_his_own_note_not_alices(
    review_service: LitsiftService,
) -> None:
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False, reviewer="bob")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        assert screen.session is not None
        paper = screen.session.current_paper()
        assert paper is not None
        assert HERS not in _shown(screen) and "note:" not in _shown(screen)
        editor = await _note(app, pilot)
        assert editor.value == ""  # her note is not his to edit
        editor.value = "check the dose"
        await pilot.press("enter")
        screen = await wait_idle(pilot)
        assert "check the dose" in _shown(screen) and HERS not in _shown(screen)
    assert svc.reviews.open("donners", reviewer="bob").note_of(paper.id) == "check the dose"
    assert svc.reviews.open("donners", reviewer="alice").note_of(paper.id) == HERS

    app = create_screening_app(svc, "donners", dense=False, reviewer="alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        assert HERS in _shown(screen) and "check the dose" not in _shown(screen)


async def test_a_saved_note_is_seen_without_scrolling_past_the_abstract(tmp_path: Path) -> None:
    """At 100x30 the note was drawn after the abstract, below the fold of a record with a long
    abstract: saving it changed nothing on screen. It stands under the title (as the LLM's
    verdict does), read back from the screen as drawn."""
    with donners_review(tmp_path) as svc:
        app = create_screening_app(svc, "donners", dense=False, reviewer="alice")
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await wait_idle(pilot)
            assert screen.session is not None
            paper = screen.session.current_paper()
            assert paper is not None and len(paper.abstract.split()) > 150  # past the fold
            editor = await _note(app, pilot)
            editor.value = "dose-finding cohort, check arm sizes"
            await pilot.press("enter")
            screen = await wait_idle(pilot)
            drawn = html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot()))
            assert "note: dose-finding cohort, check arm sizes" in drawn.replace("\xa0", " ")
