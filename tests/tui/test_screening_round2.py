"""Screening round 2, on a real review set (Donners 2021, real SQLite): the includes-left
estimate claims a rate only once the reviewer's decisions show one, the progress line names
what the order really reads (keywords are not criteria), and a second session on the same
review (another terminal) is noticed: its decisions are loaded, not decided over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from litsift.paths import get_paths
from litsift.review.estimate import MIN_SCREENED
from litsift.review.learner import DEFAULT_ORDER
from litsift.service.facade import LitsiftService
from litsift.service.screening import ScreeningSession
from litsift.store.reviews import current_decisions
from litsift.tui.app import create_screening_app
from litsift.tui.screens.review_criteria import CriteriaScreen
from litsift.tui.screens.screening import ScreeningScreen
from litsift.types import Paper
from tests.tui import test_screening_screen as base
from tests.tui.test_screening_screen import DONNERS, SIZE, wait_idle

#: the Donners review with criteria, a keyword and two priors (test_screening_screen's)
review_service = base.review_service


def donners_ris(path: Path, n: int) -> Path:
    """The first ``n`` Donners records as an RIS file at ``path`` (title and abstract)."""
    import gzip
    import json

    with gzip.open(DONNERS, "rt", encoding="utf-8") as f:
        rows = [json.loads(next(f)) for _ in range(n)]
    path.write_text("".join(
        f"TY  - JOUR\nTI  - {r['title']}\nAB  - {r['abstract'] or ''}\nER  - \n\n" for r in rows
    ), encoding="utf-8")  # fmt: skip
    return path


def line(screen: ScreeningScreen, widget: str = "#screening-progress") -> str:
    return str(screen.query_one(widget, Static).render())


async def test_one_include_is_no_rate_of_includes(review_service: LitsiftService) -> None:
    """After one include the line read "~N includes left (from the rate of includes so far)":
    one record is no rate. It now says how many more records before the estimate, then gives
    it with what it rests on."""
    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        await pilot.press("i")
        screen = await wait_idle(pilot)
        shown = line(screen)
        assert "rate of includes" not in shown and "includes left (" not in shown, shown
        assert f"includes left: estimated after {MIN_SCREENED - 1} more screened" in shown
        assert screen.session is not None and screen.session.estimate is None
        for _ in range(MIN_SCREENED - 2):
            await pilot.press("x")
            await wait_idle(pilot)
        assert "estimated after 1 more screened" in line(screen)
        await pilot.press("x")
        screen = await wait_idle(pilot)
        shown = line(screen)
        assert screen.session.estimate is not None
        # a maybe counts toward the rate like an include, and the line says so
        assert f"includes left (from 1 of your {MIN_SCREENED} screened included or maybe)" in shown


async def test_a_review_with_keywords_only_is_not_ranked_by_criteria(tmp_path: Path) -> None:
    """A review with keywords and no criteria text: the order ranks by the keywords, and the
    line said "order: criteria" (before the first fit)."""
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.reviews.create("kw", [DONNERS], keywords=["emicizumab"], labels="none")
        svc.reviews.create("plain", [DONNERS], labels="none")
        for name, order in (("kw", "order: keywords"), ("plain", "order: import order")):
            app = create_screening_app(svc, name, dense=False)
            async with app.run_test(size=SIZE) as pilot:
                screen = await wait_idle(pilot)
                assert screen.session is not None and screen.session.model_name == order[7:]
                assert "criteria" not in line(screen), line(screen)
                assert order in line(screen)


async def test_the_default_order_names_keywords_as_keywords(tmp_path: Path, encoder: Any) -> None:
    """With the encoder's vectors the default order fits on the review's query as a column:
    "+ criteria" where the review has criteria text, "+ keywords" where it has only keywords."""
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        base.tele_review(svc)
        app = create_screening_app(svc, "tele")
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot)
            await pilot.press("i")
            await wait_idle(pilot)
            await pilot.press("x")
            screen = await wait_idle(pilot)
            assert screen.session is not None
            assert screen.session.model_name == f"{DEFAULT_ORDER} + keywords"
            assert f"order: {DEFAULT_ORDER} + keywords" in line(screen)


async def wait_for(pilot: Any, text: str, widget: str = "#screening-progress") -> ScreeningScreen:
    """Wait (the screen looks at the store every :attr:`ScreeningScreen.SYNC_S`) until
    ``text`` shows in ``widget``."""
    for _ in range(400):
        await pilot.pause(0.05)
        screen = pilot.app.screen
        if isinstance(screen, ScreeningScreen) and text in line(screen, widget):
            return await wait_idle(pilot)
    raise AssertionError(f"{text!r} never showed: {line(pilot.app.screen, widget)!r}")


async def opened(pilot: Any) -> tuple[ScreeningScreen, ScreeningSession, Paper]:
    """The screen once settled, its session and the record on screen."""
    screen = await wait_idle(pilot)
    session = screen.session
    assert session is not None
    paper = session.current_paper()
    assert paper is not None
    return screen, session, paper


def other_terminal(other_svc: LitsiftService) -> ScreeningSession:
    """The same review opened in another terminal (another connection to the home's store),
    its first record chosen: the same decisions, one order, so the same record first."""
    other = other_svc.reviews.open("donners")
    other.apply(other.retrain(), keep_current=False)
    return other


async def test_decisions_made_in_another_terminal_are_loaded_not_decided_again(
    review_service: LitsiftService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions on one review (two terminals: two connections to one home's store, the
    same reviewer). Each kept its own view: the second one's decisions never reached the
    first, which showed and decided the same records again. Now the screen sees them, moves
    past them, says so once, and its own decisions follow on."""
    monkeypatch.setattr(ScreeningScreen, "SWAP_GRACE_S", 0.0)  # keys at once after the swap
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        screen, session, on_screen = await opened(pilot)
        with LitsiftService(svc.paths) as other_svc:
            other = other_terminal(other_svc)
            first = other.current_paper()
            assert first is not None and first.id == on_screen.id
            elsewhere = []
            for decision in ("exclude", "include", "exclude"):
                paper = other.current_paper()
                assert paper is not None
                elsewhere.append(paper.id)
                other.decide(decision)
        screen = await wait_for(pilot, "3 decisions made elsewhere were loaded")
        assert "the record on screen was decided there" in line(screen)
        rows = {p.id: i for i, p in enumerate(session.papers)}
        assert all(rows[d] in session.decisions for d in elsewhere)
        assert [session.papers[r].id for r in session.user_rows] == elsewhere
        now = session.current_paper()
        assert now is not None and now.id not in elsewhere
        assert now.title[:30] in line(screen, "#screening-record")
        assert "screened 5 of 257 · included 2" in line(screen)
        await pilot.press("x")
        screen = await wait_idle(pilot)
        assert "elsewhere" not in line(screen)  # told once
        stored = [d for d, _, s in current_decisions(svc.store, "donners") if s == "user"]
        assert stored == [*elsewhere, now.id]
        mine = session.current_paper()
        assert mine is not None and mine.id not in stored
        # an undo elsewhere is seen too: its record has no decision here either
        with LitsiftService(svc.paths) as other_svc:
            undone = other_svc.reviews.open("donners").undo()
            assert undone is not None and undone.id == now.id
        screen = await wait_for(pilot, "1 decision taken back elsewhere")
        assert rows[now.id] not in session.decisions
        assert "screened 5 of 257" in line(screen)


#: criteria as reviewers write them: four PICO lines, about 650 characters
PICO = """Population: people with haemophilia A or B, children or adults, any severity.
Intervention: factor concentrates, extended half-life products or non-replacement therapy
(emicizumab, fitusiran, concizumab), any dose or schedule.
Outcomes: pharmacokinetic parameters (half-life, clearance, trough levels, exposure) measured in
patients; population PK models and dosing simulations count. Design: trials, cohorts, PK studies
and modelling reports with original patient data. Exclude reviews, commentaries, theses, book
chapters and conference abstracts without full data."""


async def test_review_screen_at_80x24_shows_the_record_under_long_criteria(
    review_service: LitsiftService,
) -> None:
    """`litsift review screen` (the screening screen as the app's default screen) loaded none
    of the screen's stylesheet: real criteria took 13 of 24 lines and the record one; then,
    capped, they cut the line of the reasons' keys. The note
    dialog was 90 columns wide (its right border and Cancel off screen), and a note once
    written could not be removed (an emptied note kept the dialog open)."""
    svc = review_service
    keywords = ["pharmacokinetics", "children", "tuberculosis", "rifampicin", "isoniazid"]
    svc.reviews.set_criteria("donners", PICO, keywords)
    reasons = ["not empirical", "wrong population", "wrong exposure", "wrong outcome", "review",
               "commentary", "thesis", "chapter", "abstract only"]  # fmt: skip
    svc.reviews.set_reasons("donners", reasons)
    app = create_screening_app(svc, "donners", dense=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, session, first = await opened(pilot)
        assert screen.query_one("#screening-criteria").region.height <= 3
        # the keywords come before the criteria: the 3 lines cut the question (shown whole by
        # `c`), not the keywords (after it, the last two were cut at 80 columns)
        from tests.tui.test_snapshot import screen_lines

        head = " ".join(screen_lines(app.export_screenshot())[:3])
        assert all(k in head for k in keywords), head
        # the reasons' keys have a line of their own: long criteria cut them off (a tester)
        keys = screen.query_one("#screening-reasons")
        assert "9 abstract only" in line(screen, "#screening-reasons")
        assert keys.region.height == 2 and keys.region.bottom <= 6
        box = screen.query_one("#screening-record-box")
        assert box.region.height >= 6
        assert box.styles.padding.left == 2  # the stylesheet's padding, not 0
        await pilot.press("n")
        await pilot.pause()
        dialog = app.screen.query_one(".modal-box")
        assert dialog.region.x >= 0 and dialog.region.right <= 80, dialog.region
        await pilot.press(*"wrong record", "enter")
        await wait_idle(pilot)
        assert session.note_of(first.id) == "wrong record"
        await pilot.press("n")
        await pilot.pause()
        field = app.screen.query_one("#prompt-input", Input)
        assert field.value == "wrong record"
        field.action_end()
        await pilot.press(*["backspace"] * len(field.value), "enter")  # emptied, saved
        await wait_idle(pilot)
        assert isinstance(app.screen, ScreeningScreen)  # the dialog closed
        assert session.note_of(first.id) == ""
        # the header cut the criteria at 3 lines, and no key showed the rest (a tester): `c`
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CriteriaScreen)
        assert " ".join(PICO.split()) in " ".join(dialog.text.split())
        assert "9  abstract only" in dialog.text
        box = dialog.query_one(".modal-box")
        assert box.region.x >= 0 and box.region.right <= 80, box.region
        scroll = dialog.query_one("VerticalScroll")  # longer than the screen: it scrolls
        assert box.region.bottom <= 24 and scroll.max_scroll_y > 0
        await pilot.press("c")  # c, Esc or Enter closes; no decision was made
        await pilot.pause()
        assert isinstance(app.screen, ScreeningScreen) and session.current_paper() == first


async def test_undo_at_the_start_of_a_session_says_it_takes_back_an_earlier_one(
    review_service: LitsiftService,
) -> None:
    """`u` first thing in a new session took back the reviewer's last decision of an earlier
    session (30 minutes before, an include that had gone on to the full text) without a word.
    It still can (a reviewer who quit on a wrong key gets it back), and now says so, naming the
    record; an undo of this session's own decision says nothing more."""
    svc = review_service
    app = create_screening_app(svc, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        _, _, first = await opened(pilot)
        await pilot.press("i")
        await wait_idle(pilot)
    app = create_screening_app(svc, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        _, session, _ = await opened(pilot)
        await pilot.press("u")
        await wait_idle(pilot)
        assert session.current_paper() == first
        said = [n.message for n in app._notifications]
        assert any("from an earlier session" in m and first.title[:20] in m for m in said), said
        await pilot.press("x")
        await wait_idle(pilot)
        await pilot.press("u")  # this session's own: taken back as before, nothing more said
        await wait_idle(pilot)
        assert session.current_paper() == first
        said = [n.message for n in app._notifications]
        assert sum("from an earlier session" in m for m in said) == 1, said


async def test_a_review_too_small_for_the_estimate_does_not_promise_one(tmp_path: Path) -> None:
    """With 12 records, after the first include the line promised "estimated after 19 more
    screened", and at the last record "after 9 more"; before the first decision, "estimated after
    an include and 20 screened": it can never come. Now it says so."""
    ris = donners_ris(tmp_path / "small.ris", 12)
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.reviews.create("small", [ris])
        app = create_screening_app(svc, "small", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            # before any decision it promised "estimated after an include and 20 screened"
            shown = line(screen)
            assert "includes left: too few records left for an estimate (12)" in shown, shown
            assert "after an include" not in shown
            await pilot.press("i")
            screen = await wait_idle(pilot)
            shown = line(screen)
            assert "includes left: too few records left for an estimate (11)" in shown, shown
            assert "more screened" not in shown


async def test_the_end_of_a_stage_names_the_conflicts_left_to_resolve(tmp_path: Path) -> None:
    """Screening without a name after bob's merged votes ended with "Every record has a
    decision ... Next, the full text" while records awaited resolution (found screening in
    tmux): the end text now counts them and gives the commands that list and resolve them."""
    from litsift.store.review_decisions import decide

    ris = donners_ris(tmp_path / "six.ris", 6)
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.reviews.create("six", [ris])
        ids = [p.id for _, p in svc.reviews.records("six")]
        decide(svc.store, "six", [(d, "include") for d in ids], reviewer="bob")
        app = create_screening_app(svc, "six", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            for key in "iiiixx":  # two excludes where bob included
                await pilot.press(key)
                screen = await wait_idle(pilot)
            shown = line(screen, "#screening-record")
            assert "Every record has a decision; 2 records await resolution." in shown, shown
            assert "litsift review conflicts six" in shown and "Next, the full text" not in shown
            assert len(svc.reviews.conflicts("six")) == 2
            await pilot.press("u")  # undone: one conflict left, and a record to screen
            screen = await wait_idle(pilot)
            await pilot.press("i")
            screen = await wait_idle(pilot)
            shown = line(screen, "#screening-record")
            assert "1 record awaits resolution" in shown, shown
