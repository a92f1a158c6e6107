"""Replies the answer screen must read right, against the real scripted server on 127.0.0.1: an
error event in the answer's stream, sent with HTTP 200 as OpenRouter does (before any text it
is retried and the answer is written once; after text was shown, that text stays in the window
with the error below it, and the answer is not started again beneath it); an author-year
citation that names no paper sent is flagged, as an invented ``[n]`` is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from litsift.llm.errors import LLMServerError
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from tests.llm_server import ScriptedLLMServer, sse_error_reply, sse_reply
from tests.tui.conftest import llm_home_service, search, written_answer

DRAFT = ["Attention replaced recurrence ", "in translation [1]. ", "It also"]


@pytest.fixture
def answer_service(
    built_home: Path, tmp_path: Path, encoder: Any, llm_server: ScriptedLLMServer
) -> Iterator[LitsiftService]:
    with llm_home_service(built_home, tmp_path, encoder, llm_server, max_retries=2) as svc:
        yield svc


async def test_an_error_after_streamed_text_keeps_the_text_and_reports_the_error(
    answer_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    app = create_app(answer_service)
    async with app.run_test(size=(100, 30)) as pilot:
        await search(pilot, "neural machine translation")
        llm_server.push(
            sse_error_reply(DRAFT, 502, "Provider disconnected"), sse_reply(["Never asked for."])
        )
        screen = await written_answer(pilot)
        assert isinstance(screen.error, LLMServerError), screen.error
        text = " ".join(screen.text.split())
        assert text.startswith("Attention replaced recurrence in translation [1]. It also")
        assert "✖ LLM endpoint sent an error mid-stream" in text and "Provider disconnected" in text
        assert len(llm_server.requests) == 1 and "Never asked for" not in text


async def test_an_error_before_any_text_is_retried_and_the_answer_written_once(
    answer_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    app = create_app(answer_service)
    async with app.run_test(size=(100, 30)) as pilot:
        await search(pilot, "neural machine translation")
        llm_server.push(
            sse_error_reply([], "server_error", "Provider disconnected"), sse_reply(DRAFT[:2])
        )
        screen = await written_answer(pilot)
        assert screen.error is None and screen.answer is not None, screen.error
        assert len(llm_server.requests) == 2
        assert screen.text.count("Attention replaced recurrence") == 1


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
