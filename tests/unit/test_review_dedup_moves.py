"""``litsift dedup`` merging a paper that a review screened: its membership, decisions (each
stage, each reviewer, with their reasons), notes and LLM verdicts move onto the surviving paper.
Was: they stayed on the deleted id, so the decided record dropped out of the review's exports
and screening while ``review show`` still counted it; a store merged so is repaired when opened.

The duplicate arises as in a library: a paper of the user's litsift JSONL whose title was cut
short (``Security in IoMT communications``) is not the review's record of the Embase export at
import; the JSONL ingested again, completed (full title, DOI link), makes the two one work
for ``litsift dedup``, which keeps the older row (the library's). Real Embase RIS export, real
SQLite homes, the JSONL and RIS built from the export's own record."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import rispy
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.llm.screening import prompt_id
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.store import review_decisions, review_notes, review_verdicts
from litsift.store.history import now_iso
from litsift.store.review_verdicts import stored_verdicts
from litsift.store.schema import MIGRATIONS, SCHEMA_VERSION

EMBASE = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "imports"
    / "ris-medline"
    / "telemonitoring_embase-export_13-records.ris"
)
DOI = "10.3390/s20174828"
RECORD = f"doi:{DOI}"  # the review's record of it (the import's id)
LIB = "W2071541"  # the library's paper (older: it survives the merge)
CUT = "Security in IoMT communications"
MODEL = "gpt-4o-mini"
#: the prompt id of the review's criteria (none): its verdicts are the ones the CSV gives
PROMPT = prompt_id("")


def _entry() -> dict[str, Any]:
    with EMBASE.open(encoding="utf-8") as f:
        return next(e for e in rispy.load(f) if e.get("doi") == DOI)


def _library(path: Path, complete: bool) -> Path:
    """The library's JSONL of the paper: its title cut short, or completed with the DOI link."""
    e = _entry()
    row: dict[str, Any] = {"id": LIB, "title": CUT, "authors": e["first_authors"][:2],
                           "year": int(e["publication_year"])}  # fmt: skip
    if complete:
        row.update(title=e["primary_title"], abstract=e["notes_abstract"],
                   url=f"https://doi.org/{DOI}")  # fmt: skip
    path.write_text(json.dumps(row) + "\n", "utf-8")
    return path


def _cli(home: Path, *args: str) -> str:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in got.output, got.output
    assert got.exit_code == 0, got.output
    return got.output


def _csv(home: Path, stage: str = "tiab") -> dict[str, dict[str, str]]:
    out = _cli(home, "review", "export", "tele", "--stage", stage)
    return {r["id"]: r for r in csv.DictReader(io.StringIO(out))}


def _show(home: Path) -> dict[str, Any]:
    got: dict[str, Any] = json.loads(_cli(home, "review", "show", "tele", "--json"))
    return got


def _made(tmp_path: Path, *extra: Path) -> tuple[Path, Path]:
    home, lib = tmp_path / "home", tmp_path / "library.jsonl"
    _cli(home, "ingest", "papers", str(_library(lib, complete=False)))
    with LitsiftService(get_paths(home)) as svc:
        svc.reviews.create("tele", [EMBASE, *extra], reasons=["wrong design"])
    return home, lib


def _merge(home: Path, lib: Path) -> str:
    _cli(home, "ingest", "papers", str(_library(lib, complete=True)))
    return _cli(home, "dedup")


