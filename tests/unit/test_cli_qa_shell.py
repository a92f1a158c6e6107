"""Defects found using the command line in a shell as a researcher does (QA of the CLI): a
search's table piped into a reader that left, a gzip export cut short, a config value out of its
choices, the ingest summary's counts. Real stores, real files, the real CLI; no mocks."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from litsift.cli.root import main
from litsift.paths import shared_data_dir

PAPERS_GZ = shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"
SRC = Path(__file__).resolve().parents[2] / "src"


def _paper_lines(n: int) -> list[bytes]:
    if not PAPERS_GZ.is_file():
        pytest.skip(f"{PAPERS_GZ} not here")
    with gzip.open(PAPERS_GZ, "rb") as fh:
        return [fh.readline() for _ in range(n)]


def _litsift(home: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), *args])


def test_a_search_table_into_a_closed_pipe_ends_as_other_commands_do(tmp_path: Path) -> None:
    """``litsift search Q 2>&1 | head -1``: head left after the "BM25 only" note on stderr, and
    rich's Console, meeting the closed pipe, exited with status 1 (an error to a script)
    where every other command ends with 141, as ``cat`` killed by SIGPIPE does."""
    home = tmp_path / "home"
    papers = tmp_path / "papers.jsonl"
    papers.write_bytes(b"".join(_paper_lines(30)))
    assert _litsift(home, "ingest", "papers", str(papers)).exit_code == 0
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "PYTHONPATH": str(SRC), "LITSIFT_HOME": str(home)}
    env.pop("LITSIFT_DEBUG", None)
    try:
        for args in (["search", "translation", "-k", "5"], ["formats"]):
            done = subprocess.run(
                [sys.executable, "-m", "litsift", *args],
                stdout=write_end,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                timeout=120,
                check=False,
            )
            assert done.returncode == 141, (args, done.returncode, done.stderr)
            assert "Traceback" not in done.stderr and "bug" not in done.stderr, done.stderr
    finally:
        os.close(write_end)


def test_a_jsonl_gz_cut_short_keeps_its_complete_lines(tmp_path: Path) -> None:
    """A download of a .jsonl.gz stopped early: detection read the first 64 KiB through
    gzip.read, which raised EOFError for a stream that ends before 64 KiB, and the whole file
    was refused ("broken gzip file"), its complete lines with it. They are kept now, and the
    cut is reported with the line it falls on."""
    lines = _paper_lines(60)
    cut = tmp_path / "papers.jsonl.gz"
    whole = gzip.compress(b"".join(lines))
    cut.write_bytes(whole[: len(whole) // 2])
    home = tmp_path / "home"
    got = _litsift(home, "ingest", "papers", str(cut), "--json", "--quiet")
    assert got.exit_code == 1, got.output
    report = json.loads(got.stdout)
    kept = report["added"]
    assert 0 < kept < 60, report
    assert len(report["bad"]) == 1, report["bad"]
    assert report["bad"][0].startswith(f"{cut}:{kept + 1}: gzip stream ends early"), report
    stored = json.loads(_litsift(home, "config").stdout)["papers"]["rows"]
    assert stored == kept
    first_ids = [json.loads(line)["id"] for line in lines[:kept]]
    listed = _litsift(home, "search", "--json", "-k", "100", "the").stdout
    assert set(first_ids) >= {h["id"] for h in json.loads(listed)["hits"]}


def test_a_gzip_file_that_is_no_gzip_stream_is_still_refused_whole(tmp_path: Path) -> None:
    bad = tmp_path / "papers.jsonl.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00 not deflate data at all")
    got = _litsift(tmp_path / "home", "ingest", "papers", str(bad))
    assert got.exit_code == 1
    assert "broken gzip file" in got.stderr and "hint: re-download it" in got.stderr


@pytest.mark.parametrize(
    "toml",
    [
        '[engine]\nkind = "postgres"\n',
        '[search]\nfusion = "weird"\n',
        "[search]\nbm25_weight = nan\n",
        "[search]\nprf_weight = -1.0\n",
        "[keymap]\nquit = 1\n",
        '[search]\nbm25_query = "fuzzy"\n',
    ],
)
def test_every_bad_config_value_says_what_to_do(tmp_path: Path, toml: str) -> None:
    """A value out of its choices or range (``kind = "postgres"``, ``fusion = "weird"``, NaN)
    was reported as ``error: config: ...`` with no hint, where every user-facing error gives
    one; the hint names the file to fix."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(toml, encoding="utf-8")
    got = _litsift(home, "config")
    assert got.exit_code == 1, got.output
    assert got.stderr.startswith("error: config: "), got.stderr
    assert f"  hint: fix the value in {home / 'config.toml'}" in got.stderr, got.stderr


def test_the_ingest_summary_counts_one_skipped_file_in_the_singular(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "papers.jsonl").write_bytes(b"".join(_paper_lines(3)))
    (folder / "notes.txt").write_text("not an export\n", encoding="utf-8")
    got = _litsift(tmp_path / "home", "ingest", "papers", str(folder), "--quiet")
    assert got.exit_code == 0, got.output
    assert ", 1 file skipped in " in got.stdout, got.stdout


