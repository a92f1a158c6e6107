"""Words broken at a line end with a hyphen, on the real PDFs of
../shared/data/sources/fulltext/pdf: a syllable break is undone, an author's compound kept.

"publicly-\\navailable" joined to "publiclyavailable" is a word no search finds, neither by
"publicly" nor by "available"; "classi-\\nfication" left apart is as lost. No dictionary is a
dependency, so the paper itself is the evidence: what it prints elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from litsift.paths import shared_data_dir
from litsift.sources.formats.pdf_body import pdf_text
from litsift.sources.formats.pdf_hyphens import Lexicon, dehyphenate

PDF = shared_data_dir() / "sources" / "fulltext" / "pdf"
BREAK = re.compile(r"(\w+)-\n(\w+)")


def _text(path: Path) -> str:
    with pymupdf.open(path) as doc:
        return pdf_text("\n".join(page.get_text() for page in doc))


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {p.name: _text(p) for p in sorted(PDF.glob("*.pdf"))}


def test_compounds_and_syllables_by_the_papers_own_words(texts: dict[str, str]) -> None:
    s2orc = Lexicon.of(next(t for n, t in texts.items() if "447_S2ORC" in n))
    assert dehyphenate("Context-\nenhanced", s2orc) == "Context-enhanced"  # both words
    assert dehyphenate("S2ORC-\nSCIBERT", s2orc) == "S2ORC-SCIBERT"  # a capital
    assert dehyphenate("classi-\nfication", s2orc) == "classification"  # printed so
    assert dehyphenate("com-\nparing", s2orc) == "comparing"  # "paring" is no word there
    longeval = Lexicon.of(next(t for n, t in texts.items() if "LongEval" in n))
    assert dehyphenate("publicly-\navailable", longeval) == "publicly-available"
    assert dehyphenate("long-\nform", longeval) == "long-form"  # printed so 50 times
    assert dehyphenate("state-\nof-the-art", longeval) == "state-of-the-art"  # "of": 2 letters


def test_no_compound_the_paper_prints_is_glued(texts: dict[str, str]) -> None:
    """On all nine PDFs: a line-end break whose compound the paper prints elsewhere (and the
    joined word nowhere) stays a compound; one whose joined word it prints is joined. The old
    rule glued 36 such compounds ("publiclyavailable", "documentlevel", "taskoriented")."""
    for name, text in texts.items():
        lexicon = Lexicon.of(text)
        for head, tail in BREAK.findall(text):
            joined, compound = (head + tail).lower(), f"{head}-{tail}".lower()
            out = dehyphenate(f"{head}-\n{tail}", lexicon)
            if lexicon.compounds[compound] and not lexicon.words[joined]:
                assert out == f"{head}-{tail}", name
            elif lexicon.words[joined] > lexicon.compounds[compound]:
                assert out == head + tail, name


def test_without_a_lexicon_the_text_is_its_own_evidence() -> None:
    assert dehyphenate("a zero-shot model; zero-\nshot") == "a zero-shot model; zero-shot"
    assert dehyphenate("classi-\nfication") == "classification"
    assert dehyphenate("no break") == "no break"


def _lexicon(texts: dict[str, str], name: str) -> Lexicon:
    return Lexicon.of(next(t for n, t in texts.items() if name in n))


def test_a_prefix_printed_only_before_a_hyphen_is_no_word(texts: dict[str, str]) -> None:
    """SPECTER writes "inter-document" nine times and "inter" never alone: "inter-\\nsection"
    is "intersection", not a compound of two words (the old rule counted "inter" as one)."""
    specter = _lexicon(texts, "207_SPECTER")
    assert dehyphenate("the inter-\nsection of", specter) == "the intersection of"
    assert specter.compounds["inter-document"] == 9 and not specter.free["inter"]
    assert dehyphenate("model-\nbased", specter) == "model-based"  # "model" on its own
    longeval = _lexicon(texts, "LongEval")  # printed "inter-annotator": kept
    assert dehyphenate("inter-\nannotator", longeval) == "inter-annotator"


def test_another_form_of_the_word_is_evidence(texts: dict[str, str]) -> None:
    s2orc = _lexicon(texts, "447_S2ORC")  # "fine-tuning", "fine-tune"; "fine-tuned" nowhere
    assert dehyphenate("fine-\ntuned", s2orc) == "fine-tuned"
    gck = _lexicon(texts, "genomebiol")  # "intermediate"
    assert dehyphenate("glycolytic inter\u2011\nmediates", gck) == "glycolytic intermediates"


def test_a_document_without_syllable_breaks_keeps_its_hyphens(texts: dict[str, str]) -> None:
    """bioRxiv's preprint is ragged text from a word processor: none of its 21 line-end breaks
    is a word it prints joined, five are compounds it prints. Its "Co-\\nlocalization" (a cited
    title) was "Colocalization"."""
    biorxiv = _lexicon(texts, "biorxiv")
    assert dehyphenate("Co-\nlocalization", biorxiv) == "Co-localization"
    assert not biorxiv.syllables and _lexicon(texts, "207_SPECTER").syllables
    # "postreplication" is printed too: the line-end hyphen is still the author's
    assert dehyphenate("post-\nreplicative", biorxiv) == "post-replicative"
    assert dehyphenate("a multi-\nsubunit enzyme", biorxiv) == "a multi-subunit enzyme"


def test_a_suspended_hyphen_stays_apart_from_the_conjunction(texts: dict[str, str]) -> None:
    """SPECTER breaks "sentence-\\nand token-level tasks" at the hyphen of a suspended
    compound: it was glued to the conjunction ("sentence-and"), a word nobody searches."""
    specter = _lexicon(texts, "207_SPECTER")
    text = "many sentence-\nand token-level tasks"
    assert dehyphenate(text, specter) == "many sentence- and token-level tasks"
    assert dehyphenate("pre-\nor post-training") == "pre- or post-training"
    assert dehyphenate("an end-\nto-end model", specter) == "an end-to-end model"
    jner = _lexicon(texts, "jner")  # "peak-to-peak" is a compound, not a suspended hyphen
    assert dehyphenate("the peak-\nto-peak amplitude", jner) == "the peak-to-peak amplitude"
    assert "sentence-\nand token-level" in texts[next(n for n in texts if "207_SPECTER" in n)]


def test_a_prefix_written_with_a_hyphen_before_a_printed_word_is_kept(
    texts: dict[str, str],
) -> None:
    """A prefix English writes with a hyphen as often as not, before a word the paper prints
    (or another form of it), with neither the joined word nor the compound printed: the
    hyphen is kept ("predefined", "crosstopic", "nonpainful" were glued; SPECTER prints
    "define", "topic", "supervised", the tutorial "defined", BMC "pain")."""
    specter = _lexicon(texts, "207_SPECTER")
    assert not specter.words["predefined"] and not specter.compounds["pre-defined"]
    assert dehyphenate("a pre-\ndefined set", specter) == "a pre-defined set"
    assert dehyphenate("cross-\ntopic", specter) == "cross-topic"
    assert dehyphenate("Semi-\nsupervised", specter) == "Semi-supervised"
    tutorial = _lexicon(texts, "tutorials")
    assert dehyphenate("pre-\ndefined", tutorial) == "pre-defined"
    assert dehyphenate("non-\npainful", _lexicon(texts, "jner")) == "non-painful"
    # no regression: a prefix English closes up, and breaks that are no word after the prefix
    assert dehyphenate("the inter-\nsection of", specter) == "the intersection of"
    assert dehyphenate("pre-\ndiction", specter) == "prediction"  # printed joined
    assert dehyphenate("multi-\nple", specter) == "multiple"  # "ple" is no word
    assert dehyphenate("Co-\nhen", specter) == "Cohen"
