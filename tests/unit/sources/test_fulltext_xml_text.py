"""The text the structured full-text formats (GROBID TEI, JATS) give, on the real files of
../shared/data/sources/fulltext: what a researcher reads in the detail pane, in passages and in
the answers that cite them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.fulltext import read_jats, read_tei

FULLTEXT = shared_data_dir() / "sources" / "fulltext"


def test_a_tei_venue_is_the_journal_not_its_name_and_abbreviation() -> None:
    (rec,) = read_tei(FULLTEXT / "grobid-tei" / "jner-2016_multi-contact-FES.grobid-0.6.1.tei.xml")
    assert isinstance(rec, SourceRecord)
    assert rec.venue == "Journal of NeuroEngineering and Rehabilitation"


def test_jats_paragraphs_leave_out_latex_sources_and_the_tables_set_inside_them() -> None:
    """PMC7417471 (Nano Convergence) sets its tables and figures inside paragraphs and gives
    each inline formula as LaTeX beside its MathML: the paragraphs held a whole
    ``\\documentclass`` preamble and table cells run together ("20 timesWearable")."""
    (rec,) = read_jats(FULLTEXT / "jats" / "PMC7417471.nxml")
    assert isinstance(rec, SourceRecord)
    body = "\n".join(text for _, text in rec.sections)
    assert "documentclass" not in body and "usepackage" not in body
    assert "timesWearable" not in body
    assert "Summary of studies on ES GNMs" not in body  # Table 4's caption, inside a <p>
    # the sentences around a formula, a table and a figure are kept
    assert "heat-resistance index (THRI) value from 184.2 to 194.3" in body  # its MathML
    assert "shows the summary of ES GNMs and polymer NF composites" in body
    assert "Copyright 2017 MDPI" not in body  # Fig. 4's caption


def test_a_one_paper_files_warning_names_the_file_once(tmp_path: Path) -> None:
    """A warning about a JATS, TEI or PDF file read "DIR/a.nxml:a.nxml: control characters
    removed ...": the location of a one-paper file is its own name, printed twice."""
    src = (FULLTEXT / "jats" / "PMC6398430.nxml").read_text(encoding="utf-8")
    bad = tmp_path / "crows.nxml"
    bad.write_text(src.replace("Counting crows", "Counting\x9b crows", 1), encoding="utf-8")
    out = CliRunner().invoke(main, ["--home", str(tmp_path / "home"), "ingest", "papers", str(bad)])
    assert out.exit_code == 0, out.output
    assert f"warning {bad}: control characters removed from title" in out.output
