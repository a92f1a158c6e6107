"""A library's notes survive its RIS and CSL-JSON export read into a *fresh* home, and no
database's boilerplate is read as a note.

The audit found the notes of ``litsift export --format ris`` / ``csl-json`` lost when the file
was ingested into another home: RIS ``N1`` was read only as Rayyan markup, and the CSL-JSON note
went to ``note`` (Zotero's Extra field, never read as a note); BibTeX's ``annote`` came back.
Now litsift's RIS marks its records ``DP  - litsift`` and their ``N1`` lines are the note, the
CSL-JSON note is ``annote``; and ``N1`` of Scopus, Web of Science, ProQuest, EBSCO (through
Rayyan), Embase and EndNote's MEDLINE (real exports) still gives no note.

A real home: real rows of ``../shared/data`` ingested with ``litsift ingest``, annotated through
the service as the TUI does, exported with ``litsift export`` and ingested into a fresh home.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.sources.importer import import_paths
from litsift.store import Store
from litsift.store.triage import parse_tags
from litsift.types import Kind, Label
from tests.conftest import PAPERS_GZ, read_jsonl_gz

#: unicode, a line break, RIS-looking and Scopus-looking text inside the note
NOTE = "Überprüfen: 日本語の要約 — see Table 3 (p < 0.05) ✓\nER - not the end\nReferences: ours"
PARAGRAPHS = "First thought.\n\nSecond paragraph, after a blank line."
TAGS = "gnn, survey"
RIS = shared_data_dir() / "sources" / "reference-managers" / "ris"
IMPORTS = Path(__file__).resolve().parents[1] / "data" / "imports"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return read_jsonl_gz(PAPERS_GZ)[:12]


def _cli(home: Path, *args: str) -> str:
    res = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in res.output and res.exit_code == 0, res.output
    return str(res.stdout)


@pytest.fixture()
def home(tmp_path: Path, rows: list[dict]) -> Path:
    """12 real papers; two labelled maybe with notes (one with tags), one with tags only."""
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    home = tmp_path / "home"
    _cli(home, "ingest", "papers", str(src))
    with LitsiftService(get_paths(home)) as svc:
        svc.annotate(Kind.PAPER, rows[3]["id"], label=Label.MAYBE, note=(NOTE, parse_tags(TAGS)))
        svc.annotate(Kind.PAPER, rows[5]["id"], label=Label.MAYBE, note=(PARAGRAPHS, []))
        svc.annotate(Kind.PAPER, rows[7]["id"], label=Label.MAYBE, note=("", ["survey"]))
    return home


def _notes_by_title(store: Store) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``{title: (note text, tags)}`` of every paper with a note or tags."""
    got = {}
    for doc_id, text, tags in store._conn.execute("SELECT doc_id, text, tags FROM notes"):
        paper = store.get(Kind.PAPER, doc_id)
        assert paper is not None
        got[" ".join(paper.title.split())] = (text, tuple(json.loads(tags)))
    return got


def _title(rows: list[dict], i: int) -> str:
    return " ".join(rows[i]["title"].split())


def _fresh(tmp_path: Path, home: Path, fmt: str, name: str = "fresh") -> tuple[Path, Path]:
    out = tmp_path / f"maybe.{fmt}"
    out.write_text(_cli(home, "export", "maybe", "--format", fmt), encoding="utf-8")
    fresh = tmp_path / name
    _cli(fresh, "ingest", "papers", str(out))
    return fresh, out


@pytest.mark.parametrize("fmt", ["ris", "csl-json"])
def test_notes_survive_an_export_into_a_fresh_home(
    tmp_path: Path, home: Path, rows: list[dict], fmt: str
) -> None:
    fresh, _ = _fresh(tmp_path, home, fmt)
    with Store(get_paths(fresh).store_file, readonly=True) as store:
        got = _notes_by_title(store)
    assert got[_title(rows, 3)] == (NOTE, ("gnn", "survey"))
    assert got[_title(rows, 7)] == ("", ("survey",))
    # CSL-JSON keeps a blank line; RIS writes one N1 per non-empty line (Zotero: one note each)
    kept = PARAGRAPHS if fmt == "csl-json" else PARAGRAPHS.replace("\n\n", "\n")
    assert got[_title(rows, 5)] == (kept, ())
    assert len(got) == 3


