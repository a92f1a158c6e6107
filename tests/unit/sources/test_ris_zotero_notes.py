"""A Zotero user's notes survive a Zotero RIS export whatever the items' Library Catalog, and
no database's ``N1`` is read as a note, with or without the line naming the database.

Zotero's RIS export (zotero/translators ``RIS.js``) writes an item's Library Catalog as ``DP``
(``DP  - arXiv.org``, ``DP  - PubMed``: the site the item was saved from) and each of its notes
as one ``N1``, the note's HTML as Zotero keeps it (``<div data-schema-version="8"><p>...``,
its line breaks as untagged lines). litsift took any record with a ``DB`` or ``DP`` line for a
database's and dropped every ``N1`` of it as boilerplate, so every note on every item saved
from arXiv, PubMed or any other catalog was lost, silently. Now only ``N1`` values that are a
database's by their text are dropped; a note's HTML is read as its text.

Data: the real Zotero export of ``../shared/data/sources/reference-managers/ris`` (six PubMed
items, exported without their catalog line or notes; see its README), given the catalog line
and notes as ``RIS.js`` writes them; the real database exports there and under
``tests/data/imports`` (Scopus, Web of Science, ProQuest in English and German, CINAHL
through Rayyan, EndNote's PubMed and Ovid MEDLINE: see the READMEs).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.formats.ris import read_ris
from litsift.sources.importer import import_paths
from litsift.store import Store
from litsift.types import Kind

RIS = shared_data_dir() / "sources" / "reference-managers" / "ris"
IMPORTS = Path(__file__).resolve().parents[2] / "data" / "imports"
ZOTERO = RIS / "asreview_zotero-export_pubmed-items.ris"

#: a note as Zotero 7's note editor keeps it and ``RIS.js`` writes it (CRLF inside the note)
EDITOR_NOTE = (
    '<div data-schema-version="8"><p>Compare with the <strong>2018</strong> cohort &amp; '
    "its controls (p &lt; 0.05)</p>\r\n<ul>\r\n<li>n = 33, all on biologics</li>\r\n</ul>\r\n"
    "</div>"
)
EDITOR_TEXT = "Compare with the 2018 cohort & its controls (p < 0.05)\nn = 33, all on biologics"
#: the note zotero/translators ``arXiv.org.js`` adds to an item from arXiv's comment field
ARXIV_NOTE = "Comment: 7 pages, 4 figures"


def _tag(line: str) -> str:
    return line[:2] if re.match(r"[A-Z][A-Z0-9]  -", line) else ""


def _records(path: Path) -> list[list[str]]:
    """The lines of each record of ``path``, ``ER`` included."""
    records: list[list[str]] = [[]]
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        if records[-1] or line.strip():
            records[-1].append(line)
        if _tag(line) == "ER":
            records.append([])
    return [r for r in records if r]


def _write(path: Path, records: list[list[str]]) -> Path:
    path.write_text("".join("\r\n".join(r) + "\r\n\r\n" for r in records), encoding="utf-8")
    return path


def _stored_notes(tmp_path: Path, path: Path) -> list[str]:
    store = Store(tmp_path / "s.sqlite")
    assert import_paths(store, [path], Kind.PAPER).added > 0
    return [t for (t,) in store._conn.execute("SELECT text FROM notes ORDER BY rowid") if t.strip()]


@pytest.mark.parametrize("catalog", ["PubMed", "arXiv.org"])
def test_a_zotero_users_notes_on_items_from_a_library_catalog_are_kept(
    tmp_path: Path, catalog: str
) -> None:
    """Every item carries ``DP`` as Zotero writes its Library Catalog; the first has a note of
    the note editor (HTML, several lines) and the arXiv comment note, the second a plain one:
    both notes are read, as text; the other items have none."""
    if not ZOTERO.is_file():
        pytest.skip(f"{ZOTERO} not here")
    records = _records(ZOTERO)
    assert len(records) == 6 and not any(
        _tag(ln) in {"DP", "DB", "N1"} for r in records for ln in r
    )
    for record in records:
        record.insert(
            next(i for i, ln in enumerate(record) if _tag(ln) == "DO") + 1, f"DP  - {catalog}"
        )
    for record, notes in ((records[0], [EDITOR_NOTE, ARXIV_NOTE]), (records[1], ["read twice"])):
        at = next(i for i, ln in enumerate(record) if _tag(ln) in {"KW", "ER"})
        record[at:at] = [f"N1  - {n}" for n in notes]
    path = _write(tmp_path / "zotero.ris", records)
    read = [r.notes for r in read_ris(path)]
    assert read == [[f"{EDITOR_TEXT}\n{ARXIV_NOTE}"], ["read twice"], [], [], [], []]
    assert _stored_notes(tmp_path, path) == [f"{EDITOR_TEXT}\n{ARXIV_NOTE}", "read twice"]


#: real database exports whose ``N1`` is all the database's
DATABASE_RIS = [
    RIS / "asreview_scopus-export.ris",  # Export Date, Cited By, References, Funding text 1
    RIS / "asreview_web-of-science-export.ris",  # Times Cited ... + continuation lines
    RIS / "asreview_proquest-export.ris",  # Last updated - , Date revised - , SuppNotes -
    IMPORTS / "wild" / "colrev_proquest-ris_german-notes.ris",  # Zuletzt aktualisiert -
    RIS / "asreview_rayyan-export_multiline-kw.ris",  # CINAHL's Journal Subset, no DB line
    RIS / "asreview_endnote-export_pubmed-items.ris",  # ISSNs, names, MEDLINE citation
    IMPORTS / "ris-medline" / "iqwig_endnote-ris_ovid-medline.ris",  # names, types, citation
]


@pytest.mark.parametrize("path", DATABASE_RIS, ids=lambda p: p.stem)
def test_a_database_n1_is_known_by_its_text_not_by_the_database_line(
    tmp_path: Path, path: Path
) -> None:
    """The real exports without their ``DB`` / ``DP`` / ``AN`` lines (as a reference manager
    passes them on) give no note: every ``N1`` value of theirs is a database's by its text.
    EndNote's MEDLINE notes that start with the authors' names or a publication type, and
    ProQuest's German ``Zuletzt aktualisiert``, were read as notes without the line."""
    if not path.is_file():
        pytest.skip(f"{path} not here")
    records = [[ln for ln in r if _tag(ln) not in {"DB", "DP", "AN"}] for r in _records(path)]
    assert any(_tag(ln) == "N1" for r in records for ln in r)
    copy = _write(tmp_path / "passed-on.ris", records)
    assert [n for r in read_ris(copy) for n in r.notes if "RAYYAN" not in n] == []


