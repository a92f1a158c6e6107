"""The body text of a PDF as ``(heading, paragraph)`` pairs, cleaned for search and answers.

pymupdf gives text blocks in reading order; what a reader skips is left out, since every
paragraph becomes a searchable passage that an answer may cite:

* **running heads and feet**: a block printed on many pages (digits aside: page numbers,
  "Page 3 of 23") is the journal's header or footer, or bioRxiv's licence banner;
* **the reference list**: the blocks after a "References" / "Bibliography" heading, up to the
  next heading (an appendix); a search for a cited paper's title would otherwise match the
  bibliography and an answer cite it as evidence;
* **glyph codes**: typographic ligatures (``ﬁ``, ``ﬂ``, ...) are spelled out, so "classiﬁcation"
  is found by "classification"; an accent LaTeX sets apart from its letter ("F¨arber",
  "Mitrovi´c") is joined to it; control characters (symbol fonts' bullets and arrows) go;
* **hyphenation** at line ends is undone.

Headings are blocks (or a block's first line) that read as one: a numbered heading ("3.1
Data") or a section name papers print without a number (Introduction, Methods, Discussion,
Conclusions, Acknowledgements, References, ...).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Any

from litsift.sources.base import clean_text

__all__ = ["HEADING_RE", "body_sections", "dehyphenate", "pdf_text"]

HEADING_RE = re.compile(
    r"^\s*(?:\d+\.?\s+|[IVX]+\.\s+)?(introduction|keywords?|background|index terms|"
    r"1\s+introduction|methods?|results|main)\b",
    re.I,
)
#: section names printed without a number, each alone on its line
_NAMED_RE = re.compile(
    r"(?:\d+\.?\s*|[IVX]+\.\s*)?(?:abstract|introduction|background|related work|methods?|"
    r"materials and methods|methods and materials|experiments?|results(?: and discussion)?|"
    r"discussion|conclusions?(?: and future work)?|limitations|acknowledge?ments?|"
    r"data availability|code availability|funding|declarations|author contributions|"
    r"competing interests|ethics statement|appendix|appendices|supplementary material|"
    r"references|bibliography|literature cited)",
    re.I,
)
_REFERENCES_RE = re.compile(r"(?:\d+\.?\s*)?(?:references|bibliography|literature cited)", re.I)
_NUMBERED_RE = re.compile(r"^\d+(\.\d+)*\s+[A-Z]")
#: an appendix heading after the references: "A Background & Terminology", "B.2 Data"
_APPENDIX_RE = re.compile(r"^(?:Appendix\b|[A-H](?:\.\d+)*\s+[A-Z][a-z])")
#: a year, "et al" or a comma: a reference's line ("A. Smith, B. Jones"), not a heading
_CITED_RE = re.compile(r"\b(?:1[89]|20)\d\d\b|\bet al\b|,")

_LIGATURES = {cp: unicodedata.normalize("NFKC", chr(cp)) for cp in range(0xFB00, 0xFB07)}
#: spacing accents (as LaTeX PDFs place them before the letter) -> combining marks
_ACCENTS = {
    "\u00a8": "\u0308",  # diaeresis
    "\u00b4": "\u0301",  # acute
    "\u02d8": "\u0306",  # breve
    "\u02c7": "\u030c",  # caron
    "\u02c6": "\u0302",  # circumflex
    "\u02dc": "\u0303",  # tilde
    "\u02da": "\u030a",  # ring
}
_ACCENT_RE = re.compile(f"([{''.join(_ACCENTS)}])([A-Za-z])")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _accented(m: re.Match[str]) -> str:
    joined = unicodedata.normalize("NFC", m.group(2) + _ACCENTS[m.group(1)])
    return joined if len(joined) == 1 else m.group()


def dehyphenate(text: str) -> str:
    """``text`` with words hyphenated at line ends (``-`` or a non-breaking ``‑``) joined."""
    return re.sub(r"(\w)[-\u2011]\n(\w)", r"\1\2", text)


def pdf_text(text: str) -> str:
    """Text as a PDF's text layer gives it, with ligatures spelled out, set-apart accents
    joined to their letters and control characters (C0 but line breaks, DEL, C1) removed."""
    text = _CONTROL_RE.sub(" ", text.translate(_LIGATURES))
    return _ACCENT_RE.sub(_accented, text)


def _shape(text: str) -> str:
    """A block's text with digits folded: one key for a running head on every page."""
    return re.sub(r"\d+", "#", " ".join(text.split()))


def _running(pages: list[list[str]]) -> set[str]:
    """The shapes of blocks printed on at least 3 pages and a third of them."""
    counts = Counter(shape for page in pages for shape in {_shape(t) for t in page})
    least = max(3, len(pages) // 3)
    return {shape for shape, n in counts.items() if n >= least and shape.strip("# ")}


def _heading(line: str) -> bool:
    one = clean_text(line)
    if not one or len(one) >= 80:
        return False
    return bool(HEADING_RE.match(one) or _NUMBERED_RE.match(one) or _NAMED_RE.fullmatch(one))


def _split_heading(text: str) -> tuple[str, str] | None:
    """``(heading, the rest)`` of a block that is a heading or starts with a named one."""
    if _heading(text):
        return clean_text(text), ""
    first, _, rest = text.partition("\n")
    if rest.strip() and _NAMED_RE.fullmatch(clean_text(first)):
        return clean_text(first), rest
    return None


def _appendix(text: str) -> tuple[str, str] | None:
    """``(heading, the rest)`` of a block that starts with an appendix heading ("A Data"),
    not a reference ("A. Smith et al. 2019")."""
    first, _, rest = text.partition("\n")
    if len(whole := clean_text(text)) < 60:  # "A\nBackground & Terminology"
        first, rest = whole, ""
    first = clean_text(first)
    if len(first) < 60 and _APPENDIX_RE.match(first) and not _CITED_RE.search(first):
        return first, rest
    return None


def body_sections(doc: Any) -> tuple[list[tuple[str, str]], list[int]]:
    """``(heading, paragraph)`` pairs of ``doc`` (a pymupdf document) in reading order and the
    1-based page of each; running heads, the reference list and page numbers left out."""
    pages = [[pdf_text(str(b[4])) for b in page.get_text("blocks") if b[6] == 0] for page in doc]
    running = _running(pages)
    out: list[tuple[str, str]] = []
    numbers: list[int] = []
    heading, in_references = "", False
    for number, blocks in enumerate(pages, start=1):
        for raw in blocks:
            text = dehyphenate(raw).strip()
            if not text or re.fullmatch(r"[\d\s]+", text) or _shape(text) in running:
                continue
            split = _split_heading(text)
            if in_references:  # only a named section or an appendix ends the reference list
                named = split is not None and _NAMED_RE.fullmatch(split[0])
                if not named or _REFERENCES_RE.fullmatch(split[0] if split else ""):
                    split = _appendix(text)
                    if split is None:
                        continue
            if split is not None:
                heading, text = split
                in_references = bool(_REFERENCES_RE.fullmatch(heading))
            if not in_references and (one := clean_text(text)):
                out.append((heading, one))
                numbers.append(number)
    return out, numbers
