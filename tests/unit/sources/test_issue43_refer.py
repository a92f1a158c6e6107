"""Issue 43: EndNote "refer" files (``%0``, ``%T``, ``%A`` lines) are read, detected by
content (a ``.txt`` of refer lines is refer, a ``.enw`` of RIS ``TY  -`` lines stays RIS), and
a bad record costs only itself. Real files: ``tests/data/imports/refer`` (see its README);
the bad-record cases are those files with one record edited, as each test says.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.refer import read_refer

DATA = Path(__file__).parents[2] / "data" / "imports"
AIS = DATA / "refer" / "colrev_ais-elibrary_enl.txt"
SCHOLAR = DATA / "refer" / "pymolshortcuts_google-scholar.enw"
RIS = DATA / "ris-medline" / "telemonitoring_embase-export_13-records.ris"


def _ingest(home: Path, *paths: Path) -> dict[str, object]:
    args = ["--home", str(home), "ingest", "papers", *map(str, paths), "--json"]
    out = CliRunner().invoke(main, args)
    return {"exit": out.exit_code, **json.loads(out.output)}


def test_google_scholar_enw_is_imported(tmp_path: Path) -> None:
    """Before the refer reader, ``.enw`` went to the RIS reader: the whole file was bad."""
    report = _ingest(tmp_path / "home", SCHOLAR)
    assert report["exit"] == 0, report["bad"]
    assert report["added"] == 1
    assert [f["format"] for f in report["files"]] == ["refer"]
    (record,) = list(read_refer(SCHOLAR))
    assert isinstance(record, SourceRecord)
    assert record.title == "Shortcuts for faster image creation in PyMOL"
    assert record.authors == ["Blaine HM Mooers"] and record.family_names == ["Mooers"]
    assert (record.year, record.venue) == (2020, "Protein Science")


def test_ais_elibrary_txt_is_detected_by_content_and_read() -> None:
    fmt = registry.detect(AIS)
    assert fmt is not None and fmt.name == "refer"
    records = list(read_refer(AIS))
    assert all(isinstance(r, SourceRecord) for r in records)
    assert len(records) == 6
    first = records[0]
    assert isinstance(first, SourceRecord)
    assert first.title.startswith("How Trust Leads to Commitment on Microsourcing Platforms")
    assert first.authors[:2] == ["Wenbo Guo", "Detmar W. Straub"]
    assert first.venue == "Management Information Systems Quarterly" and first.year == 2021
    assert first.url == "https://aisel.aisnet.org/misq/vol45/iss3/13"
    assert first.abstract.startswith("IS research has extensively examined")
    assert [r.location for r in records][:3] == ["line 1", "line 17", "line 27"]


def test_enw_holding_ris_stays_ris(tmp_path: Path) -> None:
    enw = tmp_path / "embase.enw"
    shutil.copy(RIS, enw)
    fmt = registry.detect(enw)
    assert fmt is not None and fmt.name == "ris"


def test_refer_is_listed_by_litsift_formats() -> None:
    out = CliRunner().invoke(main, ["formats"])
    assert out.exit_code == 0 and "refer" in out.output


def test_a_bad_record_costs_only_itself(tmp_path: Path) -> None:
    """The AIS file with record 2's ``%T`` line removed and a line of stray text (no tag)
    put between records 3 and 4: the 5 other records, two bad items."""
    lines = AIS.read_text(encoding="utf-8").split("\n")
    assert lines[16].startswith("%T MISQ Volume 45")
    del lines[16]
    stray = lines.index(
        "%T Decentralized Multi-Agent System Applied to the Decision Making "
        "Process of the Microgrid Restoration Procedure towards Sustainability"
    )
    lines[stray - 1 : stray - 1] = ["", "Downloaded from the AIS eLibrary", ""]
    edited = tmp_path / "ais.txt"
    edited.write_text("\n".join(lines), encoding="utf-8")
    items = list(read_refer(edited))
    bad = [i for i in items if isinstance(i, BadItem)]
    good = [i for i in items if isinstance(i, SourceRecord)]
    assert len(good) == 5
    assert [b.location for b in bad] == ["line 17", f"line {stray + 1}"]
    assert "title" in bad[0].reason and "tag" in bad[1].reason
    report = _ingest(tmp_path / "home", edited)
    assert report["added"] == 5 and len(report["bad"]) == 2


def test_refer_records_keep_their_type_volume_issue_pages_and_publisher() -> None:
    """``%0``, ``%V``, ``%N``, ``%P`` and ``%I`` were read into nothing: an ``.enw`` from
    Google Scholar or the AIS eLibrary came in without the bibliographic details every other
    reader keeps (and exported without them)."""
    (scholar,) = list(read_refer(SCHOLAR))
    assert isinstance(scholar, SourceRecord)
    assert scholar.biblio == {
        "type": "article-journal",
        "volume": "29",
        "issue": "1",
        "pages": "268-276",
        "publisher": "Wiley Online Library",
    }
    first = next(r for r in read_refer(AIS) if isinstance(r, SourceRecord))
    assert first.biblio == {
        "type": "article-journal",
        "volume": "45",
        "issue": "3",
        "pages": "1309-1348",
    }
