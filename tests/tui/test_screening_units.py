"""The screening screen's stop panel writes every share one way: it read "recall ≥ 95% at 95 %
confidence" (a tester), and its counts beside the progress line's "1,234" had no separator."""

from __future__ import annotations

import re

from textual.widgets import Static

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_screening_app
from tests.tui import test_screening_screen as base
from tests.tui.test_screening_screen import wait_idle

#: the Donners review with criteria, a keyword and two priors (test_screening_screen's)
review_service = base.review_service


async def test_the_stop_panel_writes_percentages_one_way(review_service: LitsiftService) -> None:
    app = create_screening_app(review_service, "donners", dense=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_idle(pilot)
        await pilot.press("x")
        screen = await wait_idle(pilot)
        panel = str(screen.query_one("#screening-stops", Static).render())
        assert "recall ≥ 95% with 95% confidence" in panel, panel
        assert not re.search(r"\d %", panel), panel  # "95 %" beside "95%"
        assert "1 of 50 exclusions in a row" in panel, panel