def test_the_ris_export_names_litsift_as_database_provider_not_as_archive(
    tmp_path: Path, home: Path, rows: list[dict]
) -> None:
    """litsift's RIS marked its records ``DB  - litsift``: Zotero's RIS import files ``DB``
    (name of database) as the item's Archive, so every item exported to Zotero showed
    "Archive: litsift" (zotero/translators ``RIS.js``: ``DB:"archive"``, ``DP:"libraryCatalog"``).
    ``DP`` (database provider) is Zotero's Library Catalog, where it keeps an item's source,
    and Zotero's RIS export writes it back as ``DP``: the notes come back either way, and a
    file of the earlier ``DB  - litsift`` (or Zotero's export of its items) still gives them."""
    fresh, out = _fresh(tmp_path, home, "ris")
    text = out.read_text(encoding="utf-8")
    assert text.count("\nDP  - litsift") == text.count("\nER  -") == 3
    assert "\nDB  -" not in text
    earlier = tmp_path / "earlier.ris"
    earlier.write_text(text.replace("\nDP  - litsift", "\nDB  - litsift"), encoding="utf-8")
    old = tmp_path / "old-home"
    _cli(old, "ingest", "papers", str(earlier))
    for where in (fresh, old):
        with Store(get_paths(where).store_file, readonly=True) as store:
            assert _notes_by_title(store)[_title(rows, 3)] == (NOTE, ("gnn", "survey"))


@pytest.mark.parametrize("fmt", ["ris", "csl-json", "bibtex"])
def test_a_note_already_in_the_fresh_home_is_kept_and_nothing_doubles(
    tmp_path: Path, home: Path, rows: list[dict], fmt: str
) -> None:
    """The other home's note on the same paper stays first; the imported one is added once,
    and the same file ingested again (or a home that has the note already) adds nothing."""
    src = tmp_path / "papers.jsonl"
    fresh = tmp_path / "other"
    _cli(fresh, "ingest", "papers", str(src))
    with LitsiftService(get_paths(fresh)) as svc:
        svc.annotate(Kind.PAPER, rows[3]["id"], note=("mine: read twice", ["mine"]))
        svc.annotate(Kind.PAPER, rows[5]["id"], note=(PARAGRAPHS, []))
    _, out = _fresh(tmp_path, home, fmt, name="unused")
    for _ in range(2):
        _cli(fresh, "ingest", "papers", str(out))
    with Store(get_paths(fresh).store_file, readonly=True) as store:
        got = _notes_by_title(store)
    text, tags = got[_title(rows, 3)]
    assert tags == ("mine", "gnn", "survey")
    assert text.startswith("mine: read twice\n\n")
    assert " ".join(text.removeprefix("mine: read twice").split()) == " ".join(NOTE.split())
    assert got[_title(rows, 5)] == (PARAGRAPHS, ())  # the same note, not added again


#: real database exports whose ``N1`` is the database's (and the file that holds each)
DATABASE_RIS = [
    RIS / "asreview_scopus-export.ris",  # Export Date, Cited By, References, Funding text
    RIS / "asreview_web-of-science-export.ris",  # Times Cited ... + continuation lines
    RIS / "asreview_proquest-export.ris",  # Last updated - , Date revised - , SuppNotes -
    RIS / "asreview_rayyan-export_multiline-kw.ris",  # CINAHL's Journal Subset, no DB line
    RIS / "asreview_endnote-export_pubmed-items.ris",  # ISSNs
    IMPORTS / "ris-medline" / "iqwig_endnote-ris_ovid-medline.ris",  # ISSNs, names, types
    IMPORTS / "wild" / "colrev_proquest-ris_german-notes.ris",  # Zuletzt aktualisiert -
]


@pytest.mark.parametrize("path", DATABASE_RIS, ids=lambda p: p.stem)
def test_a_database_export_gives_no_note(tmp_path: Path, path: Path) -> None:
    if not path.is_file():
        pytest.skip(f"{path} not here")
    assert b"\nN1  - " in path.read_bytes()  # the file has N1 lines to read
    store = Store(tmp_path / "s.sqlite")
    assert import_paths(store, [path], Kind.PAPER).added > 0
    texts = [t for (t,) in store._conn.execute("SELECT text FROM notes") if t.strip()]
    assert texts == []


