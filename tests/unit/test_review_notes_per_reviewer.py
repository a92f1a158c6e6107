"""Notes per reviewer: a record's note was one for the whole review (``review_records.note``),
so bob, screening blind in alice's home, read her "exclude: wrong population" on the record.
Now each reviewer has their own note (``review_notes``): a screening session shows and edits
its reviewer's only, and where the review is reported as a whole (``review show``, the CSV and
RIS exports, the decisions file and its merge) every reviewer's note appears under their name.
A store written before keeps its notes, as the unnamed reviewer's. Real Donners 2021 review,
real SQLite stores."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import rispy
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.store.schema import MIGRATIONS, SCHEMA_VERSION
from tests.unit.test_review_rounds import DONNERS, REASONS, _svc

pytestmark = pytest.mark.skipif(not DONNERS.is_file(), reason=f"{DONNERS} not here")

HERS, HIS, OWN = "exclude: wrong population", "check the dose", "unnamed: maybe a duplicate"


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), "review", *args])
    assert "Traceback" not in got.output
    assert got.exit_code == 0, got.output
    return got


def _noted(s: LitsiftService) -> tuple[str, str]:
    """Review ``don`` in ``s`` with alice's and bob's notes on the first record and the
    unnamed reviewer's on the second; ``(first, second)`` record ids."""
    s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
    first, second = [r.doc_id for r, _ in s.reviews.records("don")][:2]
    s.reviews.open("don", reviewer="alice").set_note(HERS, first)
    s.reviews.open("don", reviewer="bob").set_note(HIS, first)
    s.reviews.open("don").set_note(OWN, second)
    return first, second


def _by_reviewer(s: LitsiftService, name: str = "don") -> dict[tuple[str, str], str]:
    return {(d, w): t for d, by in s.reviews.notes(name).items() for w, t in by.items()}


def test_bob_in_alices_home_does_not_see_her_note(tmp_path: Path) -> None:
    with _svc(tmp_path / "home") as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        alice = s.reviews.open("don", reviewer="alice")
        paper = alice.current_paper()
        assert paper is not None
        alice.set_note(HERS, paper.id)
        bob = s.reviews.open("don", reviewer="bob")
        assert bob.note_of(paper.id) == ""  # blind: not her judgement
        assert s.reviews.open("don").note_of(paper.id) == ""  # nor the unnamed reviewer's
        bob.set_note(HIS, paper.id)  # his own note leaves hers as it was
        assert s.reviews.open("don", reviewer="alice").note_of(paper.id) == HERS
        assert s.reviews.open("don", reviewer="bob").note_of(paper.id) == HIS
        bob.set_note("", paper.id)  # emptied: his note is gone, hers stays
        assert _by_reviewer(s) == {(paper.id, "alice"): HERS}


def test_show_csv_and_ris_carry_every_note_under_its_reviewer(tmp_path: Path) -> None:
    """Each note is under its reviewer's name in ``review show``, and both exports made a
    review again give each note back to whoever wrote it."""
    home = tmp_path / "home"
    with _svc(home) as s:
        first, second = _noted(s)
        rows = {r["id"]: r for r in csv.DictReader(io.StringIO(s.reviews.export("don", "csv")))}
        ris = s.reviews.export("don", "ris")
    assert rows[first]["note"] == f"Note by alice: {HERS}\nNote by bob: {HIS}"
    assert rows[second]["note"] == OWN
    refs = {r["id"]: r for r in rispy.loads(ris)}
    assert f"Note by alice: {HERS}" in refs[first]["notes"]
    assert f"Note by bob: {HIS}" in refs[first]["notes"]
    assert OWN in refs[second]["notes"]

    shown = _cli(home, "show", "don").output
    assert f"{first}  alice: {HERS}" in shown and f"{first}  bob: {HIS}" in shown
    assert f"{second}  {OWN}" in shown
    as_json = json.loads(_cli(home, "show", "don", "--json").output)["notes"]
    assert {(n["doc_id"], n["reviewer"], n["note"]) for n in as_json} == {
        (first, "alice", HERS), (first, "bob", HIS), (second, "", OWN)
    }  # fmt: skip

    # the RIS copy made a review again: each note comes back as its reviewer's
    (tmp_path / "don.ris").write_text(ris, "utf-8")
    _cli(home, "new", "copy", "--from", str(tmp_path / "don.ris"), "--labels", "none")
    with _svc(home) as s:
        assert _by_reviewer(s, "copy") == {(first, "alice"): HERS, (first, "bob"): HIS,
                                           (second, ""): OWN}  # fmt: skip
        assert s.reviews.open("copy", reviewer="bob").note_of(first) == HIS

    # the CSV copy as well (its notes all went to the unnamed reviewer, "alice: ...; bob: ...")
    with _svc(home) as s:
        (tmp_path / "don.csv").write_text(s.reviews.export("don", "csv"), "utf-8")
    _cli(home, "new", "from-csv", "--from", str(tmp_path / "don.csv"), "--labels", "none")
    with _svc(home) as s:
        assert _by_reviewer(s, "from-csv") == {(first, "alice"): HERS, (first, "bob"): HIS,
                                               (second, ""): OWN}  # fmt: skip


