"""litsift in a real terminal (tmux): what a person does first, checked on the screen they see.

Each test failed on the code before issue 45's fixes: in a terminal the embedding pool could not
start inside Textual (``ValueError: bad value(s) in fds_to_keep``) and every search stayed
``BM25 only``; Ctrl+Q during a build took 6-10 s; Ctrl-C in ``litsift index`` printed a bare
``Aborted!`` and kept nothing.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA
from tests.llm_server import Reply, ScriptedLLMServer, chat_reply, configured_home
from tests.terminal.conftest import LITSIFT, Terminal, papers_file, run_litsift

#: a status line of a result answered by both retrievers (no "BM25 only" on screen)
RESULTS = re.compile(r"\b\d+ results? · ")


def _env(home: Path, cache: Path, **more: str) -> dict[str, str]:
    """The pane's environment: this home, an embedding cache of the test's own (so vectors are
    really embedded, by the worker processes), two embedding workers as on a laptop."""
    return {
        "LITSIFT_HOME": str(home),
        "LITSIFT_EMBED_CACHE_DIR": str(cache),
        "LITSIFT_EMBED_WORKERS": "2",
        **more,
    }


def _no_error(screen: str) -> str:
    assert "unexpected error" not in screen and "✖" not in screen, screen
    return screen


def _hybrid(screen: str) -> bool:
    _no_error(screen)
    return RESULTS.search(screen) is not None and "BM25 only" not in screen


def test_a_fresh_ingest_turns_hybrid_in_the_app_without_litsift_index(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    """ingest -> litsift: the app builds BM25, embeds the dense index with its worker processes
    (300 papers > the pool's minimum batch) and the results turn hybrid by themselves."""
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 300)))
    t = terminal()
    t.start(LITSIFT, _env(home, tmp_path / "cache"))
    t.wait_for("Search: a full sentence or keyphrases", timeout=30)
    t.type("neural machine translation")
    screen = t.wait_for(_hybrid, timeout=180)
    assert "neural machine translation" in screen
    t.keys("C-q")
    t.wait_exit(10)
    assert t.exit_status() == 0
    config = run_litsift(home, "config")
    assert '"embedded": 300' in config, config
    log = Path(re.search(r'"log_file": "([^"]+)"', config).group(1))  # type: ignore[union-attr]
    assert "Traceback" not in (log.read_text() if log.exists() else "")


def test_query_down_and_plus_keep_the_first_hit(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    """A query typed over an old one, Down and + in one burst: the first hit of exactly that
    query is kept (the same paper `litsift search` puts first), not the old results' row under
    the cursor when Down arrived."""
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 120)))
    cache = Path(os.environ.get("LITSIFT_TEST_EMBED_CACHE") or tmp_path / "cache")
    run_litsift(home, "index", "--quiet", env={"LITSIFT_EMBED_CACHE_DIR": str(cache)})
    t = terminal()
    t.start(LITSIFT, _env(home, cache))
    t.wait_for("Search: a full sentence or keyphrases", timeout=30)
    t.type("speech translation")
    old = re.compile(r"▊  speech translation +▎")
    t.wait_for(lambda s: _hybrid(s) and old.search(s) is not None, timeout=60)
    # one burst: editing keys act in the order typed (Textual #6605: Ctrl+A Ctrl+K ran after
    # the words behind them and left an empty query or its tail, the Backspace after the "s");
    # Down and + arrive before the new query's results: the table holds + for them
    t.burst("C-a", "C-k", "graph neural networkz", "BSpace", "s", "Down", "+")
    typed = re.compile(r"▊  graph neural networks +▎")
    labelled = t.wait_for(
        lambda s: "Label: keep" in _no_error(s) and typed.search(s) is not None, timeout=30
    )
    assert "BM25 only" not in labelled  # the new query's rows, from both retrievers
    # n opens the note editor; the letters behind it are the note's once it has the focus
    # (they ran as the table's m / x / y on the kept paper before)
    t.burst("n", "xm mixed", "C-s")
    t.wait_for(lambda s: "note saved" in _no_error(s), timeout=10)
    # Up on the first row hands the focus back while the key is handled: the "m" typed right
    # behind it is the query's, not the table's "maybe"
    t.burst("Up", "m")
    t.wait_for(r"▊  graph neural networksm +▎", timeout=10)
    t.keys("C-q")
    t.wait_exit(10)
    for label in ("maybe", "discarded"):
        with pytest.raises(AssertionError, match=f"no papers labelled '{label}'"):
            run_litsift(home, "export", label, "--format", "markdown")
    kept = run_litsift(home, "export", "kept", "--format", "markdown")
    assert kept.count("\n- ") + kept.startswith("- ") == 1, kept  # exactly one paper kept
    first = run_litsift(home, "search", "graph neural networks", "--json", "-k", "1")
    assert first.strip() and first.split('"title": "')[1].split('"')[0][:40] in kept


