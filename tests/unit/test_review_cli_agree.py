"""QA of the review commands: each command of `litsift review` reads and tells the same thing
as its neighbours (a comma list of reasons, an empty one, a resolver, the labels, the priors,
an -o folder), run as the reviewer runs them (the CLI, a real store, the Donners set)."""

from __future__ import annotations

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
