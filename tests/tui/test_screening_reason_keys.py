"""A number key beyond the review's exclusion reasons (``6`` of a review with 5) said
``no exclusion reason 6: litsift review reasons NAME 'wrong population' 'wrong design' ...``:
run as shown, ``review reasons`` replaces the list, so the review lost the reasons its keys
1-5 stood for. The hint now names the keys there are and a command that keeps them.

Real set: Donners 2021 (test_screening_screen's review), with five exclusion reasons.
"""

from __future__ import annotations

import shlex

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_screening_app
from tests.tui import test_screening_screen as base
from tests.tui.test_screening_screen import SIZE, wait_idle

review_service = base.review_service

REASONS = ["wrong population", "wrong intervention", "wrong design", "no PK data", "animal"]


async def test_a_key_beyond_the_reasons_hints_at_a_command_that_keeps_them(
    review_service: LitsiftService,
) -> None:
    svc = review_service
    svc.reviews.set_reasons("donners", REASONS)
    app = create_screening_app(svc, "donners", dense=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_idle(pilot)
        assert screen.session is not None
        before = screen.session.counts()
        await pilot.press("6")
        await wait_idle(pilot)
        assert screen.session.counts() == before  # nothing decided
        said = [n.message for n in app._notifications]
        (hint,) = [m for m in said if "no exclusion reason 6" in m]
        assert "keys 1-5" in hint, hint
        argv = shlex.split(hint[hint.index("litsift review reasons") :])
        assert argv[3] == "donners" and argv[4:-1] == REASONS, argv
