"""Scopus / IEEE Xplore / SpringerLink CSV and OpenAlex importers on real exports written by
others (issue 27, items 3, 4 and the truncation bullet).

Files: ``tests/data/imports/csv-openalex/`` (origins and licences in its README) and the
samples of ``../shared/data/sources``. Expected values are read from the files themselves
(the ``Author(s) ID`` and ``Author full names`` columns, ``host_venue``, ``IndexLength``), not
typed in, except for a few names checked by eye.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.csv_exports import read_csv_export
from litsift.sources.formats.csv_people import people
from litsift.sources.formats.openalex import read_openalex

DATA = Path(__file__).parents[2] / "data" / "imports" / "csv-openalex"
SRC = shared_data_dir() / "sources"
EXPORTS = SRC / "reference-managers" / "database-exports"

SCOPUS_2026 = DATA / "bibliometrix_scopus-2026-export_sample.csv"
SCOPUS_OLD = EXPORTS / "litstudy_scopus-export.csv"
IEEE_SHORT = DATA / "colrev_ieee-xplore-short-export.csv"
IEEE_FULL = EXPORTS / "litstudy_ieee-xplore-export.csv"
SPRINGER = DATA / "springer-downloader_springerlink-searchresults.csv"
SPRINGER_LITSTUDY = EXPORTS / "litstudy_springerlink-export.csv"
OPENALEX_2021 = DATA / "go-openalex_snapshot-works-2021-11-03_part_000.gz"
OPENALEX_2023 = DATA / "go-openalex_snapshot-works-2023-05-16_part_000.jsonl"
OPENALEX_PAGE = SRC / "openalex" / "api" / "works_filter-doi-list_per-page-200_cursor-page1.json"


def records(items: list[SourceRecord | BadItem]) -> list[SourceRecord]:
    return [i for i in items if isinstance(i, SourceRecord)]


def bad(items: list[SourceRecord | BadItem]) -> list[BadItem]:
    return [i for i in items if isinstance(i, BadItem)]


def dict_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def read(path: Path) -> list[SourceRecord | BadItem]:
    fmt = registry.detect(path)
    assert fmt is not None, f"{path.name} not detected"
    return list(fmt.read(path))


# --- Scopus ------------------------------------------------------------------------------


def test_scopus_2026_export_splits_semicolon_authors_from_full_names() -> None:
    """Scopus since ~2023: ``Liu F.; Li C.`` plus ``Author full names`` with author ids; one
    person per id (on main: the whole cell was one author)."""
    rows = dict_rows(SCOPUS_2026)
    items = read(SCOPUS_2026)
    recs = records(items)
    assert len(recs) == len(rows) == 8 and not bad(items)
    assert recs[0].authors == ["Fengyuan Liu", "Chunyun Li", "Yong Liu", "Yufei Li"]
    for rec, row in zip(recs, rows, strict=True):
        ids = [i for i in row["Author(s) ID"].split(";") if i.strip()]
        assert len(rec.authors) == len(ids) > 0, rec.location
        full = [e.split(",")[0].strip() for e in row["Author full names"].split(";")]
        assert rec.family_names == full
        assert ";" not in " ".join(rec.authors)
        assert rec.source_key == row["EID"]
        if row["PubMed ID"].isdigit():  # "NA" where R wrote the sample
            assert rec.ids["pmid"] == row["PubMed ID"]
        else:
            assert "pmid" not in rec.ids


def test_scopus_short_names_agree_with_full_names() -> None:
    """The ``Authors`` cell alone (what exports without ``Author full names`` give) splits into
    the same persons and family names as the full-names column, on every real row."""
    for row in dict_rows(SCOPUS_2026):
        short, short_families = people(row["Authors"], "scopus", author_ids=row["Author(s) ID"])
        full, families = people(row["Authors"], "scopus", full_names=row["Author full names"])
        assert short_families == families
        assert len(short) == len(full)
    display, families = people("Unnikrishnan M.A.; Edwin Raja Dhas J.", "scopus")
    assert display == ["M.A. Unnikrishnan", "J. Edwin Raja Dhas"]
    assert families == ["Unnikrishnan", "Edwin Raja Dhas"]


def test_scopus_old_comma_export() -> None:
    """Older Scopus exports: ``Phillips J.C., Braun R.``, ``Author(s) ID`` as ``id;id;``,
    rows with one cell more than the header (the EID is still found)."""
    rows = dict_rows(SCOPUS_OLD)
    recs = records(read(SCOPUS_OLD))
    assert len(recs) == len(rows) == 58
    assert recs[0].authors[:2] == ["J.C. Phillips", "R. Braun"]
    assert recs[0].family_names[:2] == ["Phillips", "Braun"]
    for rec, row in zip(recs, rows, strict=True):
        # "[No author name available]" / "[No author id available]" count as none
        ids = [i for i in row["Author(s) ID"].split(";") if i.strip().isdigit()]
        assert len(rec.authors) == len(ids), rec.location
        assert re.fullmatch(r"2-s2\.0-[0-9]+", rec.source_key), rec.location


def test_scopus_rows_longer_than_the_header_are_read_under_their_columns() -> None:
    """56 of the 58 rows hold one cell more than the header: a funding text Scopus wrote
    without a header after ``Funding Text 1``. Every later cell was read one column to the
    left: no record got its ``PubMed ID`` (read from ``CODEN``), the type read
    ``Sci. Rep.``. The expected values are the cells counted from the row's end."""
    rows = list(csv.reader(io.StringIO(SCOPUS_OLD.read_text(encoding="utf-8-sig"))))
    header, body = rows[0], rows[1:]
    tail = {name: len(header) - i for i, name in enumerate(header)}  # place from the end

    def cell(row: list[str], name: str) -> str:
        return row[len(row) - tail[name]].strip()

    recs = records(read(SCOPUS_OLD))
    assert sum(len(r) > len(header) for r in body) == 56
    assert [r.ids.get("pmid", "") for r in recs] == [cell(r, "PubMed ID") for r in body]
    assert sum("pmid" in r.ids for r in recs) == 24
    sci_rep = next(r for r in recs if r.source_key == "2-s2.0-85123480963")
    assert sci_rep.ids["pmid"] == "35064163"
    assert (sci_rep.biblio["type"], sci_rep.biblio["publisher"]) == (
        "article-journal",
        "Nature Research",
    )
    pairs = zip(recs, body, strict=True)
    kinds = {cell(row, "Document Type"): rec.biblio.get("type") for rec, row in pairs}
    assert kinds == {
        "Article": "article-journal",
        "Review": "article-journal",
        "Short Survey": "article-journal",
        "Conference Paper": "paper-conference",
        "Conference Review": "paper-conference",
        "Book Chapter": "chapter",
        "Book": "book",
    }


