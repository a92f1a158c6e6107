"""``litsift review new --from`` a review's RIS export keeps each named reviewer's votes at
both stages, and what each reviewer sees when screening blind.

1. The export wrote the reviewers' votes of the exported stage only: the full-text votes of a
   title/abstract export (and the title/abstract votes of a full-text export) came back as
   unnamed prior decisions, so the copy's agreement, conflicts and each reviewer's decisions
   file (for ``review merge``) differed from the original's.
2. The copy held each record's final decision as a prior decision beside its reviewers' votes:
   a record only one reviewer had decided was decided, in the copy, for a second reviewer
   screening blind (in the original it awaits them).

Real file: the Rayyan export of ``tests/data/imports/rayyan`` (reviewers Zbys and
m.el-gohary at title/abstract, one conflict); both screen part of the full text in the
service, disagree on two records and one of those is resolved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from litsift.store.review_stages import STAGES, final_decisions, reviewer_decisions, stage_rows
from tests.unit.test_review_csv_copy import TINEA, _cli
from tests.unit.test_review_rounds import _svc

WHO = ("Zbys", "m.el-gohary", "a-new-reviewer")


def _full_text_votes(home: Path) -> None:
    """Zbys decides every full-text record (every third excluded, with a reason);
    m.el-gohary the first four, disagreeing on the 2nd and 3rd; the 2nd is resolved."""
    with _svc(home) as s:
        reason = s.reviews.reasons("tinea")[0]
        session = s.reviews.open("tinea", "fulltext", "Zbys")
        zbys: list[str] = []
        while (paper := session.current_paper()) is not None:
            out = "exclude" if len(zbys) % 3 == 2 else "include"
            session.decide(out, reason if out == "exclude" else "")
            zbys.append(paper.id)
        assert len(zbys) >= 5, zbys
        session = s.reviews.open("tinea", "fulltext", "m.el-gohary")
        for i in range(4):
            paper = session.current_paper()
            assert paper is not None and paper.id in zbys
            out = "exclude" if (zbys.index(paper.id) % 3 == 2) != (i in (1, 2)) else "include"
            session.decide(out, reason if out == "exclude" else "")
        clash = s.reviews.conflicts("tinea", "fulltext")
        assert len(clash) == 2, clash
        s.reviews.resolve("tinea", clash[0].doc_id, "include", stage="fulltext")


def _state(home: Path, name: str, keep: set[str] | None = None) -> dict[str, Any]:
    """Each reviewer's view per stage, the final decisions, conflicts, agreement and each
    reviewer's decisions file of review ``name`` (of the records ``keep`` only, when given:
    a full-text export's, without the counts of the whole review)."""
    out: dict[str, Any] = {}
    with _svc(home) as s:
        for stage in STAGES:
            rows = [r for r in stage_rows(s.store, name, stage) if keep is None or r.doc_id in keep]
            for who in WHO:  # what each reviewer sees, screening blind
                seen = reviewer_decisions(rows, who)
                out[f"{stage} {who}"] = sorted(
                    (r.doc_id, r.reviewer, r.decision, r.reason, r.source) for r in seen
                )
            out[f"{stage} final"] = sorted(
                (r.doc_id, r.decision, r.reason, r.reviewer) for r in final_decisions(rows)
            )
            clash = s.reviews.conflicts(name, stage)
            out[f"{stage} conflicts"] = {
                c.doc_id: c.votes for c in clash if keep is None or c.doc_id in keep
            }
            if keep is None or stage == "fulltext":  # every full-text record is exported
                out[f"{stage} agreement"] = repr(s.reviews.agreement(name, stage))
            out[f"{stage} reviewers"] = s.reviews.reviewers(name, stage)
        for who in WHO[:2]:
            lines = s.reviews.export_decisions(name, who).splitlines()[1:]
            rows_of = [json.loads(line) for line in lines]
            rows_of = [r for r in rows_of if keep is None or r.get("doc_id") in keep]
            out[f"file {who}"] = sorted(
                json.dumps({k: v for k, v in r.items() if k not in ("at", "decided_at")},
                           sort_keys=True)
                for r in rows_of
            )  # fmt: skip
    if keep is not None:
        return out
    shown = json.loads(_cli(home, "review", "show", name, "--json").output)
    out |= {f"prisma {k}": v for k, v in shown["prisma"].items() if k != "sources"}
    out |= {f"show {k}": v for k, v in shown.items() if k not in ("review", "prisma")}
    return out


@pytest.mark.parametrize("stage", STAGES)
def test_a_review_from_its_ris_export_keeps_each_reviewers_votes_at_both_stages(
    tmp_path: Path, stage: str
) -> None:
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    _full_text_votes(home)
    exported = tmp_path / "tinea.ris"
    _cli(home, "review", "export", "tinea", "--format", "ris", "--stage", stage,
         "-o", str(exported))  # fmt: skip
    _cli(home, "review", "new", "copy", "--from", str(exported))
    with _svc(home) as s:
        keep = {r.doc_id for r, _ in s.reviews.records("copy")}
    assert len(keep) == (14 if stage == "tiab" else 5), keep
    whole = stage == "tiab"  # a full-text export holds the full-text records only
    want = _state(home, "tinea", None if whole else keep)
    got = _state(home, "copy", None if whole else keep)
    assert want["fulltext reviewers"] == ["Zbys", "m.el-gohary"]
    assert len(want["fulltext conflicts"]) == 1
    for key in want:
        assert got[key] == want[key], key


def test_a_second_reviewer_of_the_copy_does_not_see_what_one_reviewer_decided(
    tmp_path: Path,
) -> None:
    """Zbys decided 8 tinea records alone: m.el-gohary (blind) sees them undecided."""
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    exported = tmp_path / "tinea.ris"
    _cli(home, "review", "export", "tinea", "--format", "ris", "-o", str(exported))
    _cli(home, "review", "new", "copy", "--from", str(exported))
    with _svc(home) as s:
        for name in ("tinea", "copy"):
            rows = stage_rows(s.store, name, "tiab")
            mine = reviewer_decisions(rows, "m.el-gohary")
            assert all(r.reviewer == "m.el-gohary" for r in mine), name
            assert len(mine) == 4, name
            assert reviewer_decisions(rows, "carol") == [], name
