"""The query operators researchers type (query audit): ``-word`` / ``NOT word`` exclude,
a quoted phrase comes first, a wildcard is said, and a year range outside the store's years
says so; what a model reads of such a query (LLM rerank, judge and answer, the aspect
decomposition, "more like this") is the query without its operator syntax.

Before: ``-graphs`` searched for graphs (the opposite of what was meant), a quoted phrase was two
loose words, ``transf?rmer`` was cut into "transf" and "rmer" without a word, the LLM was asked
to rank for "... -transformer NOT bert", and ``--years 1990:1995`` on a 2021 store gave an
empty table with no word. Real home: the first 300 papers of ../shared/data (all from 2021),
the real tantivy index and encoder, the scripted chat server of tests/llm_server.py; the CLI is
the real command.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.search.retrieval.bm25 import analyzer
from litsift.search.retrieval.operators import QueryOperators, parse_operators
from litsift.service.facade import LitsiftService
from litsift.types import Hit, Kind, Label, Query, YearRange
from tests.conftest import PAPERS_GZ, SHARED_DATA
from tests.llm_server import ScriptedLLMServer, chat_reply, configured_home

DATAFINDER_TEST = SHARED_DATA / "eval" / "datafinder" / "test_data.jsonl"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, encoder: Any) -> Path:
    home = tmp_path_factory.mktemp("operators-home")
    papers = home / "papers.jsonl"
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        papers.write_text("".join(next(f) for _ in range(300)), encoding="utf-8")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, papers).ok
        svc.build_index(Kind.PAPER)
    return home


@pytest.fixture(scope="module")
def svc(home: Path, encoder: Any) -> Any:
    with LitsiftService(get_paths(home), encoder=encoder) as service:
        yield service


def _tokens(hit: Hit) -> list[str]:
    """The hit's title and abstract as BM25 reads them (stemmed)."""
    rec = hit.record
    return list(analyzer().analyze(f"{rec.title}\n{getattr(rec, 'abstract', '')}"))


def _holds(hit: Hit, *words: str) -> bool:
    toks, n = _tokens(hit), len(words)
    return any(tuple(toks[i : i + n]) == words for i in range(len(toks) - n + 1))


@pytest.mark.parametrize(
    "text", ["graph neural networks -graphs", "graph neural networks NOT graph"]
)
def test_an_excluded_word_leaves_its_hits_out(svc: LitsiftService, text: str) -> None:
    plain = svc.search(Query("graph neural networks", Kind.PAPER, k=10))
    assert sum(_holds(h, "graph") for h in plain.hits) >= 5  # the word is common here
    result = svc.search(Query(text, Kind.PAPER, k=10))
    assert len(result.hits) == 10  # the pool is deep enough to fill k
    assert not any(_holds(h, "graph") for h in result.hits)  # "-graphs" stems to "graph" too
    assert [h.rank for h in result.hits] == list(range(1, 11))
    assert result.query.text == text  # the result says what was typed
    assert result.query.exclude in (("graphs",), ("graph",))
    assert result.partial is not None and "excluded -graph" in result.partial


def test_an_excluded_phrase_leaves_out_only_the_phrase(svc: LitsiftService) -> None:
    result = svc.search(Query('knowledge -"knowledge graph"', Kind.PAPER, k=10))
    assert result.hits
    assert not any(_holds(h, "knowledg", "graph") for h in result.hits)
    assert result.partial is not None and 'excluded -"knowledge graph"' in result.partial


@pytest.mark.parametrize(
    "text", ["state-of-the-art dialogue", "BERT-base", "loss -1 -2019", "does not use labels"]
)
def test_hyphens_numbers_and_prose_exclude_nothing(svc: LitsiftService, text: str) -> None:
    assert parse_operators(text).exclude == ()
    result = svc.search(Query(text, Kind.PAPER, k=5))
    assert result.query.exclude == ()
    assert result.hits and "excluded" not in (result.partial or "")


@pytest.mark.parametrize(
    "text",
    [
        # a real title of the corpus, asked by its title (test_fulltext's known-item search)
        "Style is NOT a single variable: Case Studies for Cross-Stylistic Language Understanding",
        "methods that do NOT use labels",
        "Attention is NOT all you need",
    ],
)
def test_a_capital_not_in_a_sentence_is_emphasis(text: str) -> None:
    ops = parse_operators(text)
    assert ops.exclude == () and ops.text == text
    assert parse_operators("cancer NOT mice").exclude == ("mice",)


def test_a_query_of_many_nots_parses() -> None:
    """12,000 NOTs (96,000 characters, within the 100,000 a query keeps): each NOT split the
    whole text before it and this took 5 s (0.1 s now; a test asserts no time)."""
    ops = parse_operators("NOT ab " * 12_000)
    assert ops.exclude == ("ab",)
    assert parse_operators("is NOT " * 12_000 + "x").exclude == ()


