"""``q`` quits anywhere outside text (README's key table), also in the dialogs with nothing to
type into: a review's criteria (``c`` while screening), the background errors (``^o``) and
the written answer (``w``). Over a dialog the app's own ``q`` is not active, and there it did
nothing (seen in tmux: the criteria stayed on screen, ``esc Close`` the only key shown); the
history and a dataset's papers had been given it already."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

from litsift.tui.screens.answer import AnswerScreen
from litsift.tui.screens.job_errors import JobError, JobErrorScreen
from litsift.tui.screens.review_criteria import CriteriaScreen
from litsift.types import Kind
from tests.tui.test_markup_sinks import _Host


async def _q_quits(screen: Screen[Any]) -> None:
    app = _Host(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running, type(screen).__name__


async def test_q_quits_from_a_review_s_criteria() -> None:
    await _q_quits(CriteriaScreen("statins", "Adults on statins", ["statin"], ["wrong design"]))


async def test_q_quits_from_the_background_errors() -> None:
    await _q_quits(JobErrorScreen([JobError("index", Kind.PAPER, "disk full", "free space")]))


async def test_q_quits_from_the_answer(tiny_service: Any) -> None:
    """No LLM is configured here: the answer says so, and q still quits."""
    await _q_quits(AnswerScreen(tiny_service, "What is new?", []))
