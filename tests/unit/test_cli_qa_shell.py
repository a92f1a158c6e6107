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
