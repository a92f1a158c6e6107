"""The streamed draft is marked as a draft while its self-feedback and citation checks run,
against the real scripted server on 127.0.0.1: the draft used to sit in the window alone, with
no line, reference list or cost below it, for as long as those calls took (each up to
``llm.timeout_s``), looking like the finished answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.screens.answer import AnswerScreen
from tests.llm_server import ScriptedLLMServer, chat_reply, sse_reply
from tests.tui.conftest import llm_home_service, search


@pytest.fixture
def answer_service(
    built_home: Path, tmp_path: Path, encoder: Any, llm_server: ScriptedLLMServer
) -> Iterator[LitsiftService]:
    with llm_home_service(
        built_home, tmp_path, encoder, llm_server, answer_feedback_rounds=1
    ) as svc:
        yield svc


async def test_the_draft_says_it_is_a_draft_until_the_checked_answer_replaces_it(
    answer_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    app = create_app(answer_service)
    async with app.run_test(size=(100, 30)) as pilot:
        await search(pilot, "neural machine translation")
        feedback = chat_reply("Feedback: terminate")
        feedback.delay_s = 1.5  # the model writes its critique
        llm_server.push(sse_reply(["Attention replaced ", "recurrence [1]."]), feedback)
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AnswerScreen)
        for _ in range(300):  # the draft is in and the feedback call is on its way
            if len(llm_server.requests) == 2 and "recurrence" in screen.text:
                break
            await pilot.pause(0.02)
        assert not screen.done and len(llm_server.requests) == 2
        text = " ".join(screen.text.split())
        assert (
            text.startswith("Attention replaced recurrence [1].")
            and "draft, not checked yet… (Esc closes)" in text
        )
        for _ in range(300):
            if screen.done:
                break
            await pilot.pause(0.02)
        assert screen.answer is not None and "not checked yet" not in screen.text
        assert "Attention replaced recurrence [1]." in screen.text
