"""Pilot tests of the aspect panel (real encoder, shared store) and of the LLM actions against a
real scripted chat-completions server on 127.0.0.1 (tests/llm_server.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, TextArea

from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.screens.answer import AnswerScreen
from litsift.tui.screens.modals import AspectEditScreen
from litsift.tui.widgets import DetailPane, ResultsTable, StatusLine
from litsift.tui.widgets.detail_pane import EVIDENCE_STYLE
from litsift.types import Kind
from tests.llm_server import ScriptedLLMServer, chat_reply, sse_reply
from tests.tui.conftest import llm_home_service, search, settle, written_answer

SIZE = (120, 40)
ASPECT_QUERY = (
    "We want to translate between languages with little parallel data, "
    "using back-translation of monolingual text and a shared subword vocabulary."
)


def table(app: Any) -> ResultsTable:
    return app.search_screen.table(Kind.PAPER)


def column(t: ResultsTable, key: str) -> list[str]:
    return [t.get_cell(row_key, key).plain for row_key in t.rows]


def status(app: Any) -> str:
    return app.query_one("#status", StatusLine).text


async def test_aspect_column_detail_editing_and_order(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, ASPECT_QUERY)
        t = table(app)
        aspects = app.search_screen.tab(Kind.PAPER).aspects
        assert len(aspects) >= 2
        cover = column(t, "coverage")
        assert all(c.split()[0].replace(".", "").isdigit() for c in cover)
        values = [t.coverages[h.docid].normalised for h in t.hits]
        assert [f"{v:.1f}" for v in values] == [c.split()[0] for c in cover]
        detail = app.query_one(DetailPane)
        assert "Aspects — coverage" in detail.text
        assert any(g in detail.text for g in "○◐●")
        for a in aspects:
            assert a.text in detail.text
        # evidence sentences of graded aspects are styled spans of the abstract
        for hit in t.hits:
            cov = t.coverages[hit.docid]
            abstract = hit.record.abstract  # type: ignore[union-attr]
            evidence = [s.evidence_text for s in cov.scores if s.grade and s.evidence_text]
            if any(e in abstract for e in evidence):
                t.move_cursor(row=t.hits.index(hit))
                await pilot.pause()
                styled = [
                    detail.content.plain[sp.start : sp.end]
                    for sp in detail.content.spans
                    if str(sp.style) == EVIDENCE_STYLE
                ]
                assert styled and all(x in evidence for x in styled)
                break
        # order by coverage
        await pilot.press("o")
        shown = [t.coverages[h.docid].normalised for h in t.hits]
        assert shown == sorted(shown, reverse=True) and "[by coverage]" in status(app)
        await pilot.press("o")
        # keep one aspect only: the coverage is re-scored
        await pilot.press("a")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AspectEditScreen)
        lines = screen.query_one("#aspects-text", TextArea).text.splitlines()
        assert lines == [a.text for a in aspects]
        screen.query_one("#aspects-text", TextArea).load_text("a shared subword vocabulary")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert [a.text for a in app.search_screen.tab(Kind.PAPER).aspects] == [
            "a shared subword vocabulary"
        ]
        rescored = [t.coverages[h.docid].normalised for h in t.hits]
        assert all(v in (0.0, 1.0, 2.0) for v in rescored)
        assert rescored != values
        assert "a shared subword vocabulary" in detail.text


async def test_llm_actions_explain_themselves_without_endpoint(service: Any) -> None:
    app = create_app(service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "machine translation")
        # enabled: without an endpoint the keys say what to configure (issue 45)
        assert app.search_screen.check_action("answer", ()) is True
        assert app.search_screen.check_action("llm_rerank", ()) is True
        await pilot.press("w", "r")
        await settle(pilot)
        assert not isinstance(app.screen, AnswerScreen)
        assert "no LLM endpoint configured" in app.search_screen.status.text
        # the help screen and the command palette list the new actions
        await pilot.press("f1")
        listed = {bid for *_, bid in app.screen.rows}  # type: ignore[attr-defined]
        new_actions = {
            "label_keep", "label_maybe", "label_discard", "undo_label", "cycle_filter",
            "edit_note", "add_to_collection", "history", "save_search", "export",
            "more_like_this", "coverage_order", "edit_aspects", "llm_rerank", "answer",
            "llm_judge_aspects",
        }  # fmt: skip
        assert new_actions <= listed
        await pilot.press("escape")
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Keep", "Undo", "Export", "More like this", "Aspects"} <= titles
        # every key of the screen is there (the help says so; T, C, R, P, M were missing)
        assert {"Full text", "Citations", "Extract RQ", "Same problem", "Same method"} <= titles
        # no LLM endpoint configured: offered all the same (they were missing, as if litsift
        # had no LLM features), saying what to configure first (no [brackets]: the palette
        # reads markup); Textual's Keys panel is not
        # (Help lists the keys, and Esc did not close it)
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        for title in ("Answer", "Rerank"):
            assert "first set llm.base_url in config.toml" in helps[title], helps
        assert "Keys" not in helps and "Help" in helps


@pytest.fixture
def llm_service(
    built_home: Path, tmp_path: Path, encoder: Any, llm_server: ScriptedLLMServer
) -> Iterator[LitsiftService]:
    with llm_home_service(
        built_home,
        tmp_path,
        encoder,
        llm_server,
        rerank_top_n=10,  # one prompt: the scripted reply ranks the whole window
        aspect_judge_top=2,
        answer_max_records=2,
        answer_passages_per_record=1,
    ) as svc:
        yield svc


async def test_llm_rerank_reorders_per_reply(
    llm_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    app = create_app(llm_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        before = [h.docid for h in table(app).hits]
        llm_server.push(chat_reply("[2] > [1] > [3]"))
        await pilot.press("r")
        await settle(pilot)
        after = [h.docid for h in table(app).hits]
        assert after == [before[1], before[0], *before[2:]]
        # the reranking landed while the cursor was on the first paper: it stays on that paper
        # (now the second row), so the next label key acts on the paper the user looked at
        highlighted = table(app).highlighted_hit
        assert highlighted is not None and highlighted.docid == before[0]
        assert "LLM reranked" in status(app)
        (req,) = llm_server.requests
        assert "neural machine translation" in str(req.body["messages"])
        # a failing endpoint keeps the order and says why
        await pilot.press("r")  # no scripted reply: HTTP 500
        await settle(pilot)
        assert [h.docid for h in table(app).hits] == after
        assert "rerank failed" in status(app)
        # said once: the reason, then that the order is kept (it read "rerank failed, original
        # order kept: ... — the original order is kept")
        assert status(app).count("order") == 1, status(app)
        # and the whole of it, the error's hint included, in a toast (the status line is cut)
        said = [n.message for n in app._notifications if n.title == "LLM"]
        assert said and said[-1].startswith("rerank failed: "), said
        assert said[-1].endswith("(the original order is kept)") and "; " in said[-1], said


async def test_llm_rerank_cut_at_the_output_limit_says_so(
    llm_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    """A ranking cut at max_tokens was applied as far as it went and the app said only "LLM
    reranked 10 results": the report's notes (cut, ids missing) never reached the user."""
    app = create_app(llm_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        llm_server.push(chat_reply("[2] > [1] > [", finish_reason="length"))
        await pilot.press("r")
        await settle(pilot)
        assert "note" in status(app)
        said = [n for n in app._notifications if n.title == "LLM"]
        assert said and said[-1].severity == "warning", said
        assert "cut at the output limit" in said[-1].message


async def test_answer_streams_flags_fabricated_and_opens_reference(
    llm_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    app = create_app(llm_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        first = table(app).hits[0]
        llm_server.push(
            sse_reply(
                [
                    "Attention lets the decoder look back at the source [1]. ",
                    "It also cures every ill [9].",
                ]
            )
        )
        screen = await written_answer(pilot)
        assert screen.error is None, screen.error
        assert screen.streamed.startswith("Attention lets the decoder")  # the streamed draft
        # a citation of a passage never sent is shown as unverified while it streams (issue 14)
        assert "[?]" in screen.streamed and "[9]" not in screen.streamed
        text = screen.text
        assert "fabricated [9]" in text
        assert screen.answer is not None and screen.answer.fabricated == (9,)
        refs = screen.query_one("#answer-refs", OptionList)
        assert refs.option_count == 1
        assert first.record.display_title in str(refs.get_option_at_index(0).prompt)
        refs.focus()
        refs.highlighted = 0
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, AnswerScreen)
        detail = app.query_one(DetailPane)
        assert detail.hit is not None and detail.hit.docid == first.docid
        assert app.focused is detail


async def test_closing_the_answer_stops_its_stream(
    llm_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    """Esc closed the screen but the worker read the slow stream to its end (here 20 s; a
    paid endpoint kept writing, and charging, an answer nobody would see)."""
    app = create_app(llm_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        reply = sse_reply(["Attention helps [1]. "] + ["More words. "] * 60)
        reply.drip_s = 0.005  # about 20 s for the whole stream
        llm_server.push(reply)
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AnswerScreen)
        for _ in range(500):
            await pilot.pause(0.02)
            if screen.streamed:
                break
        assert screen.streamed, "no delta arrived"
        await pilot.press("escape")
        await settle(pilot)
        for _ in range(150):
            if llm_server.hangups:
                break
            await pilot.pause(0.02)
        assert llm_server.hangups == 1, "the stream went on after Esc"


async def test_llm_judge_grades_aspects_of_the_top_results(
    llm_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    app = create_app(llm_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, ASPECT_QUERY)
        aspects = app.search_screen.tab(Kind.PAPER).aspects
        assert len(aspects) >= 2
        n = len(aspects)
        # top 1: every aspect fully; top 2: the reply leaves all but the first aspect out
        llm_server.push(
            chat_reply("{" + ", ".join(f'"{i}": 2' for i in range(1, n + 1)) + "}"),
            chat_reply('{"1": 0}'),
        )
        await pilot.press("J")
        await settle(pilot)
        t, detail = table(app), app.query_one(DetailPane)
        first, second = t.hits[0], t.hits[1]
        grades = app.search_screen.tab(Kind.PAPER).llm_grades
        assert grades == {first.docid: (2,) * n, second.docid: (0,) + (None,) * (n - 1)}
        assert "LLM judged 2 results" in status(app)
        # the prompt is DORIS-MAE's: the query, the numbered aspects, the abstract as data
        prompt = str(llm_server.requests[0].body["messages"])
        assert aspects[0].text in prompt and first.record.title in prompt
        t.move_cursor(row=0)
        await pilot.pause()
        assert "LLM judge" in detail.text
        t.move_cursor(row=1)
        await pilot.pause()
        assert "? " in detail.text  # an aspect the judge left out stays unjudged
        # re-running the same judge is served from the cache: no new request
        await pilot.press("J")
        await settle(pilot)
        assert "2 cached" in status(app)
        assert len(llm_server.requests) == 2


async def wait_for(pilot: Any, ok: Any, tries: int = 150) -> bool:
    for _ in range(tries):
        if ok():
            return True
        await pilot.pause(0.02)
    return bool(ok())


async def test_esc_stops_an_llm_rerank_in_flight(
    llm_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    """Esc dropped nothing and stopped nothing: the non-streamed call blocked in its read until
    the reply came (here 10 s; up to llm.timeout_s), the endpoint generating all along."""
    app = create_app(llm_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "neural machine translation")
        before = [h.docid for h in table(app).hits]
        slow = chat_reply("[2] > [1]")
        slow.delay_s = 10.0  # the model still generating: nothing sent yet
        llm_server.push(slow)
        await pilot.press("r")
        assert await wait_for(pilot, lambda: llm_server.requests), "no request was sent"
        # the waiting line says how to stop it (a hung endpoint holds it for llm.timeout_s)
        assert "LLM reranking" in status(app) and "(Esc stops)" in status(app)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: llm_server.hangups), "the call went on after Esc"
        assert llm_server.hangups == 1
        assert "LLM rerank cancelled" in status(app)
        assert [h.docid for h in table(app).hits] == before
        # nothing was cached: the same rerank asks the endpoint again, and it lands
        llm_server.push(chat_reply("[2] > [1]"))
        await pilot.press("r")
        await settle(pilot)
        assert len(llm_server.requests) == 2
        assert [h.docid for h in table(app).hits][:2] == [before[1], before[0]]


async def test_a_new_search_stops_an_llm_judge_in_flight(
    llm_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    app = create_app(llm_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, ASPECT_QUERY)
        slow = chat_reply('{"1": 2}')
        slow.delay_s = 10.0
        llm_server.push(slow)
        await pilot.press("J")
        assert await wait_for(pilot, lambda: llm_server.requests), "no request was sent"
        await search(pilot, "neural machine translation")
        assert await wait_for(pilot, lambda: llm_server.hangups), "the judge went on"
        assert await wait_for(
            pilot, lambda: any("LLM judge cancelled" in n.message for n in app._notifications)
        )
        assert app.search_screen.tab(Kind.PAPER).llm_grades == {}
        assert len(llm_server.requests) == 1


async def test_llm_judge_cut_at_the_output_limit_says_so(
    llm_service: LitsiftService, llm_server: ScriptedLLMServer
) -> None:
    """A judge reply cut at max_tokens left aspects ungraded and nothing said why."""
    app = create_app(llm_service)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, ASPECT_QUERY)
        llm_server.push(chat_reply('{"1": 2', finish_reason="length"), chat_reply('{"1": 1}'))
        await pilot.press("J")
        await settle(pilot)
        assert "note" in status(app), status(app)
        said = [n for n in app._notifications if n.title == "LLM"]
        assert said and said[-1].severity == "warning", said
        assert "cut at the output limit" in said[-1].message and "#1" in said[-1].message
