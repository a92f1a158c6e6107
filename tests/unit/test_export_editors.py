"""A record's editors are stored and exported as editors (a tester found them lost: an edited
book imported from BibTeX came out with its editors as its authors, one imported from CSL-JSON,
RIS or Better BibTeX's JSON with no names at all, and a chapter lost its book's editors).

Real exports (../shared/data/sources) are imported into a real store; the exports are read by
bibtexparser, rispy, json and citeproc-py, and imported again into a fresh store. The entries
checked, read by hand in the files:

* ``thesis-psychology_zotero-bbt-export.bib`` lines 3157-3167 (``guinote2010``: an ``@book``
  with ``editor = {Guinote, Ana and Vescio, Theresa K.}`` and no author), lines 1430-1442
  (``cowan1999``: an ``@incollection`` by Nelson Cowan, ``editor = {Miyake, Akira and Shah,
  Priti}``);
* the same library's CSL-JSON export (item ``guinote2010``: ``type: book``, ``editor``, no
  ``author``);
* ``zot-package_betterbibtex-json-library.json`` line 13897 (a ``bookSection`` whose creators
  are three editors, then its two authors).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
import rispy
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle
from citeproc import formatter as citeproc_formatter
from citeproc.source.json import CiteProcJSON

from litsift.export.formats import to_bibtex, to_csl_json, to_markdown, to_ris
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.importer import import_paths
from litsift.store.repo import Store
from litsift.store.repositories import Biblios
from litsift.types import Kind, Paper

REFS = shared_data_dir() / "sources" / "reference-managers"
THESIS_BIB = REFS / "bibtex" / "thesis-psychology_zotero-bbt-export.bib"
THESIS_CSL = REFS / "csl-json" / "thesis-psychology_zotero-csl-json-export.json"
BBT_JSON = REFS / "bbt-json" / "zot-package_betterbibtex-json-library.json"
OVID_RIS = REFS / "ris" / "asreview_ovid-psycinfo-export.ris"

pytestmark = pytest.mark.skipif(not REFS.is_dir(), reason=f"{REFS} not here")

GUINOTE = ("Ana Guinote", "Theresa K. Vescio")
BOOK = "The Social Psychology of Power"
CHAPTER = "An Embedded-Processes Model of Working Memory"


def _store(path: Path, *files: Path) -> Store:
    store = Store(path)
    assert import_paths(store, list(files), Kind.PAPER).added > 0
    return store


def _paper(store: Store, title: str, year: int) -> Paper:
    """The one stored paper of ``title`` (any case) and ``year``."""
    rows = store._conn.execute(
        "SELECT id FROM papers WHERE lower(title) = lower(?) AND year = ?", (title, year)
    ).fetchall()
    (paper,) = [p for (d,) in rows if isinstance(p := store.get(Kind.PAPER, d), Paper)]
    return paper


def _editors(store: Store, paper: Paper) -> tuple[str, ...]:
    got = Biblios(store).of([paper.id]).get(paper.id)
    return got.editors if got is not None else ()


def test_an_edited_books_editors_are_stored_as_editors_not_authors(tmp_path: Path) -> None:
    """BibTeX read the editors of an ``@book`` without author as its authors; CSL-JSON and
    Better BibTeX's JSON dropped them. Each stores them as editors, beside a chapter's own
    authors."""
    bib = _store(tmp_path / "bib.sqlite", THESIS_BIB)
    with bib:
        book = _paper(bib, BOOK, 2010)
        assert book.authors == ()
        assert _editors(bib, book) == GUINOTE
        chapter = _paper(bib, CHAPTER, 1999)
        assert chapter.authors == ("Nelson Cowan",)
        assert _editors(bib, chapter) == ("Akira Miyake", "Priti Shah")
    with _store(tmp_path / "csl.sqlite", THESIS_CSL) as csl:
        book = _paper(csl, BOOK, 2010)
        assert (book.authors, _editors(csl, book)) == ((), GUINOTE)
    with _store(tmp_path / "bbt.sqlite", BBT_JSON) as bbt:
        section = _paper(
            bbt, "Research on Statistics Teachers’ Cognitive and Affective Characteristics", 2018
        )
        assert section.authors == ("Randall Groth", "Maria Meletiou-Mavrotheris")
        assert _editors(bbt, section) == ("Dani Ben-Zvi", "Katie Makar", "Joan Garfield")


def _bib_fields(text: str) -> dict[str, dict[str, str]]:
    lib = bibtexparser.parse_string(text)
    assert not lib.failed_blocks
    return {e.key: {f.key: str(f.value) for f in e.fields} for e in lib.entries}


def _citeproc(items: list[dict[str, Any]]) -> list[str]:
    """The items' bibliography as citeproc-py writes it in the style it ships."""
    source = CiteProcJSON([{k: v for k, v in i.items() if k != "citation-key"} for i in items])
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, source, citeproc_formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


