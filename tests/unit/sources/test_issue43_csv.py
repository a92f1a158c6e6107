"""Vendor CSV exports as researchers have them (issue 43, items 1 and 2), on real files:
``tests/data/imports/csv-vendors/`` (origins and licences in its README).

* a column renamed between export versions (IEEE Xplore's ``Year`` / ``Publication Year``) is
  read under every name; an IEEE export that starts with its search URL is still an export;
  the layout recognised is in ``litsift ingest --json``;
* a last row without a line break is whole when its cells are all there.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.sources.base import BadItem, Notice, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.csv_exports import read_csv_export

DATA = Path(__file__).parents[2] / "data" / "imports" / "csv-vendors"
IEEE_2015 = DATA / "ieee-xplore-2015_year-column_url-preamble.csv"
SPRINGER_2025 = DATA / "springerlink-2025_unquoted_no-final-line-break.csv"


def _rows(path: Path, skip: int = 0) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        lines = list(csv.reader(fh))[skip:]
    return [dict(zip(lines[0], row, strict=False)) for row in lines[1:]]


def test_ieee_2015_export_with_url_line_and_year_column() -> None:
    assert registry.detect(IEEE_2015) is registry.get("csv-export")
    items = list(read_csv_export(IEEE_2015))
    records = [i for i in items if isinstance(i, SourceRecord)]
    expected = _rows(IEEE_2015, skip=1)  # line 1 is the search URL
    assert [r.title for r in records] == [row["Document Title"] for row in expected]
    assert [r.year for r in records] == [int(row["Year"]) for row in expected]
    assert [r.ids.get("doi") for r in records] == [row["DOI"].lower() for row in expected]
    # ``Family, I.; Family, I.``: family names are the part before the comma
    vancea = records[1]
    assert vancea.family_names == ["Vancea", "Vancea"]
    assert vancea.authors == ["F. Vancea", "C. Vancea"]
    assert records[0].authors == []  # the proceedings' preface has none
    notices = [i for i in items if isinstance(i, Notice)]
    assert [n.layout for n in notices if n.layout] == ["ieee"]
    assert not [n for n in notices if n.message]  # every column it reads is there


def test_springerlink_last_row_without_line_break_is_whole() -> None:
    assert SPRINGER_2025.read_bytes().endswith(b",Article")
    items = list(read_csv_export(SPRINGER_2025))
    assert not [i for i in items if isinstance(i, BadItem)]
    records = [i for i in items if isinstance(i, SourceRecord)]
    expected = _rows(SPRINGER_2025)
    assert [r.title for r in records] == [row["Item Title"] for row in expected]
    assert records[-1].title == "Pricing cloud IaaS computing services"
    assert records[-1].year == 2020 and records[-1].authors == ["Nicola Dimitri"]


def test_springerlink_last_row_cut_inside_its_last_cell_is_still_cut(tmp_path: Path) -> None:
    cut = tmp_path / "cut.csv"
    cut.write_bytes(SPRINGER_2025.read_bytes()[: -len("icle")])  # "...,Art"
    items = list(read_csv_export(cut))
    problems = [i for i in items if isinstance(i, BadItem)]
    assert len(problems) == 1 and "cut" in problems[0].reason
    assert len([i for i in items if isinstance(i, SourceRecord)]) == 4


def test_ingest_json_names_the_layout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    args = ["--home", str(home), "ingest", "papers", str(IEEE_2015), str(SPRINGER_2025)]
    out = CliRunner().invoke(main, [*args, "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    layouts = {Path(f["file"]).name: f.get("layout") for f in report["files"]}
    assert layouts == {IEEE_2015.name: "ieee", SPRINGER_2025.name: "springer"}
    assert report["added"] == 8 and report["warnings"] == []