def test_ctrl_q_during_a_build_returns_to_the_shell_within_2_s(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 1500)))
    t = terminal()
    t.start(LITSIFT, _env(home, tmp_path / "cache"))
    building = re.compile(r"building dense (?:[1-9][\d,]*/|[1-9]\d*%)")  # 64/900 or 4%
    t.wait_for(lambda s: building.search(_no_error(s)) is not None, 120)
    t.keys("C-q")
    seconds = t.wait_exit(2.0)
    assert t.exit_status() == 0, f"exit status {t.exit_status()} after {seconds:.2f} s"
    vectors = _cached_vectors(tmp_path / "cache")
    assert vectors > 0  # what was embedded before the stop is kept for the next start


def test_litsift_demo_up_to_its_first_results(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    """``litsift demo`` on a fresh home: ingests the sample corpus, builds BM25, opens the app;
    a query gets results at once (BM25 while the dense index embeds), Ctrl+Q leaves at once."""
    t = terminal()
    env = _env(tmp_path / "home", tmp_path / "cache")
    t.start(f"{LITSIFT} demo --data {SHARED_DATA}", env)
    t.wait_for("Search: a full sentence or keyphrases", timeout=240)
    t.type("question answering over tables")
    screen = t.wait_for(lambda s: RESULTS.search(_no_error(s)) is not None, timeout=60)
    assert "19,6" in screen  # "store: 19,6xx papers, 3,3xx datasets"
    t.keys("C-q")  # while the dense index embeds and the first results' aspects are scored
    t.wait_exit(2.0)
    assert t.exit_status() == 0


def test_ctrl_c_in_litsift_index_keeps_what_was_embedded_and_the_next_run_finishes(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    home, cache = tmp_path / "home", tmp_path / "cache"
    home.mkdir()  # the sentences' phase after the vectors is other tests' subject
    (home / "config.toml").write_text('[search]\nsentence_phase = "none"\n')
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 400, start=3000)))
    t = terminal()
    t.start(f"{LITSIFT} index papers", _env(home, cache))
    t.wait_for(r"embed .* ([1-9]\d{2,})/400", timeout=120)  # >= 100 vectors embedded
    t.keys("C-c")
    seconds = t.wait_exit(2.0)
    screen = t.screen()
    assert t.exit_status() == 130, f"{t.exit_status()} after {seconds:.2f} s:\n{screen}"
    assert "Aborted!" not in screen and "Traceback" not in screen
    kept = re.search(r"papers: BM25 searchable; ([\d,]+) of 400 vectors done, kept", screen)
    assert kept is not None, screen
    assert "run `litsift index` again" in screen
    done = int(kept.group(1).replace(",", ""))
    assert 64 <= _cached_vectors(cache) and done >= 64
    run_litsift(home, "index", "papers", "--quiet", env={"LITSIFT_EMBED_CACHE_DIR": str(cache)})
    assert '"embedded": 400' in run_litsift(home, "config")


