"""Retries of an overloaded or rate-limited LLM endpoint, and what the command line says while
it waits: HTTP 529 (Anthropic's "overloaded") is retried as 503 is, after its ``Retry-After``
when it sends one; each wait is told (``ChatClient.on_wait``) and ``litsift answer`` and
``litsift review judge`` say it in a line on stderr, stdout left to the answer or the JSON.
Real scripted server on 127.0.0.1, real homes, the real Donners 2021 review."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.llm.errors import LLMServerError
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Kind
from litsift.types.llm import RetryWait
from tests.conftest import PAPERS_GZ, read_jsonl_gz
from tests.llm_server import Reply, ScriptedLLMServer, chat_client, chat_reply, configured_home
from tests.unit.test_screening_judge import donners, home, oracle

__all__ = ["donners", "home"]  # the fixtures: the review set, a home with review "don"

MESSAGES = [{"role": "user", "content": "Name one retrieval model."}]
#: Anthropic's body of an HTTP 529
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def _host(srv: ScriptedLLMServer) -> str:
    return srv.root.removeprefix("http://")


def test_529_is_retried_after_the_wait_it_asks_for(srv: ScriptedLLMServer) -> None:
    """Was: a 529 was "LLM endpoint returned HTTP 529" at once, the call lost (not retried)."""
    srv.push(Reply(529, OVERLOADED, headers={"Retry-After": "0.3"}), Reply(529, OVERLOADED))
    srv.push(chat_reply("BM25"))
    waits: list[RetryWait] = []
    with chat_client(srv, max_retries=3) as c:
        c.on_wait = waits.append
        assert c.complete(MESSAGES).text == "BM25"
    assert len(srv.requests) == 3
    # the first wait is the server's Retry-After, the second the backoff (0.01 * 2)
    assert waits == [
        RetryWait(_host(srv), 529, 0.3, 2, 4, asked=True),
        RetryWait(_host(srv), 529, 0.02, 3, 4, asked=False),
    ]
    assert (
        waits[0].line() == f"{_host(srv)} is overloaded (HTTP 529): waiting 0.3 s (attempt 2 of 4)"
    )


def test_529_through_every_retry_is_a_server_error(srv: ScriptedLLMServer) -> None:
    srv.push(*[Reply(529, OVERLOADED) for _ in range(3)])
    with chat_client(srv, max_retries=2) as c, pytest.raises(LLMServerError) as err:
        c.complete(MESSAGES)
    assert len(srv.requests) == 3
    assert "HTTP 529" in err.value.message and "Overloaded" in err.value.message
    assert err.value.hint


def _allow_retries(home: Path) -> None:
    """Two retries in ``home``'s config (``configured_home`` sets none)."""
    config = get_paths(home).config_file
    config.write_text(config.read_text().replace("max_retries = 0", "max_retries = 2"))


def _rate_limited() -> Reply:
    return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"})


def test_review_judge_says_each_wait_on_stderr(home: Path, srv: Any, donners: Any) -> None:
    """Was: a rate-limited run was silent for as long as the server asked it to wait."""
    srv.push(_rate_limited())
    srv.responder = oracle(donners)
    _allow_retries(home)  # the fixture's configured_home removes the file after
    got = CliRunner().invoke(
        main, ["--home", str(home), "review", "judge", "don", "--limit", "8", "--json"]
    )
    assert got.exit_code == 0, got.output
    said = f"rate limited by {_host(srv)}: waiting 1 s (attempt 2 of 3)\n"
    assert got.stderr == said  # --json: the progress lines are not written, the wait is
    assert json.loads(got.stdout)["judged"] == 8 and len(srv.requests) == 2


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with 40 real papers and their BM25 index (no dense index: no encoder needed)."""
    source = tmp_path_factory.mktemp("papers") / "papers.jsonl"
    rows = read_jsonl_gz(PAPERS_GZ)[:40]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    home = source.parent / "home"
    with LitsiftService(get_paths(home)) as svc:
        svc.ingest(Kind.PAPER, source)
        svc.build_index(Kind.PAPER, dense=False)
    return home


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_answer_says_each_wait_on_stderr(library: Path, srv: Any, as_json: bool) -> None:
    srv.push(_rate_limited(), chat_reply("Sentence similarity is benchmarked on STS [1]."))
    with configured_home(library, srv):
        _allow_retries(library)
        flags = ["--json"] if as_json else []
        got = CliRunner().invoke(
            main, ["--home", str(library), "answer", *flags, "semantic textual similarity"]
        )
    assert got.exit_code == 0, got.output
    said = f"rate limited by {_host(srv)}: waiting 1 s (attempt 2 of 3)"
    assert said in got.stderr.splitlines() and said not in got.stdout
    if as_json:
        assert json.loads(got.stdout)["answer"].startswith("Sentence similarity")
    else:
        assert got.stdout.startswith("Sentence similarity is benchmarked on STS [1].")
