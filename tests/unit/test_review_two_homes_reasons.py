"""Two reviewers' homes report the same PRISMA counts once each merged the other's file.

Found running a whole review as two people on two laptops (the real Donners 2021 review,
real SQLite stores, ``litsift review export --format decisions`` / ``review merge`` /
``review show --json``): alice and bob both excluded records, alice for "wrong population",
bob later for "wrong intervention". The final reason of an agreed exclude was the newest
*row* with a reason, and a merged file's rows are always newer than the home's own, so
alice's home counted bob's reason and bob's home counted alice's: two different "excluded
with reasons" boxes from the same decisions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.store.review_decisions import decide
from tests.unit.test_review_rounds import DONNERS, REASONS, _svc

pytestmark = pytest.mark.skipif(not DONNERS.is_file(), reason=f"{DONNERS} not here")


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), "review", *args])
    assert "Traceback" not in got.output
    assert got.exit_code == 0, got.output
    return got


def test_agreed_excludes_with_different_reasons_count_alike_in_both_homes(
    tmp_path: Path,
) -> None:
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    for home in (alice, bob):
        with _svc(home) as s:
            s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
    with _svc(alice) as s:
        docs = [r.doc_id for r, _ in s.reviews.records("don")][:6]
    for home, who, reason in ((alice, "alice", REASONS[0]), (bob, "bob", REASONS[1])):
        with _svc(home) as s:  # bob decides after alice (decided_at is later)
            decide(s.store, "don", [(d, "exclude") for d in docs], reviewer=who, reason=reason)
        _cli(home, "export", "don", "--format", "decisions", "--reviewer", who,
             "-o", str(tmp_path / f"{who}.jsonl"))  # fmt: skip
    _cli(alice, "merge", "don", str(tmp_path / "bob.jsonl"))
    _cli(bob, "merge", "don", str(tmp_path / "alice.jsonl"))
    shown = [json.loads(_cli(h, "show", "don", "--json").output)["prisma"] for h in (alice, bob)]
    assert shown[0]["excluded"] == shown[1]["excluded"] == 6
    assert shown[0]["reasons"] == shown[1]["reasons"] == {REASONS[1]: 6}  # bob's: given last
    csvs = []
    for home in (alice, bob):
        out = tmp_path / f"{home.name}.csv"
        _cli(home, "export", "don", "--format", "csv", "-o", str(out))
        csvs.append(out.read_text(encoding="utf-8"))
    assert csvs[0] == csvs[1]
    assert csvs[0].count(REASONS[1]) == 6
