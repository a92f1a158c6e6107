"""ChatClient against a real chat-completions server on 127.0.0.1 (JSON and SSE)."""

from __future__ import annotations

import logging
import math
import socket
import time
from pathlib import Path

import httpx
import pytest

from litsift.cache import LLMCache
from litsift.config import LLMSettings
from litsift.llm.budget import Budget
from litsift.llm.client import ChatClient
from litsift.llm.errors import (
    LLMAuthError,
    LLMBudgetError,
    LLMConnectionError,
    LLMContextOverflowError,
    LLMNotConfiguredError,
    LLMRateLimitError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
)
from litsift.llm.protocol import KeyRedactor
from tests.llm_server import Reply, ScriptedLLMServer, chat_reply, sse_reply

KEY_ENV = "LITSIFT_TEST_LLM_KEY"
SECRET = "sk-test-SECRET-7f3a9c1e55"
MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Name one retrieval model."},
]


def settings(srv: ScriptedLLMServer, **kw: object) -> LLMSettings:
    base: dict[str, object] = {
        "base_url": srv.url,
        "model": "test-model",
        "api_key_env": KEY_ENV,
        "timeout_s": 5.0,
        "max_retries": 2,
        "price_per_1k_input_usd": 0.005,
        "price_per_1k_output_usd": 0.015,
    }
    base.update(kw)
    return LLMSettings(**base)  # type: ignore[arg-type]


def client(srv: ScriptedLLMServer, cache: LLMCache | None = None, **kw: object) -> ChatClient:
    return ChatClient(
        settings(srv, **kw), cache=cache, environ={KEY_ENV: SECRET}, backoff_base_s=0.01
    )


def test_json_completion_sends_protocol_and_reads_usage(srv: ScriptedLLMServer) -> None:
    srv.push(chat_reply("BM25", usage={"prompt_tokens": 21, "completion_tokens": 2}))
    with client(srv) as c:
        done = c.complete(MESSAGES, max_tokens=50, purpose="test")
    assert done.text == "BM25" and not done.cached and done.finish_reason == "stop"
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (21, 2)
    assert not done.usage.estimated
    assert done.cost_usd == pytest.approx(21 / 1000 * 0.005 + 2 / 1000 * 0.015)
    (req,) = srv.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["Authorization"] == f"Bearer {SECRET}"
    assert req.body["model"] == "test-model"
    assert req.body["messages"] == MESSAGES
    assert req.body["max_tokens"] == 50 and req.body["temperature"] == 0.0
    assert "stream" not in req.body


def test_missing_usage_is_estimated_from_words_and_characters(srv: ScriptedLLMServer) -> None:
    reply = "dense passage retrieval with a bi-encoder"
    srv.push(chat_reply(reply))
    with client(srv) as c:
        done = c.complete(MESSAGES)
    assert done.usage.estimated
    # the larger of the two rules of thumb: words x 1.3 (8) and characters / 4 (11)
    assert done.usage.completion_tokens == max(math.ceil(6 * 1.3), math.ceil(len(reply) / 4))
    expected = sum(
        max(math.ceil(len(m["content"].split()) * 1.3), math.ceil(len(m["content"]) / 4)) + 4
        for m in MESSAGES
    )
    assert done.usage.prompt_tokens == expected


def test_sse_stream_delivers_deltas_and_usage(srv: ScriptedLLMServer) -> None:
    srv.push(
        sse_reply(
            ["Dense ", "retrieval", " works."], usage={"prompt_tokens": 9, "completion_tokens": 4}
        )
    )
    seen: list[str] = []
    with client(srv) as c:
        done = c.complete(MESSAGES, on_delta=seen.append)
    assert seen == ["Dense ", "retrieval", " works."]
    assert done.text == "Dense retrieval works."
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (9, 4)
    body = srv.requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_stream_iterator_sets_completion_when_exhausted(srv: ScriptedLLMServer) -> None:
    srv.push(sse_reply(["a", "b", "c"]))
    with client(srv) as c:
        stream = c.stream(MESSAGES)
        assert srv.requests == []  # nothing is sent before the first next()
        assert list(stream) == ["a", "b", "c"]
    assert stream.completion is not None and stream.completion.text == "abc"
    assert stream.completion.usage.estimated


