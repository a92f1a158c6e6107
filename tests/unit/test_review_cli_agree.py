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


def _conflict(home: Path, tmp_path: Path) -> str:
    """A record of review ``d`` alice included and bob excluded (their decisions files merged,
    as the two reviewers' litsifts would send them); its id."""
    doc_id = _first_record(home)
    head = {"format": "litsift-review-decisions", "version": 1, "review": "d", "reasons": []}
    for who, decision in (("alice", "include"), ("bob", "exclude")):
        row = {"doc_id": doc_id, "doi": "", "stage": "tiab", "reviewer": who,
               "decision": decision, "reason": "", "source": "user",
               "decided_at": "2026-01-01T00:00:00+00:00"}  # fmt: skip
        path = tmp_path / f"{who}.jsonl"
        path.write_text(json.dumps(head) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
        assert _run(home, "review", "merge", "d", str(path)).exit_code == 0
    assert "alice include, bob exclude" in _run(home, "review", "conflicts", "d").stdout
    return doc_id


def _first_record(home: Path) -> str:
    return _csv(_run(home, "review", "export", "d").stdout)[0]["id"]


def test_a_party_to_a_conflict_resolves_it_only_when_they_agreed(
    home: Path, tmp_path: Path
) -> None:
    doc_id = _conflict(home, tmp_path)
    mine = _run(home, "review", "resolve", "d", doc_id, "include", "--reviewer", "alice")
    assert mine.exit_code == 1 and "alice is one of the reviewers in conflict" in mine.stderr
    assert "--agreed" in mine.stderr  # the hint names the way out
    third = _run(home, "review", "resolve", "d", doc_id, "exclude", "--reviewer", "carol")
    assert third.exit_code == 0, third.output
    # settling it again (a correction) is no way round it: bob voted on it too
    again = _run(home, "review", "resolve", "d", doc_id, "include", "--reviewer", "bob")
    assert again.exit_code == 1 and "bob is one of the reviewers in conflict" in again.stderr
    csv_row = _run(home, "review", "export", "d").stdout
    assert f"{doc_id},exclude" in csv_row  # carol's resolution stands
    talked = _run(home, "review", "resolve", "d", doc_id, "include", "--reviewer", "bob",
                  "--agreed")  # fmt: skip
    assert talked.exit_code == 0, talked.output
    assert f"{doc_id}: include at title/abstract; 0 conflicts left" in talked.stdout


def test_the_curve_of_prior_decisions_only_says_so(home: Path, tmp_path: Path) -> None:
    """`review show` counts the imported labels as screened; the curve said "no record
    screened yet"."""
    pytest.importorskip("matplotlib")
    made = _run(home, "review", "new", "p", "--from", str(DONNERS), "--labels", "3")
    assert made.exit_code == 0, made.output
    show = _run(home, "review", "show", "p", "--json")
    assert json.loads(show.stdout)["prisma"]["screened"] == 6
    got = _run(home, "review", "curve", "p", "-o", str(tmp_path / "c.svg"))
    assert got.exit_code == 1 and "no record screened yet" not in got.stderr
    assert "its 6 decisions at title/abstract are all prior decisions" in got.stderr
    assert "review show` counts them as screened" in got.stderr
    assert "hint: the curve starts at the first record screened here" in got.stderr
    # with a decision made here, the curve draws it and says the priors it left out
    doc = next(c["id"] for c in _csv(_run(home, "review", "export", "p").stdout)
               if c["decision"] == "")  # fmt: skip
    head = {"format": "litsift-review-decisions", "version": 1, "review": "p", "reasons": []}
    row = {"doc_id": doc, "doi": "", "stage": "tiab", "reviewer": "", "decision": "include",
           "reason": "", "source": "user", "decided_at": "2026-01-01T00:00:00+00:00"}  # fmt: skip
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(head) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    assert _run(home, "review", "merge", "p", str(path)).exit_code == 0
    drawn = _run(home, "review", "curve", "p", "-o", str(tmp_path / "c.svg"))
    assert drawn.exit_code == 0, drawn.output
    assert "6 prior decisions (imported, in no screening order) not drawn" in (
        tmp_path / "c.svg"
    ).read_text(encoding="utf-8")


def _csv(text: str) -> list[dict[str, str]]:
    import csv
    import io

    return list(csv.DictReader(io.StringIO(text)))


def test_prisma_and_export_make_a_missing_folder_alike_and_say_it(
    home: Path, tmp_path: Path
) -> None:
    """Every -o of litsift makes a missing folder (litsift export, refs export, review export,
    the curve); prisma did too, unsaid: a mistyped folder appeared without a word."""
    pytest.importorskip("matplotlib")
    for cmd, out in (("prisma", tmp_path / "a" / "b" / "x.svg"),
                     ("export", tmp_path / "c" / "d" / "x.csv")):  # fmt: skip
        got = _run(home, "review", cmd, "d", "-o", str(out))
        assert got.exit_code == 0, got.output
        assert out.is_file()
        folder = out.parent.parent
        assert f"wrote {out} (made the folder {folder})" in got.output
    again = _run(home, "review", "prisma", "d", "-o", str(tmp_path / "a" / "b" / "x.svg"))
    assert again.stdout.strip() == f"wrote {tmp_path / 'a' / 'b' / 'x.svg'}"  # nothing made
    under_a_file = _run(home, "review", "prisma", "d", "-o", str(out / "y.svg"))
    assert under_a_file.exit_code == 1 and "hint:" in under_a_file.stderr