def test_a_list_dash_before_a_sentence_excludes_nothing() -> None:
    # DataFinder's test queries (shared data): one starts with a list dash
    rows = [json.loads(line) for line in DATAFINDER_TEST.open(encoding="utf-8")]
    dashed = [r["query"] for r in rows if r["query"].startswith("-")]
    assert dashed and all(parse_operators(q).exclude == () for q in dashed)
    assert parse_operators("-We train a model on images") == QueryOperators(
        "-We train a model on images"
    )
    assert parse_operators("graph -I").exclude == ()
    assert parse_operators("-Transformer graph").exclude == ("Transformer",)


def test_a_query_of_exclusions_alone_says_what_to_do(svc: LitsiftService) -> None:
    result = svc.search(Query("-transformer NOT bert", Kind.PAPER, k=5))
    assert result.hits == ()
    assert result.partial is not None
    assert "-transformer, -bert" in result.partial and "type what to find" in result.partial


def test_a_quoted_phrase_puts_its_hits_first(svc: LitsiftService) -> None:
    result = svc.search(Query('"knowledge graph"', Kind.PAPER, k=10))
    held = [_holds(h, "knowledg", "graph") for h in result.hits]
    assert held == sorted(held, reverse=True), held  # no phrase hit below one without it
    assert sum(held) >= 9
    assert result.query.phrases == ("knowledge graph",)
    assert [h.rank for h in result.hits] == list(range(1, 11))


def test_the_retrievers_read_a_quoted_phrase_without_its_quotes(svc: LitsiftService) -> None:
    """The quotes are an operator: BM25 and the bi-encoder get the words alone. The encoder
    used to embed the quote characters with them, so a quoted query had another vector (and
    other dense scores) than the same words unquoted."""
    quoted = svc.search(Query('"knowledge graph" completion', Kind.PAPER, k=30))
    plain = svc.search(Query("knowledge graph completion", Kind.PAPER, k=30))
    assert quoted.query.phrases == ("knowledge graph",) and quoted.query.text.startswith('"')
    for signal in ("dense", "bm25"):
        was = {h.docid: h.signals[signal].score for h in plain.hits if signal in h.signals}
        now = {h.docid: h.signals[signal].score for h in quoted.hits if signal in h.signals}
        common = set(was) & set(now)
        assert len(common) >= 10, (signal, len(common))
        assert all(now[d] == pytest.approx(was[d], rel=1e-6) for d in common), signal


def test_an_unbalanced_quote_stays_a_character(svc: LitsiftService) -> None:
    result = svc.search(Query('"knowledge graph', Kind.PAPER, k=5))
    assert result.query.phrases == () and result.hits


def test_years_outside_the_store_say_so(svc: LitsiftService) -> None:
    result = svc.search(Query("machine translation", Kind.PAPER, YearRange(1990, 1995), k=5))
    assert result.hits == ()
    assert result.partial == "no papers from 1990–1995 in this store (its papers are from 2021)"
    inside = svc.search(Query("machine translation", Kind.PAPER, YearRange(2019, 2022), k=5))
    assert inside.hits and inside.partial is None


