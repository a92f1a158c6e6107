"""Replies that are valid HTTP but no usable chat completion, against the real scripted server
on 127.0.0.1 (tests/llm_server.py): a reply with no text (empty, whitespace, only reasoning),
a body whose kind is not the one asked for (one JSON completion to a streamed request, events
to a plain one), and the hints of error replies (the URL posted to, a key never sent)."""

from __future__ import annotations

import pytest

from litsift.llm.answer import answer_question
from litsift.llm.client import ChatClient
from litsift.llm.errors import LLMAuthError, LLMResponseError
from litsift.llm.rerank import rerank
from litsift.types import Hit
from tests.llm_server import (
    Reply,
    ScriptedLLMServer,
    chat_client,
    chat_reply,
    reasoning_reply,
    sample_hits,
    sse_reply,
)

MESSAGES = [{"role": "user", "content": "Name one retrieval model."}]


def client(srv: ScriptedLLMServer, **kw: object) -> ChatClient:
    return chat_client(srv, **{"max_retries": 0, **kw})  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def hits() -> list[Hit]:
    return sample_hits(3)


def _reasoning_stream(thinking: str) -> Reply:
    """A streamed reply whose deltas carry only ``reasoning_content`` (vLLM's reasoning parser)."""
    events: list[object] = [
        {"choices": [{"index": 0, "delta": {"reasoning_content": thinking}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        "[DONE]",
    ]
    return Reply(sse=events)


# -- a reply with no text is an error, never an empty answer --------------------------------

EMPTY = [
    (chat_reply(""), False, "an empty reply"),
    (chat_reply("  \n "), False, "an empty reply"),
    (reasoning_reply("", "The user wants a model. BM25 is one."), False, "only its reasoning"),
    (chat_reply("<think>BM25 is one.</think>"), False, "only its reasoning"),
    (sse_reply([]), True, "an empty reply"),
    (_reasoning_stream("The user wants a model."), True, "only its reasoning"),
]


@pytest.mark.parametrize(("reply", "stream", "said"), EMPTY)
def test_a_reply_without_text_is_an_error_that_says_so(
    srv: ScriptedLLMServer, reply: Reply, stream: bool, said: str
) -> None:
    srv.push(reply)
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES, on_delta=(lambda _d: None) if stream else None)
    assert said in err.value.message and "stop" in err.value.message
    assert "llm.model" in err.value.hint


def test_an_empty_answer_is_not_shown_as_an_answer(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    """It printed an empty answer and an empty "References" and exited 0."""
    srv.push(reasoning_reply("", "Let me think about the passages."))
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        answer_question(c, "Which retrieval models exist?", hits)
    assert "only its reasoning" in err.value.message


def test_an_empty_ranking_keeps_the_order_and_says_the_rerank_failed(
    srv: ScriptedLLMServer, hits: list[Hit]
) -> None:
    """It reported "LLM reranked 3 results" with "3 ids missing" for a reply with no ids."""
    srv.push(chat_reply(""))
    with client(srv) as c:
        done = rerank(c, "retrieval", hits)
    assert done.report.error is not None and "empty reply" in done.report.error
    assert [h.docid for h in done.hits] == [h.docid for h in hits]


# -- the body is read as what the server sent -----------------------------------------------


def test_a_streamed_request_answered_with_one_json_completion_gives_its_text(
    srv: ScriptedLLMServer,
) -> None:
    """A server or proxy that ignores ``stream``: "a stream that ended before [DONE]"."""
    srv.push(
        chat_reply("<think>hm</think>BM25 [1].", usage={"prompt_tokens": 9, "completion_tokens": 3})
    )
    deltas: list[str] = []
    with client(srv) as c:
        done = c.complete(MESSAGES, on_delta=deltas.append)
    assert srv.requests[0].body["stream"] is True
    assert done.text == "BM25 [1]." and deltas == ["BM25 [1]."]
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (9, 3)


def test_a_plain_request_answered_with_events_is_read_as_a_stream(srv: ScriptedLLMServer) -> None:
    """It said "a response that is not JSON"."""
    srv.push(sse_reply(["BM25 ", "and DPR."], usage={"prompt_tokens": 5, "completion_tokens": 4}))
    with client(srv) as c:
        done = c.complete(MESSAGES)
    assert "stream" not in srv.requests[0].body
    assert done.text == "BM25 and DPR." and done.usage.completion_tokens == 4


# -- what an error reply tells the user to check --------------------------------------------


def test_not_found_names_the_url_posted_to_and_the_model(srv: ScriptedLLMServer) -> None:
    """Ollama's native API root (``/api``) as base_url: a bare 404 said only "check
    llm.base_url and llm.model", not which URL was tried."""
    srv.paths = ("/v1/chat/completions",)
    with client(srv, base_url=srv.root + "/api") as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES)
    assert "404 page not found" in err.value.message
    assert srv.root + "/api/chat/completions" in err.value.hint
    assert "/v1" in err.value.hint and "'test-model'" in err.value.hint


def test_an_error_sent_with_http_200_is_not_called_http_400(srv: ScriptedLLMServer) -> None:
    """LM Studio answers an unknown route with 200 and ``{"error": "..."}``."""
    srv.push(Reply(200, {"error": "Unexpected endpoint or method. (POST /api/chat/completions)"}))
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES)
    assert "400" not in err.value.message and "Unexpected endpoint" in err.value.message


def test_credentials_refused_when_no_key_was_sent_says_to_set_the_key_variable(
    srv: ScriptedLLMServer,
) -> None:
    """OpenRouter / OpenAI without ``api_key_env``: the hint read "check the key in
    $(llm.api_key_env unset)" and the server's own words were dropped."""
    srv.push(Reply(401, {"error": {"message": "No auth credentials found", "code": 401}}))
    with client(srv) as c, pytest.raises(LLMAuthError) as err:
        c.complete(MESSAGES)
    assert "No auth credentials found" in err.value.message
    assert "llm.api_key_env" in err.value.hint and "$(" not in err.value.hint
    assert "Authorization" not in srv.requests[0].headers
