"""What a reviewer read wrong in tmux at 80x24: the criteria dialog (``c``) called the reasons'
numbers "the key after x" (``x`` then ``2`` excludes two records: the number alone excludes
with its reason), and a number with no reason said to run ``litsift review reasons NAME``
instead of naming the review."""

from __future__ import annotations

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_screening_app
from litsift.tui.screens.review_criteria import CriteriaScreen
from tests.tui import test_screening_screen as base
from tests.tui.test_screening_screen import wait_idle

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
