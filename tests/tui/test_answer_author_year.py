"""The answer screen flags an author-year citation that names no paper sent, as it flags an
invented ``[n]`` (the scripted chat-completions server on 127.0.0.1, the session's real home)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from tests.llm_server import ScriptedLLMServer, sse_reply
from tests.tui.conftest import llm_home_service, search, written_answer


@pytest.fixture
def answer_service(
    built_home: Path, tmp_path: Path, encoder: Any, llm_server: ScriptedLLMServer
) -> Iterator[LitsiftService]:
    with llm_home_service(built_home, tmp_path, encoder, llm_server) as svc:
        yield svc


async def test_an_author_year_citation_of_no_paper_sent_is_flagged(
    answer_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    """It was shown as written, as if it were a source, with nothing to say it was not one."""
    app = create_app(answer_service)
    async with app.run_test(size=(100, 30)) as pilot:
        await search(pilot, "neural machine translation")
        llm_server.push(
            sse_reply(["Attention helps translation [1]. ", "It fails on rare words (Jones 1887)."])
        )
        screen = await written_answer(pilot)
        assert screen.error is None and screen.answer is not None, screen.error
        assert screen.answer.invented == ("Jones 1887",)
        text = " ".join(screen.text.split())
        assert "It fails on rare words (Jones 1887). ✖ invented (Jones 1887)" in text
        assert "✖ Citations naming no source that was sent: Jones 1887" in text