def test_vendor_csv_types_pages_and_publishers_are_kept() -> None:
    """Scopus's ``Document Type``, ``Page end`` and ``Publisher``, IEEE Xplore's ``Document
    Identifier``, ``End Page`` and ``Publisher``, SpringerLink's ``Content Type`` were not
    read: a CSV record came in without the type, last page and publisher that the same
    database's RIS gives."""
    first = records(read(SCOPUS_OLD))[0]  # NAMD, J Comput Chem 26(16):1781-1802
    assert first.biblio == {
        "type": "article-journal",
        "volume": "26",
        "issue": "16",
        "pages": "1781-1802",
        "publisher": "John Wiley and Sons Inc.",
    }
    ieee = {r.biblio.get("type") for r in records(read(IEEE_FULL))}
    assert ieee == {"paper-conference", "article-journal", "article-magazine"}
    assert records(read(IEEE_FULL))[1].biblio["publisher"] == "IEEE"
    springer = {r.biblio.get("type") for r in records(read(SPRINGER_LITSTUDY))}
    assert springer == {"book", "chapter", "article-journal"}


# --- IEEE Xplore and SpringerLink ---------------------------------------------------------


def test_ieee_short_layout_is_read() -> None:
    """IEEE Xplore's short CSV (``Title, Authors, Affiliations, Abstract, Publication,
    Category, DOI``): on main it was not recognised at all."""
    items = read(IEEE_SHORT)
    recs = records(items)
    assert len(recs) == 2 and not bad(items)
    assert recs[0].authors == ["Joseph Rottman", "Erran Carmel", "Mary Lacity"]
    assert recs[0].family_names == ["Rottman", "Carmel", "Lacity"]
    assert recs[0].ids["doi"] == "10.1109/mc.2011.377"
    assert recs[1].venue == "2022 8th International Conference on Information Management (ICIM)"


