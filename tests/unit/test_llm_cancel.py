"""Cancelling an LLM call in flight, against the real scripted server on 127.0.0.1: a
non-streamed reply the server is still generating (nothing sent yet), a streamed one, a retry
backoff, and the rerank and aspect judge that pass the check on. The server counts the clients
that hang up (``hangups``): a cancelled call must close its request, not wait out
``llm.timeout_s``; nothing of it is cached. Also: the aspect judge says when a reply was cut at
the output limit (``AspectJudgement.notes``)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from litsift.cache import LLMCache
from litsift.config import LLMSettings
from litsift.errors import LLMCancelledError
from litsift.llm.answer import answer_question
from litsift.llm.client import ChatClient
from litsift.llm.judge import judge_aspects
from litsift.llm.rerank import rerank
from tests.llm_server import (
    Reply,
    ScriptedLLMServer,
    chat_reply,
    llm_settings,
    sample_hits,
    sse_reply,
)

MESSAGES = [{"role": "user", "content": "Rank these."}]


def client(srv: ScriptedLLMServer, cache: LLMCache | None = None, **kw: object) -> ChatClient:
    settings: LLMSettings = llm_settings(srv, **{"timeout_s": 20.0, **kw})
    return ChatClient(settings, cache=cache, backoff_base_s=0.01)


def cancel_after(seconds: float) -> threading.Event:
    """An event another thread sets after ``seconds`` (as Esc does from the UI thread)."""
    event = threading.Event()
    threading.Timer(seconds, event.set).start()
    return event


def wait_for_hangup(srv: ScriptedLLMServer) -> int:
    for _ in range(100):
        if srv.hangups:
            break
        time.sleep(0.02)
    return srv.hangups


def test_cancel_closes_a_non_streamed_call_the_server_is_still_generating(
    srv: ScriptedLLMServer, tmp_path: Path
) -> None:
    """The old client had no way in: the blocking read waited the whole 10 s (up to
    ``llm.timeout_s``) while the endpoint went on generating."""
    cache = LLMCache(tmp_path / "llm-cache.sqlite")
    reply = chat_reply("[2] > [1]")
    reply.delay_s = 10.0
    srv.push(reply)
    stop = cancel_after(0.3)
    with client(srv, cache) as c, pytest.raises(LLMCancelledError) as err:
        c.complete(MESSAGES, purpose="rerank", cancelled=stop.is_set)
    assert "cancelled" in err.value.message
    # the server saw the client hang up: the call ended before the reply was written
    assert wait_for_hangup(srv) == 1, "the request was not closed"
    assert cache.clear() == 0, "a cancelled call left something in the cache"


def test_cancel_closes_a_streamed_call(srv: ScriptedLLMServer) -> None:
    reply = sse_reply(["word "] * 200)
    reply.drip_s = 0.002  # seconds for the whole stream
    srv.push(reply)
    stop = cancel_after(0.3)
    with client(srv) as c, pytest.raises(LLMCancelledError):
        c.complete(MESSAGES, on_delta=lambda _d: None, cancelled=stop.is_set)
    assert wait_for_hangup(srv) == 1


def test_a_call_cancelled_before_it_starts_sends_nothing(srv: ScriptedLLMServer) -> None:
    with client(srv) as c, pytest.raises(LLMCancelledError):
        c.complete(MESSAGES, cancelled=lambda: True)
    assert srv.requests == []


def test_cancel_ends_a_retry_backoff(srv: ScriptedLLMServer) -> None:
    # an hour's Retry-After: a client that slept it out would never end, not pass late
    srv.push(Reply(503, "busy", headers={"Retry-After": "3600"}))
    stop = cancel_after(0.3)
    raised: list[BaseException] = []

    def call() -> None:
        settings = llm_settings(srv, timeout_s=20.0, max_retries=2)
        with ChatClient(settings, backoff_base_s=0.01, max_wait_s=7200.0) as c:
            try:
                c.complete(MESSAGES, cancelled=stop.is_set)
            except LLMCancelledError as exc:
                raised.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(600)  # a liveness bound (the hour's wait), not a measure of speed
    assert not worker.is_alive(), "the backoff was not ended by the cancel"
    assert raised and len(srv.requests) == 1


def test_an_unset_check_changes_nothing(srv: ScriptedLLMServer) -> None:
    srv.push(chat_reply("[2] > [1]"))
    with client(srv) as c:
        assert c.complete(MESSAGES, cancelled=lambda: False).text == "[2] > [1]"


def test_rerank_and_judge_pass_the_cancel_on(srv: ScriptedLLMServer) -> None:
    """Both used to catch every LLM error as a failure; a cancel is not one: it propagates
    (the caller says "cancelled", not "failed") and the request is closed."""
    hits = sample_hits(5)
    for run in (
        lambda c, stop: rerank(c, "q", hits, cancelled=stop.is_set),
        lambda c, stop: judge_aspects(c, "q", ["a", "b"], hits, cancelled=stop.is_set),
    ):
        srv.reset()
        slow = chat_reply("{}")
        slow.delay_s = 10.0
        srv.push(slow)
        stop = cancel_after(0.3)
        with client(srv) as c, pytest.raises(LLMCancelledError):
            run(c, stop)
        assert wait_for_hangup(srv) == 1


@pytest.mark.parametrize("step", ["draft", "feedback", "judge"])
def test_an_answer_passes_the_cancel_on_to_each_of_its_calls(
    srv: ScriptedLLMServer, step: str
) -> None:
    """The answer took no cancel check: the app could stop its draft only at the next streamed
    delta, so a model still reading the prompt, and every feedback, revision or judge call,
    ran on (up to ``llm.timeout_s`` each) after the answer window was closed."""
    draft = chat_reply("BLEU rose on WMT [1].")
    slow = chat_reply("Feedback: terminate" if step == "feedback" else "[]")
    slow.delay_s = 10.0  # the model is still reading its prompt
    srv.push(*([slow] if step == "draft" else [draft, slow]))
    calls = 1 if step == "draft" else 2
    with client(srv) as c, pytest.raises(LLMCancelledError):
        answer_question(
            c,
            "How is translation evaluated?",
            sample_hits(2),
            feedback_rounds=1 if step == "feedback" else 0,
            judge=step == "judge",
            cancelled=lambda: len(srv.requests) >= calls,  # once the slow call was sent
        )
    assert wait_for_hangup(srv) == 1, "the request was not closed"
    assert len(srv.requests) == calls, "a call was sent after the cancel"


def test_judge_says_when_a_reply_was_cut_at_the_output_limit(srv: ScriptedLLMServer) -> None:
    """A cut reply left the later aspects ungraded and nothing said why."""
    hits = sample_hits(2)
    srv.push(chat_reply('{"1": 2}', finish_reason="length"), chat_reply('{"1": 1, "2": 0}'))
    with client(srv) as c:
        done = judge_aspects(c, "q", ["a", "b"], hits)
    assert done.error is None
    assert done.scores[hits[0].docid] == (2, None)
    assert len(done.notes) == 1
    assert "cut at the output limit" in done.notes[0] and "#1" in done.notes[0]
    assert "#2" not in done.notes[0]
    srv.push(chat_reply('{"1": 1, "2": 0}'))
    with client(srv) as c:
        assert judge_aspects(c, "q", ["a", "b"], hits[:1]).notes == ()