def test_decisions_file_merged_into_another_home_keeps_who_wrote_what(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    with _svc(here) as s:
        first, _ = _noted(s)
        want = _by_reviewer(s)
    out = tmp_path / "don.jsonl"
    _cli(here, "export", "don", "--format", "decisions", "-o", str(out))
    noted = [json.loads(ln) for ln in out.read_text("utf-8").splitlines()[1:]]
    assert {(n["reviewer"], n["note"]) for n in noted if "note" in n} == {
        ("alice", HERS), ("bob", HIS), ("", OWN)
    }  # fmt: skip
    with _svc(there) as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        s.reviews.open("don", reviewer="carol").set_note("carol's own", first)
    got = _cli(there, "merge", "don", str(out)).output
    assert "2 records' notes merged" in got
    with _svc(there) as s:
        assert _by_reviewer(s) == {**want, (first, "carol"): "carol's own"}
        assert s.reviews.open("don", reviewer="bob").note_of(first) == HIS
        assert s.reviews.open("don", reviewer="carol").note_of(first) == "carol's own"
    assert "notes merged" not in _cli(there, "merge", "don", str(out)).output  # nothing twice
    # alice's file only: her notes, under her name
    mine = _cli(here, "export", "don", "--format", "decisions", "--reviewer", "alice").output
    assert [(n["reviewer"], n["note"]) for n in map(json.loads, mine.splitlines()[1:])] == [
        ("alice", HERS)
    ]
    # one note merged is said in the singular (it read "1 records' notes merged")
    third = tmp_path / "third"
    with _svc(third) as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
    (tmp_path / "alice.jsonl").write_text(mine, "utf-8")
    said = _cli(third, "merge", "don", str(tmp_path / "alice.jsonl")).output
    assert "a record's note merged" in said, said


def test_a_store_of_the_previous_schema_keeps_its_notes(tmp_path: Path) -> None:
    """A store written before ``review_notes`` (its note in ``review_records.note``, the table
    dropped, ``user_version`` set back) is migrated: the note is the unnamed reviewer's, shown
    in its screening session as before and to no named reviewer."""
    from litsift.store.schema_tables import review_notes

    home = tmp_path / "home"
    with _svc(home) as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        first = s.reviews.records("don")[0][0].doc_id
    previous = MIGRATIONS.index(review_notes)
    with sqlite3.connect(get_paths(home).store_file) as conn:
        conn.execute("DROP TABLE review_notes")
        conn.execute("UPDATE review_records SET note = ? WHERE doc_id = ?", (HERS, first))
        conn.execute(f"PRAGMA user_version = {previous}")
    with LitsiftService(get_paths(home)) as s:
        assert s.store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert _by_reviewer(s) == {(first, ""): HERS}
        assert s.reviews.open("don").note_of(first) == HERS
        assert s.reviews.open("don", reviewer="bob").note_of(first) == ""
        assert {r.doc_id: r.note for r, _ in s.reviews.records("don")}[first] == HERS
    with LitsiftService(get_paths(home)) as s:  # opened again: nothing moves twice
        assert _by_reviewer(s) == {(first, ""): HERS}


def test_notes_and_tags_keep_no_control_characters(tmp_path: Path) -> None:
    """A note pasted from a terminal (``ESC [ 31 m``, a bell, an OSC title) was stored as typed
    and reached a terminal through any output not sanitised there (a CSV or decisions file
    opened later with ``cat``): notes and tags are stored without them, from the screening
    screen, the results' note editor and a merged decisions file alike."""
    from litsift.types import Kind

    hostile = "wrong \x1b[31mpopulation\x1b[0m\x07 \x1b]0;pwned\x07(check)"
    with _svc(tmp_path / "home") as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        first = next(r.doc_id for r, _ in s.reviews.records("don"))
        s.reviews.open("don", reviewer="alice").set_note(hostile, first)
        s.set_note(Kind.PAPER, first, hostile, ["tag\x1b[2J", "ok"])
        (tmp_path / "bob.jsonl").write_text(
            s.reviews.export_decisions("don", "alice").replace("alice", "bob"), "utf-8"
        )
        # the file as another litsift wrote it, its note with the sequence in it
        lines = (tmp_path / "bob.jsonl").read_text("utf-8").splitlines()
        note = json.loads(lines[-1])
        lines[-1] = json.dumps({**note, "note": hostile + " (bob)"})
        (tmp_path / "bob.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
        assert _cli(tmp_path / "home", "merge", "don", str(tmp_path / "bob.jsonl"))
        stored = s.annotations(Kind.PAPER, [first])[first]
        notes = _by_reviewer(s)
    clean = "wrong population (check)"
    assert notes[(first, "alice")] == clean and notes[(first, "bob")] == f"{clean} (bob)"
    assert stored.note == clean and list(stored.tags) == ["tag", "ok"]


def test_a_name_with_a_colon_and_double_spaces_come_back_from_ris_and_csv(
    tmp_path: Path,
) -> None:
    """``Note by Dr: Smith: ...`` came back as the note "Smith: ..." of a reviewer "Dr", and
    the RIS copy squeezed the double spaces of every note ("10  mg" -> "10 mg")."""
    home, odd, spaced = tmp_path / "home", "Dr: Smith", "dose  10 mg:  check  it"
    with _svc(home) as s:
        s.reviews.create("don", [DONNERS], labels="none", reasons=REASONS)
        first, second = [r.doc_id for r, _ in s.reviews.records("don")][:2]
        s.reviews.open("don", reviewer=odd).set_note(spaced, first)
        s.reviews.open("don").set_note(f"own:  {spaced}", second)
        want = _by_reviewer(s)
        assert want == {(first, odd): spaced, (second, ""): f"own:  {spaced}"}
        (tmp_path / "don.ris").write_text(s.reviews.export("don", "ris"), "utf-8")
        (tmp_path / "don.csv").write_text(s.reviews.export("don", "csv"), "utf-8")
    for copy, fmt in (("ris-copy", "ris"), ("csv-copy", "csv")):
        _cli(home, "new", copy, "--from", str(tmp_path / f"don.{fmt}"), "--labels", "none")
        with _svc(home) as s:
            assert _by_reviewer(s, copy) == want, fmt
