"""Issue 43: Cochrane CENTRAL RIS. The journal is only in ``JA`` (the venue was empty), and a
record without ``DO`` took its DOI from the ``UR`` link with the page name
(``10.1002/central/cn-02677909/full``). Real file: ``tests/data/imports/ris-cochrane`` (see its
README); the no-``DO`` case is that file with one ``DO`` line deleted, as the test says.
"""

from __future__ import annotations

from pathlib import Path

from litsift.sources.base import SourceRecord
from litsift.sources.formats.ris import read_ris
from litsift.sources.identity.ids import ids_in_text

CENTRAL = (
    Path(__file__).parents[2]
    / "data"
    / "imports"
    / "ris-cochrane"
    / "asreview_cochrane-central_endnote-ris.ris"
)


def _records(path: Path) -> list[SourceRecord]:
    items = list(read_ris(path))
    assert all(isinstance(i, SourceRecord) for i in items), items
    return items  # type: ignore[return-value]


def test_ja_is_the_venue_when_no_other_journal_field() -> None:
    records = _records(CENTRAL)
    assert [r.venue for r in records] == [
        "Trials",
        "Developmental psychology",
        "Psychosocial intervention = intervencion psicosocial",
    ]
    assert [r.ids["doi"] for r in records] == [
        "10.1186/1745-6215-12-39",
        "10.1037/dev0001710",
        "10.5093/pi2022a2",
    ]


def test_doi_from_the_url_loses_the_page_name(tmp_path: Path) -> None:
    """Record 2 with its ``DO  -  10.1037/dev0001710`` line deleted."""
    text = CENTRAL.read_text(encoding="utf-8")
    assert text.count("DO  -  10.1037/dev0001710\n") == 1
    edited = tmp_path / "central.ris"
    edited.write_text(text.replace("DO  -  10.1037/dev0001710\n", ""), encoding="utf-8")
    record = _records(edited)[1]
    assert record.ids["doi"] == "10.1002/central/cn-02677909"
    assert record.url.endswith("/CN-02677909/full")


def test_publisher_page_names_are_cut_from_url_dois() -> None:
    cut = {
        "https://onlinelibrary.wiley.com/doi/epdf/10.1002/asi.24090": "10.1002/asi.24090",
        "https://onlinelibrary.wiley.com/doi/10.1002/asi.24090/abstract": "10.1002/asi.24090",
        "https://onlinelibrary.wiley.com/doi/10.1002/asi.24090/pdf": "10.1002/asi.24090",
        "https://doi.org/10.1002/asi.24090": "10.1002/asi.24090",
    }
    assert {u: ids_in_text(u).get("doi") for u in cut} == cut
