"""The answer screen over imported full text: each reference says where in the paper every
cited passage is, so ``[2]`` in the answer can be checked against the paper (a GROBID TEI
import of ../shared/data, the scripted chat-completions server on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from litsift.paths import shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.types import Kind
from tests.llm_server import ScriptedLLMServer, sse_reply
from tests.tui.conftest import llm_home_service, search, written_answer

TEI = shared_data_dir() / "sources" / "fulltext" / "grobid-tei"
SIZE = (100, 30)


@pytest.fixture
def fulltext_service(
    built_home: Path, tmp_path: Path, encoder: Any, llm_server: ScriptedLLMServer
) -> Iterator[LitsiftService]:
    with llm_home_service(built_home, tmp_path, encoder, llm_server, answer_max_records=1) as svc:
        tei = TEI / "acl-2020.acl-main.207.grobid-0.6.1.tei.xml"  # SPECTER
        assert not svc.sources.import_paths(Kind.PAPER, [tei]).bad
        svc.build_index(Kind.PAPER)
        assert svc.build_passages().passages > 10
        yield svc


async def test_each_cited_passage_is_listed_with_its_place(
    fulltext_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    """The references listed only "[1] [2] [3] SPECTER: ... (2020)": which section [2] came
    from was nowhere on the screen (the shell's answer printed the sections, unnumbered)."""
    app = create_app(fulltext_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "citation-informed transformer document embeddings SPECTER")
        llm_server.push(sse_reply(["SPECTER embeds papers [1]. ", "It uses citations [2]."]))
        screen = await written_answer(pilot)
        assert screen.error is None and screen.answer is not None, screen.error
        cited = screen.answer.passages[:2]
        assert all(p.fulltext and p.section for p in cited)
        prompt = str(screen.query_one("#answer-refs", OptionList).get_option_at_index(0).prompt)
        assert "SPECTER" in prompt
        for p in cited:
            assert f"[{p.number}] {p.section}" in prompt
