"""The screening screen's footer at 80x24 offers the decision keys only while a record is on
screen: with no record at the stage (nothing included at title/abstract yet, at full text) or
every record decided, it showed ``i Include  x Exclude  m Maybe  n Note``, keys that then did
nothing (found in tmux, ``litsift review screen NAME --stage fulltext`` of a new review). Real
review set (Donners 2021), real SQLite, the TF-IDF learner."""

from __future__ import annotations

from pathlib import Path

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_screening_app
from litsift.tui.widgets.footer import KeyFooter
from tests.tui.test_screening_screen import DONNERS, wait_idle


async def test_the_decision_keys_show_only_while_a_record_does(tmp_path: Path) -> None:
    import pytest

    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.reviews.create("donners", [DONNERS], labels="none")
        app = create_screening_app(svc, "donners", dense=False, stage="fulltext")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_idle(pilot)
            await pilot.pause()
            line = app.screen.query_one(KeyFooter).render().plain
            assert "Include" not in line and "Note" not in line, line
            assert "Undo" in line and "Criteria" in line and "Help" in line, line
            # the stop panel says its one reason once (it was three times, over six rows)
            from textual.widgets import Static

            stops = str(app.screen.query_one("#screening-stops", Static).render())
            assert stops.count("no record to screen") == 1, stops
            assert "consecutive, knee, hypergeometric: no record to screen" in stops, stops
        app = create_screening_app(svc, "donners", dense=False)  # title/abstract: a record
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await wait_idle(pilot)
            await pilot.pause()
            line = app.screen.query_one(KeyFooter).render().plain
            assert "i Include" in line and "x Exclude" in line and "n Note" in line, line
            await pilot.press("i")  # the key still decides
            screen = await wait_idle(pilot)
            assert screen.session is not None and len(screen.session.decisions) == 1