def test_ieee_full_export_authors() -> None:
    rows = dict_rows(IEEE_FULL)
    recs = records(read(IEEE_FULL))
    assert len(recs) == len(rows) == 10
    for rec, row in zip(recs, rows, strict=True):
        assert len(rec.authors) == len(row["Authors"].split(";"))
    assert recs[1].authors[2] == "J. -P. Nominé"


@pytest.mark.parametrize("path", [SPRINGER, SPRINGER_LITSTUDY], ids=lambda p: p.name)
def test_springer_run_together_names_are_split(path: Path) -> None:
    """SpringerLink writes ``Araz R. AlievNigar T. Ismayilova``: on main one "author"."""
    recs = records(read(path))
    assert recs and len(recs) == len(dict_rows(path))
    for rec in recs:
        for name in rec.authors:
            # no name runs into the next one; Mc/Mac/De... prefixes (McIntosh) excepted
            assert not re.search(r"(?<!Mc)(?<!Mac)[a-z][A-Z]", name), name
            assert not name.startswith(("Prof.", "Dr.", "Ph.D.")), name
        assert len(rec.family_names) == len(rec.authors)


def test_springer_names_by_eye() -> None:
    recs = {r.ids["doi"]: r for r in records(read(SPRINGER))}
    assert recs["10.1007/978-3-030-17127-8"].authors == ["Mikołaj Bojańczyk", "Alex Simpson"]
    assert recs["10.1007/978-3-319-89366-2"].family_names == ["Baier", "Dal Lago"]
    assert recs["10.1007/978-3-030-05318-5"].authors == [
        "Frank Hutter",
        "Lars Kotthoff",
        "Joaquin Vanschoren",
    ]
    assert recs["10.1007/978-3-662-44874-8"].authors == ["A.E. Eiben", "J.E. Smith"]


# --- cut CSV files -----------------------------------------------------------------------


def row_spans(data: bytes) -> list[tuple[int, int, int]]:
    """``(first line, start byte, content end byte)`` of every row of a CSV file (line break
    excluded), the header first: the test's own reading, with the csv module."""
    text = data.decode("utf-8")
    spans: list[tuple[int, int, int]] = []
    taken: list[str] = []

    def source() -> Iterator[str]:
        for line in io.StringIO(text, newline=""):
            taken.append(line)
            yield line

    pos, line_no = 0, 1
    for _ in csv.reader(source()):
        raw = "".join(taken).encode("utf-8")
        end = pos + len(raw.rstrip(b"\r\n"))
        spans.append((line_no, pos, end))
        pos += len(raw)
        line_no += len(taken)
        taken.clear()
    return spans