def _as_zotero_imports_it(record: list[str]) -> list[str]:
    """``record`` with each ``N1`` value (its line and the untagged lines continuing it) as
    Zotero's RIS import keeps a plain note, on one line (``RIS.js``: ``<p>`` around it,
    ``<br/>`` for a line break, ``&nbsp;&nbsp;`` for two spaces)."""
    out: list[str] = []
    note: list[str] = []
    for line in [*record, "ER  - "]:
        if note and _tag(line):
            text = "<br/>".join(note).replace("  ", "&nbsp;&nbsp;")
            out.append(f"N1  - <p>{text}</p>")
            note = []
        if _tag(line) == "N1" or (note and not _tag(line)):
            note.append(line[6:] if _tag(line) else line)
        else:
            out.append(line)
    return out[:-1]


@pytest.mark.parametrize(
    "path",
    [RIS / "asreview_scopus-export.ris", RIS / "asreview_web-of-science-export.ris"],
    ids=lambda p: p.stem,
)
def test_a_database_record_imported_into_zotero_keeps_only_the_users_note(
    tmp_path: Path, path: Path
) -> None:
    """A Scopus or Web of Science export read into Zotero, a note added to its first item and
    exported again: Zotero wrapped each ``N1`` in ``<p>`` and writes the database's ``DB``
    back (its Archive field). The database's lines are still no note; the user's is one."""
    if not path.is_file():
        pytest.skip(f"{path} not here")
    records = [_as_zotero_imports_it(r) for r in _records(path)]
    assert any(ln.startswith("N1  - <p>") for r in records for ln in r)
    assert any(ln.startswith(("DB  - Scopus", "AN  - WOS:")) for r in records for ln in r)
    records[0].insert(-1, "N1  - <p>my own note: compare with the 2018 cohort</p>")
    copy = _write(tmp_path / "zotero-again.ris", records)
    assert _stored_notes(tmp_path, copy) == ["my own note: compare with the 2018 cohort"]
