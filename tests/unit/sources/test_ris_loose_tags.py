"""RIS tag lines written loosely: one space or a tab before the hyphen (``TY - JOUR``, ``PMID -
12345``, ``AU\\t- Smith, J``), as RIS copied off a web page, PubMed-to-RIS converters and hand
edits write them, and CoLRev's loader sample has them between two-space lines.

Files: Zotero's RIS export of ../shared (``reference-managers/ris``, written by Zotero for
ASReview's tests) and CoLRev's loader sample (``tests/data/imports/wild``, origin and licence in
its README); each loose variant is the real file with its separators rewritten in ``tmp_path``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.ris import read_ris

ZOTERO = (
    shared_data_dir() / "sources/reference-managers/ris/asreview_zotero-export_pubmed-items.ris"
)
WILD = Path(__file__).parents[2] / "data" / "imports" / "wild"


def _records(path: Path) -> list[SourceRecord]:
    return [r for r in read_ris(path) if isinstance(r, SourceRecord)]


def _zotero_text() -> str:
    if not ZOTERO.exists():
        pytest.skip(f"{ZOTERO} not here (../shared/data)")
    return ZOTERO.read_text(encoding="utf-8").replace("\r\n", "\n")


@pytest.mark.parametrize("separator", [" - ", "\t- ", " -\t"])
def test_a_real_export_written_with_one_space_or_a_tab_reads_as_written_with_two(
    tmp_path: Path, separator: str
) -> None:
    """Zotero's export with every ``XY  - `` rewritten ``XY - `` (or with a tab): the
    authors came in as ``"Rashedi AU - Vahid"``-style run-ons, the tab file was not RIS."""
    text = _zotero_text()
    loose = tmp_path / "loose.ris"
    loose.write_text(re.sub(r"^([A-Z][A-Z0-9])  - ?", rf"\1{separator}", text, flags=re.M))
    fmt = registry.detect(loose)
    assert fmt is not None and fmt.name == "ris"
    assert _records(loose) == _records(ZOTERO)
    assert len(_records(loose)) == text.count("\nER  -") + text.startswith("ER  -")


def test_pmid_written_with_one_space_is_the_pubmed_id(tmp_path: Path) -> None:
    """``PMID - 31321234`` in a record written ``TY - JOUR``: the line ran on into the tag
    above (a PMID as the last author's name), and the record had no PubMed id."""
    text = re.sub(r"^([A-Z][A-Z0-9])  - ?", r"\1 - ", _zotero_text(), flags=re.M)
    path = tmp_path / "pmid.ris"
    path.write_text(text.replace("\nT2 - ", "\nPMID - 31321234\nT2 - ", 1), encoding="utf-8")
    first = _records(path)[0]
    assert first.ids.get("pmid") == "31321234"
    assert first.family_names == ["Rudnik", "Piotrowicz", "Basinska", "Rashedi"]


def test_colrev_one_space_pmid_between_two_space_tags_is_read() -> None:
    """CoLRev's loader sample writes ``PMID - 12345678`` (one space) among ``XY  - `` lines,
    then a blank line and ``% Comment`` with no ``ER``: the PMID was lost in the tag above."""
    first = _records(WILD / "colrev_loader-ris_no-er-before-ty.ris")[0]
    assert first.ids == {"doi": "10.1234/random-name55555.2020.00050", "pmid": "12345678"}
    assert first.tags == ["keyword2", "keyword2", "keyword3"]  # ``KW - keyword2`` + lines
    assert len(first.authors) == 5


@pytest.mark.parametrize("loose_ty", [False, True])
def test_an_abstract_line_that_starts_like_a_tag_stays_abstract(
    tmp_path: Path, loose_ty: bool
) -> None:
    """A wrapped abstract whose next line starts "AB - " or "US - ": in a file written with
    two spaces, one such line switched the whole file to one-space tags, and the abstract
    lost its second half (a second ``AB`` is dropped, ``US`` filed as an unknown tag)."""
    text = _zotero_text()
    head, sep, rest = text.partition("AB  - Introduction: There are studies demonstrating")
    assert sep
    wrapped = f"{head}{sep} work\nAB - related work, then\nUS - based cohorts:{rest}"
    if loose_ty:
        wrapped = wrapped.replace("TY  - JOUR", "TY - JOUR", 1)
    path = tmp_path / "wrapped.ris"
    path.write_text(wrapped, encoding="utf-8")
    first, second, *_ = _records(path)
    assert "demonstrating work AB - related work, then US - based cohorts: the relation" in (
        first.abstract
    )
    assert first.abstract.endswith("applying tailored therapeutic methods.")
    assert first.year == 2019 and first.ids == _records(ZOTERO)[0].ids
    assert second == _records(ZOTERO)[1]
