"""Defects found driving the command line on real files as a researcher does (real exports of
``shared/data/sources``, the Rayyan export of ``tests/data/imports/rayyan``, real SQLite):

* ``review new --from a.ris --from b.ris --from a.ris`` said "12 records identified in 3 files"
  and listed a.ris twice in ``--json``: the file given twice is read once;
* ``review export --reviewer bob`` (CSV) was everyone's decisions without a word, and
  ``--format decisions --reviewer Bob`` (a typo) wrote a file of no decision;
* ``refs export`` with nothing kept hinted "or name ids" (it takes none), an empty collection
  "name ids, --kept or --collection NAME"; ``export NAME`` with no collection "create one first";
* a BibTeX ``{\\textasciicircum}`` (Zotero's and litsift's own ``^``) was read as ``ˆ`` (U+02C6);
* ``review show`` printed each note whole: a note of 20,000 characters (a Scopus ``N1``) on one
  line.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from tests.unit.test_review_csv_copy import TINEA

REFS = shared_data_dir() / "sources" / "reference-managers"
EMBASE = REFS / "ris" / "asreview_embase-export.ris"
SCOPUS = REFS / "ris" / "asreview_scopus-export.ris"
MATH_BIB = REFS / "bibtex" / "edge-cases" / "bbt-472_math-markup.bib"

pytestmark = pytest.mark.skipif(not REFS.is_dir(), reason=f"{REFS} not here")


def _run(home: Path, *args: str, code: int = 0) -> str:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in got.output, got.output
    assert got.exit_code == code, got.output
    return got.output


def test_a_file_given_twice_is_one_file_of_the_review(tmp_path: Path) -> None:
    home = tmp_path / "home"
    said = _run(home, "review", "new", "ibs", "--from", str(EMBASE), "--from", str(SCOPUS),
                "--from", str(EMBASE))  # fmt: skip
    assert "12 records identified in 2 files" in said, said
    made = json.loads(
        _run(home, "review", "new", "ibs2", "--json", "--from", str(EMBASE), "--from", str(EMBASE))
    )
    assert [f["file"] for f in made["files"]] == [str(EMBASE)], made["files"]
    assert made["prisma"]["identified"] == 6


def test_export_reviewer_is_refused_where_it_would_be_ignored_or_match_no_one(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    _run(home, "review", "new", "tinea", "--from", str(TINEA))
    csv_said = _run(home, "review", "export", "tinea", "--reviewer", "Zbys", code=1)
    assert "--format decisions" in csv_said and "id,decision" not in csv_said, csv_said
    typo = _run(home, "review", "export", "tinea", "--format", "decisions", "--reviewer", "zbys",
                code=1)  # fmt: skip
    assert "no decision or note of reviewer 'zbys'" in typo, typo
    assert "'Zbys'" in typo and "'m.el-gohary'" in typo, typo
    out = tmp_path / "zbys.jsonl"
    _run(home, "review", "export", "tinea", "--format", "decisions", "--reviewer", "Zbys",
         "-o", str(out))  # fmt: skip
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert len([r for r in rows if "decision" in r]) == 12
    assert {r["reviewer"] for r in rows} == {"Zbys"}


def test_graph_and_collection_hints_name_what_the_command_takes(tmp_path: Path) -> None:
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    home = tmp_path / "home"
    _run(home, "ingest", "papers", str(EMBASE))
    nothing_kept = _run(home, "refs", "export", code=1)
    assert "no paper is kept yet" in nothing_kept and "name ids" not in nothing_kept
    assert "litsift refs export NAME" in nothing_kept, nothing_kept
    no_collection = _run(home, "export", "thesis", code=1)
    assert "create one first" not in no_collection and "key c" in no_collection, no_collection
    with LitsiftService(get_paths(home)) as svc:
        svc.triage.create_collection("thesis")
    empty = _run(home, "refs", "export", "thesis", code=1)
    assert "collection 'thesis' holds no paper" in empty, empty
    assert "--collection" not in empty, empty


def test_a_text_circumflex_in_bibtex_is_a_caret(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _run(home, "ingest", "papers", str(MATH_BIB))
    with sqlite3.connect(home / "data" / "litsift.sqlite") as db:
        (title,) = db.execute(
            "SELECT title FROM papers WHERE id = 'doi:10.1109/jproc.2016.2526118'"
        ).fetchone()
    assert "mm^2 Size" in title, title
    from litsift.export.latex import latex
    from litsift.sources.formats.bibtex_latex import _L2T

    assert _L2T.latex_to_text(latex(title)) == title  # litsift's export reads back the same


def test_review_show_prints_a_long_note_shortened(tmp_path: Path) -> None:
    """Each record's note is its Scopus ``N1`` (references, funding: up to 20,000 characters),
    written by its reviewer: a Scopus ``N1`` is no longer read as a note itself."""
    import rispy

    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    home = tmp_path / "home"
    _run(home, "review", "new", "ibs", "--from", str(SCOPUS))
    refs = rispy.loads(SCOPUS.read_text(encoding="utf-8-sig"))
    long = {" ".join(r["title"].split()): "\n".join(r["notes"]) for r in refs}
    with LitsiftService(get_paths(home)) as svc:
        assert svc.reviews.notes("ibs") == {}
        session = svc.reviews.open("ibs")
        for _, paper in svc.reviews.records("ibs"):
            session.set_note(long[" ".join(paper.title.split())], paper.id)
    shown = _run(home, "review", "show", "ibs")
    lines = shown[shown.index("notes (") :].splitlines()[1:]
    assert len(lines) == 6, shown
    assert all(len(line) < 300 and line.endswith(" …") for line in lines), lines
    whole = _run(home, "review", "export", "ibs")
    assert "Export Date: 18 November 2019" in whole and len(whole) > 20_000
