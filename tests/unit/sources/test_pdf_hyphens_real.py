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
