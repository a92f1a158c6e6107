"""``litsift review new --from`` a review's own CSV export (``litsift review export NAME -o
FILE.csv``) keeps each record's decision, exclusion reason and note: the team that moved its
review from Rayyan to litsift, resolved the conflict and exported a CSV got a copy with every
record unscreened (the ``decision`` column was not read).

Real file: the Rayyan export of ``tests/data/imports/rayyan`` (two reviewers, 12 of 14 records
decided, one conflict); the CLI runs on a real store in a temporary home.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from tests.conftest import EVAL_DIR

TINEA = Path(__file__).resolve().parents[1] / "data" / "imports" / "rayyan"
TINEA = TINEA / "rayyanr_tinea-update_two-reviewers.ris"
#: the conflict of the tinea review (Zbys exclude, m.el-gohary include)
CONFLICT = "Efficacy and safety of terbinafine hydrochloride 1%"


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in got.output, got.output
    assert got.exit_code == 0, got.output
    return got


def _prisma(home: Path, name: str) -> dict[str, Any]:
    return dict(json.loads(_cli(home, "review", "show", name, "--json").output)["prisma"])


def _rows(path: Path) -> dict[str, dict[str, str]]:
    with open(path, encoding="utf-8-sig", newline="") as fh:  # the file starts with a BOM
        return {row["title"]: row for row in csv.DictReader(fh)}


def test_a_review_from_its_csv_export_keeps_decisions_reasons_and_notes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    exported = tmp_path / "tinea.csv"
    _cli(home, "review", "export", "tinea", "-o", str(exported))
    doc = next(r["id"] for t, r in _rows(exported).items() if t.startswith(CONFLICT))
    _cli(home, "review", "resolve", "tinea", doc, "include")
    _cli(home, "review", "export", "tinea", "-o", str(exported))
    made = _cli(home, "review", "new", "copy", "--from", str(exported))
    assert "12 prior decisions" in made.output, made.output
    keys = ("records", "screened", "included", "excluded", "maybe", "unscreened", "reasons")
    want = _prisma(home, "tinea")
    assert (want["included"], want["excluded"], want["unscreened"]) == (5, 7, 2)
    got = _prisma(home, "copy")
    assert {k: got[k] for k in keys} == {k: want[k] for k in keys}
    again = tmp_path / "copy.csv"
    _cli(home, "review", "export", "copy", "-o", str(again))
    before, after = _rows(exported), _rows(again)
    for title, row in before.items():  # each record's decision, reason and note
        assert [after[title][k] for k in ("decision", "reason", "note")] == [
            row[k] for k in ("decision", "reason", "note")
        ], title


def _votes(home: Path, name: str, reviewer: str, out: Path) -> list[tuple[str, str, str]]:
    _cli(home, "review", "export", name, "--format", "decisions", "--reviewer", reviewer,
         "-o", str(out))  # fmt: skip
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    return sorted((r["doc_id"], r["decision"], r["reason"]) for r in rows if "decision" in r)


def test_a_review_from_its_ris_export_keeps_who_decided_alone(tmp_path: Path) -> None:
    """Zbys decided 8 of the tinea records alone: the RIS copy held them as unnamed prior
    decisions, so Zbys's decisions file of the copy (for ``review merge``) had 4 of his 12."""
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    exported = tmp_path / "tinea.ris"
    _cli(home, "review", "export", "tinea", "--format", "ris", "-o", str(exported))
    assert exported.read_text(encoding="utf-8").count("N1  - Reviewer Zbys: ") == 12
    _cli(home, "review", "new", "copy", "--from", str(exported))
    for who in ("Zbys", "m.el-gohary"):
        want = _votes(home, "tinea", who, tmp_path / "a.jsonl")
        assert _votes(home, "copy", who, tmp_path / "b.jsonl") == want, who
    assert len(_votes(home, "copy", "Zbys", tmp_path / "b.jsonl")) == 12
    keys = ("included", "excluded", "conflicts", "unscreened", "reasons")
    want, got = _prisma(home, "tinea"), _prisma(home, "copy")
    assert {k: got[k] for k in keys} == {k: want[k] for k in keys}


def test_a_review_csv_read_back_keeps_the_records_venues(tmp_path: Path) -> None:
    """The export's ``source`` column (user / resolved / conflict: where the decision came
    from) was read as the venue: the copy made from the CSV in another litsift had every
    decided record's venue ``user`` (and in the same litsift, a record without a venue took
    it, in the library and in every review)."""
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    exported = tmp_path / "tinea.csv"
    _cli(home, "review", "export", "tinea", "-o", str(exported))
    before = _rows(exported)
    assert {r["source"] for r in before.values()} >= {"user", "conflict"}
    other = tmp_path / "other"
    _cli(other, "review", "new", "copy", "--from", str(exported))
    again = tmp_path / "copy.csv"
    _cli(other, "review", "export", "copy", "-o", str(again))
    after = _rows(again)
    assert {t: r["venue"] for t, r in after.items()} == {t: r["venue"] for t, r in before.items()}