def _cached_vectors(cache: Path) -> int:
    """Vectors in an embedding cache directory (litsift.cache.embeddings)."""
    path = cache / "embeddings.sqlite"
    if not path.exists():
        pytest.fail(f"no embedding cache at {path}")
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM passages").fetchone()[0])


def test_review_screen_learns_in_the_default_order_and_q_returns_to_the_shell(
    terminal: Callable[..., Terminal], tmp_path: Path, encoder: object
) -> None:
    """A real review (Donners 2021: 258 records with references, 257 once its one duplicate
    is grouped) screened in the terminal: the records' bge vectors are fetched in the
    background (from the session's seeded cache, so this test embeds nothing) and the
    next retraining runs the default order (TF-IDF, bge's vectors, the nearest include, the
    label-spreading graph, the citation signal); the decisions typed are stored; F1 lists this
    screen's keys; ``q`` returns to the shell."""
    from litsift.review.learner import DEFAULT_ORDER

    donners = SHARED_DATA / "eval" / "screening" / "Donners_2021.jsonl.gz"
    home = tmp_path / "home"
    # the session's cache (the encoder fixture's), which holds bge's vectors of Donners from the
    # committed seed (tests/embed_seed.py): the background embedding finds them there
    cache = Path(os.environ["LITSIFT_EMBED_CACHE_DIR"])
    run_litsift(home, "review", "new", "donners", "--from", str(donners), "--labels", "none")
    t = terminal()
    t.start(f"{LITSIFT} review screen donners", _env(home, cache))
    t.wait_for(r"screened 0 of 257", timeout=60)
    for key in ("i", "x", "i", "x", "x"):
        t.keys(key)
    screen = t.wait_for(
        lambda s: _no_error(s) is not None and f"order: {DEFAULT_ORDER} + citations" in s,
        timeout=180,
    )
    assert re.search(r"screened \d+ of 257", screen), screen
    t.keys("F1")  # the keys of this screen, not the search screen's
    helped = t.wait_for(r"Exclude with the review's reason", timeout=10)
    assert "i / y / +" in helped and "Label keep" not in helped, helped
    t.keys("Escape")
    t.wait_for(lambda s: "Exclude with the review's reason" not in s, timeout=10)
    t.keys("q")
    t.wait_exit(10)
    assert t.exit_status() == 0
    shown = run_litsift(home, "review", "show", "donners")
    assert re.search(r"includ\w*\D+2\b", shown) and re.search(r"exclu\w*\D+3\b", shown), shown


