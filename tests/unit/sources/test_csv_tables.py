"""CSV tables of records as reviewers have them, on real files
(``tests/data/imports/csv-tables/``, origins and licences in its README): PubMed's and Embase's
CSV exports, and tables of records such as ASReview's data sets, whose columns are found by
their names. Before, each was "not csv-export (nor any other format litsift reads)".
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.sources.base import BadItem, Notice, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.csv_exports import has_decisions, read_csv_export
from litsift.store.repositories import Biblios

DATA = Path(__file__).parents[2] / "data" / "imports" / "csv-tables"
PUBMED = DATA / "colrev_pubmed-csv-export_6-records.csv"
EMBASE = DATA / "asreview_embase-csv-export.csv"
LABELS = DATA / "asreview_generic-labels.csv"
SEMICOLON = DATA / "asreview_generic-semicolon.csv"
SPACES = DATA / "asreview_generic-column-names-with-spaces.csv"
RECORD_ID = DATA / "asreview_record-id_final-included.csv"
MISSING = DATA / "asreview_missing-values.csv"
KWOK = DATA / "asreview_kwok-2020_synergy.csv"


def _records(path: Path) -> tuple[list[SourceRecord], list[BadItem], list[str]]:
    items = list(read_csv_export(path))
    layouts = [i.layout for i in items if isinstance(i, Notice) and i.layout]
    return (
        [i for i in items if isinstance(i, SourceRecord)],
        [i for i in items if isinstance(i, BadItem)],
        layouts,
    )


def _table(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        text = fh.read()
    delimiter = ";" if text.split("\n", 1)[0].count(";") > 2 else ","
    return list(csv.DictReader(text.splitlines(keepends=True), delimiter=delimiter))


def test_pubmed_csv_export() -> None:
    assert registry.detect(PUBMED) is registry.get("csv-export")
    records, bad, layouts = _records(PUBMED)
    rows = _table(PUBMED)
    assert layouts == ["pubmed"] and not bad
    assert [r.title for r in records] == [row["Title"] for row in rows]
    assert [r.ids["pmid"] for r in records] == [row["PMID"] for row in rows]
    first = records[
        0
    ]  # "Lim SM, Shiau CWC, Cheng LJ, Lau Y." / "Behav Ther. 2022 Mar;53(2):334-347."
    assert first.authors == ["SM Lim", "CWC Shiau", "LJ Cheng", "Y Lau"]
    assert first.family_names == ["Lim", "Shiau", "Cheng", "Lau"]
    assert first.year == 2022 and first.venue == "Behav Ther"
    assert first.ids["doi"] == "10.1016/j.beth.2021.09.007"
    assert first.biblio == {"volume": "53", "issue": "2", "pages": "334-347"}
    with_pmc = [r for r, row in zip(records, rows, strict=True) if row["PMCID"]]
    assert with_pmc and all(r.ids.get("pmcid", "").startswith("PMC") for r in with_pmc)


def test_embase_csv_export_reads_source_and_the_encoded_doi() -> None:
    records, bad, layouts = _records(EMBASE)
    assert layouts == ["embase"] and not bad and len(records) == len(_table(EMBASE))
    first = records[0]  # Source: "Endoscopic Ultrasound (2014) 3:3 (152-160). Date of ..."
    assert (
        first.title
        == "Duplication cysts: Diagnosis, management, and the role of endoscopic ultrasound"
    )
    assert first.authors == ["R. Liu", "D.G. Adler"] and first.family_names == ["Liu", "Adler"]
    assert first.venue == "Endoscopic Ultrasound" and first.year == 2014
    assert first.biblio == {"volume": "3", "issue": "3", "pages": "152-160"}
    assert first.ids["doi"] == "10.4103/2303-9027.138783"  # from "doi:10.4103%2F2303-…"
    terms = _table(EMBASE)[0][
        "Emtree Medical Index Terms"
    ]  # "article, bronchogenic … (diagnosis, surgery), …"
    assert first.tags[:2] == ["article", "bronchogenic duplication cyst (diagnosis, surgery)"]
    assert len(first.tags) == terms.count(", ") + 1 - terms.count("diagnosis, surgery")
    assert first.abstract.startswith("Gastrointestinal tract duplication cysts are rare")
    second = records[1]  # "Cancer (2004) 102:4 (253-258)"
    assert (second.venue, second.year, second.biblio["pages"]) == ("Cancer", 2004, "253-258")


@pytest.mark.parametrize("path", [LABELS, SEMICOLON, SPACES])
def test_asreview_tables_comma_semicolon_and_padded_names(path: Path) -> None:
    records, bad, layouts = _records(path)
    assert layouts == ["table"] and not bad
    rows = _table(path)
    assert [r.title for r in records] == [row["title"] for row in rows]
    assert records[0].authors == ["Karl Marx", "Astrid Lindgren"]  # "['Marx, Karl', ...]"
    assert records[0].family_names == ["Marx", "Lindgren"]
    assert records[0].year == int(rows[0]["publication_year"][:4])  # written "2014//"
    assert records[0].abstract.startswith("BACKGROUND: Lorem ipsum")  # "abstract " column too
    assert records[0].biblio["volume"] == rows[0]["volume"]


def test_a_synergy_table_of_real_records() -> None:
    records, bad, _ = _records(KWOK)
    rows = _table(KWOK)
    assert not bad and len(records) == len(rows) == 99
    by_doi = {r.ids.get("doi"): r for r in records}
    r = by_doi["10.1128/mra.01136-18"]  # "Ababneh, M.;Ferreira, H. L.;Khalifeh, M.;..."
    assert r.authors[:2] == ["M. Ababneh", "H. L. Ferreira"]
    assert r.family_names[:2] == ["Ababneh", "Ferreira"]
    assert r.year == 2018  # written "2018.0"
    assert not has_decisions(KWOK)  # debug_label is ASReview's hidden answer, not a decision


def test_rows_without_a_title_are_reported_with_their_line(tmp_path: Path) -> None:
    """The reader passes an untitled row with an abstract on (a review's import labels it by
    its DOI; this table has none), and the ingest reports it with its row, keeping the rest."""
    records, bad, _ = _records(MISSING)
    rows = _table(MISSING)
    titled = [row["title"] for row in rows if row["title"].strip()]
    assert [r.title for r in records if r.title] == titled
    assert bad == [] and all(r.abstract for r in records if not r.title)
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(MISSING)])
    assert "4 read" in out.stdout and "2 bad" in out.stdout, out.output  # two titles alike
    lines = [n + 2 for n, row in enumerate(rows) if not row["title"].strip()]  # header: line 1
    assert [f"{MISSING.name}:row {n}: no title" in out.stderr for n in lines] == [True, True]


def test_a_csv_without_title_or_abstract_is_refused_with_a_hint(tmp_path: Path) -> None:
    other = tmp_path / "budget.csv"
    other.write_text("item,amount\nlaptop,1200\n", encoding="utf-8")
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(other)])
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert "budget.csv" in out.output and "hint:" in out.output


def test_review_new_from_an_asreview_table_takes_its_decisions(tmp_path: Path) -> None:
    """A reviewer moving from ASReview: the table's final_included decisions are the review's
    prior decisions, the rows without one are to screen."""
    assert has_decisions(RECORD_ID) and has_decisions(LABELS)
    home = tmp_path / "home"
    out = CliRunner().invoke(
        main, ["--home", str(home), "review", "new", "moved", "--from", str(RECORD_ID)]
    )
    assert out.exit_code == 0, out.output
    assert "10 records identified" in out.output and "2 prior decisions" in out.output
    shown = CliRunner().invoke(main, ["--home", str(home), "review", "show", "moved", "--json"])
    prisma = json.loads(shown.output)["prisma"]
    assert (prisma["included"], prisma["excluded"], prisma["unscreened"]) == (1, 1, 8)


def test_pubmed_csv_details_reach_the_store_and_the_export(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(PUBMED)])
    assert out.exit_code == 0, out.output
    with LitsiftService(get_paths(home)) as svc:
        details = Biblios(svc.store).of(["doi:10.1016/j.beth.2021.09.007"])
    got = details["doi:10.1016/j.beth.2021.09.007"]
    assert (got.volume, got.issue, got.pages) == ("53", "2", "334-347")
