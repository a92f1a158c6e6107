"""LLM response cache and call log: real SQLite files, real requests to a 127.0.0.1 server."""

from __future__ import annotations

from pathlib import Path

import pytest

import litsift.cache.llm_cache as llm_cache
from litsift.cache import CACHE_VERSION, CachedResponse, LLMCache, cache_key, prompt_hash
from litsift.config import LLMSettings
from litsift.llm.budget import Budget
from litsift.llm.client import ChatClient
from litsift.llm.errors import LLMBudgetError
from litsift.paths import get_paths
from tests.llm_server import ScriptedLLMServer, chat_reply, sse_reply

MESSAGES = [{"role": "user", "content": "Which datasets test multi-hop question answering?"}]


def make(srv: ScriptedLLMServer, cache: LLMCache, budget: Budget | None = None) -> ChatClient:
    cfg = LLMSettings(
        base_url=srv.url,
        model="test-model",
        max_retries=0,
        price_per_1k_input_usd=0.01,
        price_per_1k_output_usd=0.02,
    )
    return ChatClient(cfg, cache=cache, budget=budget)


def test_cache_file_lives_in_the_cache_dir(tmp_path: Path) -> None:
    paths = get_paths(tmp_path / "home")
    with LLMCache.at(paths) as cache:
        assert cache.path == paths.cache_dir / "llm-cache.sqlite"
    assert cache.path.exists()


def test_key_covers_endpoint_model_prompt_params_and_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    p = prompt_hash(MESSAGES)
    base = cache_key("http://a/v1/chat/completions", "m", p, {"max_tokens": 5})
    variants = [
        cache_key("http://b/v1/chat/completions", "m", p, {"max_tokens": 5}),
        cache_key("http://a/v1/chat/completions", "m2", p, {"max_tokens": 5}),
        cache_key("http://a/v1/chat/completions", "m", prompt_hash([{"x": 1}]), {"max_tokens": 5}),
        cache_key("http://a/v1/chat/completions", "m", p, {"max_tokens": 6}),
    ]
    monkeypatch.setattr(llm_cache, "CACHE_VERSION", CACHE_VERSION + 1)
    variants.append(cache_key("http://a/v1/chat/completions", "m", p, {"max_tokens": 5}))
    assert len({base, *variants}) == 6


def test_second_identical_call_is_a_free_cache_hit(srv: ScriptedLLMServer, tmp_path: Path) -> None:
    srv.push(chat_reply("SQuAD, HotpotQA", usage={"prompt_tokens": 100, "completion_tokens": 10}))
    with LLMCache(tmp_path / "c.sqlite") as cache, make(srv, cache) as c:
        first = c.complete(MESSAGES, purpose="answer")
        second = c.complete(MESSAGES, purpose="answer")
        totals = cache.totals()
    assert len(srv.requests) == 1
    assert not first.cached and first.cost_usd == pytest.approx(0.001 + 0.0002)
    assert second.cached and second.cost_usd == 0.0 and second.text == first.text
    assert (totals.calls, totals.cached_calls) == (2, 1)
    assert (totals.prompt_tokens, totals.completion_tokens) == (100, 10)
    assert totals.cost_usd == pytest.approx(first.cost_usd)


def test_cache_survives_reopening_and_params_change_misses(
    srv: ScriptedLLMServer, tmp_path: Path
) -> None:
    db = tmp_path / "c.sqlite"
    srv.push(chat_reply("one"), chat_reply("two"))
    with LLMCache(db) as cache, make(srv, cache) as c:
        c.complete(MESSAGES)
    with LLMCache(db) as cache, make(srv, cache) as c:
        again = c.complete(MESSAGES)
        other = c.complete(MESSAGES, max_tokens=17)
    assert again.cached and again.text == "one"
    assert not other.cached and other.text == "two"
    assert len(srv.requests) == 2


def test_stream_from_cache_delivers_the_whole_text(srv: ScriptedLLMServer, tmp_path: Path) -> None:
    srv.push(sse_reply(["Hotpot", "QA"]))
    with LLMCache(tmp_path / "c.sqlite") as cache, make(srv, cache) as c:
        c.complete(MESSAGES, on_delta=lambda _d: None)
        seen: list[str] = []
        hit = c.complete(MESSAGES, on_delta=seen.append)
    assert hit.cached and seen == ["HotpotQA"]
    assert len(srv.requests) == 1


def test_truncated_reply_is_not_cached(srv: ScriptedLLMServer, tmp_path: Path) -> None:
    srv.push(chat_reply("cut", finish_reason="length"), chat_reply("full"))
    with LLMCache(tmp_path / "c.sqlite") as cache, make(srv, cache) as c:
        assert c.complete(MESSAGES).text == "cut"
        assert c.complete(MESSAGES).text == "full"
    assert len(srv.requests) == 2


def test_use_cache_false_bypasses_it(srv: ScriptedLLMServer, tmp_path: Path) -> None:
    srv.push(chat_reply("a"), chat_reply("b"))
    with LLMCache(tmp_path / "c.sqlite") as cache, make(srv, cache) as c:
        c.complete(MESSAGES)
        assert c.complete(MESSAGES, use_cache=False).text == "b"


