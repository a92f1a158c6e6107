"""``litsift review export NAME -o FILE.csv`` starts the file with the UTF-8 byte order mark:
without it Excel reads a CSV in the locale's code page and an accented name ("José Núñez",
"Sánchez-Tójar") comes out as "JosÃ© NÃºÃ±ez". The table on stdout has none (a pipe's reader
would take it for text), and litsift reads its own file back, BOM and all, as it does a
decisions file an editor saved with one.

Real file: Rayyan's RIS export of ``tests/data/imports/rayyan`` (5 records, accented authors);
the CLI runs on real stores in temporary homes.
"""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService

MLJ = Path(__file__).resolve().parents[1] / "data" / "imports" / "rayyan"
MLJ = MLJ / "rayyanr_mlj-includes_articles.ris"
REASON = "población equivocada"
REVIEWER = "José Núñez"
NOTE = "revisar la traducción de Sánchez-Tójar"


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), "review", *args])
    assert "Traceback" not in got.output, got.output
    assert got.exit_code == 0, got.output
    return got


def _accented_review(home: Path) -> tuple[str, str]:
    """Review ``mlj`` with its first record excluded for an accented reason and José's note
    on its second; ``(first, second)`` record ids."""
    with LitsiftService(get_paths(home)) as s:
        s.reviews.create("mlj", [MLJ], labels="none", reasons=[REASON])
        session = s.reviews.open("mlj")
        first = session.current_paper()
        assert first is not None
        second = session.decide("exclude", REASON)
        assert second is not None
        s.reviews.open("mlj", reviewer=REVIEWER).set_note(NOTE, second.id)
        return first.id, second.id


def test_review_csv_file_has_a_bom_and_reads_back_with_its_accents(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first, second = _accented_review(home)
    exported = tmp_path / "mlj.csv"
    _cli(home, "export", "mlj", "-o", str(exported))
    raw = exported.read_bytes()
    assert raw.startswith(codecs.BOM_UTF8), raw[:20]
    assert not raw[3:].startswith(codecs.BOM_UTF8)  # one mark, not two
    text = raw.decode("utf-8-sig")
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(text, newline=""))}
    assert rows[first]["decision"] == "exclude" and rows[first]["reason"] == REASON
    assert f"Note by {REVIEWER}: {NOTE}" in rows[second]["note"].splitlines()

    # another litsift makes the review again from the file: decision, reason, José's note
    other = tmp_path / "other"
    made = _cli(other, "new", "copy", "--from", str(exported))
    assert "1 prior decision" in made.output, made.output
    again = tmp_path / "copy.csv"
    _cli(other, "export", "copy", "-o", str(again))
    back = again.read_bytes()
    assert back.startswith(codecs.BOM_UTF8)
    cells = ("title", "decision", "reason", "note")
    table = csv.DictReader(io.StringIO(back.decode("utf-8-sig"), newline=""))
    assert sorted([r[c] for c in cells] for r in table) == sorted(
        [r[c] for c in cells] for r in rows.values()
    )
    with LitsiftService(get_paths(other)) as s:
        notes = s.reviews.notes("copy").values()
    assert [by[REVIEWER] for by in notes if REVIEWER in by] == [NOTE]  # José's, as written


def test_review_csv_on_stdout_has_no_bom(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _accented_review(home)
    for args in ((), ("-o", "-")):
        shown = _cli(home, "export", "mlj", *args).stdout_bytes
        assert shown.startswith(b"id,decision,"), shown[:20]
        assert REVIEWER.encode() in shown


def test_a_decisions_file_saved_with_a_bom_merges(tmp_path: Path) -> None:
    """A decisions file opened and saved again in Notepad (or Excel's "UTF-8" text) starts
    with a BOM: ``review merge`` said it was "not a litsift decisions file"."""
    home = tmp_path / "home"
    _accented_review(home)
    out = tmp_path / "mlj.jsonl"
    _cli(home, "export", "mlj", "--format", "decisions", "-o", str(out))
    assert not out.read_bytes().startswith(codecs.BOM_UTF8)  # JSON Lines: none written
    out.write_bytes(codecs.BOM_UTF8 + out.read_bytes())
    merged = _cli(home, "merge", "mlj", str(out))
    assert "merged 0 decisions (1 already here" in merged.output, merged.output
