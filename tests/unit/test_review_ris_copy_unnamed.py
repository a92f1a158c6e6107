"""A review screened by its own (unnamed) reviewer, with a named reviewer's decisions merged in,
copied through its RIS export (real Donners 2021 set, real SQLite stores, the CLI).

Found in a terminal: the export wrote the unnamed reviewer's vote of a conflict as
``N1  - Reviewer : exclude (not PK)``, which ``review new --from`` did not read as a vote but
kept as the record's note; the copy had no conflict (the named reviewer's include was its
decision), "(unnamed) and bob"'s kappa was gone, and its includes were more than the
original's. The unnamed reviewer's vote is now written ``Reviewer: exclude (not PK)`` beside
each named one's (the old spelling is read too), so the copy has the same conflicts, kappa
and counts. And where two reviewers agreed on exclude with different reasons, the copy now
keeps the reason the review kept (it kept the one whose reviewer's name sorts last).
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


def _show(home: Path, name: str) -> dict[str, Any]:
    got = CliRunner().invoke(main, ["--home", str(home), "review", "show", name, "--json"])
    assert got.exit_code == 0, got.output
    return dict(json.loads(got.stdout))


def test_the_unnamed_reviewer_s_votes_come_back_from_the_ris_copy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with _svc(home) as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        mine = s.reviews.open("don")  # the review's own reviewer, no --reviewer
        mine.decide("include")
        mine.decide("exclude", REASONS[0])
        mine.decide("exclude", REASONS[1])
        bob = s.reviews.open("don", reviewer="bob")
        for reason in (REASONS[2], REASONS[2], REASONS[1]):  # the first one: a conflict
            bob.decide("exclude", reason)
        text = s.reviews.export("don", "ris")
    assert "N1  - Reviewer: include" in text and "Reviewer : " not in text
    ris = tmp_path / "don.ris"
    ris.write_text(text, "utf-8")
    old = tmp_path / "old.ris"  # as the export wrote it before: still read as the vote
    old.write_text(text.replace("N1  - Reviewer: ", "N1  - Reviewer : "), "utf-8")
    got = CliRunner().invoke(
        main, ["--home", str(home), "review", "new", "copy", "--from", str(ris)]
    )
    assert got.exit_code == 0, got.output
    argv = ["--home", str(home), "review", "new", "old", "--from", str(old)]
    assert CliRunner().invoke(main, argv).exit_code == 0
    was = _show(home, "don")
    assert was["prisma"]["conflicts"] == 1
    assert was["agreement"]["tiab"][0] | {"kappa": 0} == {
        "a": "", "b": "bob", "both": 3, "agreed": 2, "kappa": 0
    }  # fmt: skip
    for name in ("copy", "old"):
        now = _show(home, name)
        assert now["notes"] == [], now["notes"]  # it read "Reviewer : exclude (...)" as a note
        assert now["agreement"] == was["agreement"]
        for key in ("screened", "included", "excluded", "maybe", "conflicts", "reasons"):
            assert now["prisma"][key] == was["prisma"][key], (name, key)


def test_the_copy_counts_the_exclusion_reasons_of_the_review(tmp_path: Path) -> None:
    """Two reviewers agree on exclude with different reasons: the reason kept is the one given
    last (aaron's here, whose decisions were made after zed's file was written). The copy
    decided both votes in one millisecond and kept zed's, by name, counting another reason
    than the review's; its vote that gives the file's reason is now the later one."""
    zed, home = tmp_path / "zed", tmp_path / "home"
    with _svc(zed) as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        mine = s.reviews.open("don", reviewer="zed")
        for _ in range(3):
            mine.decide("exclude", REASONS[0])
        (tmp_path / "zed.jsonl").write_text(s.reviews.export_decisions("don", "zed"), "utf-8")
    with _svc(home) as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        mine = s.reviews.open("don", reviewer="aaron")
        for _ in range(3):  # later than zed's: aaron's reasons are the review's
            mine.decide("exclude", REASONS[1])
        s.reviews.merge("don", [tmp_path / "zed.jsonl"])  # zed's rows after aaron's
        (tmp_path / "don.ris").write_text(s.reviews.export("don", "ris"), "utf-8")
    argv = ["--home", str(home), "review", "new", "copy", "--from", str(tmp_path / "don.ris")]
    assert CliRunner().invoke(main, argv).exit_code == 0
    was, now = _show(home, "don"), _show(home, "copy")
    assert was["prisma"]["reasons"] == {REASONS[1]: 3}
    assert now["prisma"]["reasons"] == was["prisma"]["reasons"]
    assert now["agreement"] == was["agreement"]