def _tiny_beir(tmp_path: Path) -> list[str]:
    corpus, queries, qrels = (tmp_path / n for n in ("corpus.jsonl", "queries.jsonl", "qrels.tsv"))
    corpus.write_text(
        '{"_id": "d1", "title": "Neural retrieval", "text": "dense passage retrieval"}\n'
        '{"_id": "d2", "title": "BM25", "text": "lexical matching baseline"}\n',
        encoding="utf-8",
    )
    queries.write_text('{"_id": "q1", "text": "dense retrieval"}\n', encoding="utf-8")
    qrels.write_text("q1\td1\t1\n", encoding="utf-8")
    return ["eval", "beir", "--corpus", str(corpus), "--queries", str(queries),
            "--qrels", str(qrels), "--systems", "bm25",
            "--eval-home", str(tmp_path / "eval-home")]  # fmt: skip


def test_an_eval_folder_that_cannot_be_made_is_the_users_path_not_a_bug(tmp_path: Path) -> None:
    """``litsift eval ... --runs-dir`` (or ``--plot``, ``--eval-home``) under a file or in
    /proc: "litsift failed unexpectedly (FileNotFoundError ...) this is a bug", and the
    traceback above it on stderr; now the path is named with what to do, as for ``-o``."""
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    got = _litsift(tmp_path / "home", *_tiny_beir(tmp_path), "--runs-dir", str(a_file / "runs"))
    assert got.exit_code == 1, got.output
    assert got.stderr.startswith(f"error: cannot write the run files to {a_file / 'runs'}: ")
    assert got.stderr.endswith("\n  hint: give --runs-dir a folder you can write to\n")
    assert len(got.stderr.splitlines()) == 2, got.stderr
    home = _litsift(tmp_path / "home", *_tiny_beir(tmp_path)[:-1], str(a_file / "store"))
    assert home.exit_code == 1 and "give --eval-home a writable folder" in home.stderr


def test_a_bug_where_no_log_file_is_open_prints_no_traceback(tmp_path: Path) -> None:
    """A command that opens no home (eval, formats) has no log file: logging the bug fell
    through to Python's last-resort handler, which printed the whole traceback on stderr above
    litsift's own two lines. The two lines alone are printed now."""
    program = (
        "import click\n"
        "from litsift.cli.common import reports_errors\n"
        "@click.command()\n"
        "@reports_errors\n"
        "def broken():\n"
        "    raise RuntimeError('the code under the command is wrong')\n"
        "broken()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("LITSIFT_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        "error: litsift failed unexpectedly (RuntimeError: the code under the command is wrong)"
    ), done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 2, done.stderr


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's sysfs")
def test_an_output_the_system_refuses_is_not_called_a_full_disk(tmp_path: Path) -> None:
    """``-o /sys/x.csv`` (sysfs: EACCES, 0 bytes free): the machine-fault check ran first and
    said "no space left on the disk holding /sys (0 B free)"; the -o path's own error is told
    first now, and a read-only -o no longer gets the read-only home's hint."""
    ris = (
        shared_data_dir() / "sources" / "reference-managers" / "ris" / "asreview_scopus-export.ris"
    )
    if not ris.is_file():
        pytest.skip(f"{ris} not here")
    home = tmp_path / "home"
    assert _litsift(home, "review", "new", "r", "--from", str(ris)).exit_code == 0
    got = _litsift(home, "review", "export", "r", "-o", "/sys/litsift-qa.csv")
    assert got.exit_code == 1, got.output
    assert got.stderr.startswith("error: cannot write /sys/litsift-qa.csv: "), got.stderr
    assert "space" not in got.stderr and "LITSIFT_HOME" not in got.stderr, got.stderr
    assert "  hint: give -o a path in a folder you can write to" in got.stderr


def test_a_missing_benchmark_file_names_the_option_that_exists(tmp_path: Path) -> None:
    """The hint said "pass --data-dir", an option ``litsift eval`` does not have (--data)."""
    got = _litsift(tmp_path / "home", "eval", "scifact", "--data", str(tmp_path / "nowhere"))
    assert got.exit_code == 1, got.output
    assert "benchmark file not found" in got.stderr
    assert "hint: pass --data pointing at shared/data" in got.stderr, got.stderr


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_json_output_shows_accented_names_as_they_are(tmp_path: Path, encoding: str) -> None:
    """``litsift config`` (and every ``--json``) wrote a home under ``~/Jürgen`` as
    ``"/home/J\\u00fcrgen/..."``; it is written as it is where standard output writes UTF-8,
    escaped where it cannot (Latin-1 cannot write every character a title may hold), and
    reads back to the same path either way."""
    home = tmp_path / "Jürgen ☃"
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONIOENCODING": encoding}
    got = subprocess.run(
        [sys.executable, "-m", "litsift", "--home", str(home), "config"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert got.returncode == 0, got.stderr
    text = got.stdout.decode(encoding)
    assert json.loads(text)["config_file"] == str(home / "config.toml")
    assert ("Jürgen ☃" in text) is (encoding == "utf-8")
    assert ("J\\u00fcrgen \\u2603" in text) is (encoding != "utf-8")
