"""Listwise rerank (RankGPT) of real papers against a real chat-completions server."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.cache import LLMCache
from litsift.llm.client import ChatClient
from litsift.llm.prompts import DATA_NOTE
from litsift.llm.rerank import document_text, parse_permutation, rerank, sliding_windows
from litsift.types import Dataset, Hit
from tests.llm_server import Reply, ScriptedLLMServer, chat_reply, llm_settings, sample_hits

QUERY = "unsupervised word alignment with transformers"


@pytest.fixture(scope="module")
def hits() -> list[Hit]:
    return sample_hits(12)


def make(srv: ScriptedLLMServer, cache: LLMCache | None = None, **kw: object) -> ChatClient:
    return ChatClient(llm_settings(srv, **kw), cache=cache, backoff_base_s=0.01)


@pytest.mark.parametrize(
    ("reply", "n", "order", "dups", "bad", "missing"),
    [
        ("[3] > [1] > [2]", 3, (2, 0, 1), (), (), ()),
        ("[2] > [2] > [1] > [3]", 3, (1, 0, 2), (2,), (), ()),
        ("[4] > [9] > [1]", 4, (3, 0, 1, 2), (), (9,), (2, 3)),
        ("The ranking is: [ 2 ] > [0] > [3]", 3, (1, 2, 0), (), (0,), (1,)),
        ("3 > 1 > 2", 3, (2, 0, 1), (), (), ()),
        ("I cannot rank these.", 3, (0, 1, 2), (), (), (1, 2, 3)),
        ("[2]>[1]\n\nExplanation: passage 3 is about 2019 work.", 3, (1, 0, 2), (), (), (3,)),
        # the ids named while explaining came first: [3] then [1] (and "repeated ids [1] [3]")
        ("Passage [3] is best; [1] less so. Ranking: [2] > [3] > [1]", 3, (1, 2, 0), (), (), ()),
        ('```json\n{"ranking": [2, 3, 1]}\n```\nRanked on 3 criteria.', 3, (1, 2, 0), (), (), ()),
        ("[2], [3], [1]: scores 0.9 > 0.5", 3, (1, 2, 0), (), (), ()),
    ],
    ids=[
        "clean",
        "duplicate",
        "out-of-range+missing",
        "prose+zero",
        "bare",
        "none",
        "explain",
        "explain-first",
        "json-fence",
        "prose-comparison",
    ],
)
def test_parse_permutation(
    reply: str,
    n: int,
    order: tuple[int, ...],
    dups: tuple[int, ...],
    bad: tuple[int, ...],
    missing: tuple[int, ...],
) -> None:
    perm = parse_permutation(reply, n)
    assert perm.order == order
    assert sorted(perm.order) == list(range(n))
    assert (perm.duplicates, perm.out_of_range, perm.missing) == (dups, bad, missing)


def test_sliding_windows_cover_the_top() -> None:
    w = sliding_windows(100, 20, 10)
    assert w[0] == (80, 100) and w[-1] == (0, 20) and len(w) == 9
    # RankGPT's loop would stop at start=5 and never rank the top 5
    assert sliding_windows(25, 20, 10) == [(5, 25), (0, 20)]
    assert sliding_windows(10, 20, 10) == [(0, 10)]


def test_document_text_is_cut_to_the_word_budget(hits: list[Hit]) -> None:
    text = document_text(hits[0].record, 30)
    assert text.startswith(f"Title: {hits[0].record.title}")
    assert len(text.split()) == 30
    ds = Dataset(id="SQuAD", variants=("SQuAD1.1",), description="Reading comprehension.")
    assert (
        document_text(ds) == "Dataset: SQuAD (also: SQuAD1.1). Description: Reading comprehension."
    )


def test_one_prompt_rerank_reorders_and_renumbers(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    srv.push(chat_reply("[3] > [1] > [5] > [2] > [4]"))
    with make(srv) as c:
        result = rerank(c, QUERY, hits, top_n=5, doc_words=50)
    assert result.report.ok and result.report.windows == 1 and result.report.reranked == 5
    ids = [h.docid for h in result.hits]
    assert ids[:5] == [hits[i].docid for i in (2, 0, 4, 1, 3)]
    assert ids[5:] == [h.docid for h in hits[5:]]
    assert [h.rank for h in result.hits] == list(range(1, len(hits) + 1))
    # the RankGPT prompt: system, instruction, ack, 5 x (passage, ack), final ask
    msgs = srv.requests[0].body["messages"]
    assert len(msgs) == 3 + 2 * 5 + 1
    assert DATA_NOTE in msgs[0]["content"]
    assert msgs[3]["content"].startswith("[1] <passage>Title: ")
    assert hits[0].record.title in msgs[3]["content"]
    assert len(msgs[3]["content"].split()) <= 50 + 1
    assert QUERY in msgs[-1]["content"] and "[1] > [2]" in msgs[-1]["content"]
    assert srv.requests[0].body["temperature"] == 0.0


def test_messy_reply_is_repaired_and_reported(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    srv.push(chat_reply("Sure! [2] > [2] > [9] > [1]"))
    with make(srv) as c:
        result = rerank(c, QUERY, hits[:3])
    assert [h.docid for h in result.hits] == [hits[i].docid for i in (1, 0, 2)]
    notes = " | ".join(result.report.notes)
    assert "repeated ids ignored: [2]" in notes
    assert "out-of-range ids ignored: [9]" in notes
    assert "1 ids missing" in notes


def test_sliding_windows_bubble_up(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    # 6 candidates, window 4, step 2 -> windows (3-6) then (1-4); each reply reverses its window
    srv.push(chat_reply("[4] > [3] > [2] > [1]"), chat_reply("[4] > [3] > [2] > [1]"))
    with make(srv) as c:
        result = rerank(c, QUERY, hits[:6], window=4, step=2, doc_words=40, context_tokens=200)
    assert result.report.ok and result.report.windows == 2
    # window (2,6): [2,3,4,5] -> [5,4,3,2]; order 0 1 5 4 3 2; window (0,4): [0,1,5,4] -> [4,5,1,0]
    assert [h.docid for h in result.hits] == [hits[i].docid for i in (4, 5, 1, 0, 3, 2)]
    second = srv.requests[1].body["messages"]
    titles = [m["content"] for m in second[3:-1:2]]
    for shown, i in zip(titles, (0, 1, 5, 4), strict=True):
        assert hits[i].record.title in shown


def test_failed_call_keeps_original_order(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    srv.push(Reply(500, {"error": {"message": "model crashed"}}))
    with make(srv) as c:
        result = rerank(c, QUERY, hits)
    assert [h.docid for h in result.hits] == [h.docid for h in hits]
    assert not result.report.ok
    assert result.report.error is not None
    assert result.report.error.startswith("rerank failed: ")
    assert "model crashed" in result.report.error


def test_context_overflow_falls_back_to_windows(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    srv.push(
        Reply(400, {"error": {"message": "maximum context length is 512 tokens"}}),
        chat_reply("[1] > [2] > [3] > [4]"),
        chat_reply("[2] > [1] > [3] > [4]"),
    )
    with make(srv) as c:
        result = rerank(c, QUERY, hits[:6], window=4, step=2, context_tokens=100_000)
    assert result.report.ok and len(srv.requests) == 3
    assert any("context overflow" in n for n in result.report.notes)
    assert [h.docid for h in result.hits][:2] == [hits[1].docid, hits[0].docid]


def test_rerun_is_served_from_cache(
    srv: ScriptedLLMServer, hits: list[Hit], tmp_path: Path
) -> None:
    srv.push(chat_reply("[2] > [1] > [3]", usage={"prompt_tokens": 400, "completion_tokens": 9}))
    with LLMCache(tmp_path / "c.sqlite") as cache, make(srv, cache) as c:
        first = rerank(c, QUERY, hits[:3])
        second = rerank(c, QUERY, hits[:3])
    assert len(srv.requests) == 1
    assert not first.report.cached and first.report.stats.prompt_tokens == 400
    assert second.report.cached and second.report.stats.cost_usd == 0.0
    assert [h.docid for h in first.hits] == [h.docid for h in second.hits]


def test_budget_error_is_reported_not_raised(srv: ScriptedLLMServer, hits: list[Hit]) -> None:
    with make(srv, budget_usd=0.0001, price_per_1k_output_usd=1.0) as c:
        result = rerank(c, QUERY, hits[:4])
    assert srv.requests == []
    assert result.report.error is not None and "budget" in result.report.error
    assert [h.docid for h in result.hits] == [h.docid for h in hits[:4]]


def test_ranking_after_an_explanation_is_the_one_used(
    srv: ScriptedLLMServer, hits: list[Hit]
) -> None:
    """A model that explains before ranking: the ids it named while explaining were taken as
    its ranking ([3] first) and its real ranking reported as "repeated ids"."""
    srv.push(chat_reply("Passage [3] covers it; [1] is weaker.\n\nRanking: [2] > [3] > [1]"))
    with make(srv) as c:
        result = rerank(c, QUERY, hits[:3])
    assert [h.docid for h in result.hits] == [hits[i].docid for i in (1, 2, 0)]
    assert result.report.error is None and result.report.notes == ()


def test_a_reply_that_ranks_nothing_is_a_failed_rerank(
    srv: ScriptedLLMServer, hits: list[Hit]
) -> None:
    """It was reported as "LLM reranked 3 results" with a note "3 ids missing"."""
    srv.push(chat_reply("I'm sorry, I cannot rank these passages."))
    with make(srv) as c:
        result = rerank(c, QUERY, hits[:3])
    assert [h.docid for h in result.hits] == [h.docid for h in hits[:3]]
    error = result.report.error or ""
    assert "named none of the 3 candidates" in error and "cannot rank" in error


def test_a_rerank_that_ranked_nothing_asks_the_model_again(
    srv: ScriptedLLMServer, hits: list[Hit], tmp_path: Path
) -> None:
    """The refusal was cached: pressing r again replayed the failure without a request."""
    srv.push(chat_reply("I'm sorry, I cannot rank these passages."), chat_reply("[3] > [1] > [2]"))
    with LLMCache(tmp_path / "c.sqlite") as cache, make(srv, cache) as c:
        failed = rerank(c, QUERY, hits[:3])
        again = rerank(c, QUERY, hits[:3])
    assert failed.report.error is not None and len(srv.requests) == 2
    assert again.report.error is None
    assert [h.docid for h in again.hits] == [hits[i].docid for i in (2, 0, 1)]
