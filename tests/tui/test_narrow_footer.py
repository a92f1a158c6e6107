"""The key footer in a narrow terminal (80x24, a laptop's default; 60x20): keys that do not fit
are left out whole, the screen's last ones first, and the app's own (``^q Quit``, ``f1 Help``)
stay. The line was cut at its end: in the results a first-time user saw neither how to quit
nor how to get help, and ``f1…`` (half a key) at 120 columns."""

from __future__ import annotations

import re
from typing import Any

import pytest

from litsift.tui.app import create_app
from litsift.tui.screens.help import HelpScreen
from litsift.tui.widgets.footer import KeyFooter
from tests.tui.conftest import search, settle


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (120, 40)])
async def test_a_narrow_footer_keeps_quit_and_help_and_cuts_whole_keys(
    tiny_service: Any, size: tuple[int, int]
) -> None:
    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=size) as pilot:
        await search(pilot, "dialogue")
        assert app.focused is app.search_screen.table()
        await settle(pilot)
        footer = app.query_one(KeyFooter)
        line = footer.render().plain
        assert line.startswith(" results ▸ "), line
        assert "^q Quit" in line and "f1 Help" in line, line
        assert "+ Keep" in line, line  # the screen's first keys stay
        assert not re.search(r"\S…", line), line  # no key is cut inside its name
        assert len(line) == size[0]
        start = line.index("f1 Help")
        await pilot.click(KeyFooter, offset=(start + 1, 0))  # the key still answers a click
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