def test_budget_stops_new_calls_but_not_cache_hits(srv: ScriptedLLMServer, tmp_path: Path) -> None:
    # worst case of a call here: ~13 prompt tokens * $0.01/1k + 1024 output * $0.02/1k ≈ $0.0206
    budget = Budget(0.025)
    srv.push(chat_reply("x", usage={"prompt_tokens": 500, "completion_tokens": 200}))
    with LLMCache(tmp_path / "c.sqlite") as cache, make(srv, cache, budget) as c:
        c.complete(MESSAGES)  # costs 0.005 + 0.004 = $0.009
        assert budget.spent_usd == pytest.approx(0.009)
        with pytest.raises(LLMBudgetError):
            c.complete(MESSAGES, max_tokens=1024, temperature=0.5)
        assert c.complete(MESSAGES).cached  # a hit costs nothing and is always served
    assert len(srv.requests) == 1
    assert budget.remaining_usd == pytest.approx(0.016)


def test_budget_is_shared_between_clients(srv: ScriptedLLMServer, tmp_path: Path) -> None:
    budget = Budget(0.025)
    srv.push(chat_reply("x", usage={"prompt_tokens": 500, "completion_tokens": 200}))
    with LLMCache(tmp_path / "c.sqlite") as cache:
        with make(srv, cache, budget) as a:
            a.complete(MESSAGES)
        with make(srv, cache, budget) as b, pytest.raises(LLMBudgetError):
            b.complete([{"role": "user", "content": "another question"}])
    assert len(srv.requests) == 1


def test_put_get_roundtrip_and_clear(tmp_path: Path) -> None:
    with LLMCache(tmp_path / "c.sqlite") as cache:
        assert cache.get("nope") is None
        resp = CachedResponse("text", 3, 4, 0.5, "stop")
        cache.put("k", resp, endpoint="e", model="m", prompt_sha256="p", params={"t": 0})
        got = cache.get("k")
        assert got is not None
        assert (got.text, got.prompt_tokens, got.completion_tokens, got.cost_usd) == (
            "text",
            3,
            4,
            0.5,
        )
        assert got.created_at
        assert cache.clear() == 1 and cache.get("k") is None


def test_a_cached_text_holding_the_key_is_redacted_on_a_hit(
    srv: ScriptedLLMServer, tmp_path: Path
) -> None:
    # a row written before key redaction existed, by a server that echoed the header
    secret = "sk-cache-test-5b1d9e0a77"
    cfg = LLMSettings(base_url=srv.url, model="test-model", api_key_env="LITSIFT_TEST_KEY")
    with LLMCache(tmp_path / "c.sqlite") as cache:
        c = ChatClient(cfg, cache=cache, environ={"LITSIFT_TEST_KEY": secret})
        params = {"max_tokens": cfg.max_tokens, "temperature": cfg.temperature}
        psha = prompt_hash(MESSAGES)
        key = cache_key(c.endpoint, cfg.model, psha, params)
        old = CachedResponse(f"echo: Bearer {secret}", 5, 4, 0.0, "stop")
        cache.put(key, old, endpoint=c.endpoint, model=cfg.model, prompt_sha256=psha, params=params)
        seen: list[str] = []
        with c:
            hit = c.complete(MESSAGES)
            streamed = c.complete(MESSAGES, on_delta=seen.append)
    assert srv.requests == []
    assert hit.cached and hit.text == "echo: Bearer [redacted]"
    assert streamed.text == hit.text and seen == [hit.text]


def test_a_reply_the_caller_cannot_use_is_not_cached_and_a_rerun_asks_again(
    srv: ScriptedLLMServer, tmp_path: Path
) -> None:
    """A refusal or prose where verdicts or a ranking were asked for was cached, so "the same
    command asks again" replayed it from the cache forever without reaching the model."""
    srv.push(chat_reply("I cannot rank these."), chat_reply("[2] > [1]"))

    def usable(text: str) -> bool:  # a ranking was asked for
        return "[" in text

    with LLMCache(tmp_path / "c.sqlite") as cache, make(srv, cache) as c:
        assert c.complete(MESSAGES, usable=usable).text == "I cannot rank these."
        assert c.complete(MESSAGES, usable=usable).text == "[2] > [1]"  # asked again
        hit = c.complete(MESSAGES, usable=usable)  # a usable reply is cached as before
        assert hit.cached and hit.text == "[2] > [1]"
        # an unusable reply cached before (by a litsift without the check) is asked again
        key = _key_of(c)
        cache.put(key, CachedResponse("Sorry.", 1, 1, 0.0, "stop"), **_row(c))
        assert cache.get(key) is not None and cache.get(key).text == "Sorry."  # type: ignore[union-attr]
        srv.push(chat_reply("[1] > [2]"))
        assert c.complete(MESSAGES, usable=usable).text == "[1] > [2]"
    assert len(srv.requests) == 3


def _key_of(c: ChatClient) -> str:
    params = {"max_tokens": c.settings.max_tokens, "temperature": c.settings.temperature}
    return cache_key(c.endpoint, c.settings.model, prompt_hash(MESSAGES), params)


def _row(c: ChatClient) -> dict[str, object]:
    params = {"max_tokens": c.settings.max_tokens, "temperature": c.settings.temperature}
    return {
        "endpoint": c.endpoint,
        "model": c.settings.model,
        "prompt_sha256": prompt_hash(MESSAGES),
        "params": params,
    }