def test_exports_write_editors_as_editors_for_the_readers_of_each_format(
    tmp_path: Path,
) -> None:
    """BibTeX ``editor``, RIS ``ED``, CSL-JSON ``editor``: bibtexparser, rispy and citeproc-py
    read the book's editors as editors and find no author; the chapter keeps its author and
    its book's editors. The citation key is the first editor's, as Better BibTeX makes it."""
    with _store(tmp_path / "s.sqlite", THESIS_BIB) as store:
        book, chapter = _paper(store, BOOK, 2010), _paper(store, CHAPTER, 1999)
        entries = _bib_fields(to_bibtex(store, [book, chapter]))
        assert set(entries) == {"guinotesocial2010", "cowanembeddedprocesses1999"}
        assert "author" not in entries["guinotesocial2010"]
        assert entries["guinotesocial2010"]["editor"] == "Guinote, Ana and Vescio, Theresa K."
        assert entries["cowanembeddedprocesses1999"]["author"] == "Cowan, Nelson"
        assert entries["cowanembeddedprocesses1999"]["editor"] == "Miyake, Akira and Shah, Priti"

        refs = {r["id"]: r for r in rispy.loads(to_ris(store, [book, chapter]))}
        edited = refs["guinotesocial2010"]
        assert edited["type_of_reference"] == "BOOK" and "authors" not in edited
        assert edited["unknown_tag"]["ED"] == ["Guinote, Ana", "Vescio, Theresa K."]
        named = rispy.loads(
            to_ris(store, [chapter]),
            mapping={**rispy.TAG_KEY_MAPPING, "ED": "editors"},
            list_tags=[*rispy.LIST_TYPE_TAGS, "ED"],
        )[0]
        assert (named["authors"], named["editors"]) == (
            ["Cowan, Nelson"],
            ["Miyake, Akira", "Shah, Priti"],
        )

        items = json.loads(to_csl_json(store, [book, chapter]))
        by_key = {i["id"]: i for i in items}
        assert "author" not in by_key["guinotesocial2010"]
        assert by_key["guinotesocial2010"]["editor"] == [
            {"family": "Guinote", "given": "Ana"},
            {"family": "Vescio", "given": "Theresa K."},
        ]
        rendered = _citeproc(items)
        assert any(r.startswith("Guinote, A. and Vescio, T.K. (eds.) (2010)") for r in rendered)
        assert any(
            "Cowan, N. (1999)" in r and "in A. Miyake and P. Shah (eds.)" in r for r in rendered
        )

        markdown = to_markdown(store, [book])
        assert markdown.startswith(
            "- [@guinotesocial2010] Ana Guinote and Theresa K. Vescio (eds.) (2010)."
        )


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csl-json"])
def test_editors_survive_export_and_import_into_a_fresh_store(tmp_path: Path, fmt: str) -> None:
    """Import -> export -> import into a fresh store: the book has its editors and still no
    author, the chapter its author and its editors."""
    writers = {
        "bibtex": (to_bibtex, ".bib"),
        "ris": (to_ris, ".ris"),
        "csl-json": (to_csl_json, ".json"),
    }
    write, suffix = writers[fmt]
    with _store(tmp_path / "first.sqlite", THESIS_BIB) as store:
        out = tmp_path / f"export{suffix}"
        out.write_text(
            write(store, [_paper(store, BOOK, 2010), _paper(store, CHAPTER, 1999)]), "utf-8"
        )
    with _store(tmp_path / "second.sqlite", out) as again:
        book, chapter = _paper(again, BOOK, 2010), _paper(again, CHAPTER, 1999)
        assert (book.authors, _editors(again, book)) == ((), GUINOTE)
        assert chapter.authors == ("Nelson Cowan",)
        assert _editors(again, chapter) == ("Akira Miyake", "Priti Shah")


def test_a_store_of_the_previous_schema_migrates_and_fills_editors_on_import(
    tmp_path: Path,
) -> None:
    """A store written before ``paper_biblio.editors`` (the column dropped, ``user_version``
    set back) opens, is migrated, exports its papers as before, and the next import of their
    file fills their editors; opened again, it stays."""
    from litsift.store.schema import MIGRATIONS, SCHEMA_VERSION
    from litsift.store.schema_tables import biblio_editors

    path = tmp_path / "old.sqlite"
    _store(path, THESIS_CSL).close()
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE paper_biblio DROP COLUMN editors")
        conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(biblio_editors)}")
    with Store(path) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        book = _paper(store, BOOK, 2010)
        assert _editors(store, book) == ()  # stored before: no editors yet
        (entry,) = _bib_fields(to_bibtex(store, [book])).values()
        assert "editor" not in entry and "author" not in entry
        report = import_paths(store, [THESIS_CSL], Kind.PAPER)
        assert report.added == 0 and report.merged == 0
        assert _editors(store, book) == GUINOTE
    with Store(path) as store:
        (entry,) = _bib_fields(to_bibtex(store, [book])).values()
        assert entry["editor"] == "Guinote, Ana and Vescio, Theresa K."


def test_an_edited_books_identity_is_what_it_was_when_editors_were_its_authors(
    tmp_path: Path,
) -> None:
    """The book's key id is still made from its first editor (as when BibTeX gave its editors
    as authors), so a store written before finds it again; its CSL-JSON copy (no author)
    still joins it."""
    from litsift.sources.formats.bibtex import read_bibtex
    from litsift.sources.identity.matcher import work_key

    (rec,) = [r for r in read_bibtex(THESIS_BIB) if getattr(r, "source_key", "") == "guinote2010"]
    assert isinstance(rec, SourceRecord) and rec.authors == []
    then = work_key(rec.title, rec.editors, rec.year, (), rec.locator)
    assert work_key(rec.title, rec.authors, rec.year, rec.family_names, rec.locator) == then
    with _store(tmp_path / "s.sqlite", THESIS_BIB) as store:
        assert _paper(store, BOOK, 2010).id == then
        report = import_paths(store, [THESIS_CSL], Kind.PAPER)
        assert (then, "title") in [(doc, why) for _, doc, why in report.merges]
        assert _editors(store, _paper(store, BOOK, 2010)) == GUINOTE
