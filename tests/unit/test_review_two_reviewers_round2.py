"""Two reviewers, round 2: defects of the two-reviewer workflow found as a reviewer would meet
them, on the real Donners 2021 review (``shared/data/eval/screening``) and real SQLite stores,
through ``litsift review show / merge / resolve / export`` (helpers of
:mod:`tests.unit.test_review_rounds`).

1. merging a second reviewer's file never lowers what was screened: a record one reviewer
   decided and the other has not is that reviewer's decision (a prior label of the imported
   file is no reviewer's vote), and a record in conflict is still screened (awaiting
   resolution), its full text still sought;
2. a record in conflict is counted once, as awaiting resolution, until resolved;
3. ``review resolve`` refuses a record that is not in conflict and a reason that is not one
   of the review's, writing nothing;
4. ``review merge`` restores decisions that carry no reviewer's name (a single reviewer's
   backup), and names the ones it cannot place;
5. an older file of a reviewer never takes back their newer decisions.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.store.review_decisions import decide
from litsift.store.reviews import current_decisions
from tests.unit.test_review_rounds import DONNERS, REASONS, _svc, screen_all, truth

pytestmark = pytest.mark.skipif(not DONNERS.is_file(), reason=f"{DONNERS} not here")


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), "review", *args])
    assert "Traceback" not in got.output
    return got


def _counts(home: Path) -> dict[str, Any]:
    got = _cli(home, "show", "don", "--json")
    assert got.exit_code == 0, got.output
    return dict(json.loads(got.output)["prisma"])


def _rows(home: Path) -> int:
    """Rows of the review's decisions log (every decision ever written, undone ones too)."""
    with _svc(home) as s, s.store._lock:
        return int(s.store._conn.execute("SELECT COUNT(*) FROM review_decisions").fetchone()[0])