def test_429_honours_retry_after(srv: ScriptedLLMServer, caplog: pytest.LogCaptureFixture) -> None:
    srv.push(
        Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"}),
        chat_reply("ok"),
    )
    caplog.set_level(logging.INFO, logger="litsift.llm")
    with client(srv) as c:
        assert c.complete(MESSAGES).text == "ok"
    assert len(srv.requests) == 2
    # backoff_base_s is 0.01, so a 1.0 s wait can only come from Retry-After
    assert "retrying in 1.0 s" in caplog.text


def test_500_then_success(srv: ScriptedLLMServer) -> None:
    srv.push(Reply(500, {"error": {"message": "boom"}}), chat_reply("recovered"))
    with client(srv) as c:
        assert c.complete(MESSAGES).text == "recovered"
    assert len(srv.requests) == 2


def test_5xx_until_retries_exhausted(srv: ScriptedLLMServer) -> None:
    srv.push(*[Reply(503, "overloaded") for _ in range(3)])
    with client(srv, max_retries=2) as c, pytest.raises(LLMServerError) as err:
        c.complete(MESSAGES)
    assert len(srv.requests) == 3
    assert "503" in err.value.message and "\n" not in err.value.message


def test_retry_after_longer_than_allowed_raises_at_once(srv: ScriptedLLMServer) -> None:
    srv.push(Reply(429, "quota", headers={"Retry-After": "3600"}))
    with client(srv) as c, pytest.raises(LLMRateLimitError) as err:
        c.complete(MESSAGES)
    assert len(srv.requests) == 1
    assert "3600" in err.value.message


def test_timeout(srv: ScriptedLLMServer) -> None:
    srv.push(Reply(body={"late": True}, delay_s=1.5))
    with client(srv, timeout_s=0.3, max_retries=0) as c, pytest.raises(LLMTimeoutError) as err:
        c.complete(MESSAGES)
    assert "0.3 s" in err.value.message and err.value.hint


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, "this is {not json"),
        Reply(200, {"choices": []}),
        Reply(200, {"choices": [{"message": {"role": "assistant", "content": None}}]}),
        Reply(sse=['{"choices": [{"delta": {"content": "x"}}]}', "{broken"]),
        Reply(sse=[{"choices": [{"delta": {"content": "cut off"}}]}]),
    ],
    ids=["not-json", "no-choices", "null-content", "bad-sse-event", "sse-without-done"],
)
def test_malformed_responses(srv: ScriptedLLMServer, reply: Reply) -> None:
    srv.push(reply)
    stream = reply.sse is not None
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES, on_delta=(lambda _d: None) if stream else None)
    assert "\n" not in err.value.message


def test_auth_error_redacts_an_echoed_key(srv: ScriptedLLMServer) -> None:
    srv.push(Reply(401, {"error": {"message": f"Incorrect API key provided: {SECRET}"}}))
    with client(srv) as c, pytest.raises(LLMAuthError) as err:
        c.complete(MESSAGES)
    assert SECRET not in str(err.value)
    assert KEY_ENV in err.value.hint


def test_missing_key_variable_sends_nothing(srv: ScriptedLLMServer) -> None:
    c = ChatClient(settings(srv), environ={})
    with c, pytest.raises(LLMAuthError) as err:
        c.complete(MESSAGES)
    assert KEY_ENV in err.value.message
    assert srv.requests == []


def test_context_overflow(srv: ScriptedLLMServer) -> None:
    msg = "This model's maximum context length is 8192 tokens. However, you requested 9000."
    srv.push(Reply(400, {"error": {"message": msg, "code": "context_length_exceeded"}}))
    with client(srv) as c, pytest.raises(LLMContextOverflowError):
        c.complete(MESSAGES)
    assert len(srv.requests) == 1


def test_other_4xx_is_a_response_error(srv: ScriptedLLMServer) -> None:
    srv.push(Reply(404, {"error": {"message": "model 'test-model' not found"}}))
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES)
    assert "not found" in err.value.message