def test_a_screened_record_merged_away_keeps_its_decisions_note_and_verdict(
    tmp_path: Path,
) -> None:
    home, lib = _made(tmp_path)
    with LitsiftService(get_paths(home)) as svc:
        store = svc.store
        review_decisions.decide(store, "tele", [(RECORD, "include")])
        review_decisions.decide(store, "tele", [(RECORD, "include")], reviewer="alice")
        review_decisions.decide(
            store, "tele", [(RECORD, "exclude")], stage="fulltext", reason="wrong design"
        )
        review_notes.set_note(store, "tele", RECORD, "a survey, not a trial")
        review_verdicts.save_verdicts(store, "tele", MODEL, {RECORD: (1, "on IoMT")}, PROMPT)
    before = _show(home)
    assert RECORD in _csv(home)

    said = _merge(home, lib)
    assert f"keep  {LIB}" in said and f"<- {RECORD} (doi)" in said, said
    rows, full = _csv(home), _csv(home, "fulltext")
    assert len(rows) == 13 and RECORD not in rows  # was 12: the decided record dropped out
    assert (rows[LIB]["decision"], rows[LIB]["note"]) == ("include", "a survey, not a trial")
    assert (rows[LIB]["llm_verdict"], rows[LIB]["llm_model"]) == ("include", MODEL)
    assert (full[LIB]["decision"], full[LIB]["reason"]) == ("exclude", "wrong design")
    after = _show(home)
    assert after["prisma"] == before["prisma"]
    assert after["notes"] == [{"doc_id": LIB, "reviewer": "", "note": "a survey, not a trial"}]
    assert after["verdicts"] == before["verdicts"]
    with LitsiftService(get_paths(home)) as svc:  # alice, screening blind, sees hers
        mine = {r.doc_id: r.decision for r, _ in svc.reviews.records("tele", reviewer="alice")}
        assert mine[LIB] == "include"
        left = [
            svc.store._conn.execute(f"SELECT COUNT(*) FROM {t} WHERE doc_id = ?", (RECORD,))
            for t in ("review_records", "review_decisions", "review_notes", "review_verdicts")
        ]
        assert [c.fetchone()[0] for c in left] == [0, 0, 0, 0]


def test_two_records_of_one_review_merged_become_one_the_newer_decision_kept(
    tmp_path: Path,
) -> None:
    """The review holds both: its RIS entry with the cut title joined the library's paper, the
    Embase entry is the other. After the merge it is one record (one more duplicate removed),
    alice's and bob's two agreeing decisions are one (bob's reason, given on the survivor,
    kept), the unnamed reviewer's clashing ones keep the newer
    (listed by ``dedup``), both notes stay, and the newer verdict."""
    e = _entry()
    cut = tmp_path / "cut.ris"
    cut.write_text(rispy.dumps([{"type_of_reference": "JOUR", "primary_title": CUT,
                                 "publication_year": e["publication_year"],
                                 "first_authors": e["first_authors"][:2]}]), "utf-8")  # fmt: skip
    home, lib = _made(tmp_path, cut)
    with LitsiftService(get_paths(home)) as svc:
        store = svc.store
        ids = {r.doc_id for r, _ in svc.reviews.records("tele")}
        assert {LIB, RECORD} <= ids and len(ids) == 14
        review_decisions.decide(store, "tele", [(LIB, "include")])
        review_decisions.decide(store, "tele", [(RECORD, "exclude")], reason="wrong design")
        review_decisions.decide(store, "tele", [(RECORD, "exclude")], reviewer="alice")
        review_decisions.decide(store, "tele", [(LIB, "exclude")], reviewer="alice")
        review_decisions.decide(store, "tele", [(LIB, "exclude")], reviewer="bob",
                                reason="wrong design")  # fmt: skip
        review_decisions.decide(store, "tele", [(RECORD, "exclude")], reviewer="bob")
        review_notes.set_note(store, "tele", LIB, "check the design")
        review_notes.set_note(store, "tele", RECORD, "a survey")
        review_verdicts.save_verdicts(store, "tele", MODEL, {LIB: (1, "first")}, PROMPT)
        first = stored_verdicts(store, "tele")[LIB].judged_at
        while now_iso() <= first:  # the second verdict is the newer one (ms resolution)
            pass
        review_verdicts.save_verdicts(store, "tele", MODEL, {RECORD: (-1, "second")}, PROMPT)
    before = _show(home)["prisma"]

    said = _merge(home, lib)
    assert "the unnamed reviewer decided them differently" in said, said
    assert f"{LIB} keeps the newer exclude: wrong design; include of {RECORD}" in said, said
    rows = _csv(home)
    assert len(rows) == 13 and RECORD not in rows
    assert (rows[LIB]["decision"], rows[LIB]["reason"]) == ("exclude", "wrong design")
    assert rows[LIB]["note"] == "check the design\na survey"
    assert (rows[LIB]["llm_verdict"], rows[LIB]["llm_reason"]) == ("exclude", "second")
    after = _show(home)["prisma"]
    assert (after["identified"], after["records"]) == (before["identified"], 13)
    assert after["duplicates_removed"] == before["duplicates_removed"] + 1
    with LitsiftService(get_paths(home)) as svc:
        mine = {r.doc_id: r.decision for r, _ in svc.reviews.records("tele", reviewer="alice")}
        assert mine[LIB] == "exclude"
        bob = {r.doc_id: r for r, _ in svc.reviews.records("tele", reviewer="bob")}
        assert (bob[LIB].decision, bob[LIB].reason) == ("exclude", "wrong design")  # his own
        assert svc.reviews.conflicts("tele") == []
        assert stored_verdicts(svc.store, "tele")[LIB].reason == "second"


