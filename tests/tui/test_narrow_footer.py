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


def bottom_line(app: Any) -> str:
    """The terminal's last row as painted (the footer), read from the app's SVG export."""
    from tests.tui.test_snapshot import screen_lines

    return screen_lines(app.export_screenshot())[-1]


def assert_narrow_footer(line: str, width: int, first: str) -> None:
    assert "^q Quit" in line and "f1 Help" in line, line
    assert first in line, line  # the screen's first key stays
    # every key is whole: Textual's footer cut one inside its name ("F F▏", "S Sno…")
    assert not re.search(r"\S…|▏", line), line
    assert len(line.rstrip()) <= width, line


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_citations_footer_keeps_quit_and_help_and_cuts_whole_keys(
    tiny_service: Any, size: tuple[int, int]
) -> None:
    """The citations screen (C) had Textual's footer: at 80 columns it ended in ``F F▏``, with
    neither quit nor help."""
    from litsift.tui.screens.citations import CitationsScreen

    app = create_app(tiny_service, show_timings=False)
    async with app.run_test(size=size) as pilot:
        await search(pilot, "dialogue")
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(app.screen, CitationsScreen)
        for _ in range(100):
            await pilot.pause(0.02)
            if not app.screen.busy:
                break
        await pilot.pause()
        assert_narrow_footer(bottom_line(app), size[0], "esc Back")
        line = app.screen.query_one(KeyFooter).render().plain
        await pilot.click(KeyFooter, offset=(line.index("f1 Help") + 1, 0))
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_screening_footer_keeps_quit_and_help_and_cuts_whole_keys(
    tmp_path: Any, size: tuple[int, int]
) -> None:
    """``litsift review screen`` had Textual's footer: at 80 columns a key was cut inside its
    name and ^q Quit was gone. Then "c Criteria" was left out to keep the command palette's
    "^p palette" at the right end: the screen's keys now go first (^p works unshown, f1
    lists it)."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from litsift.tui.app import create_screening_app
    from tests.tui.test_screening_screen import DONNERS, wait_idle

    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        reasons = ["wrong population", "wrong design", "review"]
        svc.reviews.create("donners", [DONNERS], labels=1)
        svc.reviews.set_reasons("donners", reasons)
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=size) as pilot:
            await wait_idle(pilot)
            assert_narrow_footer(bottom_line(app), size[0], "i Include")
            line = app.screen.query_one(KeyFooter).render().plain
            if size[0] >= 80:  # every key: "c Criteria" was cut to keep "^p palette" shown
                for key in ("x Exclude", "m Maybe", "u Undo", "n Note", "c Criteria"):
                    assert key in line, line
                # only "J LLM judge" is cut (the … says so; from 92 columns it shows)
                assert line.count("…") == 1 and "J LLM" not in line, line
                assert "palette" not in line, line
            await pilot.click(KeyFooter, offset=(line.index("f1 Help") + 1, 0))
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