URINARY = EVAL_DIR / "screening" / "Cohen_2006_UrinaryIncontinence.jsonl.gz"


@pytest.mark.skipif(not URINARY.is_file(), reason=f"{URINARY} not here")
def test_a_review_csv_read_back_keeps_the_records_ids(tmp_path: Path) -> None:
    """The ``id`` column was read as a source key only: a record known by its OpenAlex id (32
    of Cohen's urinary incontinence review have no DOI) came back as a ``key:`` record, so a
    reviewer's decisions file of the review did not match it in the copy ("of records not in
    the review"), and two records the review kept apart (the same short title and year, one
    with an OpenAlex id) became one. The RIS export's ``ID`` was read back so already."""
    home = tmp_path / "home"
    _cli(home, "review", "new", "ui", "--from", str(URINARY), "--labels", "none")
    exported = tmp_path / "ui.csv"
    _cli(home, "review", "export", "ui", "-o", str(exported))
    ids = {r["id"] for r in _rows(exported).values()}
    known = sorted(i for i in ids if i.startswith("openalex:"))
    assert len(known) >= 20, ids
    other = tmp_path / "other"
    _cli(other, "review", "new", "copy", "--from", str(exported))
    again = tmp_path / "copy.csv"
    _cli(other, "review", "export", "copy", "-o", str(again))
    with open(again, encoding="utf-8-sig", newline="") as fh:
        assert {r["id"] for r in csv.DictReader(fh)} == ids
    head = {"format": "litsift-review-decisions", "version": 1, "review": "ui", "reasons": []}
    votes = [{"doc_id": d, "doi": "", "stage": "tiab", "reviewer": "bob", "decision": "include",
              "reason": "", "source": "user", "decided_at": "2026-01-31T09:30:00.000+00:00"}
             for d in known]  # fmt: skip
    bob = tmp_path / "bob.jsonl"
    bob.write_text("\n".join(json.dumps(r) for r in [head, *votes]) + "\n", encoding="utf-8")
    merged = _cli(other, "review", "merge", "copy", str(bob)).output
    assert f"merged {len(known)} decisions (0 already here, 0 of records not in" in merged


@pytest.mark.skipif(not URINARY.is_file(), reason=f"{URINARY} not here")
def test_a_review_from_its_full_text_csv_export_keeps_the_full_text_decisions(
    tmp_path: Path,
) -> None:
    """``review export NAME --stage fulltext -o FILE.csv`` read back said "N prior decisions"
    and showed none: its rows carry no title/abstract decision, so the copy's full-text stage
    (the records not excluded at title/abstract) held no record. Each row is a report sought,
    an include at title/abstract; the copy reports what the review reported at full text."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    home = tmp_path / "home"
    _cli(home, "review", "new", "ui", "--from", str(URINARY), "--labels", "none",
         "--reasons", "wrong population,wrong design")  # fmt: skip
    with LitsiftService(get_paths(home)) as svc:
        tiab = svc.reviews.open("ui", "tiab")
        for decision in ["include"] * 5 + ["maybe"] + ["exclude"] * 3:
            tiab.decide(decision, "wrong design" if decision == "exclude" else "")
        full = svc.reviews.open("ui", "fulltext")
        for decision, reason in (("include", ""), ("exclude", "wrong population"),
                                 ("maybe", ""), ("include", "")):  # fmt: skip
            full.decide(decision, reason)
    exported = tmp_path / "fulltext.csv"
    _cli(home, "review", "export", "ui", "--stage", "fulltext", "-o", str(exported))
    other = tmp_path / "other"
    _cli(other, "review", "new", "copy", "--from", str(exported))
    want, got = (_prisma(h, n)["fulltext"] for h, n in ((home, "ui"), (other, "copy")))
    assert (want["sought"], want["assessed"], want["included"]) == (6, 4, 2), want
    keys = ("sought", "assessed", "included", "excluded", "maybe", "unassessed", "reasons")
    assert {k: got[k] for k in keys} == {k: want[k] for k in keys}
    again = tmp_path / "again.csv"
    _cli(other, "review", "export", "copy", "--stage", "fulltext", "-o", str(again))
    before, after = _rows(exported), _rows(again)
    assert {t: (r["decision"], r["reason"]) for t, r in after.items()} == {
        t: (r["decision"], r["reason"]) for t, r in before.items()
    }
