"""A review moved from Rayyan keeps its screening: ``litsift review new NAME --from`` a Rayyan
export takes each Rayyan reviewer's decision as that reviewer's title/abstract vote (so two
reviewers' disagreements are conflicts and their Cohen's kappa is reported), the exclusion
reasons as the review's reasons and each exclude's reason, the labels and reviewers' notes as
the record's note, and never keeps the ``RAYYAN-INCLUSION`` markup as a note.

Real files (``tests/data/imports/rayyan/README.md``): two RIS exports of Rayyan reviews from
befriendabacterium/rayyanR. No real CSV or BibTeX export with Rayyan notes was found under a
licence that allows redistribution, so the CSV and BibTeX cases read files derived from the
real RIS (same records, same notes, written as Rayyan's CSV columns and a BibTeX ``note``).
Each case runs the CLI on a real store in a temporary home.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.store.repositories import Provenance
from litsift.store.triage import Triage
from litsift.types import Kind

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "rayyan"
TINEA = DATA / "rayyanr_tinea-update_two-reviewers.ris"
MLJ = DATA / "rayyanr_mlj-includes_articles.ris"
TINEA_CSV = DATA / "derived_tinea-update_articles.csv"
TINEA_BIB = DATA / "derived_tinea-update.bib"

#: the 14 records of the tinea review, counted by hand from their N1 lines (Zbys / m.el-gohary):
#: 1 Ex/In (conflict), 2 In/In, 3 Ex (wrong drug, wrong intervention), 4 In/In, 5 and 6 no
#: decision, 7 Ex (wrong population), 8 Ex (totally irrelevant), 9 Ex (wrong population,
#: totally irrelevant), 10 Ex/Ex (wrong population, background article, wrong study design,
#: wrong publication type), 11 In, 12 Ex (wrong population), 13 Ex (totally irrelevant), 14 In
TINEA_COUNTS = {"included": 4, "excluded": 7, "maybe": 0, "conflicts": 1, "unscreened": 2}
TINEA_BY_REASON = {"wrong population": 4, "totally irrelevant to the review": 2, "wrong drug": 1}
TINEA_REASONS = [
    "wrong drug", "wrong intervention", "wrong population", "totally irrelevant to the review",
    "background article", "wrong study design", "wrong publication type",
]  # fmt: skip
#: each reviewer's votes: Zbys decided 12 records, m.el-gohary the 4 Zbys also decided
TINEA_VOTES = {"Zbys": {"include": 4, "exclude": 8}, "m.el-gohary": {"include": 3, "exclude": 1}}


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in got.output, got.output
    return got


def _show(home: Path, name: str) -> dict[str, Any]:
    got = _cli(home, "review", "show", name, "--json")
    assert got.exit_code == 0, got.output
    return dict(json.loads(got.output))


def _votes(home: Path, name: str, reviewer: str, tmp_path: Path) -> dict[str, int]:
    out = tmp_path / f"{reviewer}.jsonl"
    got = _cli(home, "review", "export", name, "--format", "decisions", "--reviewer", reviewer,
               "-o", str(out))  # fmt: skip
    assert got.exit_code == 0, got.output
    counts: dict[str, int] = {}
    for line in out.read_text(encoding="utf-8").splitlines()[1:]:
        row = json.loads(line)
        if "decision" not in row:  # a note's row
            continue
        assert (row["reviewer"], row["stage"], row["source"]) == (reviewer, "tiab", "user")
        counts[row["decision"]] = counts.get(row["decision"], 0) + 1
    return counts


def _notes(home: Path, name: str, tmp_path: Path) -> dict[str, str]:
    """``{title: note}`` of the review's records, from its CSV export."""
    out = tmp_path / "review.csv"
    assert _cli(home, "review", "export", name, "-o", str(out)).exit_code == 0
    with open(out, encoding="utf-8", newline="") as fh:
        return {row["title"]: row["note"] for row in csv.DictReader(fh)}


