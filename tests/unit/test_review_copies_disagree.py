"""``litsift review new NAME --from a.ris --from b.ris`` of two copies of a review (its RIS or
CSV export, taken at different times or by different people) that give a record different
decisions: the review took one of them (the include, or a reviewer's vote of the later file)
and said nothing, so the reviewer never learnt that the copies differed. Now each
disagreement is named, with what each copy said and what was kept.

Real file: the Rayyan export of ``tests/data/imports/rayyan`` (two reviewers, 12 of 14 records
decided, one conflict); the CLI runs on a real store in a temporary home.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from litsift.cli.root import main

TINEA = Path(__file__).resolve().parents[1] / "data" / "imports" / "rayyan"
TINEA = TINEA / "rayyanr_tinea-update_two-reviewers.ris"


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in got.output, got.output
    assert got.exit_code == 0, got.output
    return got


def _decided(home: Path, name: str, out: Path) -> dict[str, tuple[str, str]]:
    """``{id: (decision, reason)}`` of review ``name``'s CSV export."""
    _cli(home, "review", "export", name, "-o", str(out))
    with open(out, encoding="utf-8-sig", newline="") as fh:
        return {row["id"]: (row["decision"], row["reason"]) for row in csv.DictReader(fh)}


def _one_of(decided: dict[str, tuple[str, str]], decision: str) -> str:
    return next(doc for doc, (d, _) in decided.items() if d == decision)


def test_two_ris_copies_that_disagree_are_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    first = _decided(home, "tinea", tmp_path / "tinea.csv")
    _cli(home, "review", "new", "solo", "--from", str(tmp_path / "tinea.csv"))  # unnamed
    a, b = tmp_path / "a.ris", tmp_path / "b.ris"
    _cli(home, "review", "export", "solo", "--format", "ris", "-o", str(a))
    included = _one_of(first, "include")
    text = a.read_text(encoding="utf-8")
    record = next(r for r in text.split("ER  - ") if f"ID  - {included}\n" in r)
    assert "LB  - include\n" in record, record
    excluded = "LB  - exclude\nN1  - Exclusion reason: wrong drug\n"
    changed = record.replace("LB  - include\n", excluded)
    b.write_text(text.replace(record, changed), encoding="utf-8")
    made = _cli(home, "review", "new", "copy", "--from", str(a), "--from", str(b))
    said = [line for line in made.stderr.splitlines() if included in line]
    assert said == [
        f"  {included} (title/abstract): include in a.ris, exclude (wrong drug) in b.ris; "
        "kept include"
    ], made.stderr
    assert "the files disagree on the decisions of 1 record " in made.stderr, made.stderr
    assert _decided(home, "copy", tmp_path / "copy.csv")[included] == ("include", "")
    twin = tmp_path / "a2.ris"
    twin.write_text(text, encoding="utf-8")
    agree = _cli(home, "review", "new", "same", "--from", str(a), "--from", str(twin))
    assert "disagree" not in agree.stderr, agree.stderr  # copies alike: nothing to say


def test_two_csv_copies_that_disagree_are_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    excluded = _one_of(_decided(home, "tinea", a), "exclude")
    with open(a, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        if row["id"] == excluded:
            row["decision"], row["reason"] = "maybe", ""
    with open(b, "w", encoding="utf-8-sig", newline="") as fh:
        out = csv.DictWriter(fh, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(rows)
    made = _cli(home, "review", "new", "copy", "--from", str(b), "--from", str(a))
    said = [line for line in made.stderr.splitlines() if excluded in line]
    assert len(said) == 1 and said[0].endswith("; kept maybe"), made.stderr
    assert " maybe in b.csv, exclude (" in said[0] and ") in a.csv;" in said[0], said


def test_a_reviewers_vote_that_differs_between_copies_is_named_in_json(tmp_path: Path) -> None:
    """A named reviewer's vote: the last file's was kept (the conflict left resolved)."""
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    a, b = tmp_path / "a.ris", tmp_path / "b.ris"
    _cli(home, "review", "export", "tinea", "--format", "ris", "-o", str(a))
    text = a.read_text(encoding="utf-8")
    votes = "N1  - Reviewer Zbys: exclude\nN1  - Reviewer m.el-gohary: include\n"
    assert text.count(votes) == 1  # the tinea review's one conflict
    b.write_text(text.replace(votes, votes.replace("Zbys: exclude", "Zbys: include")), "utf-8")
    made = _cli(home, "review", "new", "copy", "--from", str(a), "--from", str(b), "--json")
    got = json.loads(made.stdout)["disagreements"]
    assert [(d["reviewer"], d["source"], d["kept"]) for d in got] == [("Zbys", "user", "include")]
    assert [(Path(c["file"]).name, c["decision"]) for c in got[0]["copies"]] == [
        ("a.ris", "exclude"),
        ("b.ris", "include"),
    ]
    line = f"  {got[0]['id']} (Zbys's vote, title/abstract): exclude in a.ris, include in b.ris"
    assert f"{line}; kept include\n" in made.stderr, made.stderr
