"""Closing the answer window closes its request, against the real scripted server on 127.0.0.1:
a model that has not written its first token yet (a long prompt being read, a busy server's
queue) is not left generating an answer nobody will read until ``llm.timeout_s``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.screens.answer import AnswerScreen
from tests.llm_server import ScriptedLLMServer, sse_reply
from tests.tui.conftest import llm_home_service, search


@pytest.fixture
def answer_service(
    built_home: Path, tmp_path: Path, encoder: Any, llm_server: ScriptedLLMServer
) -> Iterator[LitsiftService]:
    with llm_home_service(built_home, tmp_path, encoder, llm_server, timeout_s=60.0) as svc:
        yield svc


async def test_esc_closes_an_answer_whose_first_token_has_not_come(
    answer_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    """Esc stopped the draft only at its next delta: with none yet, the request stayed open
    (and the worker with it) until the server answered or ``llm.timeout_s`` passed."""
    app = create_app(answer_service)
    async with app.run_test(size=(100, 30)) as pilot:
        await search(pilot, "neural machine translation")
        slow = sse_reply(["Too late [1]."])
        slow.delay_s = 15.0
        llm_server.push(slow)
        await pilot.press("w")
        screen = app.screen
        assert isinstance(screen, AnswerScreen)
        for _ in range(500):  # until the request is on its way
            if llm_server.requests:
                break
            await pilot.pause(0.02)
        assert llm_server.requests
        await pilot.press("escape")
        assert not isinstance(app.screen, AnswerScreen)
        await app.workers.wait_for_complete([w for w in app.workers if w.group == "answer"])
        assert llm_server.hangups == 1, "the request was left open"
        assert screen.answer is None and screen.error is None  # closed, not failed
