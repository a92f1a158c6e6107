"""The body text of a PDF as ``(heading, paragraph)`` pairs, cleaned for search and answers.

pymupdf gives text blocks in reading order; what a reader skips is left out, since every
paragraph becomes a searchable passage that an answer may cite:

* **numbers without words**: page numbers, a figure's axis ticks ("0.2 0.4 0.6"), an
  equation's number, a table's cells: a block without a letter is no passage;
* **running heads and feet**: a block printed on many pages (digits aside: page numbers,
  "Page 3 of 23") is the journal's header or footer, or bioRxiv's licence banner;
* **the reference list**: the blocks after a "References" / "Bibliography" heading, up to the
  next heading (an appendix); a search for a cited paper's title would otherwise match the
  bibliography and an answer cite it as evidence;
* **glyph codes**: typographic ligatures (``ﬁ``, ``ﬂ``, ...) are spelled out, so "classiﬁcation"
  is found by "classification"; an accent LaTeX sets apart from its letter ("F¨arber",
  "Mitrovi´c") is joined to it; control characters (symbol fonts' bullets and arrows) go;
* **hyphenation** at line ends is undone, an author's compound kept
  (:mod:`litsift.sources.formats.pdf_hyphens`, by the words the paper prints elsewhere);
* **footnotes** (:mod:`litsift.sources.formats.pdf_layout`) follow the paragraph they interrupt,
  and a paragraph broken by a column, a page or a footnote ("sum-" / "maries") is one again;
* **figures and tables** are not glued to it: a block goes on with the last paragraph set in
  its size whose last line is full, if its own first line is full or ends a sentence; a
  figure's labels ("rouge-1_f1", "Region A"), a caption or a table between the two halves
  stay passages of their own.

Headings are blocks (or a block's first line) that read as one: a numbered heading ("3.1
Data") or a section name papers print without a number (Introduction, Methods, Discussion,
Conclusions, Acknowledgements, References, ...); or that are set as one: bold, body size or
larger, and numbered ("3.2 RQ2: ..." of any length, "B PDF filters") or in a size the paper's
other headings are ("Ethical Considerations"); or a block's first lines set apart by type, in a
type the paper sets such lines in more than once (:mod:`litsift.sources.formats.pdf_headings`:
bioRxiv's "Mutagen sensitivity assays", bold in the body's own size), after the first heading
(the title page's lines are no headings).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Any

from litsift.sources.base import clean_text
from litsift.sources.formats.pdf_headings import leads
from litsift.sources.formats.pdf_hyphens import Lexicon, dehyphenate
from litsift.sources.formats.pdf_layout import (
    Block,
    body_size,
    body_style,
    footnote,
    line_width,
    page_blocks,
)

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
#: a lettered heading set in bold: "B.1 FINE-grained evaluations"
_LETTERED_RE = re.compile(r"^[A-H](?:\.\d+)*\s+[A-Z]")
#: a year, "et al" or a comma: a reference's line ("A. Smith, B. Jones"), not a heading
_CITED_RE = re.compile(r"\b(?:1[89]|20)\d\d\b|\bet al\b|,")
#: how a sentence, a quotation or a parenthesis ends
#: a caption's start: "Figure 2:", "Fig. 3 |", "Table 1." (not "Figure 1)." in a sentence)
_CAPTION_RE = re.compile(
    r"(?:supplementary\s+)?(?:fig\.?|figure|table|scheme)\s*S?\d+[a-z]?\b(?!\))", re.I
)
_ENDS_RE = re.compile(r"[.!?;:)\]\"”’']\s*$")

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
#: a letter: a block without one (page numbers, a figure's axis ticks "0.2 0.4 0.6", an
#: equation's number "(2)", a table's "95-100") holds no word a search finds
_LETTER_RE = re.compile(r"[^\W\d_]")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _accented(m: re.Match[str]) -> str:
    joined = unicodedata.normalize("NFC", m.group(2) + _ACCENTS[m.group(1)])
    return joined if len(joined) == 1 else m.group()


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


def _styled(block: Block, text: str, body: float, sizes: set[float]) -> bool:
    """Whether ``block`` is a heading by its type: bold, the body text's size or larger, and
    numbered ("3.2 RQ2: ...", "B PDF filters") or set in a size the document's headings are."""
    one = clean_text(text)
    if not block.bold or block.size < body - 0.3 or not one or len(one) > 200:
        return False
    if _NUMBERED_RE.match(one) or (_LETTERED_RE.match(one) and not _CITED_RE.search(one)):
        return True
    return block.size in sizes and block.size > body + 0.3 and len(one) < 80


