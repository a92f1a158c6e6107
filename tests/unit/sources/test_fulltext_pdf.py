"""PDF importer on the nine CC BY PDFs of ../shared/data/sources/fulltext/pdf, and bad PDFs."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.pdf import read_pdf
from litsift.sources.identity.matcher import title_key

PDF = shared_data_dir() / "sources" / "fulltext" / "pdf"
#: file prefix -> (title as the README gives it, DOI printed in the PDF or None)
EXPECTED = {
    "acl-N18-3011": ("Construction of the Literature Graph in Semantic Scholar", None),
    "acl-2020.acl-main.207": (
        "SPECTER: Document-level Representation Learning using Citation-informed Transformers",
        None,
    ),
    "acl-2020.acl-main.447": ("S2ORC: The Semantic Scholar Open Research Corpus", None),
    "acl-2023.eacl-main.121": (
        "LongEval: Guidelines for Human Evaluation of Faithfulness in Long-form Summarization",
        None,
    ),
    "acl-2023.acl-tutorials.1": (
        "Goal Awareness for Conversational AI: Proactivity, Non-collaborativity, and Beyond",
        None,
    ),
    "jner-2016": (
        "Multi-contact functional electrical stimulation for hand opening: "
        "electrophysiologically driven identification of the optimal stimulation site",
        "10.1186/s12984-016-0129-6",
    ),
    "natcommun-2024": (
        "Evolution of optimal growth temperature in Asgard archaea inferred from the "
        "temperature dependence of GDP binding to EF-1A",
        "10.1038/s41467-024-44806-1",
    ),
    "biorxiv-2024": (
        "REV1 Coordinates a Multi-Faceted Tolerance Response to DNA Alkylation Damage "
        "and Prevents Chromosome Shattering in Drosophila melanogaster",
        "10.1101/2024.02.13.580051",
    ),
    "genomebiol-2023": (
        "A comprehensive map of human glucokinase variant activity",
        "10.1186/s13059-023-02935-8",
    ),
}


def read_real_pdfs() -> dict[str, SourceRecord]:
    """Each real PDF of ``../shared/data/sources/fulltext/pdf`` read as one record, by file
    name (test_pdf_layout_real.py reads them the same way)."""
    out = {}
    for path in sorted(PDF.glob("*.pdf")):
        (rec,) = list(read_pdf(path))
        assert isinstance(rec, SourceRecord)
        out[path.name] = rec
    return out


@pytest.fixture(scope="module")
def records() -> dict[str, SourceRecord]:
    return {next(k for k in EXPECTED if n.startswith(k)): r for n, r in read_real_pdfs().items()}


@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_title_doi_abstract_and_full_text(records: dict[str, SourceRecord], prefix: str) -> None:
    rec = records[prefix]
    title, doi = EXPECTED[prefix]
    assert title_key(rec.title) == title_key(title)
    assert rec.ids.get("doi") == doi
    # the full text is there, paragraphs broken by a column, page or footnote made one again
    # (before a capital too, "... candidate in The" / "Chinese University"): the tutorial,
    # the shortest paper, has 30
    assert len(rec.abstract) > 200 and len(rec.sections) >= 25
    assert rec.attachments and rec.attachments[0].name.startswith(prefix)


def test_a_folder_of_pdfs_is_one_command(tmp_path: Path) -> None:
    folder = tmp_path / "papers"
    folder.mkdir()
    for path in sorted(PDF.glob("acl-*.pdf"))[:2]:
        (folder / path.name).symlink_to(path)
    (folder / "notes.txt").write_text("not a paper\n", encoding="utf-8")
    out = CliRunner().invoke(
        main, ["--home", str(tmp_path / "home"), "ingest", "papers", str(folder), "--json"]
    )
    assert out.exit_code == 0, out.output
    assert '"added": 2' in out.output and "notes.txt: not a format litsift reads" in out.output


def test_scanned_encrypted_truncated_and_fake_pdfs(tmp_path: Path) -> None:
    scan = tmp_path / "scan.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(50, 50, 300, 300), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    doc.save(scan)
    with pytest.raises(IngestError, match="no text layer"):
        list(read_pdf(scan))
    secret = tmp_path / "secret.pdf"
    src = pymupdf.open(next(PDF.glob("acl-N18-3011*.pdf")))
    src.save(secret, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y")
    with pytest.raises(IngestError, match="encrypted"):
        list(read_pdf(secret))
    cut = tmp_path / "cut.pdf"
    data = next(PDF.glob("acl-N18-3011*.pdf")).read_bytes()
    cut.write_bytes(data[: len(data) // 3])
    try:  # pymupdf repairs what it can; either a record or a clear error, never a traceback
        items = list(read_pdf(cut))
        assert all(isinstance(i, SourceRecord) for i in items)
    except IngestError as err:
        assert str(cut) in err.message
    fake = tmp_path / "fake.pdf"
    fake.write_text("I am a text file", encoding="utf-8")
    assert registry.detect(fake) is None
    with pytest.raises(IngestError, match="cannot be opened as a PDF"):
        list(read_pdf(fake))
