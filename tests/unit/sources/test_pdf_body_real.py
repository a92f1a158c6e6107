"""What a PDF's full text holds once imported, on the real CC BY PDFs of
../shared/data/sources/fulltext/pdf: the paragraphs a reader reads, spelled as they are searched.

Every paragraph becomes a passage that a search matches and an answer cites, so a running head
(bioRxiv's licence banner on all 31 pages), a reference-list entry or a ligature glyph
("classiﬁcation", which BM25 never matches to "classification") is a wrong hit or a lost one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.pdf import read_pdf
from litsift.sources.formats.pdf_body import pdf_text

PDF = shared_data_dir() / "sources" / "fulltext" / "pdf"


def _read(prefix: str) -> SourceRecord:
    (rec,) = list(read_pdf(next(PDF.glob(prefix + "*.pdf"))))
    assert isinstance(rec, SourceRecord)
    return rec


@pytest.fixture(scope="module")
def records() -> dict[str, SourceRecord]:
    prefixes = ("acl-2020.acl-main.447", "biorxiv-2024", "genomebiol-2023", "jner-2016")
    return {p: _read(p) for p in prefixes}


def _body(rec: SourceRecord) -> str:
    return "\n".join(text for _, text in rec.sections)


def test_ligatures_are_spelled_out_so_words_are_found(records: dict[str, SourceRecord]) -> None:
    s2orc = records["acl-2020.acl-main.447"]
    for rec in records.values():
        text = rec.title + rec.abstract + _body(rec)
        assert not re.search("[\ufb00-\ufb06]", text), rec.title
    assert "figures" in s2orc.abstract  # was "ﬁgures"
    assert "classification" in _body(s2orc) and "insufficient metadata" in _body(s2orc)


def test_set_apart_accents_join_their_letters() -> None:
    assert pdf_text("Saier and F¨arber (2019); Mitrovi´c and M¨uller") == (
        "Saier and Färber (2019); Mitrović and Müller"
    )
    assert pdf_text("e\ufb03cient \ufb01eld \x0fbullet") == "efficient field  bullet"
    assert pdf_text("don´t") == "don´t"  # no such letter: left as it was


def test_a_good_pdf_imports_without_a_control_character_warning(tmp_path: Path) -> None:
    """Symbol fonts' bullets and brackets come out as C0/C1 codes (\\x0f, \\x8d): the PDF
    reader drops them, so a sound paper is not reported as having a defect."""
    pdf = next(PDF.glob("acl-N18-3011*.pdf"))
    out = CliRunner().invoke(main, ["--home", str(tmp_path), "ingest", "papers", str(pdf)])
    assert out.exit_code == 0, out.output
    assert "warning" not in out.output and "1 added" in out.output


def test_running_heads_and_feet_are_left_out(records: dict[str, SourceRecord]) -> None:
    assert "bioRxiv preprint" not in _body(records["biorxiv-2024"])
    assert "granted bioRxiv a license" not in _body(records["biorxiv-2024"])
    assert not re.search(r"Page \d+ of 23", _body(records["genomebiol-2023"]))
    assert not re.search(r"Rehabilitation \(2016\) 13:22 Page", _body(records["jner-2016"]))


def test_the_reference_list_is_not_full_text(records: dict[str, SourceRecord]) -> None:
    gck = _body(records["genomebiol-2023"])
    assert "Froguel P, Vaxillaire M" not in gck  # reference 1
    s2orc = records["acl-2020.acl-main.447"]
    assert "Awais Athar and Simone Teufel. 2012" not in _body(s2orc)
    assert "Acknowledgements" in {h for h, _ in s2orc.sections}
    # the appendix after the references is full text again, under its own heading
    appendix = [t for h, t in s2orc.sections if h == "A Background & Terminology"]
    assert any("inline citation" in t for t in appendix)


def test_unnumbered_headings_at_a_paragraphs_start(records: dict[str, SourceRecord]) -> None:
    heads = {h for h, _ in records["jner-2016"].sections}
    assert {"Background", "Methods", "Results", "Discussion", "Conclusions"} <= heads
    discussion = [t for h, t in records["jner-2016"].sections if h == "Discussion"]
    assert discussion[0].startswith("We introduced a novel FES mapping procedure")


def test_figures_labels_and_captions_are_not_glued_to_the_text(
    records: dict[str, SourceRecord],
) -> None:
    """A block starting with a small letter goes on with the last paragraph set in its size
    whose last line is full, past a caption or a figure's labels in between: the paragraph
    broken by Fig. 1 of the BMC article was glued to the caption ("...for EMG recording avoid
    summation effects"), a figure's labels ("Region A") to the text after them."""
    gck = _body(records["genomebiol-2023"])
    assert "into a yeast expression vector and transformed the resulting plasmid" in gck
    assert "variant activity and transformed" not in gck  # the caption of Fig. 1
    fes = _body(records["jner-2016"])
    assert "applied every 300 ms in order to avoid summation effects" in fes
    assert "for EMG recording avoid" not in fes
    s2orc = [t for _, t in records["acl-2020.acl-main.447"].sections]
    assert "Region A" in s2orc and not any(t.startswith("Region A cs.LG") for t in s2orc)


@pytest.mark.parametrize("prefix", ["acl-2023.eacl-main.121", "natcommun-2024"])
def test_numbers_without_words_are_no_passages(prefix: str) -> None:
    """A figure's axis ticks ("0.2", "0.4", ...) and a table's cells ("95-100") were passages
    of their own: 21 in LongEval, 52 in the Nature Communications article; no search finds
    them and an answer citing one cites nothing."""
    passages = [text for _, text in _read(prefix).sections]
    assert passages and all(re.search(r"[^\W\d_]", text) for text in passages)


def test_a_sentence_broken_before_a_capital_goes_on(records: dict[str, SourceRecord]) -> None:
    """bioRxiv's ragged text is a block per line: a paragraph broke wherever a line started
    with a capital or a bracket ("... recruitment of low fidelity" / "TLS polymerases to
    lesions"), 92 passages where there are about 60. A table's rows and the title page's lines
    are not run on: "Random 4.8 9.4 ..." of SPECTER's Table 1 stays apart from its header."""
    rev1 = [t for _, t in records["biorxiv-2024"].sections]
    assert any("recruitment of low fidelity TLS polymerases to lesions" in t for t in rev1)
    assert any("genome editing (Supplementary Figure 1). Surprisingly" in t for t in rev1)
    assert any("sensitive to both IR and topotecan [57, 58]. Surprisingly" in t for t in rev1)
    assert not any(t.startswith(("TLS polymerases to", "[30]. TLS")) for t in rev1)
    gck = _body(records["genomebiol-2023"])
    assert "receiver-operating characteristic (ROC) analyses" in gck
    specter = [t for _, t in _read("acl-2020.acl-main.207").sections]
    assert any(t.startswith("Random 4.8 9.4") for t in specter)


def test_the_title_pages_sidebar_is_not_the_first_sections() -> None:
    """Nature Communications prints "Received", "Accepted", "Check for updates" in the margin
    of page 1, read after the first subheading: they were filed under "Phylogenetic analysis
    of Asgard EF-1A", the first passages a search of that section found."""
    sections = _read("natcommun-2024").sections
    first = [t for h, t in sections if h == "Phylogenetic analysis of Asgard EF-1A"]
    assert first and first[0].startswith("A total of 106 Asgard EF-1A sequences")
    assert not any(t.startswith(("Received:", "Accepted:", "Check for")) for t in first)
    assert ("", "Received: 1 April 2023") in sections  # front matter, as the title's lines
