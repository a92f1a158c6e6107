"""A PDF page's text blocks with the type they are set in, as pymupdf reports it
(``page.get_text("dict")``: every span's size and flags, superscript 1 and bold 16), for what the
words alone do not tell:

* **headings** are bold and at least the body text's size (:func:`body_size`, the size most
  characters of the document are set in): "3.2 RQ2: Can we reduce annotator workload by
  partially annotating a long summary?" is a heading although it runs to 81 characters, "B PDF
  filters" is one although appendix headings look like a reference's first words; and each
  line's fonts tell a subheading set apart from the body text (:func:`body_style`) in a font
  of its own, of any size (:mod:`litsift.sources.formats.pdf_headings`);
* **footnotes** are blocks in the lower half of a page, smaller than the body text, that start
  with a superscript or smaller marker ("1https://github.com/...", "∗Equal contribution"): they
  are taken out of the text flow, so a sentence broken by one ("sum-" / footnote / "maries")
  is joined again;
* **lines**: the width a printed line covers (:attr:`Block.rows`), against the column's
  (:func:`line_width`), tells a paragraph's line the text ran over from its last line, a
  figure's label or a table's row;
* **markers** in the text: a footnote's number set as a superscript after a word
  ("annotations.10 Hence") is dropped, and another superscript after a word (a reference
  number, "translation5,6") is set apart by a space, so the word is found ("translation").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

__all__ = ["Block", "body_size", "body_style", "footnote", "line_width", "page_blocks"]

_SUPERSCRIPT, _BOLD = 1, 16
#: what a footnote or reference marker is made of
_MARK_RE = re.compile(r"[\d,\u2013\-*\u2217\u2020\u2021\u00a7\u00b6#\u2660\u2662\u2661]+")


@dataclass(frozen=True)
class Block:
    """A text block: its text (lines joined by line breaks), the size most of its characters
    are set in, whether all of them are bold, its top edge, the marker it starts with ("1",
    "∗"; "" for none), those its lines start with (a footnote block holding several), each
    line's box (left, top, right, bottom) and fonts (with their sizes). Lines without text
    are left out."""

    text: str
    size: float
    bold: bool
    top: float
    marker: str
    marks: tuple[str, ...] = ()
    boxes: tuple[tuple[float, float, float, float], ...] = ()
    fonts: tuple[tuple[tuple[str, float], ...], ...] = ()

    @property
    def styles(self) -> tuple[tuple[str, float], ...]:
        """The font and size most characters of each line are set in."""
        return tuple(fonts[0] for fonts in self.fonts)

    @property
    def rows(self) -> tuple[float, ...]:
        """The width each printed line of the block covers: pymupdf may cut one in pieces
        side by side (Witten 1998: "...recent discussion." and "Lately, with hints coming"),
        and a table's row is its cells with the gaps between them left out."""
        rows: list[float] = []
        top = None
        for left, y, right, _ in self.boxes:
            if top is not None and abs(y - top) < 2:
                rows[-1] += right - left
            else:
                rows.append(right - left)
                top = y
        return tuple(rows)


def _bold(span: dict[str, Any]) -> bool:
    return bool(span["flags"] & _BOLD) or "bold" in str(span.get("font", "")).lower()


def _marker(spans: list[dict[str, Any]]) -> str:
    """The marker ``spans`` start with: a superscript or a span smaller than the next."""
    shown = [s for s in spans if s["text"].strip()]
    if len(shown) < 2 or not _MARK_RE.fullmatch(mark := shown[0]["text"].strip()):
        return ""
    small = shown[0]["size"] <= shown[1]["size"] - 1.5
    return mark if small or shown[0]["flags"] & _SUPERSCRIPT else ""