def _continues(prev: str, text: str, prose: bool = False) -> bool:
    """Whether ``text`` goes on with the sentence ``prev`` breaks off (at a column or page end,
    or a footnote between): ``prev`` ends in a hyphenated word or without a full stop, and
    ``text`` starts with a small letter; or, ``prose`` (two lines of running text, not a
    table's rows nor the title page's), ``prev`` ends in a small word or a comma that leaves
    the sentence open and ``text`` is no caption ("... recruitment of low fidelity" / "TLS
    polymerases to lesions": bioRxiv's ragged text is a block per line)."""
    if not re.search(r"(?:\w[-\u2011]|[\w,])$", prev):
        return False
    if text[:1].islower():
        return True
    return prose and bool(re.search(r"(?:[a-z]{2}|,)$", prev)) and not _CAPTION_RE.match(text)


def _one_piece(block: Block, line: int) -> bool:
    """Whether the printed line ``line`` of ``block`` (0 or -1) reads as running text: one
    piece (not a table's row of cells set apart), mostly not digits."""
    top = block.boxes[line][1]
    if sum(abs(box[1] - top) < 2 for box in block.boxes) > 1:
        return False
    shown = block.text.split("\n")[line].replace(" ", "")  # a figure's ticks: "0.0 0.2 0.4"
    return sum(c.isdigit() for c in shown) <= 0.2 * len(shown)


def _fragment(block: Block, width: float) -> bool:
    """Whether ``block`` is one short line that ends no sentence: a figure's label
    ("rouge-1_f1", "Region A"), a piece of an equation, a URL; no paragraph's text."""
    short = len(block.rows) == 1 and block.rows[0] < 0.7 * width
    return short and not _ENDS_RE.search(block.text)


def _full(block: Block, width: float) -> bool:
    """Whether the last line of ``block`` is full (the text ran over it), not a paragraph's
    last line nor a table's row."""
    return bool(block.rows) and block.rows[-1] >= 0.7 * width


def _flows(prev: Block, block: Block, width: float) -> bool:
    """Whether ``block`` can go on with the text of ``prev``: the two set in one size (a
    figure's labels are smaller than the paragraph they stand by, a caption than the body),
    ``prev``'s last line full, and ``block``'s first line full too or the end of a sentence
    (not a table's cells)."""
    if abs(prev.size - block.size) > 0.5 or not _full(prev, width) or not block.rows:
        return False
    return block.rows[0] >= 0.7 * width or bool(_ENDS_RE.search(block.text.split("\n")[0]))


def _continued(
    out: list[tuple[str, str]],
    tails: list[tuple[int, Block]],
    block: Block,
    text: str,
    heading: str,
    width: float,
) -> int | None:
    """The index in ``out`` of the paragraph ``text`` (of ``block``) goes on with: the last
    one under ``heading`` set in the size of ``block`` (a figure's labels, a caption, a table
    in between are passed over), if its sentence is open and it flows into ``block``."""
    for i, last in reversed(tails):
        if out[i][0] != heading:
            return None
        if abs(last.size - block.size) <= 0.5:
            prose = bool(heading) and _one_piece(last, -1) and _one_piece(block, 0)
            flows = _flows(last, block, width) and _continues(out[i][1], text, prose)
            return i if flows else None
    return None


def _sidebar(
    block: Block, number: int, first: tuple[int, float] | None, style: tuple[str, float]
) -> bool:
    """Whether ``block`` (on page ``number``) is the title page's sidebar, read after the
    document's first heading (``first``: its page and top) but printed above it, in a type
    other than the body text's (Nature Communications' "Received: 1 April 2023", "Check for
    updates" in the margin beside the abstract): front matter, not the first section's."""
    if first is None or number != first[0] or block.top >= first[1] or not block.styles:
        return False
    font, size = block.styles[0]
    return font != style[0] or abs(size - style[1]) >= 0.4


