"""``litsift review merge`` of a reviewer's decisions file that was edited by hand: a field
that is not text (``"reviewer": ["bob"]``, ``"doc_id": [...]``) or a ``decided_at`` that is no
time is a bad row, named with its line and skipped like a row that is not JSON; the file's
other rows are merged. Before, a list as ``doc_id`` stopped the merge with "litsift failed
unexpectedly (TypeError)", a list as the reviewer was stored as the name ``['bob']``, and a
``decided_at`` of ``30/11/2026 21:00`` sorted after every real time, so that reviewer's later
decisions on the record were taken for older ones ("already here") and lost. A time written
with another offset (``+02:00``) is compared as the time it is.

Real Embase RIS export (6 records), real SQLite homes; the decisions file is the export's own,
edited as a person would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from litsift.cli.root import main
from tests.conftest import SHARED_DATA

EMBASE = SHARED_DATA / "sources" / "reference-managers" / "ris" / "asreview_embase-export.ris"

pytestmark = pytest.mark.skipif(not EMBASE.is_file(), reason=f"{EMBASE} not here")


def _run(home: Path, *args: str) -> Result:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert got.exit_code in (0, 1), got.output  # 2: "litsift failed unexpectedly"
    assert "Traceback" not in got.output, got.output
    return got


def _rows(home: Path) -> list[dict[str, Any]]:
    out = _run(home, "review", "export", "ibs", "--format", "decisions").output
    return [json.loads(line) for line in out.splitlines()[1:]]


def _bob_file(tmp_path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Bob's decisions file: he excluded the first three records and included the next two."""
    bob = tmp_path / "bob"
    _run(bob, "review", "new", "ibs", "--from", str(EMBASE), "--reasons", "wrong design")
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    with LitsiftService(get_paths(bob)) as svc:
        session = svc.reviews.open("ibs", "tiab", "bob")
        for decision in ("exclude", "exclude", "exclude", "include", "include"):
            session.decide(decision, "wrong design" if decision == "exclude" else "")
        text = svc.reviews.export_decisions("ibs")
    head, *rows = (json.loads(line) for line in text.splitlines())
    assert len(rows) == 5
    return head, rows


def _write(path: Path, head: dict[str, Any], rows: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in [head, *rows]) + "\n", encoding="utf-8")
    return path


def test_rows_with_fields_that_are_not_text_are_named_and_the_others_merged(
    tmp_path: Path,
) -> None:
    head, rows = _bob_file(tmp_path)
    alice = tmp_path / "alice"
    _run(alice, "review", "new", "ibs", "--from", str(EMBASE))
    edited = [
        {**rows[0], "doc_id": [rows[0]["doc_id"]], "doi": ""},  # line 2
        {**rows[1], "reviewer": ["bob"]},  # line 3
        {**rows[2], "reason": 3},  # line 4
        rows[3],  # line 5
        {**rows[4], "reviewer": "b\x1b[31mob"},  # line 6: a colour code typed in: bob's
    ]
    got = _run(alice, "review", "merge", "ibs", str(_write(tmp_path / "b.jsonl", head, edited)))
    assert got.exit_code == 1, got.output
    assert "merged 2 decisions" in got.stdout, got.output
    skipped = [ln.strip() for ln in got.stderr.splitlines() if "skipped" in ln]
    assert [ln.split(": ")[1] for ln in skipped] == ["line 2", "line 3", "line 4"], skipped
    assert "doc_id is not text (a JSON list)" in skipped[0]
    assert "reviewer is not text (a JSON list)" in skipped[1]
    assert "reason is not text (a JSON number)" in skipped[2]
    merged = _rows(alice)
    assert {r["reviewer"] for r in merged} == {"bob"}, merged
    assert [r["doc_id"] for r in merged] == [rows[3]["doc_id"], rows[4]["doc_id"]]


def test_a_time_that_is_no_time_is_skipped_and_keeps_no_later_decision_out(
    tmp_path: Path,
) -> None:
    head, rows = _bob_file(tmp_path)
    alice = tmp_path / "alice"
    _run(alice, "review", "new", "ibs", "--from", str(EMBASE))
    first, second = rows[0], rows[3]
    typed = {**first, "decision": "include", "reason": "", "decided_at": "30/11/2026 21:00"}
    shifted = {**second, "decision": "exclude", "reason": "wrong design",
               "decided_at": "2026-12-01T10:00:00+02:00"}  # fmt: skip
    got = _run(
        alice, "review", "merge", "ibs", str(_write(tmp_path / "1.jsonl", head, [typed, shifted]))
    )
    assert got.exit_code == 1 and "line 2: decided_at '30/11/2026 21:00' is not a time" in (
        got.stderr
    ), got.output
    # bob's later decisions: after the typed time (which sorted after them) and after 08:00 UTC
    later = [{**first, "decided_at": "2026-12-01T09:00:00.000+00:00"},
             {**second, "decided_at": "2026-12-01T09:00:00.000+00:00"}]  # fmt: skip
    again = _run(alice, "review", "merge", "ibs", str(_write(tmp_path / "2.jsonl", head, later)))
    assert again.exit_code == 0 and "merged 2 decisions" in again.stdout, again.output
    now = {r["doc_id"]: (r["decision"], r["decided_at"]) for r in _rows(alice)}
    assert now == {
        first["doc_id"]: ("exclude", "2026-12-01T09:00:00.000+00:00"),
        second["doc_id"]: ("include", "2026-12-01T09:00:00.000+00:00"),
    }