def _line_text(spans: list[dict[str, Any]], notes: set[str]) -> str:
    """A line's text; a marker it starts with ("1https://...") set apart from the rest."""
    if _marker(spans):
        first = next(i for i, s in enumerate(spans) if s["text"].strip())
        head = str(spans[first]["text"]).strip() + " "
        return head + _line_text(spans[first + 1 :], notes).lstrip()
    out, marks = "", False  # marks: the last span was a superscript marker
    for span in spans:
        text = span["text"]
        mark = bool(span["flags"] & _SUPERSCRIPT and _MARK_RE.fullmatch(text.strip()))
        glued = out and not out[-1].isspace() and not out[-1].isdigit()
        if mark and glued and not marks:
            if text.strip() in notes:
                continue
            text = " " + text.strip()
        out, marks = out + text, mark
    return out


def _fonts(spans: list[dict[str, Any]]) -> tuple[tuple[str, float], ...]:
    """The fonts and sizes a line is set in, most characters first; those of a single
    character (a colon, a footnote's marker) left out, unless the line has no other."""
    styles: Counter[tuple[str, float]] = Counter()
    for s in spans:
        styles[str(s["font"]), round(s["size"], 1)] += len(s["text"].strip())
    ranked = [style for style, n in styles.most_common() if n]
    return tuple(style for style in ranked if styles[style] > 1) or tuple(ranked[:1])


def _box(bbox: Any) -> tuple[float, float, float, float]:
    left, top, right, bottom = (float(v) for v in bbox)
    return left, top, right, bottom


def page_blocks(layout: dict[str, Any], notes: set[str] | None = None) -> list[Block]:
    """The text blocks of a page in reading order, from its ``page.get_text("dict")``;
    ``notes`` are the footnote markers printed at the page's foot, dropped after a word."""
    out: list[Block] = []
    for raw in layout["blocks"]:
        shown = [ln for ln in raw.get("lines", ()) if any(s["text"].strip() for s in ln["spans"])]
        if not shown:
            continue
        lines = [line["spans"] for line in shown]
        spans = [s for line in lines for s in line if s["text"].strip()]
        sizes: Counter[float] = Counter()
        for s in spans:
            sizes[round(s["size"], 1)] += len(s["text"].strip())
        text = "\n".join(_line_text(line, notes or set()).replace("\n", " ") for line in lines)
        bold = all(_bold(s) for s in spans)
        marker = _marker([s for line in lines for s in line])
        marks = tuple(m for line in lines if (m := _marker(line)))
        size = sizes.most_common(1)[0][0]
        boxes = tuple(_box(line["bbox"]) for line in shown)
        fonts = tuple(_fonts(line) for line in lines)
        out.append(Block(text, size, bold, raw["bbox"][1], marker, marks, boxes, fonts))
    return out


def body_size(pages: list[list[Block]]) -> float:
    """The size most characters of the document are set in."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for block in page:
            sizes[block.size] += len(block.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def body_style(pages: list[list[Block]]) -> tuple[str, float]:
    """The font and size most characters of the document are set in."""
    styles: Counter[tuple[str, float]] = Counter()
    for page in pages:
        for block in page:
            for style, line in zip(block.styles, block.text.split("\n"), strict=True):
                styles[style] += len(line)
    return styles.most_common(1)[0][0] if styles else ("", 0.0)


def line_width(pages: list[list[Block]]) -> float:
    """The width of a full line of text (the column's): the most common width of a printed
    line, to 5 points, each weighted by its width (justified lines are all as wide, and
    outweigh the short lines of figures and tables)."""
    widths: dict[float, float] = {}
    for page in pages:
        for block in page:
            for width in block.rows:
                key = round(width / 5) * 5.0
                widths[key] = widths.get(key, 0.0) + width
    return max(widths, key=widths.__getitem__) if widths else 0.0


def footnote(block: Block, body: float, height: float) -> bool:
    """Whether ``block`` is a footnote: in the lower half of the page, set smaller than the
    body text, starting with a marker."""
    return bool(block.marker) and block.top > height / 2 and block.size < body - 0.8
