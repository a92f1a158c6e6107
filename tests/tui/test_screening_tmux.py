"""What a reviewer read wrong in tmux at 80x24: the criteria dialog (``c``) called the reasons'
numbers "the key after x" (``x`` then ``2`` excludes two records: the number alone excludes
with its reason), and a number with no reason said to run ``litsift review reasons NAME``
instead of naming the review."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_screening_app
from litsift.tui.screens.review_criteria import CriteriaScreen
from tests.tui import test_screening_screen as base
from tests.tui.test_screening_screen import DONNERS, wait_idle

#: the Donners review with criteria, a keyword and two priors (test_screening_screen's)
review_service = base.review_service


async def test_the_criteria_and_a_missing_reason_say_what_the_keys_do(
    review_service: LitsiftService,
) -> None:
    review_service.reviews.set_reasons("donners", ["wrong population", "wrong design"])
    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_idle(pilot)
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CriteriaScreen)
        assert "after x" not in dialog.text, dialog.text
        assert "Exclusion reasons (its number key excludes)" in dialog.text, dialog.text
        await pilot.press("escape")
        await pilot.pause()
        assert screen.session is not None
        before = screen.session.counts()
        await pilot.press("9")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert any("litsift review reasons donners '" in m for m in said), said
        assert screen.session.counts() == before  # nothing decided


async def test_at_80x24_the_record_has_the_rows_of_the_curve_and_of_a_blank_line(
    review_service: LitsiftService,
) -> None:
    """At 80x24 the record had 6 lines (title, year and two of the abstract) while the gain
    curve took 3 and a blank line under the stop panel 1; at 120x40 the curve stays."""
    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_idle(pilot)
        stops = screen.query_one("#screening-stops")
        # the heading and the 3 rules, right above the footer (a blank 5th line took a row)
        assert stops.region.height == 4 and stops.region.bottom == 23, stops.region
        assert not screen.query_one("#screening-curve").display
        assert screen.query_one("#screening-record-box").region.height >= 12
        assert "hypergeometric" in str(stops.render())
    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_idle(pilot)
        curve = screen.query_one("#screening-curve")
        assert curve.display and curve.region.height == 2
        assert screen.query_one("#screening-stops").region.bottom == 39


async def test_the_full_text_stage_of_a_single_include_opens(tmp_path: Path) -> None:
    """One record included at title/abstract, then ``--stage fulltext``: the screen said
    "screening failed unexpectedly (ValueError)" (TF-IDF's max_df of 95% leaves no term of
    a single record) instead of showing that record."""
    from litsift.paths import get_paths

    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.reviews.create("donners", [DONNERS], labels="none")
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await wait_idle(pilot)
            assert screen.session is not None
            first = screen.session.current_paper()
            assert first is not None
            await pilot.press("i")
            await wait_idle(pilot)
        app = create_screening_app(svc, "donners", dense=False, stage="fulltext")
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await wait_idle(pilot)
            shown = str(screen.query_one("#screening-record", Static).render())
            assert "failed" not in shown, shown
            assert screen.session is not None and screen.session.current_paper() == first
            assert first.title[:30] in shown
