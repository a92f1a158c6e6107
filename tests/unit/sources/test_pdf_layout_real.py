"""Headings and footnotes by the type pymupdf reports, on the real PDFs of
../shared/data/sources/fulltext/pdf.

A passage is cited under its section heading, so a missed heading files a subsection under the
one before (LongEval's 3.2 and 3.3 under "3.1 RQ1", 149 paragraphs); a footnote in the text flow
breaks the sentence it interrupts ("sum-" / "1https://github.com/..." / "maries"), and a marker
glued to a word ("annotations.10", "translation5,6") hides the word from search.
"""

from __future__ import annotations

import re

import pytest

from litsift.sources.base import SourceRecord
from tests.unit.sources.test_fulltext_pdf import read_real_pdfs


@pytest.fixture(scope="module")
def records() -> dict[str, SourceRecord]:
    return read_real_pdfs()


def _rec(records: dict[str, SourceRecord], part: str) -> SourceRecord:
    return next(rec for name, rec in records.items() if part in name)


def _body(rec: SourceRecord) -> str:
    return "\n".join(text for _, text in rec.sections)


RQ2 = "3.2 RQ2: Can we reduce annotator workload by partially annotating a long summary?"
RQ3 = "3.3 RQ3: Is it useful to align summary units to sentences in the source document?"


def test_bold_numbered_headings_of_any_length(records: dict[str, SourceRecord]) -> None:
    heads = [h for h, _ in _rec(records, "LongEval").sections]
    assert RQ2 in heads and RQ3 in heads  # 81 characters: past the old 80
    rq1 = [h for h in heads if h.startswith("3.1 RQ1")]
    assert 0 < len(rq1) < 100  # was 149 paragraphs, 3.2 and 3.3 filed under it
    appendix = {
        "B.1 FINE-grained evaluations of SQuALITY and PubMed summaries",
        "B.3 Crowdworkers or expert annotators?",
    }
    assert appendix <= set(heads)
    assert "Ethical Considerations" in heads  # unnumbered, in the size of the paper's headings


def test_every_appendix_heading(records: dict[str, SourceRecord]) -> None:
    heads = {h for h, _ in _rec(records, "447_S2ORC").sections}
    assert {
        "A Background & Terminology",
        "B PDF filters",
        "C The paper clustering problem",
        "D S2ORC evaluation criteria",
        "E Training corpus sizes for other language models",
    } <= heads
    pdf_filters = [t for h, t in _rec(records, "447_S2ORC").sections if h == "B PDF filters"]
    assert any("Prior to running GROBID" in t for t in pdf_filters)


def test_a_footnote_does_not_break_the_sentence(records: dict[str, SourceRecord]) -> None:
    longeval = _rec(records, "LongEval")
    texts = [t for _, t in longeval.sections]
    assert any("model-generated summaries (Kryscinski et al., 2019" in t for t in texts)
    assert "1 https://github.com/martiansideofthemoon/ longeval-summarization" in "\n".join(texts)
    for rec in records.values():  # a paragraph cut off mid-word: 21 over the nine PDFs before
        assert sum(bool(re.search(r"[a-z]-$", t)) for _, t in rec.sections) <= 1, rec.location


def test_footnote_markers_leave_the_words(records: dict[str, SourceRecord]) -> None:
    assert "raw human annotations. Hence, we collect" in _body(_rec(records, "LongEval"))
    assert "S2ORC, a large corpus of 81.1M English-language" in _body(_rec(records, "447_S2ORC"))
    natcommun = _body(_rec(records, "natcommun"))
    assert "translation 5,6." in natcommun and "translation5" not in natcommun


def test_no_glued_compound_in_the_full_text(records: dict[str, SourceRecord]) -> None:
    body = "\n".join(_body(rec) for rec in records.values())
    for glued in ("publiclyavailable", "Contextenhanced", "documentlevel", "taskoriented"):
        assert glued not in body
    assert "S2ORC, the largest publicly-available corpus" in _body(_rec(records, "447_S2ORC"))
    assert "suite for document-level embedding" in _body(_rec(records, "207_SPECTER"))
    assert "classification" in body and "classi-" not in body


def _first(rec: SourceRecord, heading: str) -> str:
    return next(t for h, t in rec.sections if h == heading)


def test_unnumbered_subheadings_set_apart_by_type(records: dict[str, SourceRecord]) -> None:
    """Subheadings without a number, set apart only by their type, each on lines of its own:
    bioRxiv's bold, in the body's own size (11 pt Arial), one of them over two text blocks;
    Nature Communications' half a point larger, BMC's smaller, in fonts of their own. Their
    paragraphs were filed under "Results" or "Methods" with the heading's words glued on
    ("Participants Eight young healthy subjects")."""
    biorxiv = _rec(records, "biorxiv")
    forks = (
        "Drosophila rev1 mutants are hypersensitive to damaging agents that stall replication forks"
    )
    assert _first(biorxiv, forks).startswith("We previously showed that rev1 mutant larvae")
    assert _first(biorxiv, "Mutagen sensitivity assays").startswith("Heterozygous mutant males")
    assert not any(h.startswith("Figure") for h, _ in biorxiv.sections)  # bold caption titles
    natcommun = _rec(records, "natcommun")
    assert _first(natcommun, "Thermal stability assay").startswith("The thermal stability range")
    phylogeny = _first(natcommun, "Phylogenetic analysis of Asgard EF-1A")
    assert phylogeny.startswith("A total of 106 Asgard EF-1A sequences")
    fes = _rec(records, "jner")
    assert _first(fes, "Participants").startswith("Eight young healthy subjects")
    assert "Participants Eight" not in _body(fes)
    gck = _rec(records, "genomebiol")
    assert _first(gck, "Library cloning").startswith("Next, PCR products were cloned")


def test_a_line_set_apart_is_a_heading_only_where_the_paper_sets_headings_so(
    records: dict[str, SourceRecord],
) -> None:
    """LongEval sets its research questions apart in italics ("RQ1: Can inter-annotator
    agreement be improved ...?"): questions, not headings; nor is a bold run-in heading
    ("Collecting FINE annotations: For both ...") that shares its line with the text."""
    heads = {h for h, _ in _rec(records, "LongEval").sections}
    assert not any(h.startswith(("RQ1: Can", "RQ2: Can", "Collecting FINE")) for h in heads)
    assert (
        "3.1 RQ1: Does inter-annotator agreement improve using fine-grained annotations?" in heads
    )
