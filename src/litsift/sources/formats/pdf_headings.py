"""Headings a PDF sets apart by their type alone, without a number or a section name: bioRxiv's
bold subheadings in the body text's own size ("Drosophila rev1 mutants are hypersensitive to
damaging agents that stall replication forks", over two text blocks), Nature Communications'
("Phylogenetic analysis", a size larger than the body), BMC's ("Participants", a size smaller).

Without them a subsection's paragraphs are filed under the section before, and the heading's
words are glued to its first paragraph ("Participants Eight young healthy subjects ...").

A **lead** is what a text block starts with (its first lines, or whole blocks one after the
other) set in another font or size than the body text
(:func:`litsift.sources.formats.pdf_layout.body_style`), on lines of its own (a run-in heading
shares its line with the text), followed by a full line of body text (not a table's row). A
lead is a heading when it reads as one (short, starting with a capital or a digit, mostly
letters, no caption's "Figure 1:", no question, not the start of a sentence the body text goes
on with) and when the document sets at least two such leads in its type: the document's own
evidence that the type is one of its headings', so a one-off (a boxed quotation, a table's
header row) is not taken. A lead in two types (BMC's "Experimental setup" over
"Neuromuscular electrical stimulation and EMG recording") is the heading in its last type, the
innermost one: the paragraphs that follow are that subsection's.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from litsift.sources.base import clean_text
from litsift.sources.formats.pdf_layout import Block

__all__ = ["Lead", "leads"]

#: a caption's start: "Figure 1:", "Fig. 2", "Table 3", "Supplementary Fig. S1"
_CAPTION_RE = re.compile(r"(?:supplementary\s+)?(?:fig\.?|figure|table|scheme|box)\s*S?\d", re.I)
#: what no heading holds: a citation, an address, a formula
_NOT_RE = re.compile(r"\bet al\b|@|https?:|www\.|=")
_MAX_LINES, _MAX_CHARS = 3, 150


@dataclass(frozen=True)
class Lead:
    """A heading set apart by type: its lines (as the block's text has them: ligatures and
    hyphenation left to the reader) and the number of its block's lines it takes (the whole
    block when the heading runs on over the next blocks, ``more`` of them)."""

    heading: str
    lines: int
    more: int = 0


def _reads_as_heading(text: str) -> bool:
    """Whether ``text`` reads as a heading (the module's rules), not as a caption's start, a
    research question set apart, a formula or an address."""
    one = clean_text(text)
    if not 2 < len(one) <= _MAX_CHARS or not (one[0].isupper() or one[0].isdigit()):
        return False
    letters = sum(c.isalpha() for c in one) / max(1, len(one.replace(" ", "")))
    words = re.search(r"[^\W\d_]{3}", one)
    sentence = one.endswith("?")
    caption = _CAPTION_RE.match(one) or _NOT_RE.search(one)
    return bool(words) and letters >= 0.6 and not caption and not sentence


def _type(style: tuple[str, float]) -> tuple[str, float]:
    """A line's font and size to half a point: 10.9 and 11.0 points are one type to a reader."""
    return style[0], round(style[1] * 2) / 2


def _body(style: tuple[str, float], body: tuple[str, float]) -> bool:
    """Whether ``style`` is the body text's font, in its size give or take rounding."""
    return style[0] == body[0] and abs(style[1] - body[1]) < 0.4


def _apart(block: Block, body: tuple[str, float]) -> int:
    """How many of the first lines of ``block`` are set apart from the body text, each on a
    printed line of its own (a run-in heading shares its line with the text)."""
    n = 0
    while n < len(block.fonts) and not any(_body(style, body) for style in block.fonts[n]):
        n += 1
    if 0 < n < len(block.styles) and abs(block.boxes[n][1] - block.boxes[n - 1][1]) < 2:
        return 0
    return n


def _row(block: Block, n: int) -> float:
    """The width the printed line of ``block``'s line ``n`` covers."""
    top = block.boxes[n][1]
    return sum(right - left for left, y, right, _ in block.boxes[n:] if abs(y - top) < 2)


def _candidate(
    page: list[Block], i: int, body: tuple[str, float], width: float
) -> tuple[Lead, tuple[str, float]] | None:
    """The lead block ``i`` of ``page`` starts with and its type, if it reads as a heading and
    a full line of body text follows that goes on with no sentence of it."""
    block = page[i]
    if not (n := _apart(block, body)):
        return None
    lines, more = block.text.split("\n")[:n], 0
    styles = [_type(style) for style in block.styles[:n]]
    if n < len(block.styles):
        after, row = block.text.split("\n")[n], _row(block, n)
    else:  # the whole block, and the next ones in its last type if its last line is full
        while i + more + 1 < len(page) and page[i + more].rows[-1] >= 0.7 * width:
            if {_type(style) for style in page[i + more + 1].styles} != {styles[-1]}:
                break
            more += 1
            lines += page[i + more].text.split("\n")
            styles += [_type(style) for style in page[i + more].styles]
        if i + more + 1 == len(page) or not _body(page[i + more + 1].styles[0], body):
            return None
        after, row = page[i + more + 1].text.split("\n")[0], _row(page[i + more + 1], 0)
    heading = [line for line, style in zip(lines, styles, strict=True) if style == styles[-1]]
    if len(heading) > _MAX_LINES or not _reads_as_heading(" ".join(heading)):
        return None
    if after[:1].islower() or row < 0.7 * width:
        return None
    return Lead("\n".join(heading), n, more), styles[-1]


def leads(
    pages: list[list[Block]], body: tuple[str, float], width: float
) -> dict[tuple[int, int], Lead]:
    """The headings set apart by type, by page and block index (0-based): leads that read as
    headings, in a type the document sets at least two of them in."""
    found: dict[tuple[int, int], tuple[Lead, tuple[str, float]]] = {}
    for p, page in enumerate(pages):
        i = 0
        while i < len(page):
            if (lead := _candidate(page, i, body, width)) is not None:
                found[p, i] = lead
                i += lead[0].more
            i += 1
    types = Counter(style for _, style in found.values())
    return {key: lead for key, (lead, style) in found.items() if types[style] >= 2}
