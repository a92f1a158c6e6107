"""Defects of ``litsift review merge`` / ``show`` found walking a two-reviewer review in a
terminal (real Donners 2021 set, real SQLite stores, the CLI through Click's runner):

1. a decisions file exported from another review (``team``) whose records are also this
   review's (both made from the same search) was merged into ``emici`` without a word: its
   reviewer's votes became conflicts and includes of the wrong review. It is still merged (a
   review's copy takes its original's file), and the merge now says whose file it was;
2. ``review show`` said "1 records awaiting resolution" and "1 records both decided";
3. a hand-edited decision was skipped as an "unknown stage or decision" whichever was wrong;
4. ``--reviewer carol`` with a file whose decisions all carry a name did nothing, silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from tests.unit.test_review_rounds import DONNERS, REASONS, _svc

pytestmark = pytest.mark.skipif(not DONNERS.is_file(), reason=f"{DONNERS} not here")


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), "review", *args])
    assert "Traceback" not in got.output
    return got


def _bobs_file_of_team(tmp_path: Path) -> tuple[Path, str]:
    """A home with reviews ``emici`` and ``team`` of the same search; alice includes record
    0 of ``emici``; bob excludes records 0-2 of ``team`` and exports his decisions. Returns
    (the home, bob's file)."""
    home = tmp_path / "home"
    with _svc(home) as s:
        for name in ("emici", "team"):
            s.reviews.create(name, [DONNERS], labels="none", reasons=REASONS)
        s.reviews.open("emici", reviewer="alice").decide("include")
        bob = s.reviews.open("team", reviewer="bob")
        for _ in range(3):
            bob.decide("exclude", REASONS[0])
        text = s.reviews.export_decisions("team", "bob")
    path = tmp_path / "bob.jsonl"
    path.write_text(text, "utf-8")
    return home, str(path)


def test_merging_another_review_s_file_says_whose_it_is(tmp_path: Path) -> None:
    home, path = _bobs_file_of_team(tmp_path)
    got = _cli(home, "merge", "emici", path)
    assert got.exit_code == 0, got.output
    assert got.stdout.startswith("merged 3 decisions"), got.stdout
    said = f"note: {path} was exported from review 'team', not 'emici'"
    assert said in got.stderr, got.stderr
    again = json.loads(_cli(home, "merge", "emici", path, "--json").stdout)
    assert again["other_reviews"] == {path: "team"}
    # its own review's merge says nothing of the kind
    own = _cli(home, "merge", "team", path)
    assert own.exit_code == 0 and "exported from review" not in own.output, own.output
    assert json.loads(_cli(home, "merge", "team", path, "--json").stdout)["other_reviews"] == {}


def test_show_counts_one_record_awaiting_resolution_in_the_singular(tmp_path: Path) -> None:
    home, path = _bobs_file_of_team(tmp_path)
    assert _cli(home, "merge", "emici", path).exit_code == 0
    shown = _cli(home, "show", "emici").stdout
    assert "1 record awaiting resolution at title/abstract: litsift review conflicts emici" in (
        shown
    ), shown
    assert "alice and bob: 1 record both decided, 0 agreed" in shown
    assert "1 records" not in shown


def test_a_hand_edited_decision_is_named_as_the_wrong_field(tmp_path: Path) -> None:
    """A row whose decision was edited to "yes" was skipped as "unknown stage 'tiab' or
    decision 'yes'": the stage was fine. The skip names the field that is wrong, and what it
    may be."""
    home, path = _bobs_file_of_team(tmp_path)
    lines = Path(path).read_text("utf-8").splitlines()
    lines[1] = lines[1].replace('"decision": "exclude"', '"decision": "yes"')
    lines[2] = lines[2].replace('"stage": "tiab"', '"stage": "abstract"')
    Path(path).write_text("\n".join(lines) + "\n", "utf-8")
    got = _cli(home, "merge", "team", path)
    assert got.exit_code == 1, got.output
    assert f"skipped {path}: line 2: unknown decision 'yes' (include, exclude, maybe)" in (
        got.stderr
    ), got.stderr
    assert "line 3: unknown stage 'abstract' (tiab, fulltext)" in got.stderr, got.stderr


def test_a_reviewer_s_name_the_file_s_decisions_do_not_take_is_said(tmp_path: Path) -> None:
    """`review merge emici bob.jsonl --reviewer carol`: every decision of the file is bob's,
    so --reviewer (whose are the decisions without a name) did nothing, and nothing said so:
    the one who merged thought carol's decisions were in. The merge now says it."""
    home, path = _bobs_file_of_team(tmp_path)
    got = _cli(home, "merge", "team", path, "--reviewer", "carol")
    assert got.exit_code == 0, got.output
    assert "note: --reviewer carol named no decision" in got.stderr, got.stderr
    assert json.loads(_cli(home, "merge", "team", path, "--json").stdout)["nameless"] == 0
    lines = Path(path).read_text("utf-8").splitlines()  # a backup without names: it is used
    nameless = tmp_path / "backup.jsonl"
    nameless.write_text("\n".join(ln.replace('"bob"', '""') for ln in lines) + "\n", "utf-8")
    used = _cli(home, "merge", "team", str(nameless), "--reviewer", "carol")
    assert used.exit_code == 0 and "named no decision" not in used.output, used.output
    with _svc(home) as s:
        assert '"reviewer": "carol"' in s.reviews.export_decisions("team", "carol")