def test_review_keys_typed_in_a_burst_land_on_their_records(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    """A reviewer's burst in a real terminal: ``x2`` excludes the record on screen without a
    reason and the next with reason 2 (the digit ran first and put the reason on the first
    record); ``n``, a note, Enter, ``i`` stores the note and includes that record (the note's
    letters were lost, or ran as decisions)."""
    donners = SHARED_DATA / "eval" / "screening" / "Donners_2021.jsonl.gz"
    home = tmp_path / "home"
    run_litsift(
        home, "review", "new", "don", "--from", str(donners), "--labels", "none",
        "--reasons", "wrong population,wrong design",
    )  # fmt: skip
    t = terminal()
    t.start(f"{LITSIFT} review screen don", _env(home, tmp_path / "cache"))
    t.wait_for(r"screened 0 of 257", timeout=60)
    t.burst("x", "2")
    t.wait_for(lambda s: "screened 2 of 257" in _no_error(s), timeout=30)
    t.burst("n", "fast note", "Enter", "i")
    t.wait_for(lambda s: "screened 3 of 257" in _no_error(s), timeout=30)
    t.keys("q")
    t.wait_exit(10)
    out = run_litsift(home, "review", "export", "don", "--format", "decisions")
    rows = [r for r in map(json.loads, out.splitlines()[1:]) if "decision" in r]  # notes aside
    assert [(r["decision"], r["reason"]) for r in rows] == [
        ("exclude", ""),
        ("exclude", "wrong design"),
        ("include", ""),
    ], out
    table = csv.DictReader(io.StringIO(run_litsift(home, "review", "export", "don")))
    notes = {r["id"]: r["note"] for r in table if r["note"]}
    assert notes == {rows[2]["doc_id"]: "fast note"}, notes


@pytest.mark.parametrize("stop", ["C-q", "SIGTERM"])
def test_quitting_while_an_llm_call_waits_returns_to_the_shell_at_once(
    terminal: Callable[..., Terminal], tmp_path: Path, srv: ScriptedLLMServer, stop: str
) -> None:
    """An LLM rerank is in flight (the endpoint answers after 90 s) and the researcher quits:
    the app's screen went at once but the process sat on a blank terminal until the call timed
    out (58.7 s with the default timeout). Now the call is left behind and the shell is back.
    A SIGTERM (a closing terminal emulator, ``kill``) takes the same way out, then the process
    dies by the signal without the atexit functions that could wait for the stuck call's
    thread: the terminal is given back and a calling shell sees "killed by SIGTERM"."""
    home = tmp_path / "home"
    run_litsift(home, "ingest", "papers", str(papers_file(tmp_path, 60)))
    run_litsift(home, "index")
    srv.push(Reply(body=chat_reply("[2] > [1]").body, delay_s=90.0))
    pid_file = tmp_path / "litsift.pid"
    with configured_home(home, srv):
        t = terminal()
        # the shell writes its pid, then becomes litsift (exec): that pid is the app's
        line = shlex.quote(f"echo $$ > {shlex.quote(str(pid_file))}; exec {LITSIFT}")
        t.start(f"sh -c {line}", _env(home, tmp_path / "cache"))
        t.wait_for("Search: a full sentence or keyphrases", timeout=30)
        t.type("neural machine translation")
        t.wait_for(_hybrid, timeout=120)
        t.keys("Down", "r")
        t.wait_for(lambda s: "reranking" in _no_error(s), timeout=30)
        for _ in range(100):  # the call reaches the endpoint, its answer 90 s away
            if srv.requests:
                break
            time.sleep(0.1)
        assert len(srv.requests) == 1, t.screen()
        if stop == "C-q":
            t.keys("C-q")
        else:
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
        t.wait_exit(20.0)  # far below the endpoint's 90 s: the call is not waited for
    assert t.exit_status() == (0 if stop == "C-q" else 128 + signal.SIGTERM)
    time.sleep(0.2)
    assert t.mode("alternate_on") == "0" and t.mode("mouse_any_flag") == "0"
    assert "Traceback" not in t.screen()


def test_ctrl_c_in_a_long_ingest_says_what_was_saved(
    terminal: Callable[..., Terminal], tmp_path: Path
) -> None:
    """Ctrl-C in a long `litsift ingest` printed "Aborted!" and nothing else, though
    thousands of papers were saved; now it says how many and that the same command finishes
    the job, and the store answers."""
    bib = SHARED_DATA / "sources" / "reference-managers" / "bibtex"
    folder = tmp_path / "exports"  # a folder of 40 library exports: a minute or so to read
    folder.mkdir()
    for i in range(40):
        for name in ("thesis-psychology_zotero-bbt-export", "thesis-nlp_acl-anthology-heavy"):
            (folder / f"{i:02d}-{name}.bib").write_bytes((bib / f"{name}.bib").read_bytes())
    home = tmp_path / "home"
    t = terminal()
    t.start(f"{LITSIFT} ingest papers {folder}", _env(home, tmp_path / "cache"))
    t.wait_for(lambda s: re.search(r"\d+/80 files", s) is not None, 120)
    t.keys("C-c")
    t.wait_exit(30)
    screen = t.screen()
    assert t.exit_status() == 130, screen
    said = re.search(r"stopped \(Ctrl-C\): ([\d,]+) new papers were saved before the stop", screen)
    assert said is not None and int(said.group(1).replace(",", "")) > 0, screen
    assert "Aborted!" not in screen and "Traceback" not in screen
    assert "papers" in run_litsift(home, "config")
