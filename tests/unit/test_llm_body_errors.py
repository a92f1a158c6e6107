"""Errors sent with HTTP 200, against the real scripted server on 127.0.0.1 (tests/llm_server.py):
OpenRouter and proxies answer 200 once the model has started and put the error in the body, or
in a stream event. A transient one (rate limit, overloaded, 5xx) is retried as the same error
sent as an HTTP status is; any other (credentials, an unknown model) fails at once with its
message and hint; a stream error after text was delivered is raised, not retried, so the text
shown stays and is not written a second time."""

from __future__ import annotations

import pytest

from litsift.llm.client import ChatClient
from litsift.llm.errors import LLMAuthError, LLMRateLimitError, LLMResponseError, LLMServerError
from litsift.llm.protocol import body_error_status
from tests.llm_server import (
    Reply,
    ScriptedLLMServer,
    body_error,
    chat_client,
    chat_reply,
    sse_error_reply,
    sse_reply,
)

MESSAGES = [{"role": "user", "content": "Name one retrieval model."}]


def client(srv: ScriptedLLMServer, **kw: object) -> ChatClient:
    return chat_client(srv, **{"max_retries": 2, **kw})  # type: ignore[no-any-return]


TRANSIENT = [
    Reply(200, body_error(429, "Rate limit exceeded: free-models-per-min")),
    Reply(200, body_error("502", "Provider returned error")),
    Reply(200, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    sse_error_reply([], "server_error", "Provider disconnected unexpectedly"),
    sse_error_reply([], 429, "Rate limit exceeded"),
]
TRANSIENT_IDS = ["json-429", "json-502-text", "json-overloaded", "sse-server-error", "sse-429"]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("reply", TRANSIENT, ids=TRANSIENT_IDS)
def test_a_transient_error_in_a_200_reply_is_retried(
    srv: ScriptedLLMServer, reply: Reply, stream: bool
) -> None:
    """It failed at once as "answered with an error" (read as HTTP 400), where the same error
    sent as HTTP 429/502 is retried with backoff."""
    srv.push(reply, sse_reply(["BM25 ", "[1]."]) if stream else chat_reply("BM25 [1]."))
    deltas: list[str] = []
    with client(srv) as c:
        done = c.complete(MESSAGES, on_delta=deltas.append if stream else None)
    assert done.text == "BM25 [1]." and len(srv.requests) == 2
    if stream:
        assert "".join(deltas) == "BM25 [1]."  # the failed attempt showed nothing


def test_a_transient_error_in_a_200_body_raises_its_kind_once_retries_are_spent(
    srv: ScriptedLLMServer,
) -> None:
    srv.push(*[Reply(200, body_error(429, "Rate limit exceeded"))] * 3)
    with client(srv, max_retries=2) as c, pytest.raises(LLMRateLimitError) as err:
        c.complete(MESSAGES)
    assert len(srv.requests) == 3
    assert "rate limited" in err.value.message and "Rate limit exceeded" in err.value.message


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_credentials_refused_in_a_200_body_fail_at_once_as_an_auth_error(
    srv: ScriptedLLMServer, stream: bool
) -> None:
    """It was a response error whose hint spoke of base_url and model, not of the key."""
    bad = (
        sse_error_reply([], 401, "User not found.")
        if stream
        else Reply(200, body_error(401, "User not found."))
    )
    srv.push(bad, chat_reply("never asked for"))
    with client(srv) as c, pytest.raises(LLMAuthError) as err:
        c.complete(MESSAGES, on_delta=(lambda _d: None) if stream else None)
    assert len(srv.requests) == 1
    assert "User not found." in err.value.message and "llm.api_key_env" in err.value.hint


def test_an_unknown_model_in_a_200_body_fails_at_once_naming_the_model(
    srv: ScriptedLLMServer,
) -> None:
    srv.push(Reply(200, body_error(400, "gpt-9 is not a valid model ID")), chat_reply("never"))
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES)
    assert len(srv.requests) == 1
    assert "not a valid model ID" in err.value.message and "'test-model'" in err.value.hint


def test_a_stream_error_after_text_is_reported_not_retried(srv: ScriptedLLMServer) -> None:
    """A retry would write the answer again after the part already shown; the caller (the
    answer pane) keeps the part shown and reports the error after it."""
    srv.push(
        sse_error_reply(["BM25 is a ", "ranking function"], 502, "Provider disconnected"),
        sse_reply(["never asked for"]),
    )
    deltas: list[str] = []
    with client(srv) as c, pytest.raises(LLMServerError) as err:
        c.complete(MESSAGES, on_delta=deltas.append)
    assert len(srv.requests) == 1
    assert "".join(deltas) == "BM25 is a ranking function"
    assert "after some text" in err.value.message and "Provider disconnected" in err.value.message


def test_a_stream_error_after_text_read_as_one_reply_is_retried(srv: ScriptedLLMServer) -> None:
    """A plain request answered with events: nothing was shown, so a retry repeats nothing."""
    srv.push(sse_error_reply(["BM25 is a "], 502, "Provider disconnected"), chat_reply("BM25."))
    with client(srv) as c:
        assert c.complete(MESSAGES).text == "BM25."
    assert len(srv.requests) == 2


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (body_error(429, "x"), 429),
        (body_error("503", "x"), 503),
        (
            {
                "error": {
                    "message": "Rate limit reached for requests",
                    "code": "rate_limit_exceeded",
                }
            },
            429,
        ),
        ({"error": {"type": "overloaded_error", "message": "Overloaded"}}, 503),
        (body_error("server_error", "Provider disconnected"), 500),
        ({"error": {"type": "authentication_error", "message": "invalid x-api-key"}}, 401),
        ({"error": {"code": "insufficient_quota", "message": "You exceeded your quota"}}, 400),
        ({"error": "Unexpected endpoint or method. (POST /api/chat/completions)"}, 400),
        ({"error": {"code": True, "message": "odd"}}, 400),
    ],
)
def test_body_error_status_reads_the_code_then_the_words(body: object, status: int) -> None:
    assert body_error_status(body) == status
