"""RIS and Web of Science importers on the real exports of ../shared/data/sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, Notice, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.ris import read_ris

RM = shared_data_dir() / "sources" / "reference-managers"
COUNTS = {  # records per file, as ../shared/data/sources/README.md gives them
    "ris/asreview_baseline_100-records_bom.ris": 100,
    "ris/asreview_embase-export.ris": 6,
    "ris/asreview_endnote-export_pubmed-items.ris": 6,
    "ris/asreview_ovid-psycinfo-export.ris": 6,
    "ris/asreview_proquest-export.ris": 6,
    "ris/asreview_rayyan-export_multiline-kw.ris": 19,
    "ris/asreview_scopus-export.ris": 6,
    "ris/asreview_web-of-science-export.ris": 10,
    "ris/asreview_zotero-export_pubmed-items.ris": 6,
    "ris/litstudy_ieee-xplore-export.ris": 25,  # mixed CR / LF / CRLF line ends
    "database-exports/rispy_web-of-science-plaintext-isi.txt": 2,
}


@pytest.mark.parametrize("name,count", sorted(COUNTS.items()))
def test_every_record_is_read_with_a_title(name: str, count: int) -> None:
    fmt = registry.detect(RM / name)
    assert fmt is not None and fmt.name == ("wos" if name.endswith(".txt") else "ris")
    items = list(fmt.read(RM / name))
    assert len(items) == count and all(isinstance(i, SourceRecord) and i.title for i in items)


def test_fields_of_real_records() -> None:
    ovid = list(read_ris(RM / "ris/asreview_ovid-psycinfo-export.ris"))
    first = ovid[0]
    assert isinstance(first, SourceRecord)
    assert first.title.startswith("The influence of self-criticism on depression symptoms")
    assert first.authors[0] == "Ines A Trindade" and first.family_names[0] == "Trindade"
    assert first.year == 2019 and first.ids == {"doi": "10.1002/cpp.2398"}  # from a dx.doi.org URL
    assert first.abstract.startswith("Considering that self-criticism")
    ieee = [
        i
        for i in read_ris(RM / "ris/litstudy_ieee-xplore-export.ris")
        if isinstance(i, SourceRecord)
    ]
    assert ieee[0].title == "The European Approach to the Exascale Challenge"
    assert ieee[0].ids == {"doi": "10.1109/mcse.2018.2884139"}
    rayyan = [
        i
        for i in read_ris(RM / "ris/asreview_rayyan-export_multiline-kw.ris")
        if isinstance(i, SourceRecord)
    ]
    assert all(r.tags for r in rayyan[:3])


def test_bad_input(tmp_path: Path) -> None:
    empty = tmp_path / "empty.ris"
    empty.write_text("nothing here\n", encoding="utf-8")
    with pytest.raises(IngestError):
        list(read_ris(empty))
    assert registry.detect(empty) is None
    truncated = tmp_path / "cut.ris"
    data = (RM / "ris/asreview_scopus-export.ris").read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    items = list(read_ris(truncated))  # the records before the cut are kept
    assert sum(isinstance(i, SourceRecord) for i in items) >= 2
    assert not any(isinstance(i, BadItem) and "Traceback" in i.reason for i in items)


@pytest.mark.parametrize(
    "name,count",
    [
        ("litstudy_ieee-xplore-export.csv", 10),
        ("litstudy_scopus-export.csv", 58),
        ("litstudy_springerlink-export.csv", 18),
    ],
)
def test_database_csv_exports(name: str, count: int) -> None:
    fmt = registry.detect(RM / "database-exports" / name)
    assert fmt is not None and fmt.name == "csv-export"
    read = list(fmt.read(RM / "database-exports" / name))
    # the layout recognised comes first (a Notice, no entry); every column it reads is there
    layout = name.removeprefix("litstudy_").split("-")[0].replace("springerlink", "springer")
    assert [(n.layout, n.message) for n in read if isinstance(n, Notice)] == [(layout, "")]
    items = [i for i in read if not isinstance(i, Notice)]
    assert len(items) == count and all(isinstance(i, SourceRecord) and i.title for i in items)
    with_doi = {"litstudy_ieee-xplore-export.csv": 10, "litstudy_scopus-export.csv": 44}
    assert sum(1 for i in items if isinstance(i, SourceRecord) and i.ids.get("doi")) == (
        with_doi.get(name, count)
    )


def test_an_exported_null_is_no_name() -> None:
    """An export tool wrote ``AU  - van den Hoven, null`` (ASReview's 100-record sample, line
    3,444): the author was stored as "null van den Hoven"."""
    records = [r for r in read_ris(RM / "ris" / "asreview_baseline_100-records_bom.ris")
               if isinstance(r, SourceRecord)]  # fmt: skip
    authors = [a for r in records for a in r.authors]
    assert "van den Hoven" in authors and "Andor F. van den Hoven" in authors
    assert not any(a.lower().startswith("null ") or " null" in a.lower() for a in authors)
