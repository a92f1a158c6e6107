"""``litsift answer`` in a real terminal (tmux): the draft streams while the model writes, then
is erased, so the screen shows the checked answer once (it showed the draft, with the remnants
of an escape sequence split across deltas, and then the answer again), and each warning once;
a stream that fails mid-way leaves the draft read so far on the screen, marked as cut off.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from litsift.cli.common import DRAFT_CUT
from tests.llm_server import (
    Reply,
    ScriptedLLMServer,
    configured_home,
    sse_error_reply,
    sse_reply,
)
from tests.terminal.conftest import LITSIFT, Terminal, papers_file, run_litsift

#: the model's reply in deltas: an OSC 0 (set the title) split across two deltas, a citation of
#: passage 1 (sent) and of passage 99 (never sent)
DELTAS = [
    "Semantic similarity is evaluated on \x1b]0;pwned",
    "-title\x07sentence pair benchmarks [1]. ",
    *(f"Draft words {i} keep the stream going. " for i in range(12)),
    "Some claims cite nothing real [99].",
]
ANSWER = "Semantic similarity is evaluated on sentence pair benchmarks [1]."


def test_answer_on_a_terminal_streams_the_draft_then_shows_the_answer_once(
    terminal: Callable[..., Terminal], tmp_path: Path, srv: ScriptedLLMServer
) -> None:
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 40)))
    run_litsift(home, "search", "--json", "semantic textual similarity")  # builds BM25
    slow = sse_reply(DELTAS)
    srv.push(Reply(sse=slow.sse, drip_s=0.004))  # ~2,600 bytes: about 10 s of streaming
    with configured_home(home, srv):
        t = terminal(cols=120, rows=40)
        t.start(
            f"{LITSIFT} answer 'Which datasets evaluate STS now?'",
            {"LITSIFT_HOME": str(home), "LITSIFT_EMBED_CACHE_DIR": str(tmp_path / "cache")},
        )
        draft = t.wait_for("Draft words 3", timeout=120)
        assert t.exit_status() is None  # the draft is shown while the model still writes
        assert "Semantic similarity is evaluated on sentence pair" in draft
        t.wait_exit(120)
        screen = t.screen()
    assert t.exit_status() == 0, screen
    assert screen.count(ANSWER) == 1, screen  # the draft was erased, not left above the answer
    assert screen.count("Draft words 3") == 1 and screen.count("References") == 1, screen
    assert "[99]" not in screen.split("note:")[0] and "[?]" not in screen
    for remnant in ("0;pwned", "pwned-title", "␇", "␛"):
        assert remnant not in screen, screen
    assert screen.count("stripped citations") == 1, screen
    assert "note: stripped citations to passages that were never sent: [99]" in screen
    assert "pwned" not in t.title()


def test_a_stream_that_fails_mid_way_leaves_the_draft_read_so_far(
    terminal: Callable[..., Terminal], tmp_path: Path, srv: ScriptedLLMServer
) -> None:
    """Was: the draft the researcher had read was erased with the live view, leaving only the
    error (the TUI keeps it): now it stays, marked as cut off, with the error and its hint
    after it, and the command ends with status 1."""
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 40)))
    run_litsift(home, "search", "--json", "semantic textual similarity")  # builds BM25
    words = [f"\nDraft line {i} keeps the stream going." for i in range(12)]
    broken = sse_error_reply(["Semantic similarity is evaluated on benchmarks [1].", *words],
                             502, "upstream provider failed")  # fmt: skip
    srv.push(Reply(sse=broken.sse, drip_s=0.002))
    with configured_home(home, srv):
        t = terminal(cols=120, rows=40)
        t.start(
            f"{LITSIFT} answer 'Which datasets evaluate STS now?'",
            {"LITSIFT_HOME": str(home), "LITSIFT_EMBED_CACHE_DIR": str(tmp_path / "cache")},
        )
        t.wait_exit(120)
        screen = t.screen()
    assert t.exit_status() == 1, screen
    assert screen.count("Draft line 11 keeps the stream going.") == 1, screen
    assert "Semantic similarity is evaluated on benchmarks [1]." in screen
    assert screen.index("Draft line 11") < screen.index(DRAFT_CUT) < screen.index("error:")
    assert "error: LLM endpoint sent an error mid-stream, after some text" in screen, screen
    assert "upstream provider failed" in screen and "hint: the server failed" in screen
    assert "Traceback" not in screen and "References" not in screen
