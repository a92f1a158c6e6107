"""Issue 44 item 7: the screening screen as a reviewer sees it, on a real review set (Donners
2021, real SQLite, the TF-IDF learner): the gain curve, the progress line and the keys."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import Sparkline

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_screening_app
from litsift.tui.screens.screening import ScreeningScreen
from tests.tui.test_screening_screen import DONNERS, SIZE, donners_review, wait_idle


@pytest.fixture
def review_service(tmp_path: Path) -> Iterator[LitsiftService]:
    with donners_review(tmp_path) as svc:
        yield svc


def drawn(widget: Sparkline) -> str:
    """The sparkline as the terminal shows it (its characters, no colours)."""
    out = io.StringIO()
    Console(file=out, width=widget.size.width, color_system=None).print(widget.render())
    return out.getvalue().strip()


async def test_the_gain_curve_is_flat_while_nothing_is_found(
    review_service: LitsiftService,
) -> None:
    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        curve = screen.query_one("#screening-curve", Sparkline)
        assert drawn(curve) and "█" not in drawn(curve)  # nothing screened yet
        for _ in range(2):  # one exclusion, then two: still nothing found
            await pilot.press("x")
            screen = await wait_idle(pilot)
            assert "█" not in drawn(curve), drawn(curve)
        await pilot.press("i")  # the first include lifts the end of the curve
        await wait_idle(pilot)
        assert drawn(curve).endswith("█")


async def test_the_progress_line_counts_the_prior_includes_as_includes(
    review_service: LitsiftService,
) -> None:
    """One prior include: the line says 'included 1', so it must not say the estimate comes
    'after your first include'."""
    from textual.widgets import Static

    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        line = str(screen.query_one("#screening-progress", Static).render())
        assert "screened 2 of 257 · included 1 ·" in line, line
        assert "after your first include" not in line
        assert "estimated once you include a record here" in line


def footer_keys(app: Any) -> dict[str, str]:
    """The keys the footer offers now: ``{key: description}``."""
    return {
        b.binding.key: b.binding.description
        for b in app.screen.active_bindings.values()
        if b.binding.show and b.enabled and app.screen.check_action(b.binding.action, ()) is True
    }


async def test_esc_goes_back_and_q_quits_as_the_footer_says(
    review_service: LitsiftService,
) -> None:
    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        first = await wait_idle(pilot)
        keys = footer_keys(app)
        assert "escape" not in keys, keys  # nothing to go back to: no "Back"
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert app.is_running and app.screen is first  # esc does not quit
        app.push_screen(ScreeningScreen(review_service, "donners", dense=False))
        await wait_idle(pilot)
        assert footer_keys(app).get("escape") == "Back"
        await pilot.press("escape")  # back to the screen below
        await pilot.pause(0.1)
        assert app.is_running and app.screen is first
        await pilot.press("q")
        await pilot.pause(0.1)
    assert app.return_code == 0 and not app.is_running


async def test_f1_in_litsift_review_screen_lists_the_screening_keys_not_the_search_keys(
    review_service: LitsiftService,
) -> None:
    """F1 while screening listed the search screen's keys first (``+ / y`` "Label keep", ``n``
    "Edit note and tags", ...), the screening keys below the fold and keys 1-9 nowhere."""
    from litsift.tui.screens import HelpScreen

    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        rows = app.screen.rows
        first = [(keys, desc) for keys, desc, where, _ in rows[:9]]  # then 1 … 9 (J, Esc)
        assert first[0] == ("i / y / +", "Include") and ("x / -", "Exclude") in first
        assert ("1 … 9", "Exclude with the review's reason of that number") in first
        where = {r[2] for r in rows}
        assert where == {"screening", "anywhere"}, where  # nothing here searches
        ids = {r[3] for r in rows}
        assert {"focus_query", "label_keep", "screening"}.isdisjoint(ids) and "quit" in ids
        await pilot.press("escape")
        assert isinstance(app.screen, ScreeningScreen)
        await pilot.press("x")  # and the keys still screen
        screen = await wait_idle(pilot)
        assert screen.session is not None and len(screen.session.decisions) == 3


async def test_a_full_text_stage_no_record_reached_says_so(tmp_path: Path) -> None:
    """Nothing included at title/abstract yet: the full-text screen said "Every report has a
    decision at full text", that every record had a prior decision, and offered to export the
    included studies. Now it says no record reached the full text, and what to do."""
    from textual.widgets import Static

    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.reviews.create("donners", [DONNERS], labels="none")
        app = create_screening_app(svc, "donners", dense=False, stage="fulltext", reviewer="al")
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            shown = str(screen.query_one("#screening-record", Static).render())
            assert "No record has reached the full text yet." in shown
            assert "litsift review screen donners --reviewer al" in shown
            assert "Every report" not in shown and "export" not in shown
            stops = str(screen.query_one("#screening-stops", Static).render())
            assert "every record has a prior decision" not in stops


async def test_a_finished_stage_says_what_comes_next(tmp_path: Path) -> None:
    """Done at title/abstract, the screen pointed at exporting that stage; done at full text
    it said the same (exporting the title/abstract stage). Now each stage names its next step:
    the full text after title/abstract, the included studies and the PRISMA diagram after it."""
    from textual.widgets import Static

    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.reviews.create("donners", [DONNERS])  # every published decision as a prior
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            shown = str(screen.query_one("#screening-record", Static).render())
            assert "Every record has a decision at title/abstract." in shown
            assert "litsift review screen donners --stage fulltext" in shown
        full = svc.reviews.open("donners", "fulltext")
        while full.current_paper() is not None:  # the 15 includes, decided at full text
            full.decide("include")
        app = create_screening_app(svc, "donners", dense=False, stage="fulltext")
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            shown = str(screen.query_one("#screening-record", Static).render())
            assert "Every report has a decision at full text." in shown
            assert "export donners --stage fulltext --format ris --which include" in shown
            assert "litsift review prisma donners -o prisma.svg" in shown
    blind = ScreeningScreen(svc, "my review", reviewer="bob")  # quoted for the shell
    said = "".join(p if isinstance(p, str) else p[0] for p in blind.done_lines())
    assert "export 'my review' --format decisions --reviewer bob -o bob.jsonl" in said
    two = ScreeningScreen(svc, "r", reviewer="bo b")
    said = "".join(p if isinstance(p, str) else p[0] for p in two.done_lines())
    assert "--reviewer 'bo b' -o 'bo b.jsonl'" in said
