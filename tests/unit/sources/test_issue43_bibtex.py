"""BibTeX repairs of issue 43 (items 3 and 4) on real files: a field given twice, and ``%``
comment lines outside entries. Files: ``tests/data/imports/bibtex-repairs/`` (origins and
licences in its README) and one file of ``../shared/data/sources``.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, Notice, SourceRecord
from litsift.sources.formats.bibtex import read_bibtex

DATA = Path(__file__).parents[2] / "data" / "imports" / "bibtex-repairs"
MACROS = DATA / "plume-bib_bibstring-abbrev.bib"
BBT_873 = (
    shared_data_dir()
    / "sources"
    / "reference-managers"
    / "bibtex"
    / "bbt-873_user-library_crossref_duplicate-keys.bib"
)


def test_entry_with_a_repeated_field_is_read_like_any_other() -> None:
    """``keywords`` six times: the entry is kept, its authors split and unquoted, the first
    keyword kept (as BibTeX keeps the first value), and the repetition reported."""
    items = [i for i in read_bibtex(BBT_873) if "BerleantKuipers:97" in i.location]
    record = next(i for i in items if isinstance(i, SourceRecord))
    assert record.authors == ["Daniel Berleant", "Benjamin J. Kuipers"]
    assert record.family_names == ["Berleant", "Kuipers"]
    assert record.title == "Qualitative and quantitative simulation: bridging the gap"
    assert record.tags == ["Qualitative"]
    notices = [i for i in items if isinstance(i, Notice)]
    assert len(notices) == 1 and "keywords" in notices[0].message
    assert not [i for i in items if isinstance(i, BadItem)]


def test_commented_string_lines_are_no_macros(tmp_path: Path) -> None:
    """``% built in: @string{SCP = ...}`` twice: no macro, so no 'Duplicate entry key'."""
    text = MACROS.read_text(encoding="utf-8")
    assert text.count("% built in: @string{SCP") == 2
    assert not [i for i in read_bibtex(MACROS) if isinstance(i, BadItem)]
    out = CliRunner().invoke(
        main, ["--home", str(tmp_path / "home"), "ingest", "papers", str(MACROS), "--json"]
    )
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["bad"] == [] and report["read"] == 0
