"""The quirks of the servers people point litsift at, each against the real scripted server on
127.0.0.1 behaving like that server (tests/llm_server.py): URL forms (Ollama, LM Studio, vLLM
and llama.cpp want ``/v1``; Azure OpenAI a deployment URL with ``api-version`` and an
``api-key`` header), OpenAI reasoning models' refusal of ``max_tokens`` / ``temperature``,
thinking models (``<think>`` blocks, ``reasoning_content``, content null when the output limit
was spent thinking), truncated replies, and a proxy's HTML error page."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.cache import LLMCache
from litsift.config import LLMSettings
from litsift.llm.answer import answer_question
from litsift.llm.client import ChatClient
from litsift.llm.errors import LLMResponseError, LLMServerError
from litsift.llm.rerank import rerank
from litsift.types import Hit
from tests.llm_server import (
    Reply,
    ScriptedLLMServer,
    chat_reply,
    html_reply,
    reasoning_reply,
    sample_hits,
    sse_reply,
)

KEY_ENV = "LITSIFT_TEST_LLM_KEY"
SECRET = "sk-test-SECRET-7f3a9c1e55"
MESSAGES = [{"role": "user", "content": "Name one retrieval model."}]


def client(
    srv: ScriptedLLMServer,
    base_url: str | None = None,
    *,
    cache: LLMCache | None = None,
    **kw: object,
) -> ChatClient:
    base: dict[str, object] = {
        "base_url": base_url or srv.url,
        "model": "test-model",
        "api_key_env": KEY_ENV,
        "timeout_s": 5.0,
        "max_retries": 0,
    }
    base.update(kw)
    return ChatClient(
        LLMSettings(**base),  # type: ignore[arg-type]
        cache=cache,
        environ={KEY_ENV: SECRET},
        backoff_base_s=0.01,
    )


@pytest.fixture(scope="module")
def hits() -> list[Hit]:
    return sample_hits(3)


# -- where the request goes -----------------------------------------------------------------


@pytest.mark.parametrize(
    "suffix", ["", "/", "/v1", "/v1/", "/v1/chat/completions", "/v1/chat/completions/"]
)
def test_base_url_with_or_without_v1_reaches_chat_completions(
    srv: ScriptedLLMServer, suffix: str
) -> None:
    """``http://localhost:11434`` (Ollama's address as it prints it) went to
    ``/chat/completions``, a 404 on Ollama, LM Studio and vLLM."""
    srv.paths = ("/v1/chat/completions",)
    srv.push(chat_reply("ok"))
    with client(srv, srv.root + suffix) as c:
        assert c.complete(MESSAGES).text == "ok"
    assert srv.requests[0].path == "/v1/chat/completions"


@pytest.mark.parametrize("tail", ["", "/chat/completions"])
def test_azure_deployment_url_keeps_api_version_and_sends_api_key(
    srv: ScriptedLLMServer, tail: str
) -> None:
    """Azure OpenAI: the ``api-version`` query stays a query (it became part of the path) and the
    key goes in ``api-key`` (Azure answers 401 to a Bearer key)."""
    path = "/openai/deployments/gpt-4o/chat/completions"
    srv.paths, srv.key_header, srv.key = (path,), "api-key", SECRET
    srv.push(chat_reply("ok"))
    base = f"{srv.root}/openai/deployments/gpt-4o{tail}?api-version=2024-10-21"
    with client(srv, base) as c:
        assert c.complete(MESSAGES).text == "ok"
        assert "api-version" not in c.endpoint  # shown and cached without the query
    req = srv.requests[0]
    assert req.path == path + "?api-version=2024-10-21"
    assert "Authorization" not in req.headers


# -- OpenAI reasoning models (o1, o3, gpt-5) ------------------------------------------------


def test_reasoning_model_gets_max_completion_tokens_and_no_temperature(
    srv: ScriptedLLMServer,
) -> None:
    """o1/o3/gpt-5 answer 400 to ``max_tokens`` and to ``temperature`` 0: the client resends
    without them once, then remembers for the next calls."""
    srv.reject_params = ("max_tokens", "temperature")
    srv.push(chat_reply("first"), chat_reply("second"))
    with client(srv) as c:
        assert c.complete(MESSAGES, max_tokens=50).text == "first"
        assert c.complete(MESSAGES, max_tokens=60).text == "second"
    assert len(srv.requests) == 4  # 2 refused, then 2 accepted
    last = srv.requests[-1].body
    assert last["max_completion_tokens"] == 60
    assert "max_tokens" not in last and "temperature" not in last


def test_stream_options_refused_by_an_older_server_is_dropped(srv: ScriptedLLMServer) -> None:
    srv.reject_params = ("stream_options",)
    srv.push(sse_reply(["a", "b"]))
    got: list[str] = []
    with client(srv) as c:
        assert c.complete(MESSAGES, on_delta=got.append).text == "ab"
    assert "stream_options" not in srv.requests[-1].body and got == ["a", "b"]


def test_an_unsupported_parameter_we_cannot_drop_is_an_error_with_a_hint(
    srv: ScriptedLLMServer,
) -> None:
    srv.reject_params = ("model",)
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES)
    assert len(srv.requests) == 1 and "model" in err.value.message and err.value.hint


# -- thinking models --------------------------------------------------------------------------

THINKING = '<think>\nThe user wants [3] first? No: [3] is off topic, {"1": 0}.\n</think>\n\n'


def test_think_block_before_the_answer_is_removed(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    """Qwen3 / DeepSeek-R1 served without a reasoning parser put ``<think>…</think>`` in
    ``content``: the ids in the thinking were read as the ranking."""
    srv.push(chat_reply(THINKING + "[2] > [1] > [3]"))
    with client(srv) as c:
        done = rerank(c, "query", hits)
    assert done.report.error is None
    assert [h.docid for h in done.hits] == [hits[1].docid, hits[0].docid, hits[2].docid]


def test_streamed_think_block_is_removed_across_deltas(srv: ScriptedLLMServer) -> None:
    srv.push(sse_reply(["<th", "ink>plan: cite [9]", "…</thi", "nk>\n", "Dense", " retrieval."]))
    got: list[str] = []
    with client(srv) as c:
        done = c.complete(MESSAGES, on_delta=got.append)
    assert done.text == "Dense retrieval." and "".join(got) == "Dense retrieval."


def test_reasoning_content_beside_the_answer_is_not_shown(srv: ScriptedLLMServer) -> None:
    srv.push(reasoning_reply("[2] > [1]", "[1] seems weaker"))
    with client(srv) as c:
        assert c.complete(MESSAGES).text == "[2] > [1]"


@pytest.mark.parametrize(
    "reply",
    [
        reasoning_reply(None, "Let me weigh each passage…", finish_reason="length"),
        reasoning_reply("", "Let me weigh…", finish_reason="length", field="reasoning"),
        chat_reply("<think>Let me weigh each passage and", finish_reason="length"),
    ],
    ids=["deepseek-null", "ollama-empty", "unclosed-think"],
)
def test_output_limit_spent_thinking_says_so(srv: ScriptedLLMServer, reply: Reply) -> None:
    """A thinking model that used all its tokens reasoning sent no answer: that was "a message
    without text content — check that llm.base_url is ... /v1" (or, for rerank, a silent
    "ids missing")."""
    srv.push(reply)
    with client(srv, max_tokens=64) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES)
    assert "reasoning" in err.value.message and "64" in err.value.message
    assert "llm.max_tokens" in err.value.hint


def test_null_content_names_the_finish_reason(srv: ScriptedLLMServer) -> None:
    srv.push(chat_reply("", finish_reason="content_filter"))
    srv.queue[-1].body["choices"][0]["message"]["content"] = None
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES)
    assert "content_filter" in err.value.message


def test_rerank_asks_for_at_least_llm_max_tokens(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    """Rerank asked for 8 tokens per id + 32 (56 for 3): a thinking model never got to answer,
    whatever llm.max_tokens said."""
    srv.push(chat_reply("[1] > [2] > [3]"))
    with client(srv, max_tokens=2048) as c:
        rerank(c, "query", hits)
    assert srv.requests[0].body["max_tokens"] == 2048


# -- truncated replies --------------------------------------------------------------------------


def test_truncated_answer_says_it_was_cut(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    srv.push(chat_reply("Dense retrievers help [1]. They also", finish_reason="length"))
    with client(srv, max_tokens=40) as c:
        ans = answer_question(c, "What helps?", hits)
    assert any("cut" in n and "llm.max_tokens" in n for n in ans.notes), ans.notes


def test_truncated_rerank_says_it_was_cut(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    srv.push(chat_reply("[3] > [1] >", finish_reason="length"))
    with client(srv) as c:
        done = rerank(c, "query", hits)
    assert any("cut" in n for n in done.report.notes), done.report.notes


def test_a_cut_or_failed_reply_is_not_cached(srv: ScriptedLLMServer, tmp_path: Path) -> None:
    cache = LLMCache(tmp_path / "llm.sqlite")
    srv.push(
        reasoning_reply(None, "hmm", finish_reason="length"),
        html_reply(502),
        chat_reply("fine"),
    )
    with client(srv, cache=cache) as c:
        for _ in range(2):
            with pytest.raises((LLMResponseError, LLMServerError)):
                c.complete(MESSAGES)
        assert c.complete(MESSAGES).text == "fine"
        assert c.complete(MESSAGES).cached
    assert len(srv.requests) == 3


# -- proxies ----------------------------------------------------------------------------------


def test_html_error_page_from_a_proxy_is_one_readable_line(srv: ScriptedLLMServer) -> None:
    srv.push(html_reply(502))
    with client(srv) as c, pytest.raises(LLMServerError) as err:
        c.complete(MESSAGES)
    assert err.value.message == "LLM endpoint returned HTTP 502: 502 Bad Gateway"


def test_html_page_with_200_points_at_base_url(srv: ScriptedLLMServer) -> None:
    """A base_url that is a web UI (Open WebUI on :3000, a login page) answers 200 HTML."""
    srv.push(html_reply(200, "<!doctype html><html><head><title>Open WebUI</title></head></html>"))
    with client(srv) as c, pytest.raises(LLMResponseError) as err:
        c.complete(MESSAGES)
    assert "HTML page" in err.value.message and "Open WebUI" in err.value.message
    assert "base_url" in err.value.hint
