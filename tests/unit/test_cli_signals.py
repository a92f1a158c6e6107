"""SIGTERM (``kill``, a service manager, a CI timeout) stops a command as Ctrl-C does.

Before, the signal killed ``litsift index`` where it stood: its two embedding workers lived on
as orphans (175 MB each, blocked for ever on the dead parent's queue), the pool's temporary
directory stayed, and nothing was said. ``litsift ingest`` ended without saying what it had
saved. Once it has said what it kept, the process dies by the signal (Python's returncode
-15, a shell's ``$?`` 143), as after a Ctrl-C: it exited with status 143, which tells a calling
shell or service manager that litsift handled the signal itself. These tests send the real
signal to a real ``python -m litsift`` process.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED_DATA
from tests.terminal.conftest import papers_file

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the workers")


def _env(home: Path, cache: Path) -> dict[str, str]:
    return {
        **os.environ,
        "LITSIFT_HOME": str(home),
        "LITSIFT_EMBED_CACHE_DIR": str(cache),  # empty: every vector is embedded by the pool
        "LITSIFT_EMBED_WORKERS": "2",  # the pool, even on one core
    }


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _cached(cache: Path) -> int:
    try:
        with sqlite3.connect(cache / "embeddings.sqlite", timeout=1) as conn:
            return int(conn.execute("SELECT count(*) FROM passages").fetchone()[0])
    except sqlite3.Error:
        return 0


def _litsift(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "litsift", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=600,
    )


def _slice_papers(directory: Path, rows: list[dict[str, Any]], n: int) -> Path:
    """The session slice's first ``n`` papers as litsift JSONL: their passages' vectors are in
    the committed seed (:mod:`tests.embed_seed`), so :func:`_seed` can fill a cache with them."""
    path = directory / f"slice-{n}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows[:n]), "utf-8")
    return path


def _seed(cache: Path, encoder: Any) -> None:
    """Put the committed seed's vectors into the test's cache before the next run: that run
    still rebuilds what the stopped one left (the store, BM25, the vectors the pool kept)
    but takes the rest from the cache instead of embedding 600 papers again (a minute of
    CPU). The stop itself, before, embedded with an empty cache."""
    from litsift.cache.embeddings import EmbeddingCache
    from tests.embed_seed import SEED, load_seed

    store = EmbeddingCache(cache / "embeddings.sqlite")
    try:
        assert load_seed(store, encoder.cache_key, (SEED,)) > 0
    finally:
        store.close()


def _until_embedding(proc: subprocess.Popen[Any], cache: Path, workers: set[int]) -> None:
    """Wait until ``proc`` (``litsift index``) has its pool embedding (its first chunk is in
    ``cache``), adding its children (workers, resource tracker) to ``workers`` meanwhile."""
    deadline = time.monotonic() + 240  # a bound for a broken run, not a speed requirement
    while _cached(cache) == 0:
        assert proc.poll() is None and time.monotonic() < deadline, proc.returncode
        workers.update(_children(proc.pid))
        time.sleep(0.05)
    workers.update(_children(proc.pid))


def test_sigterm_in_index_stops_the_workers_and_the_next_run_finishes(
    tmp_path: Path, encoder: Any, paper_slice_rows: list[dict[str, Any]]
) -> None:
    home, cache = tmp_path / "home", tmp_path / "cache"
    env = _env(home, cache)
    home.mkdir()
    (home / "config.toml").write_text('[search]\nsentence_phase = "none"\n')
    papers = _slice_papers(tmp_path, paper_slice_rows, 600)
    assert _litsift(env, "ingest", "papers", str(papers)).returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "litsift", "index", "papers", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    workers: set[int] = set()
    try:
        _until_embedding(proc, cache, workers)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=20)
        gone = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < gone:
            time.sleep(0.1)
        orphans = [w for w in workers if _alive(w)]
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in workers:  # the old code's orphans: never left running
            if _alive(w):
                os.kill(w, signal.SIGKILL)
    assert len(workers) >= 2, workers  # the resource tracker and at least one worker
    assert not orphans, f"workers left running after SIGTERM: {orphans}"
    assert proc.returncode == -signal.SIGTERM, (proc.returncode, err)  # died by it: $? 143
    assert "stopped (SIGTERM); nothing published is lost" in err, err
    assert "Traceback" not in err and "Aborted!" not in err, err
    assert "leaked semaphore" not in err, err
    _seed(cache, encoder)
    assert _litsift(env, "index", "papers", "--quiet").returncode == 0
    done = _litsift(env, "search", "machine translation", "--json", "-k", "3")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["signals_used"] == ["bm25", "dense"]


def test_sigkill_in_index_ends_the_workers_with_it(
    tmp_path: Path, encoder: Any, paper_slice_rows: list[dict[str, Any]]
) -> None:
    """``kill -9`` (or the OOM killer) gives the command no chance to stop its workers: they
    used to wait on the dead parent's queue for ever, with the resource tracker and the
    caller's stdout and stderr (a pipe reading them never ended). Now each worker ends once
    its parent is gone (removing the pool's chunk files and unlinking the queues' semaphores:
    the resource tracker, left with them, warned "There appear to be 5 leaked semaphore
    objects to clean up at shutdown" on the command's stderr), and the next ``litsift index``
    finishes the build."""
    home, cache, tmp = tmp_path / "home", tmp_path / "cache", tmp_path / "tmp"
    tmp.mkdir()
    env = {**_env(home, cache), "TMPDIR": str(tmp)}  # where the pool keeps its chunk files
    home.mkdir()  # the sentences' phase after the rerun's vectors is another test's
    (home / "config.toml").write_text('[search]\nsentence_phase = "none"\n')
    papers = _slice_papers(tmp_path, paper_slice_rows, 600)
    assert _litsift(env, "ingest", "papers", str(papers)).returncode == 0
    log = (tmp_path / "index.log").open("w")
    proc = subprocess.Popen(  # a file, not a pipe: the old code's orphans held pipes open
        [sys.executable, "-m", "litsift", "index", "papers", "--quiet"],
        stdout=log,
        stderr=log,
        env=env,
    )
    workers: set[int] = set()
    try:
        _until_embedding(proc, cache, workers)
        proc.kill()
        proc.wait(timeout=20)
        gone = time.monotonic() + 30  # a bound for a broken run, not a speed requirement
        while any(_alive(w) for w in workers) and time.monotonic() < gone:
            time.sleep(0.1)
        orphans = [w for w in workers if _alive(w)]
    finally:
        log.close()
        if proc.poll() is None:
            proc.kill()
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)
    assert len(workers) >= 2, workers  # the resource tracker and at least one worker
    assert not orphans, f"workers left running after kill -9 of litsift index: {orphans}"
    assert not list(tmp.glob("litsift-embed-pool-*")), "the pool's chunk files were left"
    said = (tmp_path / "index.log").read_text()  # the tracker (among `workers`) has ended
    assert "leaked semaphore" not in said and "Traceback" not in said, said
    _seed(cache, encoder)
    again = _litsift(env, "index", "papers", "--quiet")
    assert again.returncode == 0, again.stderr
    done = _litsift(env, "search", "machine translation", "--json", "-k", "3")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["signals_used"] == ["bm25", "dense"]


def test_ctrl_c_once_bm25_is_ready_says_bm25_is_searchable(tmp_path: Path, encoder: object) -> None:
    """Ctrl-C after ``BM25 ready, searchable now`` and before the first vector said ``BM25 was
    being built; the previous index stays in use``: the new BM25 part was already published."""
    env = _env(tmp_path / "home", tmp_path / "cache")
    assert _litsift(env, "ingest", "papers", str(papers_file(tmp_path, 600))).returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "litsift", "index", "papers", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert "BM25 ready, searchable now" in first, first
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGINT, (proc.returncode, err)  # died by it, as Ctrl-C
    assert "papers: BM25 searchable; " in err, err
    assert "BM25 was being built" not in err and "Traceback" not in err, err
    done = _litsift(env, "search", "machine translation", "--json", "-k", "3")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["signals_used"] == ["bm25"]


def test_sigterm_in_a_long_ingest_says_what_was_saved(tmp_path: Path) -> None:
    bib = SHARED_DATA / "sources" / "reference-managers" / "bibtex"
    folder = tmp_path / "exports"  # 16 library exports: longer to read than the test waits
    folder.mkdir()
    for i in range(8):
        for name in ("thesis-psychology_zotero-bbt-export", "thesis-nlp_acl-anthology-heavy"):
            (folder / f"{i:02d}-{name}.bib").write_bytes((bib / f"{name}.bib").read_bytes())
    env = _env(tmp_path / "home", tmp_path / "cache")
    proc = subprocess.Popen(
        [sys.executable, "-m", "litsift", "ingest", "papers", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # "  1/16 files, ..." once the first file is stored
        assert "/16 files" in first, first
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGTERM, (proc.returncode, err)  # exited 143 before
    assert "stopped (SIGTERM): " in err and "new papers were saved before the stop" in err, err
    assert "Traceback" not in err, err
    again = _litsift(env, "ingest", "papers", str(folder))  # the rest, nothing twice
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize(
    ("status", "signum"), [(143, signal.SIGTERM), (129, signal.SIGHUP), (130, signal.SIGINT)]
)
def test_a_stopped_command_dies_by_its_signal_after_the_clean_up(
    tmp_path: Path, status: int, signum: int
) -> None:
    """The entry point ends a command that ``stop_status`` ended (128 + the signal) by that
    signal, once the atexit functions ran and the output was flushed (before, SIGTERM and
    SIGHUP exited with status 143 and 129: a shell loop over litsift went on)."""
    script = (
        "import atexit, sys\n"
        "from litsift.cli.interrupts import die_by_signal\n"
        f"atexit.register(lambda: open({str(tmp_path / 'cleaned')!r}, 'w').close())\n"
        "print('saved 3 papers', end='')\n"
        f"die_by_signal({status})\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == -signum, (done.returncode, done.stderr)
    assert done.stdout == "saved 3 papers" and done.stderr == "", done.stderr
    assert (tmp_path / "cleaned").exists()  # the clean-up ran before the signal
    shell = subprocess.run(  # what a shell sees: $? is 128 + the signal, as before
        ["sh", "-c", f'{shlex.quote(sys.executable)} -c "$1"; echo $?', "sh", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert shell.stdout.endswith(f"{status}\n"), shell.stdout
