"""The answer window in a laptop's default terminal (80x24): once the references are listed,
the answer itself keeps most of the box. The references list took up to twelve rows and the
answer was left about five, to be read by scrolling."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from tests.llm_server import ScriptedLLMServer, sse_reply
from tests.tui.conftest import llm_home_service, search, written_answer


@pytest.fixture
def answer_service(
    built_home: Path, tmp_path: Path, encoder: Any, llm_server: ScriptedLLMServer
) -> Iterator[LitsiftService]:
    with llm_home_service(
        built_home,
        tmp_path,
        encoder,
        llm_server,
        answer_max_records=6,
        answer_passages_per_record=1,
    ) as svc:
        yield svc


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_answer_keeps_most_of_the_window_beside_its_references(
    answer_service: LitsiftService, llm_server: ScriptedLLMServer, size: tuple[int, int]
) -> None:
    app = create_app(answer_service)
    async with app.run_test(size=size) as pilot:
        await search(pilot, "neural machine translation")
        sentences = [
            f"Finding number {n} about translation is reported [{n}]. " for n in range(1, 7)
        ]
        llm_server.push(sse_reply(sentences * 3))
        screen = await written_answer(pilot)
        assert screen.error is None and screen.answer is not None, screen.error
        await pilot.pause()
        refs = screen.query_one("#answer-refs", OptionList)
        assert refs.display and refs.option_count >= 5
        answer = screen.query_one("#answer-scroll").region.height
        box = screen.query_one("#answer-box").region.height
        assert answer >= refs.region.height, (answer, refs.region.height)
        assert answer >= box // 3, (answer, box)
