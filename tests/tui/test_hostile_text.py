"""Terminal injection in the TUI (issue 14, item 2): records and LLM replies carrying escape
sequences are shown as text, and nothing the app draws contains ESC.

The home holds a few real rows of ``../shared/data`` plus one hostile paper and one hostile
dataset, stored as an older litsift stored them (control characters kept); the LLM is a
scripted chat-completions server on 127.0.0.1 that answers with escape sequences of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import OptionList

from litsift.config import Config
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.widgets import DetailPane, ResultsTable, StatusLine
from litsift.types import Kind
from tests.conftest import DATASETS_GZ, PAPERS_GZ
from tests.llm_server import ScriptedLLMServer, llm_settings, sse_reply
from tests.tui.conftest import search, written_answer
from tests.unit.test_sanitize import (
    HOSTILE_DATASET,
    HOSTILE_PAPER,
    _real_rows,
    _write_jsonl,
    ingest_as_written,
)

SIZE = (120, 40)
#: what must never reach the terminal: ESC, the 8-bit CSI and OSC, a BEL
RAW = ("\x1b", "\x9b", "\x9d", "\x07")


def assert_clean(text: str) -> None:
    assert not any(c in text for c in RAW), repr(text)
    assert "]0;pwned" not in text  # the OSC 0 title sequence is gone, not just its ESC


def cells(t: ResultsTable) -> str:
    return "\n".join(t.get_cell(row, col.key).plain for row in t.rows for col in t.columns.values())


@pytest.fixture(scope="module")
def hostile_service(
    tmp_path_factory: pytest.TempPathFactory, encoder: Any, llm_server: ScriptedLLMServer
) -> Iterator[LitsiftService]:
    root = tmp_path_factory.mktemp("hostile-tui")
    datasets = _write_jsonl(root / "d.jsonl", [*_real_rows(DATASETS_GZ, 8), HOSTILE_DATASET])
    papers = _write_jsonl(root / "p.jsonl", [*_real_rows(PAPERS_GZ, 8), HOSTILE_PAPER])
    config = Config(llm=llm_settings(llm_server, answer_max_records=2))
    with LitsiftService(get_paths(root / "home"), config=config, encoder=encoder) as svc:
        ingest_as_written(svc, Kind.DATASET, datasets)
        ingest_as_written(svc, Kind.PAPER, papers)
        svc.build_index(Kind.DATASET)
        svc.build_index(Kind.PAPER)
        yield svc


async def test_hostile_records_render_without_escape_sequences(
    hostile_service: LitsiftService,
) -> None:
    app = create_app(hostile_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "hostile music genre classification")
        t = app.search_screen.table(Kind.PAPER)
        assert t.hits and t.hits[0].docid == HOSTILE_PAPER["id"]
        title = t.get_cell(HOSTILE_PAPER["id"], "title").plain
        assert title == "Hostile music genre classification red"
        assert_clean(cells(t))
        detail = app.query_one(DetailPane)
        assert "We classify albums into music genres. red Done." in detail.text
        assert_clean(detail.text)
        assert_clean(app.export_screenshot())

        app.search_screen.action_show_kind("dataset")
        await search(pilot, "music genre albums")
        t = app.search_screen.table(Kind.DATASET)
        assert HOSTILE_DATASET["id"] in [h.docid for h in t.hits]
        t.move_cursor(row=[h.docid for h in t.hits].index(HOSTILE_DATASET["id"]))
        await pilot.pause()
        assert_clean(cells(t))
        # the aliases column leaves out the dataset's own name (listed among its variants)
        assert "HostileSetred\n2020\n8-bit CSI\n" in cells(t)
        assert "music genre dataset of albums red with  tracks." in detail.text
        assert_clean(detail.text)
        assert_clean(app.export_screenshot())

        # errors and notices quoting data: the status line and the toasts
        app.notify("bad row " + HOSTILE_PAPER["title"], title="x\x1b[2J")
        app.query_one("#status", StatusLine).show_message("note " + HOSTILE_PAPER["abstract"])
        await pilot.pause()
        assert_clean(app.query_one("#status", StatusLine).text)
        assert_clean(app.export_screenshot())


async def test_hostile_llm_answer_streams_and_shows_without_escape_sequences(
    hostile_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    llm_server.reset()
    app = create_app(hostile_service, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "hostile music genre classification")
        llm_server.push(
            sse_reply(["Albums \x1b]0;pw", "ned\x07are classified\x1b[2J ", "by genre [1]."])
        )
        screen = await written_answer(pilot)
        assert screen.error is None, screen.error
        assert "\x1b" in screen.streamed  # the model did send escape sequences...
        assert "are classified" in screen.text and "by genre [1]." in screen.text
        assert_clean(screen.text)  # ...which are never shown
        refs = screen.query_one("#answer-refs", OptionList)
        prompts = [str(refs.get_option_at_index(i).prompt) for i in range(refs.option_count)]
        assert any("Hostile music genre classification red" in p for p in prompts)
        assert_clean("\n".join(prompts))
        assert_clean(app.export_screenshot())