def test_a_file_of_another_review_is_refused_and_named(tmp_path: Path) -> None:
    """Bob's file of review ``ibs`` merged into alice's review of other records said "merged 0
    decisions (0 already here, 5 of records not in the review)" and exited 0; it names the
    review the file came from and how to merge it there. Nothing is written."""
    head, rows = _bob_file(tmp_path)
    alice = tmp_path / "alice"
    one = tmp_path / "one.ris"
    one.write_text("TY  - JOUR\nTI  - Trospium in older women\nPY  - 2010\nER  - \n", "utf-8")
    _run(alice, "review", "new", "other", "--from", str(one))
    got = _run(alice, "review", "merge", "other", str(_write(tmp_path / "b.jsonl", head, rows)))
    assert got.exit_code == 1, got.output
    assert (
        "nothing merged: none of the 5 decisions is of a record of review 'other' "
        "(exported from review 'ibs')" in got.output
    ), got.output
    assert "hint: merge it into that review: litsift review merge ibs FILE" in got.output
    said = _run(alice, "review", "export", "other", "--format", "decisions").output
    assert said.count("\n") == 1  # the header only: no decision


def test_a_decisions_file_given_to_review_new_says_to_merge_it(tmp_path: Path) -> None:
    """``review new NAME --from bob.jsonl`` (his decisions, not a search) said "not any of the
    formats litsift reads from .jsonl files"; it says what the file is and the merge command."""
    head, rows = _bob_file(tmp_path)
    path = _write(tmp_path / "bob decisions.jsonl", head, rows)
    got = _run(tmp_path / "alice", "review", "new", "x", "--from", str(path))
    assert got.exit_code == 1, got.output
    assert "bob decisions.jsonl is a reviewer's decisions file, not a search export" in got.output
    assert f"hint: merge it: litsift review merge ibs '{path}'" in got.output
    assert "no reviews yet" in _run(tmp_path / "alice", "review", "list").output


def test_a_reviewers_changed_mind_is_named_when_merged_and_an_older_file_is_not_taken(
    tmp_path: Path,
) -> None:
    """Each reviewer's newest decision counts. Before, a merge that replaced bob's decision
    here with his newer one, or left out a file's decision older than his here, said only
    "merged N (M already here)": the reviewer merging could not see that a decision changed.
    Both are now named with the record, the reviewer, what it was and what it is, and the
    file's line (``--json``: ``replaced`` / ``older``)."""
    head, rows = _bob_file(tmp_path)
    alice = tmp_path / "alice"
    _run(alice, "review", "new", "ibs", "--from", str(EMBASE))
    first = _run(alice, "review", "merge", "ibs", str(_write(tmp_path / "1.jsonl", head, rows)))
    assert "merged 5 decisions" in first.stdout and "replaced" not in first.stdout, first.output
    doc = rows[0]["doc_id"]
    changed = {**rows[0], "decision": "include", "reason": "",
               "decided_at": "2099-01-01T09:00:00.000+00:00"}  # fmt: skip
    stale = {**rows[3], "decision": "exclude", "reason": "wrong design",
             "decided_at": "2000-01-01T09:00:00.000+00:00"}  # fmt: skip
    path = _write(tmp_path / "2.jsonl", head, [changed, stale])
    got = _run(alice, "review", "merge", "ibs", str(path))
    assert got.exit_code == 0, got.output
    assert "merged 1 decisions (1 already here" in got.stdout, got.output
    assert "1 decision replaced by a newer decision of the same reviewer:" in got.stdout
    assert f"{doc} (bob, title/abstract): exclude (wrong design) -> include [{path}: line 2]" in (
        got.stdout
    ), got.output
    assert "1 decision not merged: the reviewer's decision here is newer:" in got.stdout
    assert (
        f"{rows[3]['doc_id']} (bob, title/abstract): kept include; the file's exclude "
        f"(wrong design) of 2000-01-01T09:00:00.000+00:00 is older [{path}: line 3]"
    ) in got.stdout, got.output
    now = {r["doc_id"]: r["decision"] for r in _rows(alice)}
    assert now[doc] == "include" and now[rows[3]["doc_id"]] == "include", now
    # the same merge as JSON: nothing new, so nothing replaced; a third file flips it back
    back = {**changed, "decision": "exclude", "reason": "wrong design",
            "decided_at": "2099-02-01T09:00:00.000+00:00"}  # fmt: skip
    js = _run(alice, "review", "merge", "ibs", str(_write(tmp_path / "3.jsonl", head, [back])),
              "--json")  # fmt: skip
    out = json.loads(js.stdout)
    assert out["added"] == 1 and out["older"] == [], out
    assert [(r["doc_id"], r["reviewer"], r["here"], r["file"]) for r in out["replaced"]] == [
        (doc, "bob", "include", "exclude (wrong design)")
    ], out
    assert out["conflicts"] == {"tiab": 0, "fulltext": 0}, out