def _two_reviewers(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """Alice's home and Bob's decisions file of review ``don`` (2 included + 2 excluded
    labels of the set as priors, in both). Returns (alice's home, bob's file, the records by
    role).

    Alice (``--reviewer alice``): includes ``p_exc`` (a prior exclude), ``a0``-``a5``;
    excludes ``e0``-``e3``; at full text includes ``p_exc``, ``a0``-``a3``, excludes ``a4``.
    Bob (``--reviewer bob``): excludes ``a0``, maybe ``a1``, includes ``a2``, excludes ``e0``,
    includes ``e1`` and ``new`` (which alice has not decided); leaves ``p_exc`` alone. Nobody
    decides ``none``.
    """
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    for home in (alice, bob):
        with _svc(home) as s:
            s.reviews.create("don", [DONNERS], labels=2, reasons=REASONS)
    with _svc(alice) as s:
        priors = {d: v for d, v, src in current_decisions(s.store, "don") if src == "prior"}
        free = [r.doc_id for r, _ in s.reviews.records("don") if r.doc_id not in priors]
    assert sorted(priors.values()) == ["exclude", "exclude", "include", "include"]
    ids = {f"a{i}": free[i] for i in range(6)}
    ids |= {f"e{i}": free[6 + i] for i in range(4)}
    ids["new"], ids["none"] = free[10], free[11]
    ids["p_exc"] = next(d for d, v in priors.items() if v == "exclude")
    with _svc(alice) as s:
        mine = [ids["p_exc"], *(ids[f"a{i}"] for i in range(6))]
        decide(s.store, "don", [(d, "include") for d in mine], reviewer="alice")
        for i in range(4):
            why = REASONS[i % len(REASONS)]
            decide(s.store, "don", [(ids[f"e{i}"], "exclude")], reviewer="alice", reason=why)
        full = [ids["p_exc"], *(ids[f"a{i}"] for i in range(4))]
        decide(s.store, "don", [(d, "include") for d in full], stage="fulltext", reviewer="alice")
        decide(s.store, "don", [(ids["a4"], "exclude")], stage="fulltext", reviewer="alice",
               reason="wrong design")  # fmt: skip
    with _svc(bob) as s:
        votes = [("a0", "exclude"), ("a1", "maybe"), ("a2", "include"), ("e0", "exclude"),
                 ("e1", "include"), ("new", "include")]  # fmt: skip
        decide(s.store, "don", [(ids[k], v) for k, v in votes], reviewer="bob")
    path = tmp_path / "bob.jsonl"
    got = _cli(bob, "export", "don", "--format", "decisions", "--reviewer", "bob", "-o", str(path))
    assert got.exit_code == 0, got.output
    return alice, path, ids


def _final(home: Path, stage: str = "tiab") -> dict[str, str]:
    with _svc(home) as s:
        return {d: v for d, v, _ in current_decisions(s.store, "don", stage)}


def test_merging_a_second_reviewer_never_lowers_what_was_screened(tmp_path: Path) -> None:
    """Alice's include of a record the imported file labelled exclude was hidden as a
    'conflict' with that label (no reviewer's vote) before any merge; after Bob's file, the
    records Bob excluded or marked maybe vanished from the full-text stage, with Alice's
    full-text decisions on them: assessed and included went down."""
    alice, bob_file, ids = _two_reviewers(tmp_path)
    before = _counts(alice)
    assert _final(alice)[ids["p_exc"]] == "include"  # one reviewer decided it: hers
    assert (before["screened"], before["included"], before["excluded"]) == (14, 9, 5)
    assert before["conflicts"] == 0
    merged = _cli(alice, "merge", "don", str(bob_file))
    assert merged.exit_code == 0, merged.output
    after = _counts(alice)
    assert after["screened"] >= before["screened"]
    assert after["included"] + after["conflicts"] >= before["included"]
    for key in ("sought", "assessed", "included"):
        assert after["fulltext"][key] >= before["fulltext"][key], key
    final = _final(alice)
    assert final[ids["p_exc"]] == "include"  # Bob has not decided it: still Alice's include
    assert final[ids["new"]] == "include" and final[ids["a2"]] == "include"
    assert (after["screened"], after["included"], after["excluded"]) == (15, 8, 4)
    assert after["conflicts"] == 3  # a0, a1, e1
    f_before, f_after = before["fulltext"], after["fulltext"]
    assert (f_before["assessed"], f_before["included"], f_before["excluded"]) == (6, 5, 1)
    assert (f_after["assessed"], f_after["included"], f_after["excluded"]) == (6, 5, 1)
    # a record in conflict at title/abstract is not excluded: its full text is sought
    assert f_after["sought"] == after["screened"] - after["excluded"] == 11
    assert {ids["a0"], ids["a1"], ids["e1"]} <= {r.doc_id for r, _ in _records(alice)}


def _records(home: Path) -> list[Any]:
    with _svc(home) as s:
        return s.reviews.records("don", "fulltext")


def test_a_record_in_conflict_is_counted_once_as_awaiting_resolution(tmp_path: Path) -> None:
    """A conflict was counted in 'records in conflict' and again in 'records not yet
    screened' (review show, the PRISMA diagram's pending box): every record is now in exactly
    one of included / excluded / maybe / awaiting resolution / not yet screened."""
    alice, bob_file, ids = _two_reviewers(tmp_path)
    assert _cli(alice, "merge", "don", str(bob_file)).exit_code == 0
    c = _counts(alice)
    parts = ("included", "excluded", "maybe", "conflicts", "unscreened")
    assert sum(c[k] for k in parts) == c["records"], {k: c[k] for k in parts}
    assert c["screened"] == c["included"] + c["excluded"] + c["maybe"] + c["conflicts"]
    clash = {ids["a0"], ids["a1"], ids["e1"]}
    assert not clash & set(_final(alice))  # no final decision while in conflict
    shown = _cli(alice, "show", "don")
    assert shown.exit_code == 0, shown.output
    assert re.search(r"awaiting resolution \(conflict\)\s+3\n", shown.output), shown.output
    assert re.search(rf"records not yet screened\s+{c['records'] - 15}\n", shown.output)
    assert "litsift review conflicts don" in shown.output
    # the export says so too: no decision, source 'conflict', not among the unscreened
    rows = list(csv.DictReader(io.StringIO(_cli(alice, "export", "don").output)))
    assert {r["id"] for r in rows if r["source"] == "conflict"} == clash
    assert all(r["decision"] == "" for r in rows if r["id"] in clash)
    pending = _cli(alice, "export", "don", "--which", "unscreened").output
    assert len(list(csv.DictReader(io.StringIO(pending)))) == c["unscreened"]
    # and the RIS copy labels it a conflict, not 'unscreened' (read back: undecided)
    ris = _cli(alice, "export", "don", "--format", "ris").output
    labels = dict(re.findall(r"^ID  - (\S+)\n(?:.*\n)*?LB  - (\S+)$", ris, re.M))
    assert {d for d, lb in labels.items() if lb == "conflict"} == clash
    # with each reviewer's vote, so the copy read back awaits the same resolutions (they
    # came back unscreened, the votes lost)
    assert re.search(r"^N1  - Reviewer (alice|bob): (include|exclude|maybe)", ris, re.M), ris
    (tmp_path / "copy.ris").write_text(ris, encoding="utf-8")
    copy = tmp_path / "copy"
    assert _cli(copy, "new", "don", "--from", str(tmp_path / "copy.ris")).exit_code == 0
    with _svc(alice) as a, _svc(copy) as b:
        want = {c.doc_id: c.votes for c in a.reviews.conflicts("don")}
        assert {c.doc_id: c.votes for c in b.reviews.conflicts("don")} == want
    assert _counts(copy)["conflicts"] == c["conflicts"] == len(clash)
    waiting = _cli(alice, "export", "don", "--which", "conflict").output
    assert {r["id"] for r in csv.DictReader(io.StringIO(waiting))} == clash
    # the recall curve screens what review show screens: the conflicts are screened records
    # that found no include yet (they were left out, so the curve was 3 records short)
    curve = json.loads(_cli(alice, "curve", "don", "-o", str(tmp_path / "c.svg"), "--json").output)
    assert curve["screened"] + sum(curve["priors"].values()) == c["screened"]
    assert curve["includes"] + curve["priors"].get("include", 0) == c["included"]
    # resolved: it leaves the conflicts for its decision, and stays screened
    got = _cli(alice, "resolve", "don", ids["a0"], "include", "--reviewer", "carol")
    assert got.exit_code == 0, got.output
    assert got.output.strip().endswith("2 conflicts left")
    assert "include at title/abstract" in got.output  # the stage by name, not "tiab"
    listed = _cli(alice, "conflicts", "don").output
    assert "2 conflicts at title/abstract" in listed and " tiab" not in listed, listed
    c2 = _counts(alice)
    assert (c2["screened"], c2["conflicts"], c2["included"]) == (15, 2, c["included"] + 1)
    assert sum(c2[k] for k in parts) == c2["records"]
    # a RIS copy made now reports the same agreement (it carried the votes of the conflicts
    # only, so its kappa was computed on disagreements: 0 agreed) and keeps the resolution
    ris = _cli(alice, "export", "don", "--format", "ris").output
    assert "N1  - Resolved by carol: include" in ris
    (tmp_path / "copy2.ris").write_text(ris, encoding="utf-8")
    copy2 = tmp_path / "copy2"
    assert _cli(copy2, "new", "don", "--from", str(tmp_path / "copy2.ris")).exit_code == 0
    with _svc(alice) as a, _svc(copy2) as b:
        assert b.reviews.agreement("don") == a.reviews.agreement("don")
        assert a.reviews.agreement("don")[0].agreed > 0
        assert {c.doc_id: c.votes for c in b.reviews.conflicts("don")} == {
            c.doc_id: c.votes for c in a.reviews.conflicts("don")
        }
    c3 = _counts(copy2)
    assert {k: c3[k] for k in (*parts, "screened")} == {k: c2[k] for k in (*parts, "screened")}


def test_resolve_refuses_a_record_not_in_conflict_and_a_reason_not_the_review_s(
    tmp_path: Path,
) -> None:
    """`review resolve` wrote a 'resolution' of any record (one nobody decided, one both
    reviewers agreed on) and any reason (a typo became a new PRISMA exclusion reason)."""
    alice, bob_file, ids = _two_reviewers(tmp_path)
    assert _cli(alice, "merge", "don", str(bob_file)).exit_code == 0
    rows = _rows(alice)
    refused = {
        "a2": ("include", "both decided include"),  # alice and bob agree
        "a3": ("exclude", "only alice decided it"),
        "new": ("exclude", "only bob decided it"),
    }
    for key, (decision, why) in refused.items():
        got = _cli(alice, "resolve", "don", ids[key], decision)
        assert got.exit_code == 1, got.output
        said = got.output
        assert "is not in conflict at title/abstract" in said and why in said, said
        assert "hint: litsift review conflicts don" in got.output
    got = _cli(alice, "resolve", "don", ids["none"], "include")
    assert got.exit_code == 1 and "no reviewer decided it yet" in got.output, got.output
    # in conflict at title/abstract, not at full text: the hint names the stage it is in
    got = _cli(alice, "resolve", "don", ids["a0"], "include", "--stage", "fulltext")
    assert got.exit_code == 1 and "is not in conflict at full text" in got.output, got.output
    assert "only alice decided it (include)" in got.output and "--stage tiab" in got.output
    bad = _cli(alice, "resolve", "don", ids["e1"], "exclude", "--reason", "wrong colour")
    assert bad.exit_code == 1, bad.output
    assert "'wrong colour' is not an exclusion reason of review don" in bad.output
    assert "1 wrong population; 2 wrong intervention; 3 wrong design" in bad.output
    with_include = _cli(alice, "resolve", "don", ids["a0"], "include", "--reason", "wrong design")
    assert with_include.exit_code == 1 and "exclude only" in with_include.output
    assert _rows(alice) == rows  # nothing written
    reasons = _counts(alice)["reasons"]
    # a reason of the list, or its key (1-9, as while screening)
    ok = _cli(alice, "resolve", "don", ids["e1"], "exclude", "--reason", "3")
    assert ok.exit_code == 0, ok.output
    ok = _cli(alice, "resolve", "don", ids["a1"], "exclude", "--reason", "wrong population")
    assert ok.exit_code == 0, ok.output
    for why in ("wrong design", "wrong population"):
        reasons[why] = reasons.get(why, 0) + 1
    assert _counts(alice)["reasons"] == reasons
    # a settled conflict can be settled again (a resolution typed wrong is corrected)
    again = _cli(alice, "resolve", "don", ids["a1"], "include")
    assert again.exit_code == 0, again.output
    assert _final(alice)[ids["a1"]] == "include"
    # a review without reasons takes none, and says how to set them
    with _svc(alice) as s:
        s.reviews.set_reasons("don", [])
    none = _cli(alice, "resolve", "don", ids["a0"], "exclude", "--reason", "wrong design")
    assert none.exit_code == 1 and "review don has no exclusion reasons" in none.output
    assert "litsift review reasons don" in none.output


def test_merge_restores_a_single_reviewer_s_decisions_file(tmp_path: Path) -> None:
    """`review export NAME --format decisions` of a reviewer who screened without --reviewer
    could not be merged back ('a decision without a reviewer name', nothing merged): a
    backup restored nothing. Now the unnamed decisions are the review's own; one that differs
    from a decision the review already has is named and skipped, and --reviewer merges the
    file as that reviewer's."""
    home = tmp_path / "solo"
    with _svc(home) as s:
        labels = truth(s)
        s.reviews.create("don", [DONNERS], labels=2, reasons=REASONS)
        done = screen_all(s, "don", labels, limit=12)
        prior = next(d for d, v, src in current_decisions(s.store, "don") if src == "prior")
        decide(s.store, "don", [(prior, "maybe")])  # the reviewer changes a prior label
        screen_all(s, "don", labels, stage="fulltext", limit=2)
    backup = tmp_path / "don.jsonl"
    assert _cli(home, "export", "don", "--format", "decisions", "-o", str(backup)).exit_code == 0
    before = _counts(home)
    with _svc(home) as s:
        mine = s.reviews.export_decisions("don")
    assert _cli(home, "delete", "don", "--yes").exit_code == 0
    made = _cli(home, "new", "don", "--from", str(DONNERS), "--labels", "2",
                "--reasons", ",".join(REASONS))  # fmt: skip
    assert made.exit_code == 0, made.output
    got = _cli(home, "merge", "don", str(backup))
    assert got.exit_code == 0, got.output
    assert got.output.startswith(f"merged {12 + 1 + 2} decisions (0 already here")
    assert "without a reviewer's name" in got.output  # said how they were merged
    assert _counts(home) == before
    with _svc(home) as s:
        assert s.reviews.export_decisions("don") == mine
    assert _cli(home, "merge", "don", str(backup)).output.startswith("merged 0 decisions (15")

    # another litsift whose unnamed reviewer decided one of those records otherwise: which
    # one is meant is unknown (the same reviewer later, or someone else unnamed): that one is
    # skipped and named, the others restored
    changed, decision, _ = done[0]
    other = "exclude" if decision == "include" else "include"
    there = tmp_path / "other"
    with _svc(there) as s:
        s.reviews.create("don", [DONNERS], labels=2, reasons=REASONS)
        decide(s.store, "don", [(changed, other)])
    clash = _cli(there, "merge", "don", str(backup))
    assert clash.exit_code == 1, clash.output
    assert clash.stdout.startswith(
        "merged 14 decisions (0 already here, 0 of records not in the review, 1 rows skipped)"
    )
    assert changed in clash.stderr and "differs from this review's own" in clash.stderr
    assert "--reviewer NAME" in clash.stderr
    assert _final(there)[changed] == other
    # named, they are a second reviewer's: the one record is in conflict
    named = _cli(there, "merge", "don", str(backup), "--reviewer", "bob")
    assert named.exit_code == 0, named.output
    assert named.output.startswith("merged 15 decisions (0 already here")
    with _svc(there) as s:
        assert [c.doc_id for c in s.reviews.conflicts("don")] == [changed]
        assert s.reviews.reviewers("don") == ["bob"]


def test_an_older_file_of_a_reviewer_does_not_take_back_their_newer_decisions(
    tmp_path: Path,
) -> None:
    """Merging Bob's file of Monday after his file of Tuesday put Monday's decisions back (the
    newest row written won, whatever its time): a decision older than its reviewer's current
    one here is known, not merged."""
    alice, bob_file, ids = _two_reviewers(tmp_path)
    bob = tmp_path / "bob"
    with _svc(bob) as s:
        decide(s.store, "don", [(ids["a0"], "include")], reviewer="bob")  # bob changes his mind
    newer = tmp_path / "bob-2.jsonl"
    assert _cli(bob, "export", "don", "--format", "decisions", "-o", str(newer)).exit_code == 0
    assert _cli(alice, "merge", "don", str(newer)).exit_code == 0
    assert _final(alice)[ids["a0"]] == "include"  # alice and bob agree now
    again = _cli(alice, "merge", "don", str(bob_file))  # the older file
    assert again.exit_code == 0 and again.output.startswith("merged 0 decisions (6 already")
    assert _final(alice)[ids["a0"]] == "include"


def test_resolve_finds_the_record_by_any_identifier_and_refuses_a_voter(tmp_path: Path) -> None:
    """A tester wrote `resolve don DOI:10.1002/CPT.310 ...` and `resolve don 10.1111/hae.12980
    ...` (DOIs are case-insensitive, and a bare DOI is how papers cite them): both were 'not a
    record of review don'. And `--reviewer alice` settled a conflict alice is one side of."""
    alice, bob_file, ids = _two_reviewers(tmp_path)
    assert _cli(alice, "merge", "don", str(bob_file)).exit_code == 0
    rows = _rows(alice)
    target = ids["e1"]
    assert target.startswith("doi:"), target  # the Donners records have DOIs
    doi = target.removeprefix("doi:")
    voter = _cli(alice, "resolve", "don", target, "include", "--reviewer", "alice")
    assert voter.exit_code == 1, voter.output
    assert "alice is one of the reviewers in conflict on" in voter.output
    assert _rows(alice) == rows  # nothing written
    for written in (f"DOI:{doi.upper()}", doi, f"https://doi.org/{doi}"):
        got = _cli(alice, "resolve", "don", written, "include", "--reviewer", "carol")
        assert got.exit_code == 0, (written, got.output)
        assert got.output.startswith(f"{target}: include at title/abstract"), got.output
    assert _final(alice)[target] == "include"
    wrong = _cli(alice, "resolve", "don", "10.9999/not-here", "include")
    assert wrong.exit_code == 1 and "is not a record of review 'don'" in wrong.output


def test_notes_travel_in_decisions_files_and_merge_without_losing_either(tmp_path: Path) -> None:
    """Each reviewer's notes come with their decisions file, as that reviewer's: a record
    noted by both keeps both (each under its reviewer's name), and merging the file again
    adds nothing; a backup restores the notes of a deleted review."""
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    with _svc(alice) as a, _svc(bob) as b:
        labels = truth(a)
        for s in (a, b):
            s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        done_a = screen_all(a, "don", labels, reviewer="alice", limit=6)
        done_b = screen_all(b, "don", labels, reviewer="bob", limit=6)
        both = next(d for d, _, _ in done_a if d in {x for x, _, _ in done_b})
        only_bob = next(d for d, _, _ in done_b if d != both)
        a.reviews.open("don", reviewer="alice").set_note("dose not reported", both)
        sb = b.reviews.open("don", reviewer="bob")
        sb.set_note("check the\nsecond cohort", both)
        sb.set_note("conference abstract only", only_bob)
        (tmp_path / "bob.jsonl").write_text(b.reviews.export_decisions("don", "bob"), "utf-8")
    got = _cli(alice, "merge", "don", str(tmp_path / "bob.jsonl"))
    assert got.exit_code == 0, got.output
    assert "2 records' notes merged" in got.output
    with _svc(alice) as a:
        notes = {r.doc_id: r.note for r, _ in a.reviews.records("don")}
        assert notes[both] == "alice: dose not reported; bob: check the\nsecond cohort"
        assert notes[only_bob] == "bob: conference abstract only"
        assert sum(1 for n in notes.values() if n) == 2
    again = _cli(alice, "merge", "don", str(tmp_path / "bob.jsonl"))
    assert "notes merged" not in again.output
    # a backup of the whole review, deleted and made again: the notes come back as they were
    backup = tmp_path / "backup.jsonl"
    assert _cli(alice, "export", "don", "--format", "decisions", "-o", str(backup)).exit_code == 0
    assert _cli(alice, "delete", "don", "--yes").exit_code == 0
    made = _cli(alice, "new", "don", "--from", str(DONNERS), "--labels", "none")
    assert made.exit_code == 0, made.output
    assert _cli(alice, "merge", "don", str(backup)).exit_code == 0
    with _svc(alice) as a:
        assert {r.doc_id: r.note for r, _ in a.reviews.records("don")} == notes


def test_merged_reasons_not_on_the_list_join_it_and_are_said(tmp_path: Path) -> None:
    """Bob's litsift had another reason list: his "bogus reason" excludes were merged without
    a word and the PRISMA diagram grew reason rows the review did not have. Now such reasons
    join the review's list (keys 1-9, as a RIS copy's do) and the merge says which."""
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    with _svc(alice) as a, _svc(bob) as b:
        labels = truth(a)
        a.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        b.reviews.create("don", [DONNERS], labels="none", reasons=["bogus reason"])
        session = b.reviews.open("don", reviewer="bob")
        while (paper := session.current_paper()) is not None and len(session.user_rows) < 6:
            session.decide("exclude", "bogus reason" if labels[paper.id] == "exclude" else "")
        (tmp_path / "bob.jsonl").write_text(b.reviews.export_decisions("don", "bob"), "utf-8")
    got = _cli(alice, "merge", "don", str(tmp_path / "bob.jsonl"))
    assert got.exit_code == 0, got.output
    assert "added to the review's: 'bogus reason'" in got.output
    with _svc(alice) as a:
        assert a.reviews.reasons("don") == [*REASONS, "bogus reason"]
        assert set(a.reviews.prisma("don").reasons) <= {*REASONS, "bogus reason", ""}


def test_a_review_without_reasons_takes_the_merged_file_s_list_in_its_key_order(
    tmp_path: Path,
) -> None:
    """Merged into a review without reasons, the reasons joined in the order bob's decisions
    used them, so alice's key 1 excluded for what bob's key 3 meant. The decisions file's
    header now lists the review's reasons; a review without any takes that list whole, in
    its order, and one with a list adds the reasons used, in the file's order."""
    alice, carol, bob = tmp_path / "alice", tmp_path / "carol", tmp_path / "bob"
    theirs = ["wrong population", "wrong design", "wrong outcome", "not about emicizumab"]
    with _svc(alice) as a, _svc(carol) as c, _svc(bob) as b:
        a.reviews.create("don", [DONNERS], labels="none")
        c.reviews.create("don", [DONNERS], labels="none", reasons=["review"])
        b.reviews.create("don", [DONNERS], labels="none", reasons=theirs)
        session = b.reviews.open("don", reviewer="bob")
        for reason in (theirs[3], theirs[1], theirs[3]):  # key 4 first, then key 2
            session.decide("exclude", reason)
        text = b.reviews.export_decisions("don", "bob")
    assert json.loads(text.splitlines()[0])["reasons"] == theirs
    (tmp_path / "bob.jsonl").write_text(text, "utf-8")
    for home in (alice, carol):
        assert _cli(home, "merge", "don", str(tmp_path / "bob.jsonl")).exit_code == 0
    with _svc(alice) as a, _svc(carol) as c:
        assert a.reviews.reasons("don") == theirs  # keys 1-9 as bob's
        assert c.reviews.reasons("don") == ["review", theirs[1], theirs[3]]


def test_merge_and_show_name_each_stage_s_conflicts_with_the_command_that_lists_them(
    tmp_path: Path,
) -> None:
    """After a merge, "5 conflicts: litsift review conflicts spite" -- that command lists the
    title/abstract ones (1); the other 4 were at full text, where only --stage fulltext shows
    them. Each stage is now named with its own command; `resolve` says "1 conflict left"."""
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    with _svc(alice) as a, _svc(bob) as b:
        labels = truth(a)
        for s in (a, b):
            s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        screen_all(a, "don", labels, reviewer="alice")
        screen_all(b, "don", labels, reviewer="bob", flip_every=50)
        screen_all(a, "don", labels, reviewer="alice", stage="fulltext")
        screen_all(b, "don", labels, reviewer="bob", stage="fulltext", flip_every=2)
        (tmp_path / "bob.jsonl").write_text(b.reviews.export_decisions("don", "bob"), "utf-8")
    got = _cli(alice, "merge", "don", str(tmp_path / "bob.jsonl"))
    with _svc(alice) as a:
        tiab, full = (len(a.reviews.conflicts("don", s)) for s in ("tiab", "fulltext"))
        first = a.reviews.conflicts("don")[0].doc_id
    assert tiab and full, got.output
    assert f"conflicts {tiab} at title/abstract: litsift review conflicts don; " in got.output
    assert f"{full} at full text: litsift review conflicts don --stage fulltext" in got.output
    shown = _cli(alice, "show", "don").output
    cmd = "litsift review conflicts don"
    s = ["s" if n != 1 else "" for n in (tiab, full)]
    assert f"{tiab} record{s[0]} awaiting resolution at title/abstract: {cmd}\n" in shown
    assert f"{full} record{s[1]} awaiting resolution at full text: {cmd} --stage fulltext" in shown
    done = _cli(alice, "resolve", "don", first, "include", "--reviewer", "carol")
    left = tiab - 1
    assert done.output.strip().endswith(f"{left} conflict{'s' if left != 1 else ''} left")
