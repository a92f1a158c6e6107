"""BibTeX databases over several files, on real bibliographies written by others.

``tests/data/imports/bibtex-db`` (origins and licences in its README): the IRIDIA group
bibliography, five files used as ``\\bibliography{abbrev,authors,journals,biblio,crossref}``
(three of only ``@string`` macros, one of macros + ``@Proceedings`` parents, one of entries
using them), and biber's own ``crossrefs.bib`` / ``xdata.bib`` fixtures for the inheritance
rules. Everything goes through the real reader, a real SQLite store and the real CLI.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from bibtexparser.splitter import Splitter
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from litsift.cli.root import main
from litsift.errors import IngestError
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats.bibtex import read_bibtex, read_bibtex_database
from litsift.sources.importer import import_paths
from litsift.store import Store

DATA = Path(__file__).resolve().parents[2] / "data" / "imports" / "bibtex-db"
IRIDIA = DATA / "iridia-2009"
#: in the order of the group's README: \bibliography{abbrev,authors,journals,biblio,crossref}
FILES = [IRIDIA / f"{n}.bib" for n in ("abbrev", "authors", "journals", "biblio", "crossref")]

Row = tuple[str, tuple[str, ...], int | None, str]


def _database(paths: list[Path]) -> dict[tuple[str, str], SourceRecord | BadItem]:
    """``(file name, location) -> item`` of the files read as one database (read once per
    order of the files; the tests only look)."""
    return _read_once(tuple(paths))


@cache
def _read_once(paths: tuple[Path, ...]) -> dict[tuple[str, str], SourceRecord | BadItem]:
    return {(p.name, i.location): i for p, i in read_bibtex_database(paths)}


def _record(items: dict[tuple[str, str], SourceRecord | BadItem], key: str) -> SourceRecord:
    item = items[("biblio.bib", f"entry {key}")]
    assert isinstance(item, SourceRecord)
    return item


def test_macros_and_crossref_resolve_across_the_files() -> None:
    items = _database(FILES)
    assert [i for i in items.values() if isinstance(i, BadItem)] == []
    # author = Birattari #and# Stuetzle #and# Paquete #and# Varrentrapp: macros of authors.bib
    # joined by `and = " and "` of abbrev.bib; crossref = GECCO2002 ... of crossref.bib
    racing = _record(items, "BirStuPaqVar02:gecco")
    assert racing.authors == [
        "Mauro Birattari",
        "Thomas Stützle",
        "Luís Paquete",
        "Klaus Varrentrapp",
    ]
    assert (racing.year, racing.venue) == (
        2002,
        "Proceedings of the Genetic and Evolutionary Computation Conference (GECCO-2002)",
    )
    # journal = tec (journals.bib)
    nsga2 = next(i for i in items.values() if "NSGA-II" in getattr(i, "title", ""))
    assert isinstance(nsga2, SourceRecord)
    assert nsga2.venue == "IEEE Transactions on Evolutionary Computation"
    assert nsga2.family_names[0] == "Deb"
    # a crossref child without a year of its own takes the @Proceedings' year and booktitle
    ants = _record(items, "GanDelKin04:ants2004")
    assert (ants.year, ants.venue) == (
        2004,
        "Ant Colony Optimization and Swarm Intelligence: 4th International Workshop, ANTS 2004",
    )
    # \MaxMinAntSystem, the whole title, is a \newcommand of abbrev.bib's @PREAMBLE
    assert _record(items, "StuHoo00:fgcs").title == "MAX–MIN Ant System"
    # no author list is a run of macro names glued by "and"
    authors = [a for i in items.values() if isinstance(i, SourceRecord) for a in i.authors]
    assert len(authors) > 700
    assert [a for a in authors if re.search(r"[a-z]and[A-Z]", a)] == []


def test_referenced_proceedings_are_not_papers_and_macro_files_are_no_error() -> None:
    items = _database(FILES)
    by_file: dict[str, list[str]] = {}
    for name, location in items:
        by_file.setdefault(name, []).append(location)
    # 17 of the 18 @Proceedings are crossref parents: their data lives on in their children;
    # ANTS2000 is named by no entry and is read like any entry (\nocite{*} would list it)
    assert by_file.get("crossref.bib") == ["entry ANTS2000:proceedings"]
    assert "abbrev.bib" not in by_file and "authors.bib" not in by_file
    assert "journals.bib" not in by_file
    # all 295 entries of biblio.bib but the @Book WIS:MOA_vol2, the volume of two of them
    assert len(by_file["biblio.bib"]) == 294
    assert "entry WIS:MOA_vol2" not in by_file["biblio.bib"]


def test_the_years_fill_only_when_the_files_are_one_database() -> None:
    def without_year(items: list[SourceRecord | BadItem]) -> int:
        return sum(1 for i in items if isinstance(i, SourceRecord) and i.year is None)

    alone = [i for path in FILES for i in read_bibtex(path)]
    together = list(_database(FILES).values())
    # read alone, the 32 crossref children of crossref.bib lack their year; together, only
    # the one thesis that gives none (Sotelo et al., "Algoritmos Evolutivos ...")
    assert without_year(alone) == 33
    assert without_year(together) == 1


@pytest.mark.parametrize("order", [[4, 3, 2, 1, 0], [3, 0, 4, 1, 2], [1, 4, 0, 3, 2]])
def test_the_order_of_the_files_does_not_matter(order: list[int]) -> None:
    def rows(paths: list[Path]) -> dict[tuple[str, str], Row]:
        return {
            key: (i.title, tuple(i.authors), i.year, i.venue)
            for key, i in _database(paths).items()
            if isinstance(i, SourceRecord)
        }

    assert rows([FILES[i] for i in order]) == rows(FILES)


def test_cli_ingest_of_the_files_and_of_their_directory_exits_0(tmp_path: Path) -> None:
    def ingest(home: Path, *paths: Path) -> tuple[int, dict[str, object], set[Row]]:
        args = ["--home", str(home), "ingest", "papers", "--json", *map(str, paths)]
        out = CliRunner().invoke(main, args)
        assert "Traceback" not in out.output
        with Store(home / "data" / "litsift.sqlite") as store:
            stored = {
                (t, tuple(json.loads(a)), y, v)
                for t, a, y, v in store._conn.execute(
                    "SELECT title, authors, year, venue FROM papers"
                )
            }
        return out.exit_code, json.loads(out.output), stored

    code, report, stored = ingest(tmp_path / "files", *reversed(FILES))
    assert code == 0 and report["bad"] == [], report["bad"]
    reads = {Path(str(f["file"])).name: f["read"] for f in report["files"]}  # type: ignore[attr-defined]
    assert reads == {
        "abbrev.bib": 0,
        "authors.bib": 0,
        "journals.bib": 0,
        "biblio.bib": 294,
        "crossref.bib": 1,
    }
    assert not any(title.startswith("Ant Algorithms: Third") for title, *_ in stored)
    code2, report2, stored2 = ingest(tmp_path / "dir", IRIDIA)
    assert (code2, report2["bad"], stored2) == (0, [], stored)


def test_import_paths_keeps_one_report_row_per_file(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [FILES[3], FILES[4], IRIDIA / "abbrev.bib"])
        assert report.bad == []  # abbrev.bib: macros and a @PREAMBLE, no entry, no error
        assert [Path(f).name for f, _, _ in report.files] == [
            "biblio.bib",
            "crossref.bib",
            "abbrev.bib",
        ]
        # without authors.bib and journals.bib their macros stay as written, as BibTeX leaves them
        venues = {v for (v,) in store._conn.execute("SELECT venue FROM papers")}
        assert "tec" in venues


# ---------------------------------------------------------------- biber's own fixtures


def _biber(name: str) -> dict[str, SourceRecord | BadItem]:
    return {
        getattr(i, "source_key", "") or i.location: i for i in read_bibtex(DATA / "biber" / name)
    }


def test_biblatex_inheritance_rules_on_bibers_crossref_fixtures() -> None:
    items = _biber("crossrefs.bib")
    assert [i for i in items.values() if isinstance(i, BadItem)] == []
    cr1, cr7, cr8, cr6, ccr3 = (items[k] for k in ("cr1", "cr7", "cr8", "cr6", "ccr3"))
    assert isinstance(cr1, SourceRecord) and isinstance(cr7, SourceRecord)
    assert isinstance(cr8, SourceRecord) and isinstance(cr6, SourceRecord)
    assert isinstance(ccr3, SourceRecord)
    # @inbook of a @book: the book's title is the chapter's booktitle, its year the chapter's;
    # the volume's editor is not the chapter's author
    assert (cr1.title, cr1.venue, cr1.year, cr1.authors) == (
        "Great and Good Graphs",
        "Graphs of the Continent",
        1974,
        ["Graham Gullam"],
    )
    assert (cr7.title, cr7.venue, cr7.year) == ("Title of Book bit", "Book Title", 2010)
    assert (cr8.venue, cr8.year) == ("Book Title", 2010)  # @incollection of a @collection
    assert cr6.venue == "Manual booktitle"  # a child's own field is never replaced
    # cascading: @inbook -> @book -> @mvbook named through its alias (ids = {ccr1alias})
    assert (ccr3.venue, ccr3.authors) == ("Misc etc.", ["Vince Various"])
    # the @book/@collection/@proceedings named in a crossref are not papers; an xref parent
    # (no data inherited) and an entry whose parent is missing are
    for parent in ("cr_m", "crt", "crn", "cr6i", "cr7i", "cr8i", "ccr2", "circ1", "circ2"):
        assert parent not in items
    assert {"xrm", "xrt", "xrn", "mcr", "mxr"} <= set(items)


def test_xdata_containers_cascade_through_aliases_and_granular_references() -> None:
    items = _biber("xdata.bib")
    assert [i for i in items.values() if isinstance(i, BadItem)] == []
    xd1, xd2, gxd1, xdann1 = (items[k] for k in ("xd1", "xd2", "gxd1", "xdann1"))
    assert isinstance(xd1, SourceRecord) and isinstance(xd2, SourceRecord)
    assert isinstance(gxd1, SourceRecord) and isinstance(xdann1, SourceRecord)
    # xdata = {macmillanalias} -> @xdata macmillan -> xdata = {macmillan:pubALIAS, ...}
    assert (xd1.venue, xd1.year) == ("Macmillan", 2007)
    assert xd2.venue == "Routledge"  # its own publisher wins over the container's
    assert (gxd1.title, gxd1.authors) == ("Some title", ["Simon Smith", "Brian Bloom"])
    assert xdann1.authors == ["Arthur Smith", "May Bee", "John Doe", "Bill Blogs"]
    # gxd1g has "%" comments after fields (biber reads them): salvaged, not bad
    assert "gxd1g" in items
    assert not any(k.startswith(("macmillan", "loop", "gxd2")) for k in items)  # @xdata


# ----------------------------------------------------------------------- truncation

#: a real file with @string blocks and entries (ASCII: byte and character offsets agree)
CUT_SOURCE = IRIDIA / "crossref.bib"
_TEXT = CUT_SOURCE.read_text()
_HEADS = [m.start() for m in re.finditer(r"(?m)^@", _TEXT)]


def _blocks() -> list[tuple[int, int, int, str]]:
    """``(start offset, end offset, 1-based line, location)`` of every block of the file."""
    out, pos = [], 0
    for block in Splitter(_TEXT).split().blocks:
        raw = block.raw or ""
        if not raw.lstrip().startswith("@"):
            continue
        start = _TEXT.index(raw, pos)
        pos = start + len(raw)
        kept = getattr(block, "ignore_error_block", None) or block  # e.g. a field given twice
        key = getattr(kept, "key", "")
        kind = "entry" if hasattr(kept, "entry_type") else "string"
        out.append((start, pos, (block.start_line or 0) + 1, f"{kind} {key}"))
    return out


BLOCKS = _blocks()


@given(cut=st.integers(min_value=0, max_value=len(_TEXT)))
@example(cut=_HEADS[-1] + 4)  # "@Pro": cut inside the first line of the last entry
@example(cut=_HEADS[-1] + 1)  # "@"
@example(cut=BLOCKS[-1][1] - 1)  # the closing brace of the last entry missing
@example(cut=len(_TEXT))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_prefix_keeps_its_complete_entries_and_reports_the_cut_one(
    tmp_path_factory: pytest.TempPathFactory, cut: int
) -> None:
    path = tmp_path_factory.mktemp("cut") / "crossref.bib"
    path.write_text(_TEXT[:cut])
    complete = [loc for start, end, _, loc in BLOCKS if end <= cut and loc.startswith("entry")]
    inside = [(line, loc) for start, end, line, loc in BLOCKS if start < cut < end]
    try:
        items = list(read_bibtex(path))
    except IngestError as err:  # a prefix holding no block at all: the file's one problem
        assert not complete and not inside, err
        return
    records = [i.location for i in items if isinstance(i, SourceRecord)]
    bad = [i for i in items if isinstance(i, BadItem)]
    assert records == complete
    assert [b.location for b in bad] == [f"line {line}" for line, _ in inside]
    assert all("file ends inside this entry" in b.reason for b in bad)


def test_an_unusable_file_of_the_database_is_one_line_and_costs_the_others_nothing(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.bib"
    notes.write_text("@comment{jabref-meta: databaseType:bibtex;}\n", encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [notes, *FILES])
    # FILE: reason once, with a hint, as every unusable file is reported
    assert [str(p) for p in report.bad] == [
        f"{notes}: holds no BibTeX entries; hint: check the file"
    ]
    assert report.added + report.merged == 295