def test_cut_scopus_row_is_reported_not_imported(tmp_path: Path) -> None:
    """A download cut in the middle of row 5: rows 2-4 kept, row 5 a bad item at its line
    (on main the partial row was imported with exit 0)."""
    data = SCOPUS_2026.read_bytes()
    spans = row_spans(data)
    line, start, end = spans[4]
    cut = tmp_path / "cut.csv"
    cut.write_bytes(data[: (start + end) // 2])
    items = list(read_csv_export(cut))
    full = records(list(read_csv_export(SCOPUS_2026)))
    assert [r.title for r in records(items)] == [r.title for r in full[:3]]
    (problem,) = bad(items)
    assert problem.location == f"line {line}"
    assert "cut" in problem.reason and "Error" not in problem.reason


CSV_FILES = [SCOPUS_2026, SCOPUS_OLD, IEEE_SHORT, IEEE_FULL, SPRINGER, SPRINGER_LITSTUDY]


@pytest.mark.parametrize("path", CSV_FILES, ids=lambda p: p.name)
def test_every_prefix_imports_whole_rows_or_reports_the_cut(
    path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Property: any byte prefix of a real export imports exactly its complete rows, equal to
    the full file's, and reports the row it ends inside; never a partial row as a record."""
    data = path.read_bytes()
    spans = row_spans(data)
    full = records(list(read_csv_export(path)))
    assert len(full) == len(spans) - 1
    workdir = tmp_path_factory.mktemp("prefix")

    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(st.integers(min_value=0, max_value=len(data)))
    def check(cut: int) -> None:
        target = workdir / path.name
        target.write_bytes(data[:cut])
        try:
            items = list(read_csv_export(target))
        except IngestError:
            assert cut <= spans[0][2] + 2  # only a cut inside the header is unreadable
            return
        got = records(items)
        whole = sum(1 for _, _, end in spans[1:] if end <= cut)
        inside = next(((ln, s) for ln, s, e in spans[1:] if s < cut < e), None)
        # complete rows are imported as in the full file, in order
        assert [(r.title, r.authors, r.ids, r.year) for r in got] == [
            (r.title, r.authors, r.ids, r.year) for r in full[: len(got)]
        ]
        # the last complete row may be held back only when its line break is missing
        assert len(got) in (whole, whole - 1)
        problems = bad(items)
        if len(got) == whole - 1:
            assert len(problems) == 1 and "cut" in problems[0].reason
        if inside is not None:
            assert [p.location for p in problems] == [f"line {inside[0]}"]
            assert "cut" in problems[0].reason

    check()


# --- OpenAlex ----------------------------------------------------------------------------


def works_of(path: Path) -> list[dict[str, object]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.mark.parametrize("indent", [None, 2])
def test_plain_json_list_of_works(tmp_path: Path, indent: int | None) -> None:
    """What ``json.dump(Works().get(), f)`` writes (pyalex returns a list of Work dicts): on
    main "holds no OpenAlex works"."""
    works = works_of(OPENALEX_2023)
    dump = tmp_path / "pyalex-works.json"
    dump.write_text(json.dumps(works, indent=indent), encoding="utf-8")
    from_list = read(dump)
    from_lines = read(OPENALEX_2023)
    assert len(from_list) == len(from_lines) == len(works)
    assert [r.ids for r in records(from_list)] == [r.ids for r in records(from_lines)]
    analytical = [r for r in records(from_list) if r.venue]
    assert [r.venue for r in analytical] == ["Analytical Chemistry"]  # primary_location.source


def test_snapshot_2021_host_venue_and_mag_style_abstracts() -> None:
    """The 2021 snapshot's Works: venue in ``host_venue``, abstract as ``{"IndexLength",
    "InvertedIndex"}``; on main both stayed empty."""
    works = works_of(OPENALEX_2021)
    recs = records(read(OPENALEX_2021))
    assert len(recs) == len(works) == 50
    for rec, work in zip(recs, works, strict=True):
        host = work.get("host_venue") or {}
        assert isinstance(host, dict)
        assert rec.venue == (host.get("display_name") or "")
        index = work.get("abstract_inverted_index")
        if isinstance(index, dict) and index.get("InvertedIndex"):
            # IndexLength counts positions the index may lack (164 vs 157 in one work)
            positions = sum(len(p) for p in index["InvertedIndex"].values())
            assert len(rec.abstract.split()) == positions <= index["IndexLength"]
        else:
            assert rec.abstract == ""
    assert sum(1 for r in recs if r.abstract) == 19
    assert sum(1 for r in recs if r.venue) == 49


def test_jsonl_bad_works_name_no_exception() -> None:
    items = read(OPENALEX_2023)
    problems = bad(items)
    assert problems and all(p.reason.startswith("no title") for p in problems)
    assert all(p.location.startswith("line ") for p in problems)


@pytest.mark.parametrize("source", ["page", "list"])
def test_cut_json_keeps_complete_works(tmp_path: Path, source: str) -> None:
    """A cut ``/works`` page or JSON list keeps the works before the cut and reports the cut
    one (on main: "neither JSON nor JSON Lines", nothing kept)."""
    if source == "page":
        data = OPENALEX_PAGE.read_bytes()
    else:
        data = json.dumps(works_of(OPENALEX_2021), indent=1).encode()
    full = records(read_openalex(_write(tmp_path / "full.json", data)))
    cut = _write(tmp_path / "cut.json", data[: int(len(data) * 0.6)])
    items = read(cut)
    got = records(items)
    assert 0 < len(got) < len(full)
    assert [r.ids for r in got] == [r.ids for r in full[: len(got)]]
    assert isinstance(items[-1], BadItem) and "cut" in items[-1].reason
    # cut inside the first work: nothing to keep, and the cut is said
    (only,) = read_openalex(_write(tmp_path / "tiny.json", data[:300]))
    assert isinstance(only, BadItem) and "cut" in only.reason


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
