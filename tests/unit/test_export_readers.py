"""Exports as the next tool reads them: real libraries imported, exported, and read by the
parsers researchers use next (bibtexparser for BibTeX, rispy for RIS, json for CSL-JSON) and
by litsift again in a fresh home (found by the exports audit).

* An organisation's name with a comma and an ``and`` (``Council on Cardiopulmonary, Critical
  Care, Perioperative and Resuscitation``, Better BibTeX's literal-names test file) was cut at
  its commas into three "people", one of them written ``and Resuscitation, Perioperative``:
  BibTeX read five authors there, CSL-JSON a person with the particle ``and``.
* A CSL ``literal`` name (``TIME USA``, Better CSL JSON) was split as family ``TIME`` with the
  initials ``USA``: ``TIME, U.`` in a rendered bibliography, ``USA TIME`` read back.
"""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import SeparateCoAuthors

from litsift.export.formats import to_bibtex, to_csl_json, to_ris
from litsift.paths import shared_data_dir
from litsift.sources.importer import import_paths
from litsift.store.repo import Store
from litsift.types import Kind, Paper

REFS = shared_data_dir() / "sources" / "reference-managers"
LITERAL_NAMES = REFS / "bibtex" / "edge-cases" / "bbt_literal-names.bib"
BETTER_CSL = REFS / "csl-json" / "bbt-1400_better-csl-json.json"

pytestmark = pytest.mark.skipif(
    not (LITERAL_NAMES.is_file() and BETTER_CSL.is_file()), reason=f"{REFS} not here"
)


def _papers(store: Store) -> list[Paper]:
    ids = [r[0] for r in store._conn.execute("SELECT id FROM papers ORDER BY id")]
    return [p for d in ids if isinstance(p := store.get(Kind.PAPER, d), Paper)]


def _imported(tmp_path: Path, *files: Path) -> Store:
    store = Store(tmp_path / "a.sqlite")
    assert import_paths(store, list(files), Kind.PAPER).added > 0
    return store


def test_an_organisation_with_commas_and_and_stays_one_author(tmp_path: Path) -> None:
    store = _imported(tmp_path, LITERAL_NAMES)
    (paper,) = _papers(store)
    council = "Council on Cardiopulmonary, Critical Care, Perioperative and Resuscitation"
    assert council in paper.authors

    text = to_bibtex(store, [paper])
    lib = bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors()])
    (entry,) = lib.entries
    assert len(entry["author"]) == len(paper.authors)
    assert "{" + council + "}" in entry["author"]

    items = json.loads(to_csl_json(store, [paper]))
    assert {"literal": council} in items[0]["author"]
    assert len(items[0]["author"]) == len(paper.authors)

    out = tmp_path / "export.bib"
    out.write_text(to_bibtex(store, [paper]), encoding="utf-8")
    again = Store(tmp_path / "b.sqlite")
    assert import_paths(again, [out], Kind.PAPER).added == 1
    assert _papers(again)[0].authors == paper.authors


def test_a_csl_literal_name_is_one_name_in_every_format(tmp_path: Path) -> None:
    store = _imported(tmp_path, BETTER_CSL)
    timed = [p for p in _papers(store) if p.authors == ("TIME USA",)]
    assert timed

    (item, *_) = json.loads(to_csl_json(store, timed))
    assert item["author"] == [{"literal": "TIME USA"}]
    refs = rispy.loads(to_ris(store, timed))
    assert all(r["authors"] == ["TIME USA"] for r in refs)
    text = to_bibtex(store, timed)
    assert "author = {{TIME USA}}" in text

    for name, body in (("export.bib", text), ("export.json", to_csl_json(store, timed))):
        out = tmp_path / name
        out.write_text(body, encoding="utf-8")
        again = Store(tmp_path / f"{name}.sqlite")
        assert import_paths(again, [out], Kind.PAPER).added == len(timed)
        assert all(p.authors == ("TIME USA",) for p in _papers(again)), name


BIBLATEX_IMPORT = REFS / "bibtex" / "edge-cases" / "bbt-549_biblatex-import.bib"


def test_a_books_publisher_is_not_written_again_as_its_series(tmp_path: Path) -> None:
    """A book without a series or journal is imported with its publisher as venue; the export
    wrote that venue as the book's ``series`` (RIS ``T2``, CSL ``container-title``) beside its
    ``publisher``: "Herbs and Healers ... Ashgate. Ashgate." in a rendered bibliography."""
    store = _imported(tmp_path, BIBLATEX_IMPORT)
    (herbs,) = [p for p in _papers(store) if p.title.startswith("Herbs and Healers")]
    assert herbs.venue == "Ashgate"

    (entry,) = bibtexparser.parse_string(to_bibtex(store, [herbs])).entries
    assert entry.entry_type == "book" and entry["publisher"] == "Ashgate"
    assert "series" not in entry.fields_dict
    (ref,) = rispy.loads(to_ris(store, [herbs]))
    assert ref["publisher"] == "Ashgate" and "secondary_title" not in ref
    (item,) = json.loads(to_csl_json(store, [herbs]))
    assert item["publisher"] == "Ashgate" and "container-title" not in item

    # read back, each format gives the venue again (RIS and CSL-JSON read the publisher)
    for name, write in (("a.bib", to_bibtex), ("a.ris", to_ris), ("a.json", to_csl_json)):
        out = tmp_path / name
        out.write_text(write(store, [herbs]), encoding="utf-8")
        again = Store(tmp_path / f"{name}.sqlite")
        assert import_paths(again, [out], Kind.PAPER).added == 1
        assert _papers(again)[0].venue == "Ashgate", name