def test_cli_says_what_was_excluded_and_the_empty_years(home: Path) -> None:
    runner = CliRunner()
    base = ["--home", str(home), "search", "-k", "5"]
    out = runner.invoke(main, [*base, "--json", "--", "graph neural networks -graphs"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["query"] == "graph neural networks -graphs"
    assert "excluded -graphs" in data["partial"]
    out = runner.invoke(main, [*base, "--years", "1990:1995", "--", "machine translation"])
    assert out.exit_code == 0, out.output
    assert "note: no papers from 1990–1995 in this store (its papers are from 2021)" in out.stderr
    out = runner.invoke(main, [*base, "--years", "1990:1995", "--json", "machine translation"])
    assert json.loads(out.stdout)["partial"].startswith("no papers from 1990–1995")


# -- wildcards: not supported, said, the word kept whole ---------------------------------------


@pytest.mark.parametrize(
    ("text", "read", "said"),
    [
        ("transf?rmer", "transfrmer", "'transf?rmer' read as 'transfrmer'"),
        ("neur*l networks", "neurl networks", "'neur*l' read as 'neurl'"),
        ("token* -graph*", "token -graph", "'token*' read as 'token', 'graph*' read as 'graph'"),
    ],
)
def test_a_wildcard_is_said_and_its_word_kept_whole(
    svc: LitsiftService, text: str, read: str, said: str
) -> None:
    result = svc.search(Query(text, Kind.PAPER, k=10))
    assert result.query.text == text  # the result says what was typed
    assert result.partial is not None
    assert f"wildcards are not supported: {said} — type the whole word" in result.partial
    # searched as the word without its wildcards: not "transf" and "rmer", two words
    whole = svc.search(Query(read, Kind.PAPER, k=10))
    assert [h.docid for h in result.hits] == [h.docid for h in whole.hits]


@pytest.mark.parametrize(
    "text",
    [
        "A* search IDA* planning",  # algorithm names
        "R*-tree spatial index",
        "what is a transformer?",  # a question mark
        "*very* **bold** emphasis",
        "https://arxiv.org/abs/1706.03762?context=cs",
    ],
)
def test_names_questions_and_links_are_no_wildcards(text: str) -> None:
    ops = parse_operators(text)
    assert ops.wildcards == () and ops.text == text


def test_cli_and_json_say_a_wildcard(home: Path) -> None:
    runner = CliRunner()
    base = ["--home", str(home), "search", "-k", "3"]
    out = runner.invoke(main, [*base, "--", "transf?rmer models"])
    assert out.exit_code == 0, out.output
    note = "wildcards are not supported: 'transf?rmer' read as 'transfrmer' — type the whole word"
    assert f"note: {note}" in out.stderr
    out = runner.invoke(main, [*base, "--json", "--", "transf?rmer models"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["query"] == "transf?rmer models" and note in data["partial"]


# -- what models read of a query --------------------------------------------------------------

#: a query with every operator, and what a model should read of it
TYPED = 'graph neural networks -transformer NOT bert "message passing"'
READ = "graph neural networks message passing"


def test_models_read_the_query_without_its_operators(
    home: Path, encoder: Any, srv: ScriptedLLMServer
) -> None:
    """The TUI and ``litsift answer`` hand the query as typed to the service, which handed it
    on: the LLM ranked for "... -transformer NOT bert", the aspects held "-transformer"."""
    with configured_home(home, srv), LitsiftService(get_paths(home), encoder=encoder) as svc:
        result = svc.search(Query(TYPED, Kind.PAPER, k=5))
        assert result.query.text == TYPED and len(result.hits) >= 2
        # the offline aspect decomposition: no aspect holds an exclusion
        assert svc.aspects.decompose(TYPED) == svc.aspects.decompose(READ)
        # the LLM rerank: the text without operators, and what was excluded
        srv.push(chat_reply("[2] > [1]"))
        done = svc.llm.rerank(result.query.text, result.hits)
        assert done.report.error is None
        assert [h.docid for h in done.hits[:2]] == [result.hits[1].docid, result.hits[0].docid]
        messages = srv.requests[-1].body["messages"]
        ask, last = messages[1]["content"], messages[-1]["content"]
        assert ask.endswith(f"relevance to query: {READ}.")
        assert last.startswith(
            f"Search Query: {READ}. \n"
            'Passages about "transformer" or "bert" are not wanted: list them last. \n'
        )
        # the LLM judge of the aspects and the cited answer: the text alone
        aspects = svc.aspects.decompose(TYPED)
        srv.push(chat_reply('{"1": 2}'), chat_reply('{"1": 1}'))
        judged = svc.llm.judge_aspects(result.query.text, aspects, result.hits[:2])
        assert judged.error is None and len(srv.requests) == 3
        for request in srv.requests[1:]:
            assert f"\nQuery: {READ}\n" in request.body["messages"][1]["content"]
        srv.push(chat_reply("Message passing networks are studied [1]."))
        svc.llm.answer(result.query.text, result.hits[:2])
        assert f"Question: {READ}\nAnswer:" in srv.requests[-1].body["messages"][1]["content"]
        for request in srv.requests:
            said = [m["content"] for m in request.body["messages"]]
            assert not any("-transformer" in m or "NOT bert" in m for m in said)


def test_more_like_this_embeds_the_query_without_its_operators(svc: LitsiftService) -> None:
    """Rocchio's query vector was the encoder's reading of "... -transformer NOT bert"."""
    result = svc.search(Query(TYPED, Kind.PAPER, k=10))
    read = replace(result, query=replace(result.query, text=READ))
    keep, drop = result.hits[0].docid, result.hits[-1].docid
    svc.set_label(Kind.PAPER, keep, Label.KEEP)
    svc.set_label(Kind.PAPER, drop, Label.DISCARD)
    try:
        got, want = svc.more_like_this(result), svc.more_like_this(read)
    finally:  # the module's home serves the other tests unlabelled
        svc.set_label(Kind.PAPER, keep, None)
        svc.set_label(Kind.PAPER, drop, None)
    assert [(h.docid, h.signals["rocchio"].score) for h in got.hits] == [
        (h.docid, h.signals["rocchio"].score) for h in want.hits
    ]