def _blocks(doc: Any) -> tuple[list[list[Block]], float]:
    """The text blocks of each page (footnote markers in the text dropped) and the body
    text's size."""
    layouts = [page.get_text("dict") for page in doc]
    pages = [page_blocks(layout) for layout in layouts]
    body = body_size(pages)
    for i, page in enumerate(doc):
        height = float(page.rect.height)
        if notes := {m for b in pages[i] if footnote(b, body, height) for m in b.marks}:
            pages[i] = page_blocks(layouts[i], notes)
    return pages, body


def _flush(
    out: list[tuple[str, str]], numbers: list[int], notes: list[tuple[str, int]], heading: str
) -> None:
    """Moves the footnotes held in ``notes`` to the end of ``out``, under ``heading``."""
    out.extend((heading, note) for note, _ in notes)
    numbers.extend(page for _, page in notes)
    notes.clear()


def body_sections(doc: Any) -> tuple[list[tuple[str, str]], list[int]]:
    """``(heading, paragraph)`` pairs of ``doc`` (a pymupdf document) in reading order and the
    1-based page of each; running heads, the reference list and page numbers left out,
    footnotes after the paragraph they interrupt."""
    pages, body = _blocks(doc)
    width = line_width(pages)
    style = body_style(pages)
    heights = [float(page.rect.height) for page in doc]  # loading a page per block is slow
    apart = leads(pages, style, width)
    texts = [[pdf_text(b.text) for b in page] for page in pages]
    running = _running(texts)
    lexicon = Lexicon.of("\n".join(t for page in texts for t in page))
    sizes = {b.size for page in pages for b in page if b.bold and _heading(b.text)}
    out: list[tuple[str, str]] = []
    numbers: list[int] = []
    pending: list[tuple[str, int]] = []  # footnotes held until the sentence they break ends
    heading, in_references = "", False
    first: tuple[int, float] | None = None  # the page and top of the document's first heading
    tails: list[tuple[int, Block]] = []  # paragraphs (index in out, last block), the last last
    for number, (blocks, raws) in enumerate(zip(pages, texts, strict=True), start=1):
        skip = 0  # blocks a heading set apart by type runs on over
        for j, (block, raw) in enumerate(zip(blocks, raws, strict=True)):
            if skip:
                skip -= 1
                continue
            text = dehyphenate(raw, lexicon).strip()
            if not _LETTER_RE.search(text) or _shape(text) in running:
                continue
            if footnote(block, body, heights[number - 1]):
                if not in_references:
                    pending.append((clean_text(text), number))
                continue
            split = _split_heading(text)
            after_heading = heading or split is not None  # not the title page's lines
            if after_heading and not in_references and (lead := apart.get((number - 1, j))):
                rest = "\n".join(raw.split("\n")[lead.lines :])
                title = clean_text(dehyphenate(pdf_text(lead.heading), lexicon))
                split, skip = (title, dehyphenate(rest, lexicon).strip()), lead.more
            if split is None and heading and _styled(block, text, body, sizes):
                split = clean_text(text), ""
            if in_references:  # only a named section or an appendix ends the reference list
                named = split is not None and _NAMED_RE.fullmatch(split[0])
                styled = split is not None and _styled(block, text, body, sizes)
                if (not named and not styled) or _REFERENCES_RE.fullmatch(
                    split[0] if split else ""
                ):
                    split = _appendix(text)
                    if split is None:
                        continue
            if split is not None:
                _flush(out, numbers, pending, heading)
                heading, text = split
                first = first or (number, block.top)
                in_references = bool(_REFERENCES_RE.fullmatch(heading))
            if in_references or not (one := clean_text(text)):
                continue
            if split is None and _sidebar(block, number, first, style):
                out.append(("", one))  # front matter, as the title page's other lines
                numbers.append(number)
                continue
            i = None if split else _continued(out, tails, block, one, heading, width)
            if i is not None:
                out[i] = heading, dehyphenate(out[i][1] + "\n" + one, lexicon).replace("\n", " ")
                tails.append((i, block))
                continue
            if not _fragment(block, width):  # a fragment is passed over by what goes on
                _flush(out, numbers, pending, heading)
                tails.append((len(out), block))
            out.append((heading, one))
            numbers.append(number)
    _flush(out, numbers, pending, heading)
    return out, numbers
