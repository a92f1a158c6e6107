"""Real Scopus BibTeX and Web of Science RIS exports: Scopus's ``author_keywords`` field,
and a name whose only given part is an initial that reads like a suffix (``Denault, V``).
Files: ``tests/data/imports/scopus-bibtex/`` (origin and licence in its README) and one file
of ``../shared/data/sources``.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.bibtex import read_bibtex
from litsift.sources.formats.ris import read_ris
from litsift.sources.formats.ris_names import split_people

DATA = Path(__file__).parents[2] / "data" / "imports" / "scopus-bibtex"
SCOPUS_BIB = DATA / "sc-lit_scopus-2021-export.bib"
WOS_RIS = (
    shared_data_dir()
    / "sources"
    / "reference-managers"
    / "ris"
    / "asreview_web-of-science-export.ris"
)


def _records(items: object) -> dict[str, SourceRecord]:
    return {r.source_key or r.title: r for r in items if isinstance(r, SourceRecord)}  # type: ignore[attr-defined]


def _kept_export(tmp_path: Path, source: Path, fmt: str) -> Path:
    """Ingest ``source`` into a home under ``tmp_path``, keep every paper, export them as
    ``fmt``; the exported file."""
    home = str(tmp_path / "home")
    run = CliRunner()
    out = run.invoke(main, ["--home", home, "ingest", "papers", str(source), "--json"])
    assert out.exit_code == 0, out.output
    with closing(sqlite3.connect(Path(home) / "data" / "litsift.sqlite")) as con, con:
        con.execute("INSERT INTO labels SELECT 'paper', id, 'keep', '2024-01-01' FROM papers")
    path = tmp_path / f"kept.{'bib' if fmt == 'bibtex' else fmt}"
    out = run.invoke(main, ["--home", home, "export", "kept", "--format", fmt, "-o", str(path)])
    assert out.exit_code == 0, out.output
    return path


def test_scopus_bibtex_author_keywords_are_kept_with_its_index_terms() -> None:
    """Scopus writes the authors' keywords to ``author_keywords`` and its index terms to
    ``keywords``: both are the record's keywords, each once."""
    records = _records(read_bibtex(SCOPUS_BIB))
    assert len(records) == 8
    assert records["McCoy2020197"].tags == [
        "Cahaba River",
        "Chickasawhay River",
        "Graptemys",
        "Pearl River",
    ]
    atkinson = records["Atkinson2013561"].tags
    assert atkinson[:2] == ["Corbicula fluminea", "Diet analysis"]
    iverson = records["Iverson2002215"].tags  # index terms only, one given twice
    assert iverson.count("Sternotherus carinatus") == 1 and "Testudines" in iverson


def test_a_lone_initial_that_reads_like_a_suffix_is_the_given_name() -> None:
    """Web of Science writes initials without points: ``Denault, V`` is V. Denault, not a
    family name with the suffix "V" (nor is ``Arslanoglu, II`` "Arslanoglu II")."""
    record = next(
        r
        for r in read_ris(WOS_RIS)
        if isinstance(r, SourceRecord) and r.title.startswith("From criminal interrogations")
    )
    assert record.authors == ["V Denault", "V Talwar"]
    assert record.family_names == ["Denault", "Talwar"]
    assert split_people(["Arslanoglu, II", "Laros, J. H., III", "Lee R.E., Jr."]) == (
        ["II Arslanoglu", "J. H. Laros III", "Lee R.E. Jr."],
        ["Arslanoglu", "Laros", "Lee R.E."],
    )


def test_wos_ris_names_survive_export_and_reimport(tmp_path: Path) -> None:
    """Ingest the WoS RIS, export it as RIS and read that back: the same display names."""
    ris = _kept_export(tmp_path, WOS_RIS, "ris")
    back = {r.title: r.authors for r in read_ris(ris) if isinstance(r, SourceRecord)}
    orig = {r.title: r.authors for r in read_ris(WOS_RIS) if isinstance(r, SourceRecord)}
    assert back and back == {t: orig[t] for t in back}
    assert any(a == ["V Denault", "V Talwar"] for a in back.values())


SCOPUS_2017 = DATA / "bibliometrix_scopus-2017-export_comma-authors.bib"


def test_scopus_2017_comma_separated_authors_with_affiliation_letters() -> None:
    """Scopus's BibTeX of 2017 separated authors with commas and put affiliation letters after
    the initials: every entry read as one person, ``D'Ambrosio`` with the given name ``Aria
    M.a Iorio C.b Siciliano R.b`` (and citation keys made of it)."""
    records = [r for r in read_bibtex(SCOPUS_2017) if isinstance(r, SourceRecord)]
    assert len(records) == 46
    raw = SCOPUS_2017.read_text(encoding="utf-8")
    first = raw.split("author={", 1)[1].split("}", 1)[0]  # "D'Ambrosio, A.a , Aria, M.a , ..."
    assert " and " not in first and first.count(",") == 7
    by_title = {r.title: r for r in records}
    r = by_title[raw.split("title={", 1)[1].split("}", 1)[0]]
    assert r.authors == ["A. D'Ambrosio", "M. Aria", "C. Iorio", "R. Siciliano"]
    assert r.family_names == ["D'Ambrosio", "Aria", "Iorio", "Siciliano"]
    # every entry: as many people as the author cell has "Family, Initials" pairs
    cells = [c.split("}", 1)[0] for c in raw.split("\nauthor={")[1:]]
    assert sorted(len(r.authors) for r in records) == sorted((c.count(",") + 1) // 2 for c in cells)
    assert not [a for r in records for a in r.authors if a.split()[0][-1].islower()]  # no "A.a"


def test_scopus_book_keeps_its_series_through_export_and_reimport(tmp_path: Path) -> None:
    """Scopus's ``@BOOK`` names its book series in ``journal``, which a BibTeX ``@book`` has
    no place for: the export wrote none, and the re-import took the publisher as the venue.
    The export writes it as the book's ``series``, which the re-import reads as the venue."""
    bib = _kept_export(tmp_path, SCOPUS_2017, "bibtex")
    book = next(e for e in bib.read_text(encoding="utf-8").split("\n@")[1:] if e[:5] == "book{")
    assert "series = {Advances in Statistical Models for Data Analysis}" in book
    back = {r.title: r for r in read_bibtex(bib) if isinstance(r, SourceRecord)}
    again = back["A new proposal for tree model selection and visualization"]
    assert again.venue == "Advances in Statistical Models for Data Analysis"
    assert again.biblio.get("publisher") == "Springer International Publishing"