def test_a_bare_error_status_says_there_was_no_error_text(srv: ScriptedLLMServer) -> None:
    """A 404 with an empty body read "LLM endpoint returned HTTP 404:  — check ..."."""
    srv.push(Reply(404, ""))
    with client(srv) as c, pytest.raises(LLMResponseError) as got:
        c.complete(MESSAGES)
    assert got.value.message == "LLM endpoint returned HTTP 404: (no error text)"


def test_not_configured() -> None:
    with pytest.raises(LLMNotConfiguredError):
        ChatClient(LLMSettings())


def test_connection_refused() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = LLMSettings(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=0)
    with ChatClient(cfg) as c, pytest.raises(LLMConnectionError):
        c.complete(MESSAGES)


def test_budget_refuses_before_sending(srv: ScriptedLLMServer) -> None:
    # worst case of one call: ~25 prompt tokens at $0.005/1k + 1024 output tokens at
    # $0.015/1k ≈ $0.0155; the first call really costs 0.005 + 0.0045 = $0.0095
    budget = Budget(0.02)
    srv.push(chat_reply("x", usage={"prompt_tokens": 1000, "completion_tokens": 300}))
    c = ChatClient(settings(srv), budget=budget, environ={KEY_ENV: SECRET})
    with c:
        c.complete(MESSAGES)
        assert budget.spent_usd == pytest.approx(0.005 + 0.0045)
        with pytest.raises(LLMBudgetError) as err:
            c.complete([*MESSAGES, {"role": "user", "content": "again"}])
    assert len(srv.requests) == 1
    assert "budget" in err.value.message and "budget_usd" in err.value.hint


def test_key_never_logged_nor_cached(
    srv: ScriptedLLMServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    cache = LLMCache(tmp_path / "cache" / "llm-cache.sqlite")
    srv.push(
        Reply(500, "flaky"),
        chat_reply("one", usage={"prompt_tokens": 5, "completion_tokens": 1}),
        sse_reply(["two"]),
        Reply(401, {"error": {"message": f"bad key {SECRET}"}}),
    )
    with client(srv, cache=cache) as c:
        c.complete(MESSAGES)
        c.complete(MESSAGES)  # cache hit
        c.complete(MESSAGES, max_tokens=7, on_delta=lambda _d: None)
        with pytest.raises(LLMAuthError) as err:
            c.complete(MESSAGES, max_tokens=8)
    cache.close()
    assert SECRET not in caplog.text and SECRET not in str(err.value)
    assert "retrying" in caplog.text  # the logs did run
    files = list((tmp_path / "cache").iterdir())
    assert any(f.name == "llm-cache.sqlite" for f in files)
    for f in files:
        assert SECRET.encode() not in f.read_bytes(), f.name


def test_closing_a_stream_abandons_the_request(srv: ScriptedLLMServer) -> None:
    srv.push(sse_reply(["first", "second", "third"]), chat_reply("next call works"))
    with client(srv) as c:
        stream = c.stream(MESSAGES)
        assert next(stream) == "first"
        stream.close()
        assert stream.completion is None
        with pytest.raises(StopIteration):
            next(stream)
        assert c.complete(MESSAGES, max_tokens=5).text == "next call works"


# -- hostile servers (issue 14): a total deadline, clear errors, no leaked key ------------------


@pytest.mark.parametrize(
    "reply, stream",
    [
        # the whole response, status line first, one byte a second: ~4 minutes
        (Reply(body=chat_reply("x" * 200).body, drip_s=1.0), False),
        (Reply(sse=sse_reply(["late"]).sse, drip_s=1.0), True),
        # headers at once, then an SSE comment every 0.25 s for 60 s
        (Reply(sse=sse_reply(["never"]).sse, pings=240), True),
    ],
    ids=["json-drip", "sse-drip", "sse-pings"],
)
def test_timeout_bounds_the_whole_call(srv: ScriptedLLMServer, reply: Reply, stream: bool) -> None:
    srv.push(reply)
    seen: list[str] = []
    with client(srv, timeout_s=1.5, max_retries=0) as c, pytest.raises(LLMTimeoutError) as err:
        c.complete(MESSAGES, on_delta=seen.append if stream else None)
    # the client hung up on a reply still being sent (60 s of pings, minutes of bytes left):
    # it did not wait for the server to end the call
    _wait_for_hangup(srv)
    assert "1.5 s" in err.value.message and "timeout_s" in err.value.hint
    assert seen == []


def _wait_for_hangup(srv: ScriptedLLMServer) -> None:
    """Until the server has seen the client close the connection mid-reply (its next write
    fails within a ping or a drip step); one hang-up, no retry."""
    deadline = time.monotonic() + 30  # a bound for a broken run, not a speed requirement
    while srv.hangups == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.hangups == 1, srv.hangups


def test_deadline_with_a_plain_transport_is_checked_between_chunks(
    srv: ScriptedLLMServer,
) -> None:
    # a caller's own transport (a proxy) gets no per-read clamping; the pings still end
    srv.push(Reply(sse=sse_reply(["never"]).sse, pings=240))
    cfg = settings(srv, timeout_s=1.0, max_retries=0)
    c = ChatClient(cfg, environ={KEY_ENV: SECRET}, transport=httpx.HTTPTransport())
    with c, pytest.raises(LLMTimeoutError):
        c.complete(MESSAGES, on_delta=lambda _d: None)
    _wait_for_hangup(srv)  # the 60 s of pings were not waited out


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_gzip_header_on_a_plain_body_is_a_clear_error(srv: ScriptedLLMServer, stream: bool) -> None:
    base = sse_reply(["plain"]) if stream else chat_reply("plain")
    srv.push(Reply(body=base.body, sse=base.sse, headers={"Content-Encoding": "gzip"}))
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES, on_delta=(lambda _d: None) if stream else None)
    assert err.value.message == "the endpoint sent a body that is not valid gzip"
    assert "Content-Encoding" in err.value.hint