@pytest.mark.parametrize("export", [TINEA, TINEA_CSV, TINEA_BIB], ids=["ris", "csv", "bibtex"])
def test_two_reviewers_votes_conflicts_kappa_and_reasons(export: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    made = _cli(home, "review", "new", "tinea", "--from", str(export), "--json")
    assert made.exit_code == 0, made.output
    assert json.loads(made.output)["reasons_left"] == []
    shown = _show(home, "tinea")
    prisma = shown["prisma"]
    assert {k: prisma[k] for k in TINEA_COUNTS} == TINEA_COUNTS
    assert prisma["records"] == 14 and prisma["screened"] == 12
    assert prisma["reasons"] == TINEA_BY_REASON
    assert shown["reasons"] == TINEA_REASONS  # in the order the file names them
    (agree,) = shown["agreement"]["tiab"]
    assert (agree["a"], agree["b"], agree["both"], agree["agreed"]) == ("Zbys", "m.el-gohary", 4, 3)
    assert agree["kappa"] == pytest.approx(0.5)  # p_o 3/4, p_e 1/2*3/4 + 1/2*1/4 = 1/2
    for who, counts in TINEA_VOTES.items():
        assert _votes(home, "tinea", who, tmp_path) == counts
    conflicts = json.loads(_cli(home, "review", "conflicts", "tinea", "--json").output)
    (conflict,) = conflicts["conflicts"]
    assert conflict["title"].startswith("Efficacy and safety of terbinafine hydrochloride 1%")
    assert conflict["votes"] == {"Zbys": ["exclude", ""], "m.el-gohary": ["include", ""]}
    notes = _notes(home, "tinea", tmp_path)
    assert not [n for n in notes.values() if "RAYYAN" in n or "=>" in n]
    assert notes[conflict["title"]] == "Labels: M.el-G please review"
    multi = next(t for t in notes if t.startswith("A comparative study of efficacy of terbinafine"))
    assert notes[multi] == (
        "Labels: M.el-G please review; Exclusion reasons: wrong drug, wrong intervention"
    )


def test_agreeing_reviewers_and_labels(tmp_path: Path) -> None:
    """rayyanR's own test export: Matt and Laura agree on all 5 records (4 in, 1 out)."""
    home = tmp_path / "home"
    made = _cli(home, "review", "new", "mlj", "--from", str(MLJ))
    assert made.exit_code == 0
    # the summary said "5 to screen" and nothing of the decisions the file brought
    assert "5 to screen, 5 screened in the file" in made.stdout, made.stdout
    shown = _show(home, "mlj")
    prisma = shown["prisma"]
    assert (prisma["included"], prisma["excluded"], prisma["conflicts"]) == (4, 1, 0)
    assert shown["reasons"] == []
    (agree,) = shown["agreement"]["tiab"]
    assert (agree["a"], agree["b"], agree["both"], agree["agreed"]) == ("Laura", "Matt", 5, 5)
    assert agree["kappa"] == pytest.approx(1.0)
    notes = _notes(home, "mlj", tmp_path)
    assert notes["Review of airborne antimicrobial resistance"] == "Labels: lol, rofl"
    assert sum(1 for n in notes.values() if n) == 1


def test_reasons_beyond_nine_are_reported(tmp_path: Path) -> None:
    """Given 4 reasons of its own (one also the file's), the review keeps 9 of the 10 and
    reports the last; the excludes that name it keep it."""
    home = tmp_path / "home"
    own = "wrong population,animal study,wrong setting,wrong comparator"
    made = _cli(home, "review", "new", "t", "--from", str(TINEA), "--reasons", own, "--json")
    assert made.exit_code == 0, made.output
    assert json.loads(made.output)["reasons_left"] == ["wrong publication type"]
    assert _show(home, "t")["reasons"] == [
        "wrong population", "animal study", "wrong setting", "wrong comparator", "wrong drug",
        "wrong intervention", "totally irrelevant to the review", "background article",
        "wrong study design",
    ]  # fmt: skip
    made = CliRunner().invoke(main, ["--home", str(home), "review", "new", "u", "--from",
                                     str(TINEA), "--reasons", own])  # fmt: skip
    assert "exclusion reasons beyond the 9 kept" in made.output
    assert "wrong publication type" in made.output


@pytest.mark.parametrize("export", [TINEA, TINEA_CSV, TINEA_BIB], ids=["ris", "csv", "bibtex"])
def test_ingest_keeps_labels_as_tags_never_the_markup(export: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _cli(home, "ingest", "papers", str(export)).exit_code == 0
    with LitsiftService(get_paths(home)) as svc:
        store = svc.store
        docs = [d for d, _ in Provenance(store).entries_of_file(Kind.PAPER, str(export))]
        notes = Triage(store).notes(Kind.PAPER, docs)
    assert len(docs) == 14
    assert not [n for n in notes.values() if "RAYYAN" in n.text or "=>" in n.text]
    tagged = [n for n in notes.values() if "M.el-G please review" in n.tags]
    assert len(tagged) == 13  # the labels of all but record 2 name it
    assert sum(1 for n in notes.values() if "need to see full text" in n.tags) == 3
    # a record listing several exclusion reasons keeps them readable in its note
    assert sum(1 for n in notes.values() if n.text.startswith("Exclusion reasons: ")) == 3


def test_rayyan_notes_maybe_user_notes_and_an_imported_note() -> None:
    """The notes layout of Rayyan's help pages (Maybe, USER-NOTES) and a note the record was
    imported into Rayyan with, before the markup."""
    from litsift.sources.formats.rayyan_notes import rayyan_notes

    got = rayyan_notes(
        'from the search | RAYYAN-INCLUSION: {"Kofi"=>"Included", "Ama"=>"Maybe"} | '
        "RAYYAN-LABELS: ML,Hospital | RAYYAN-EXCLUSION-REASONS: wrong population,foreign "
        'language | USER-NOTES: {"Kofi"=>["check later", "a \\"quoted\\", bracketed] note"]}'
    )
    assert got is not None
    assert got.votes == {"Kofi": "include", "Ama": "maybe"}
    assert got.labels == ["ML", "Hospital"]
    assert got.reasons == ["wrong population", "foreign language"]
    assert got.notes == ["Kofi: check later", 'Kofi: a "quoted", bracketed] note']
    assert got.note_lines() == [
        "from the search", "Kofi: check later", 'Kofi: a "quoted", bracketed] note',
        "Labels: ML, Hospital", "Exclusion reasons: wrong population, foreign language",
    ]  # fmt: skip
    assert rayyan_notes("an ordinary note | with a bar") is None