def test_a_store_merged_before_is_repaired_when_opened(tmp_path: Path) -> None:
    """A store whose ``dedup`` left the review's rows on the deleted id (its identifiers moved
    to the survivor; ``user_version`` set back) has them moved onto the survivor on open."""
    from litsift.store.review_merges import review_orphans

    home, lib = _made(tmp_path)
    with LitsiftService(get_paths(home)) as svc:
        review_decisions.decide(svc.store, "tele", [(RECORD, "exclude")], reason="wrong design")
        review_notes.set_note(svc.store, "tele", RECORD, "a survey")
    _cli(home, "ingest", "papers", str(_library(lib, complete=True)))
    with sqlite3.connect(get_paths(home).store_file) as conn:  # what dedup did before
        for table in ("record_ids", "provenance"):
            conn.execute(f"UPDATE {table} SET doc_id = ? WHERE doc_id = ?", (LIB, RECORD))
        conn.execute("DELETE FROM papers WHERE id = ?", (RECORD,))
        conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(review_orphans)}")
    with LitsiftService(get_paths(home)) as svc:
        assert svc.store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    rows = _csv(home)
    assert len(rows) == 13
    assert (rows[LIB]["decision"], rows[LIB]["reason"], rows[LIB]["note"]) == (
        "exclude",
        "wrong design",
        "a survey",
    )


def test_the_merged_papers_research_question_passages_and_citations_move_too(
    tmp_path: Path,
) -> None:
    """The review's record had the reviewer's own research question, full-text passages and a
    citation edge; the library's paper none. Was: they stayed on the deleted id (its passages
    searchable under no title, its edge on no paper, the question gone)."""
    from litsift.store.repositories import Citations, Merges
    from litsift.store.rq import rq_info
    from litsift.store.triage import Triage
    from litsift.types import Kind

    cited = "doi:10.3390/s24030938"  # another record of the export
    home, lib = _made(tmp_path)
    with LitsiftService(get_paths(home)) as svc:
        store = svc.store
        Triage(store).set_research_question(Kind.PAPER, RECORD, "IoMT security", "a survey")
        with store.transaction():
            text = _entry()["notes_abstract"]
            Merges(store).replace_passages(RECORD, [("Introduction", 1, text)], "pdf")
            Citations(store).add_edges([(RECORD, cited)], "crossref")
    _merge(home, lib)
    with LitsiftService(get_paths(home)) as svc:
        store = svc.store
        paper = store.get(Kind.PAPER, LIB)
        assert paper is not None and (paper.problem, paper.method) == ("IoMT security", "a survey")
        assert rq_info(store, [LIB])[LIB].source == "user"
        assert Citations(store).neighbours(LIB) == ([cited], [])
        moved = store._conn.execute("SELECT doc_id, section FROM passages").fetchall()
        assert moved == [(LIB, "Introduction")]
