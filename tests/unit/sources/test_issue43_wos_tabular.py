"""Web of Science full-record exports as tables (issue 43, item 6), on real files:
``tests/data/imports/wos-tab/`` (origins and licences in its README).

* the tab-delimited ``savedrecs.txt`` with two-letter tags, in UTF-8 and in the older UTF-16;
* the Excel export saved as CSV with full column names, under each name WoS has given the
  accession number (``UT (Unique WOS ID)``, ``UT (Unique ID)``) and with repeated columns;
* detection by the header row, not the file name; Scopus CSV and WoS plain text stay theirs;
* a malformed row is a bad item at its line, the rows around it are kept.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.sources.base import BadItem, Notice, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.wos_tabular import read_wos_table

DATA = Path(__file__).parents[2] / "data" / "imports"
TAB = DATA / "wos-tab" / "labnetwork_savedrecs-tab-utf8_tags.txt"
CSV_UT_UNIQUE_ID = DATA / "wos-tab" / "5ampere-WOS_savedrecs-csv_full-names_ut-unique-id.csv"
CSV_CUSTOM = DATA / "wos-tab" / "freshwater-forecasting-review_savedrecs-csv_result-number.csv"


def _tab_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        lines = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [dict(zip(lines[0], row, strict=False)) for row in lines[1:]]


def _split(
    items: list[SourceRecord | BadItem | Notice],
) -> tuple[list[SourceRecord], list[BadItem], list[Notice]]:
    return (
        [i for i in items if isinstance(i, SourceRecord)],
        [i for i in items if isinstance(i, BadItem)],
        [i for i in items if isinstance(i, Notice)],
    )


def test_tab_delimited_tags_export() -> None:
    assert registry.detect(TAB) is registry.get("wos-tab")
    records, bad, notices = _split(list(read_wos_table(TAB)))
    assert not bad
    assert [n.layout for n in notices] == ["wos-tags-tab"]  # and no missing-column warning
    expected = _tab_rows(TAB)
    assert [r.title for r in records] == [row["TI"] for row in expected]
    assert [r.source_key for r in records] == [row["UT"] for row in expected]
    assert [r.location for r in records] == ["row 2", "row 3", "row 4", "row 5"]
    assert [r.ids.get("pmid") for r in records] == [row["PM"] or None for row in expected]
    assert [r.ids["doi"] for r in records] == [row["DI"].lower() for row in expected]
    assert [r.venue for r in records] == [row["SO"] for row in expected]
    early, pubmed, quoted, initials = records
    # early access: no PY yet, the year is the early-access date's (``OCT 2021``)
    assert expected[0]["PY"] == "" and expected[0]["EA"] == "OCT 2021" and early.year == 2021
    assert [r.year for r in records[1:]] == [int(row["PY"]) for row in expected[1:]]
    # AF (full names) wins over AU (initials)
    assert early.authors[:2] == ["Carolina Chong-Montenegro", "Ruth H. Thurstan"]
    assert early.family_names[:2] == ["Chong-Montenegro", "Thurstan"]
    assert len(early.authors) == len(expected[0]["AU"].split(";"))
    assert initials.authors == ["JM Pandolfi"] and initials.family_names == ["Pandolfi"]
    # DE then ID (Keywords Plus) as tags
    assert early.tags[:3] == ["angling", "Australia", "catch rates"]
    assert pubmed.tags[-1] == expected[1]["ID"].split("; ")[-1]
    assert initials.tags == ["COMMUNITIES"]
    # the cell with an unbalanced '"' does not swallow the row after it
    assert '"' in expected[2]["FX"] and quoted.abstract == expected[2]["AB"]
    assert pubmed.abstract == expected[1]["AB"]


def test_utf16_tab_delimited_export_reads_the_same(tmp_path: Path) -> None:
    # "Tab-delimited (Win, UTF-16)", what WoS wrote before its UTF-8 option
    wide = tmp_path / "savedrecs.txt"
    wide.write_bytes(TAB.read_bytes().decode("utf-8-sig").encode("utf-16"))
    assert registry.detect(wide) is registry.get("wos-tab")
    assert _summary(wide) == _summary(TAB)


def _summary(path: Path) -> list[tuple[object, ...]]:
    records, bad, _ = _split(list(read_wos_table(path)))
    assert not bad
    return [(r.title, r.authors, r.year, r.ids, r.source_key, r.tags) for r in records]


def test_csv_full_names_with_ut_unique_id() -> None:
    assert registry.detect(CSV_UT_UNIQUE_ID) is registry.get("wos-tab")
    records, bad, notices = _split(list(read_wos_table(CSV_UT_UNIQUE_ID)))
    assert not bad
    assert [n.layout for n in notices] == ["wos-names-csv"]
    assert [r.source_key for r in records] == [
        "WOS:000500922700008",
        "WOS:000599000100001",
        "WOS:000732797600004",
    ]
    first = records[0]
    assert first.title.startswith("MultiResUNet : Rethinking the U-Net architecture")
    assert first.authors == ["Nabil Ibtehaz", "M. Sohel Rahman"]
    assert first.family_names == ["Ibtehaz", "Rahman"]
    assert first.year == 2020 and first.venue == "NEURAL NETWORKS"
    assert first.ids == {"doi": "10.1016/j.neunet.2019.08.025", "pmid": "31536901"}
    assert first.abstract.startswith("In recent years Deep Learning has brought about")
    assert [r.year for r in records] == [2020, 2021, 2022]


def test_csv_custom_selection_repeated_doi_and_no_ut() -> None:
    assert registry.detect(CSV_CUSTOM) is registry.get("wos-tab")
    records, bad, notices = _split(list(read_wos_table(CSV_CUSTOM)))
    assert not bad
    assert [n.layout for n in notices if n.layout] == ["wos-names-csv"]
    warnings = [n.message for n in notices if n.message]
    assert len(warnings) == 1 and "UT (Unique WOS ID)" in warnings[0]
    # ``DOI`` twice: a doi.org link, then the DOI; an empty link is no DOI
    assert [r.ids.get("doi") for r in records] == [
        "10.1111/fwb.13515",
        "10.1016/j.scitotenv.2020.141112",
        None,
    ]
    assert records[0].authors[:2] == ["David A. Dippold", "Noel R. Aloysius"]
    assert records[0].tags[:2] == ["climate warming", "eutrophication"]
    assert "STIZOSTEDION-VITREUM-VITREUM" in records[0].tags  # Keywords Plus
    assert [r.year for r in records] == [2020, 2020, 2017]
    assert all(r.source_key == "" for r in records)


def test_detected_by_header_not_name(tmp_path: Path) -> None:
    for name, source in (("export.dat", TAB), ("records", CSV_UT_UNIQUE_ID)):
        copy = tmp_path / name
        copy.write_bytes(source.read_bytes())
        assert registry.detect(copy) is registry.get("wos-tab"), name
    # a European Excel writes ';' between cells
    with CSV_UT_UNIQUE_ID.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    semi = tmp_path / "savedrecs.csv"
    with semi.open("w", encoding="cp1252", errors="replace", newline="") as fh:
        csv.writer(fh, delimiter=";").writerows(rows)
    assert registry.detect(semi) is registry.get("wos-tab")
    records, bad, notices = _split(list(read_wos_table(semi)))
    assert not bad and notices[0].layout == "wos-names-csv"
    assert [r.source_key for r in records] == [row[55] for row in rows[1:]]


def test_other_exports_keep_their_readers() -> None:
    scopus = DATA / "csv-openalex" / "bibliometrix_scopus-2026-export_sample.csv"
    ieee = DATA / "csv-openalex" / "colrev_ieee-xplore-short-export.csv"
    for path in (scopus, ieee):
        assert registry.detect(path) is registry.get("csv-export"), path.name
    assert registry.detect(DATA / "ris-medline" / "rayyan_example.ciw") is registry.get("wos")


def test_malformed_rows_are_reported_with_their_line(tmp_path: Path) -> None:
    lines = TAB.read_bytes().split(b"\r\n")
    assert len(lines) == 6 and lines[-1] == b""
    short = lines[2].split(b"\t")
    lines[2] = b"\t".join(short[:30])  # line 3: cut off after 30 cells
    cells = lines[3].split(b"\t")
    cells[8] = cells[8].replace(b" ", b"\t", 1)  # line 4: a tab inside the title
    lines[3] = b"\t".join(cells)
    broken = tmp_path / "savedrecs.txt"
    broken.write_bytes(b"\r\n".join(lines))
    records, bad, _ = _split(list(read_wos_table(broken)))
    assert [b.location for b in bad] == ["line 3", "line 4"]
    assert "30 columns" in bad[0].reason and "do not line up" in bad[1].reason
    assert [r.location for r in records] == ["row 2", "row 5"]
    assert [r.source_key for r in records] == ["WOS:000712990800001", "WOS:000235685700029"]


def test_a_file_cut_inside_its_last_row(tmp_path: Path) -> None:
    data = TAB.read_bytes()
    cut = tmp_path / "savedrecs.txt"
    cut.write_bytes(data[: data.rindex(b"\r\n", 0, len(data) - 2) + 600])
    records, bad, _ = _split(list(read_wos_table(cut)))
    assert len(records) == 3
    assert len(bad) == 1 and bad[0].location == "line 5" and "cut" in bad[0].reason


def test_a_row_without_title(tmp_path: Path) -> None:
    with CSV_UT_UNIQUE_ID.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    rows[2][rows[0].index("Article Title")] = ""
    path = tmp_path / "savedrecs.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    records, bad, _ = _split(list(read_wos_table(path)))
    assert bad == [] and len(records) == 3  # its abstract goes on: a review's import keeps it
    assert [r.location for r in records if not r.title] == ["row 3"]
    home = str(tmp_path / "home")
    out = CliRunner().invoke(main, ["--home", home, "ingest", "papers", str(path)])
    assert "2 added" in out.stdout and "1 bad" in out.stdout, out.output  # the rest is kept
    assert "savedrecs.csv:row 3: no title" in out.stderr


def test_ingest_and_formats(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(main, ["--home", str(tmp_path / "home"), "formats"])
    assert listed.exit_code == 0 and "wos-tab" in listed.output
    args = ["--home", str(tmp_path / "home"), "ingest", "papers", str(TAB), str(CSV_CUSTOM)]
    out = runner.invoke(main, [*args, "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    layouts = {Path(f["file"]).name: f.get("layout") for f in report["files"]}
    assert layouts == {TAB.name: "wos-tags-tab", CSV_CUSTOM.name: "wos-names-csv"}
    assert report["added"] == 7
    assert len(report["warnings"]) == 1 and "UT (Unique WOS ID)" in report["warnings"][0]


def test_tab_export_keeps_type_pages_and_publisher() -> None:
    """``DT``, ``EP`` and ``PU`` were not read: a record from the tab-delimited export came in
    without the type, last page and publisher that the plain-text export of the same record
    gives. Expected values are the rows' own cells."""
    rows = _tab_rows(TAB)
    records, _, _ = _split(list(read_wos_table(TAB)))
    assert len(records) == len(rows) == 4
    for rec, row in zip(records, rows, strict=True):
        assert rec.biblio["type"] == "article-journal", row["DT"]  # Article, Review
        assert rec.biblio["publisher"] == row["PU"]
        if row["BP"] and row["EP"]:
            assert rec.biblio["pages"] == f"{row['BP']}-{row['EP']}"


def test_csv_saved_by_r_with_na_cells_reads_as_the_export(tmp_path: Path) -> None:
    """R's ``write.csv`` (a bibliometrix user saving a WoS table) writes every empty cell
    as ``NA``: it came in as an editor "NA", volume, issue and article number "na", and a row
    without a title as a record titled "NA"."""
    with CSV_CUSTOM.open(encoding="utf-8-sig", newline="") as fh:
        table = list(csv.reader(fh))
    path = tmp_path / "from-r.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([table[0], *([c or "NA" for c in r] for r in table[1:])])
    assert not any(c == "NA" for r in table[1:] for c in r)
    assert path.read_text(encoding="utf-8").count(",NA") >= 10
    got, bad, _ = _split(list(read_wos_table(path)))
    want, _, _ = _split(list(read_wos_table(CSV_CUSTOM)))
    assert got == want and not bad