def test_connection_closed_mid_response(srv: ScriptedLLMServer) -> None:
    srv.push(Reply(body=chat_reply("a reply cut short").body, close_after=25))
    with client(srv, max_retries=0) as c, pytest.raises(LLMConnectionError) as err:
        c.complete(MESSAGES)
    assert "closed the connection mid-response" in err.value.message
    assert "cannot reach" not in err.value.message and err.value.hint


def test_echoed_key_is_redacted_from_text_cache_and_deltas(
    srv: ScriptedLLMServer, tmp_path: Path
) -> None:
    cache = LLMCache(tmp_path / "cache" / "llm-cache.sqlite")
    half = len(SECRET) // 2
    srv.push(
        chat_reply("Your request had Authorization: $AUTHORIZATION, fine."),
        # the key split across deltas, as a model would tokenise it
        sse_reply(["You sent Bearer ", SECRET[:half], SECRET[half:-1], SECRET[-1], " ok"]),
        sse_reply(["$AUTHORIZATION"]),
    )
    seen: list[str] = []
    with client(srv, cache=cache) as c:
        echoed = c.complete(MESSAGES)
        streamed = c.complete(MESSAGES, max_tokens=9, on_delta=seen.append)
        whole = c.complete(MESSAGES, max_tokens=10, on_delta=seen.append)
        again = c.complete(MESSAGES)  # cache hit
    cache.close()
    assert srv.requests[0].headers["Authorization"] == f"Bearer {SECRET}"
    assert echoed.text == "Your request had Authorization: Bearer [redacted], fine."
    assert streamed.text == "You sent Bearer [redacted] ok"
    assert whole.text == "Bearer [redacted]" and again.text == echoed.text
    assert "".join(seen) == streamed.text + whole.text
    # no prefix of the key long enough to matter reached a delta either
    assert not any(SECRET[:6] in d for d in seen)
    for f in (tmp_path / "cache").iterdir():
        assert SECRET.encode() not in f.read_bytes(), f.name


def test_key_redactor_holds_back_a_possible_key_prefix() -> None:
    r = KeyRedactor(SECRET)
    text = f"a {SECRET} b sk-test-not-the-key {SECRET}"
    out = "".join(r.feed(ch) for ch in text) + r.flush()
    assert out == r.redact(text) == "a [redacted] b sk-test-not-the-key [redacted]"
    assert KeyRedactor("EMPTY").redact("EMPTY stays") == "EMPTY stays"  # a placeholder key
