"""QA of the review commands: each command of `litsift review` reads and tells the same thing
as its neighbours (a comma list of reasons, an empty one, a resolver, the labels, the priors,
an -o folder), run as the reviewer runs them (the CLI, a real store, the Donners set)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from litsift.cli.root import main
from litsift.paths import shared_data_dir

DONNERS = (shared_data_dir() / "eval" / "screening" / "Donners_2021.jsonl.gz").resolve()


def _run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), *args])


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with review ``d`` of the Donners set, its labels left out (nothing screened)."""
    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    made = _run(tmp_path / "home", "review", "new", "d", "--from", str(DONNERS), "--labels", "none")
    assert made.exit_code == 0, made.output
    return tmp_path / "home"


def test_review_reasons_splits_a_comma_list_as_review_new_does(home: Path) -> None:
    got = _run(home, "review", "reasons", "d", "wrong population,wrong design", "wrong outcome")
    assert got.exit_code == 0, got.output
    assert got.stdout.splitlines() == ["1  wrong population", "2  wrong design", "3  wrong outcome"]
    two = ("--reasons", "wrong population,wrong design", "--reasons", "wrong outcome")
    made = _run(home, "review", "new", "e", "--from", str(DONNERS), "--labels", "none", *two)
    assert made.exit_code == 0, made.output
    assert _run(home, "review", "reasons", "e").stdout == got.stdout


def test_an_empty_reason_list_is_refused_and_clear_says_it(home: Path) -> None:
    assert _run(home, "review", "reasons", "d", "wrong design,wrong outcome").exit_code == 0
    for empty in ("", " , "):
        got = _run(home, "review", "reasons", "d", empty)
        assert got.exit_code == 1, got.output
        assert "no exclusion reason given" in got.stderr
        assert "litsift review reasons d --clear" in got.stderr  # the hint
    assert _run(home, "review", "reasons", "d").stdout.splitlines() == [
        "1  wrong design",
        "2  wrong outcome",
    ]  # nothing was written
    both = _run(home, "review", "reasons", "d", "--clear", "wrong design")
    assert both.exit_code == 1 and "--clear takes no REASON" in both.stderr
    cleared = _run(home, "review", "reasons", "d", "--clear")
    assert cleared.exit_code == 0 and cleared.stdout.startswith("no exclusion reasons")
    assert _run(home, "review", "reasons", "d").stdout.startswith("no exclusion reasons")


def test_labels_help_and_error_name_the_same_values(home: Path) -> None:
    said = " ".join(_run(home, "review", "new", "--help").stdout.split())
    assert "all, none, or N included + N excluded (N at least 1" in said
    for bad in ("0", "-3", "some"):
        got = _run(home, "review", "new", "x", "--from", str(DONNERS), "--labels", bad)
        assert got.exit_code == 2, got.output
        assert "all, none, or N included + N excluded (N at least 1; 0 is none)" in got.stderr
    two = _run(home, "review", "new", "x", "--from", str(DONNERS), "--labels", "2", "--json")
    assert two.exit_code == 0, two.output
    made = json.loads(two.stdout)  # what the help says N is
    assert made["priors"] == 4 and made["prisma"]["included"] == made["prisma"]["excluded"] == 2
