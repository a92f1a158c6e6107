"""A Scopus BibTeX key with a comma (issue 43, item 5), on a real Scopus export:
``tests/data/imports/scopus-comma-key/`` (origin and licence in its README).

Scopus builds a key from the first author's family name, suffix and comma included
(``@ARTICLE{Ribeiro, Jr2022,`` for ``Ribeiro, Jr, José W.``); bibtexparser stops the key at
the comma and gave the entry up without a reason. The entry is read with its whole key, and
the author is family "Ribeiro", suffix "Jr", given "José W." -- in BibTeX as in the same
export's RIS (``AU  - Ribeiro, Jr, J.W.``).
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.bibtex import read_bibtex
from litsift.sources.formats.ris import read_ris

DATA = Path(__file__).parents[2] / "data" / "imports" / "scopus-comma-key"
BIB = DATA / "milensys-biodiversity_scopus-2023_comma-key.bib"
RIS = DATA / "milensys-biodiversity_scopus-2023_jr-suffix.ris"


def _records(items: list[SourceRecord | BadItem | object]) -> list[SourceRecord]:
    assert not [i for i in items if isinstance(i, BadItem)]
    return [i for i in items if isinstance(i, SourceRecord)]


def test_scopus_key_with_a_comma_is_read_whole() -> None:
    assert "@ARTICLE{Ribeiro, Jr2022,\n" in BIB.read_text(encoding="utf-8-sig")
    records = _records(list(read_bibtex(BIB)))
    assert [r.source_key for r in records] == ["Biraghi2022", "Ribeiro, Jr2022", "Besson20222753"]
    ribeiro = records[1]
    assert ribeiro.location == "entry Ribeiro, Jr2022"
    assert ribeiro.title == (
        "Passive Acoustic Monitoring as a Tool to Investigate the Spatial Distribution of "
        "Invasive Alien Species"
    )
    assert ribeiro.authors[0] == "José W. Ribeiro Jr" and ribeiro.family_names[0] == "Ribeiro"
    assert ribeiro.authors[1:3] == ["Kristopher Harmon", "Gabriel Augusto Leite"]
    assert len(ribeiro.authors) == 6
    assert ribeiro.ids == {"doi": "10.3390/rs14184565"} and ribeiro.year == 2022
    assert ribeiro.venue == "Remote Sensing" and "Biodiversity" in ribeiro.tags
    assert ribeiro.abstract.startswith("Invasive alien species (IAS) are a threat")


def test_scopus_ris_suffix_between_family_and_given() -> None:
    assert "AU  - Ribeiro, Jr, J.W.\n" in RIS.read_text(encoding="utf-8")
    records = _records(list(read_ris(RIS)))
    ribeiro = records[1]
    assert ribeiro.authors[0] == "J.W. Ribeiro Jr"  # given, family, suffix
    assert ribeiro.family_names[0] == "Ribeiro"
    assert ribeiro.ids.get("doi") == "10.3390/rs14184565"


def test_bibtex_and_ris_of_one_export_are_one_paper_each(tmp_path: Path) -> None:
    assert registry.detect(BIB) is registry.get("bibtex")
    home = ["--home", str(tmp_path / "home")]
    out = CliRunner().invoke(main, [*home, "ingest", "papers", str(BIB), str(RIS), "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["bad"] == [] and report["added"] == 3


def test_other_keys_with_commas(tmp_path: Path) -> None:
    """Minimal entries as Scopus writes them: a group author's key without a space
    (``EuropeanCommission,T2019``, quoted in ORCID/bibtexParseJs issue 33), a key with two
    commas, an entry on one line; a header with a comma but no fields stays a bad entry, with
    bibtexparser's reason."""
    bib = tmp_path / "scopus.bib"
    bib.write_text(
        "@ARTICLE{EuropeanCommission,T2019,\nauthor={European Commission, T},\n"
        "title={The new SME definition: User guide and model declaration},\n"
        "journal={Enterprise and Industry Publications},\nyear={2019},\nnote={cited By 20},\n"
        "source={Scopus},\n}\n\n"
        "@ARTICLE{Smith, III, Jones2020,\n  author = {Smith, III, John},\n  title = {Two},\n}\n"
        "@ARTICLE{Ribeiro, Jr2022, author = {Ribeiro, Jr, J.W.}, title = {Three}}\n"
        "@ARTICLE{Broken, Jr2021 and no fields\n"
        "@MISC{After2021, title = {Four}}\n",
        encoding="utf-8",
    )
    items = list(read_bibtex(bib))
    records = [i for i in items if isinstance(i, SourceRecord)]
    assert [r.source_key for r in records] == [
        "EuropeanCommission,T2019",
        "Smith, III, Jones2020",
        "Ribeiro, Jr2022",
        "After2021",
    ]
    assert records[0].year == 2019 and records[0].title.startswith("The new SME definition")
    assert records[1].family_names == ["Smith"] and records[1].authors == ["John Smith III"]
    assert records[2].authors == ["J.W. Ribeiro Jr"]
    bad = [i for i in items if isinstance(i, BadItem)]
    assert len(bad) == 1 and bad[0].location == "line 15"
    assert "cannot be parsed" not in bad[0].reason and "entry key" in bad[0].reason
