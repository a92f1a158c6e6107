"""``litsift eval`` refuses an option its benchmark does not read, with message + hint (found in
QA: ``eval paperrq --limit 1`` evaluated all 93 papers and ``eval scifact --llm`` ran without an
LLM, neither saying so), and a missing PaperRQ file's hint names the directory that works."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir

DATA = shared_data_dir()
PAPERRQ = DATA / "eval" / "paperrq" / "dataset.csv"


@pytest.mark.parametrize(
    ("args", "flag", "read_by"),
    [
        (["paperrq", "--limit", "1"], "--limit", "datafinder, scifact"),
        (["paperrq", "--systems", "bm25"], "--systems", "screening, snowball"),
        (["scifact", "--llm"], "--llm", "paperrq, screening"),
        (["scifact", "--query-field", "query"], "--query-field", "datafinder"),
        (["screening", "--half", "tune"], "--half", "datafinder"),
        (["snowball", "--eval-home", "x"], "--eval-home", "datafinder"),
        (["datafinder", "--seeds", "2"], "--seeds", "screening, snowball"),
        (["doris-mae-dev", "--plot", "x"], "--plot", "screening"),
        (["beir", "--data", "x"], "--data", "datafinder"),
    ],
)
def test_an_option_the_benchmark_does_not_read_is_refused(
    tmp_path: Path, args: list[str], flag: str, read_by: str
) -> None:
    got = CliRunner().invoke(main, ["--home", str(tmp_path), "eval", *args])
    assert got.exit_code == 1, got.output
    assert f"error: {flag} does nothing in eval {args[0]}" in got.output
    assert f"hint: drop it; {flag} is read by eval " in got.output and read_by in got.output
    assert "Traceback" not in got.output
    assert not (tmp_path / "data").exists()  # refused before anything ran


def test_options_the_benchmark_reads_still_pass(tmp_path: Path) -> None:
    # the check lets them through to the benchmark's own checks (an unknown set here)
    got = CliRunner().invoke(
        main,
        ["--home", str(tmp_path), "eval", "screening", "--data", str(DATA), "--sets", "Nope",
         "--seeds", "1", "--systems", "litsift"],
    )  # fmt: skip
    assert got.exit_code == 1 and "unknown review set(s): Nope" in got.output, got.output


@pytest.mark.skipif(not PAPERRQ.is_file(), reason=f"{PAPERRQ} not here")
def test_paperrq_hint_names_the_directory_that_works(tmp_path: Path) -> None:
    # the eval directory, as the hint said, looked for eval/eval/paperrq/dataset.csv
    got = CliRunner().invoke(
        main, ["--home", str(tmp_path), "eval", "paperrq", "--data", str(DATA / "eval")]
    )
    assert got.exit_code == 1 and "error: no PaperRQ data at" in got.output
    assert "the eval directory" not in got.output
    assert "shared data dir, the one holding eval/paperrq/dataset.csv" in got.output