@pytest.mark.parametrize("path", DATABASE_RIS[:4], ids=lambda p: p.stem)
def test_a_review_of_a_database_export_has_no_note(tmp_path: Path, path: Path) -> None:
    """``litsift review new --from`` a database's RIS: its ``N1`` is no review note either
    (Scopus's ``Export Date: ...; CODEN: ...`` was each record's note)."""
    if not path.is_file():
        pytest.skip(f"{path} not here")
    home = tmp_path / "home"
    _cli(home, "review", "new", "db", "--from", str(path), "--labels", "none")
    with LitsiftService(get_paths(home)) as svc:
        assert len(svc.reviews.records("db")) > 0
        assert svc.reviews.notes("db") == {}


@pytest.mark.parametrize(
    "path",
    [RIS / "asreview_web-of-science-export.ris", RIS / "asreview_proquest-export.ris"],
    ids=lambda p: p.stem,
)
def test_database_lines_are_no_note_without_the_line_naming_the_database(
    tmp_path: Path, path: Path
) -> None:
    """The same real records without their ``DB`` / ``AN  - WOS:`` line (as a reference
    manager may pass them on), one with a user's note added: only that note is read."""
    if not path.is_file():
        pytest.skip(f"{path} not here")
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    lines = [ln for ln in lines if not ln.startswith(("DB  -", "DP  -", "AN  -"))]
    end = lines.index("ER  -") if "ER  -" in lines else lines.index("ER  - ")
    lines.insert(end, "N1  - my own note: compare with the 2018 cohort")
    copy = tmp_path / "passed-on.ris"
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = Store(tmp_path / "s.sqlite")
    assert import_paths(store, [copy], Kind.PAPER).added > 1
    texts = [t for (t,) in store._conn.execute("SELECT text FROM notes") if t.strip()]
    assert texts == ["my own note: compare with the 2018 cohort"]


def test_a_review_export_read_into_a_library_gives_no_note(tmp_path: Path, home: Path) -> None:
    """A review's RIS export (``LB`` its decision) keeps its ``N1`` for ``litsift review new
    --from``; ``litsift ingest papers`` of it adds no library note (as before)."""
    maybe = tmp_path / "maybe.ris"
    maybe.write_text(_cli(home, "export", "maybe", "--format", "ris"), encoding="utf-8")
    with LitsiftService(get_paths(home)) as svc:
        svc.reviews.create("r", [maybe], labels="none")
        first = next(r.doc_id for r, _ in svc.reviews.records("r"))
        svc.reviews.open("r").set_note("review note, not the library's", first)
        out = tmp_path / "r.ris"
        out.write_text(svc.reviews.export("r", "ris"), encoding="utf-8")
    assert "N1  - review note, not the library's" in out.read_text(encoding="utf-8")
    fresh = tmp_path / "fresh"
    _cli(fresh, "ingest", "papers", str(out))
    with Store(get_paths(fresh).store_file, readonly=True) as store:
        texts = [t for (t,) in store._conn.execute("SELECT text FROM notes") if t.strip()]
    assert texts == []


CSL = shared_data_dir() / "sources" / "reference-managers" / "csl-json"


@pytest.mark.parametrize(
    "name",
    ["deep-review_manubot-csl-items.json", "thesis-psychology_zotero-csl-json-export.json"],
)
def test_a_csl_note_is_still_read_for_identifiers_only(tmp_path: Path, name: str) -> None:
    """Manubot's and Zotero's ``note`` (Extra: ``standard_id: arxiv:…``, a licence) gives
    identifiers, never a note."""
    path = CSL / name
    if not path.is_file():
        pytest.skip(f"{path} not here")
    items = json.loads(path.read_text(encoding="utf-8"))
    assert any(i.get("note") for i in items) and not any(i.get("annote") for i in items)
    store = Store(tmp_path / "s.sqlite")
    assert import_paths(store, [path], Kind.PAPER).added > 0
    texts = [t for (t,) in store._conn.execute("SELECT text FROM notes") if t.strip()]
    assert texts == []
    if name.startswith("deep-review"):
        arxiv = store._conn.execute("SELECT COUNT(*) FROM record_ids WHERE scheme = 'arxiv'")
        assert arxiv.fetchone()[0] > 0
