"""The front matter of a paper's first PDF page, read off its layout: the title block, the byline
split into persons, the arXiv stamp, and the year printed on the page.

No model: rules on pymupdf's ``page.get_text("dict")`` lines (text, font size, box, direction),
checked on the PDFs of ``tests/data/imports/pdf`` and ``../shared/data/sources/fulltext/pdf``.

* Only horizontal lines (``dir == (1, 0)``) can be the title or byline: arXiv's margin stamp
  (``arXiv:1810.04805v2 [cs.CL] 24 May 2019``) is rotated 90 degrees and set in the largest font.
* **Title block**: the first line, from the top, set in the largest font of the top 60% of the
  page (running heads in the top 4% left out), and the lines of the same font that follow it
  closely (gap under 0.9 font size, at most 5 lines). Stamps, section headings ("1
  Introduction", "Abstract"), links and e-mail addresses never start it. A block higher on
  the page in a smaller font wins when only it has a byline under it (a teaser figure's text
  set larger than the title).
* **Byline**: the rows of lines under the title, down to the abstract heading or the first
  sentence, whose comma / "and" / ``&`` / ``;`` separated pieces are mostly person names (2-6
  capitalised words or particles such as "van", "de"; no institution words, digits, e-mail or
  all-caps place codes like "WA"); rows of affiliations and e-mail addresses between rows of
  names are passed over (ACM's per-author blocks). Affiliation markers set as superscripts (a
  smaller font or the superscript flag: ``1``, ``*``, ``†``, ``□``) separate names; a name
  broken over two rows is joined again; ``"Family, Given and Family, G."`` is read as
  inverted names; all-caps names are title-cased.
* **Year** printed on the page, in order: a "published" / "posted" date line, a journal's
  citation line (BMC ``(2016) 13:22``, Science ``363, 1463-1467 (2019)``, Cell Press ``36,
  109967, October 19, 2021``), a venue line (Proceedings / Journal / Vol. ... with a year), a
  copyright line, an "Accepted" date. Only short lines in small blocks or in the page's
  top/bottom 15% count, so a year in running text is not taken. The file's creation date is
  never used.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from litsift.sources.base import clean_text
from litsift.sources.identity.ids import normalize_arxiv
from litsift.sources.identity.person_names import (
    NAME_TOKEN_RE,
    is_affiliation,
    join_tex_accents,
    name_pieces,
    split_persons,
)

__all__ = [
    "Line",
    "arxiv_stamp",
    "arxiv_year",
    "byline_persons",
    "page_lines",
    "printed_year",
    "title_and_byline",
]

_STAMP_RE = re.compile(
    r"^\s*arXiv:\s*((?:\d{4}\.\d{4,5})|(?:[a-z-]+(?:\.[A-Z]{2})?/\d{7}))(v\d+)?\s*"
    r"(?:\[[^\]]+\]\s*)?\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4}\s*$"
)
_INLINE_STAMP_RE = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5})(v\d+)?\s*\[[a-zA-Z-]+(?:\.[A-Z]{2})?\]")
_HEADING_RE = re.compile(
    r"^\s*(?:\d+(?:\.\d+)*\.?\s+|[IVX]+\.\s+)?(?:abstract|a b s t r a c t|summary|keywords?|"
    r"index terms|introduction|background|contents|references)\b",
    re.I,
)
_NUMBERED_RE = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+\S")
_NOT_TITLE_RE = re.compile(
    r"(@|https?://|www\.|\bdoi\b|^\s*(?:research(?: article)?|open access|article|original "
    r"article|review|letter|editorial|preprint|check for updates)\s*$)",
    re.I,
)
_YEAR = r"((?:19|20)\d\d)"
_PUBLISHED_RE = re.compile(
    r"\b(?:published(?: online)?|available online|posted|date of publication)\b.{0,40}?" + _YEAR,
    re.I,
)
_VENUE_RE = re.compile(
    r"\b(?:proceedings|proc\.|conference|workshop|symposium|journal|quarterly|transactions|"
    r"letters|annals|bulletin|vol\.|volume)\b",
    re.I,
)
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
)
#: a journal's citation line: BMC "(2016) 13:22", Science "363, 1463-1467 (2019)", Cell Press
#: "36, 109967, October 19, 2021" and "Blanco et al., 2021, Cell Reports 37, 109967"
_CITATION_RES = (
    re.compile(r"\(" + _YEAR + r"\)\s*\d+:\d+"),
    re.compile(r"\b\d{1,4},\s*[a-z]?\d+(?:\s*[–-]\s*[a-z]?\d+)?\s*\(" + _YEAR + r"\)"),
    re.compile(r"\b\d{1,4},\s*[a-z]?\d+(?:[–-]\d+)?,\s*" + _MONTH + r"\s+\d{1,2},\s*" + _YEAR),
    re.compile(r"\bet al\.,\s*" + _YEAR + r",\s*[A-Z][a-z]+ [A-Z]"),  # "..., 2021, Cell Reports 37"
)
_COPYRIGHT_RE = re.compile(r"(?:©|\(c\)|\bcopyright\b)\D{0,80}?" + _YEAR, re.I)
_ACCEPTED_RE = re.compile(r"\baccepted\b.{0,40}?" + _YEAR, re.I)
_ANY_YEAR_RE = re.compile(r"(?<!\d)" + _YEAR + r"(?!\d)")


@dataclass(frozen=True)
class Line:
    """One text line of a page.

    Attributes:
        text: the line's text, whitespace collapsed, TeX's detached accents joined.
        names_text: the same with superscript spans (affiliation markers) replaced by ``,``.
        size: the font size (pt) of most of its characters.
        bbox: ``(x0, y0, x1, y1)`` in points, origin top left.
        horizontal: the line runs left to right (not a rotated margin stamp).
        block_lines: how many lines its text block has (a paragraph has many).
    """

    text: str
    names_text: str
    size: float
    bbox: tuple[float, float, float, float]
    horizontal: bool
    block_lines: int


def page_lines(page: Any) -> list[Line]:
    """The text lines of a pymupdf ``Page`` with their font size, box and direction."""
    import pymupdf

    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES  # no image bytes: 5x faster
    out: list[Line] = []
    for block in page.get_text("dict", flags=flags).get("blocks", []):
        lines = [ln for ln in block.get("lines", []) if any(s["text"].strip() for s in ln["spans"])]
        for line in lines:
            spans = line["spans"]
            weights: Counter[float] = Counter()
            for span in spans:
                weights[round(float(span["size"]), 1)] += len(span["text"].strip())
            size = weights.most_common(1)[0][0]
            parts = []
            for span in spans:
                small = float(span["size"]) < 0.78 * size or int(span["flags"]) & 1
                parts.append(", " if small and span["text"].strip() else span["text"])
            dx, dy = line["dir"]
            out.append(
                Line(
                    clean_text(join_tex_accents("".join(s["text"] for s in spans))),
                    clean_text(join_tex_accents("".join(parts))),
                    size,
                    (
                        float(line["bbox"][0]),
                        float(line["bbox"][1]),
                        float(line["bbox"][2]),
                        float(line["bbox"][3]),
                    ),
                    abs(dx - 1) < 0.01 and abs(dy) < 0.01,
                    len(lines),
                )
            )
    return out


def arxiv_stamp(lines: Sequence[Line], *texts: str) -> str | None:
    """The arXiv id (version removed) of the paper's own stamp: a page line (any direction) that
    is the whole stamp ``arXiv:ID[vN] [cat] D Mon YYYY``, else one of ``texts`` (metadata fields)
    that is, else a page line holding ``arXiv:ID[vN] [cat]``. None when there is none (an id in
    running text may be a citation, so it is not taken)."""
    for text in [ln.text for ln in lines] + [clean_text(t) for t in texts]:
        m = _STAMP_RE.match(text)
        if m:
            return normalize_arxiv(m.group(1))
    for ln in lines:
        m = _INLINE_STAMP_RE.search(ln.text)
        if m:
            return normalize_arxiv(m.group(1))
    return None


def arxiv_year(arxiv_id: str) -> int | None:
    """The year an arXiv id was first submitted: ``1810.04805`` -> 2018, ``hep-th/9802150``
    -> 1998 (old-style ids run from 1991 to 2007)."""
    m = re.fullmatch(r"(\d\d)(\d\d)\.\d{4,5}", arxiv_id) or re.search(
        r"/(\d\d)(\d\d)\d{3}$", arxiv_id
    )
    if not m or not 1 <= int(m.group(2)) <= 12:
        return None
    yy = int(m.group(1))
    return 1900 + yy if yy >= 91 else 2000 + yy


def _titleish(text: str) -> bool:
    letters = sum(c.isalpha() for c in text)
    return (
        letters >= 4
        and len(text.split()) >= 2  # not a journal's logo ("cancers") or "UCSF"
        and not _STAMP_RE.match(text)
        and not _INLINE_STAMP_RE.search(text)
        and not _HEADING_RE.match(text)
        and not _NUMBERED_RE.match(text)
        and not _NOT_TITLE_RE.search(text)
    )


def _block(top_lines: Sequence[Line], start: Line) -> list[Line]:
    """``start`` and the lines of its font that follow it closely (at most 5 lines)."""
    block, bottom = [start], start.bbox[3]
    for ln in top_lines[top_lines.index(start) + 1 :]:
        if ln.bbox[1] - bottom > 0.9 * start.size or len(block) >= 5:
            break
        if abs(ln.size - start.size) <= 0.5 and not _HEADING_RE.match(ln.text):
            block.append(ln)
            bottom = max(bottom, ln.bbox[3])
    return block


def _joined(block: Sequence[Line]) -> str:
    text = ""
    for ln in block:
        text = text + ln.text if text.endswith("-") else f"{text} {ln.text}"
    return clean_text(text)


def title_and_byline(
    lines: Sequence[Line], page_height: float
) -> tuple[str, list[Line], list[tuple[str, str]]]:
    """The title of page 1, its lines (top to bottom) and the ``(display name, family name)``
    of each person in the byline under it; ``("", [], [])`` when no title is found.

    The title is the block set in the largest font (see the module docstring). When no byline
    reads under it but one does under a block higher on the page, set in a smaller font, that
    block is the title: the larger text was a teaser figure's.
    """
    top_lines = sorted(
        (
            ln
            for ln in lines
            if ln.horizontal and page_height * 0.04 < ln.bbox[1] < page_height * 0.6
        ),
        key=lambda ln: (ln.bbox[1], ln.bbox[0]),
    )
    candidates = [ln for ln in top_lines if _titleish(ln.text)]
    starts: list[Line] = []  # the first line of each font size, the largest first
    for size in sorted({ln.size for ln in candidates}, reverse=True):
        start = next(ln for ln in candidates if abs(ln.size - size) <= 0.5)
        if start not in starts:
            starts.append(start)
    if not starts:
        return "", [], []
    first = _block(top_lines, starts[0])
    persons = byline_persons(lines, first, page_height)
    if not persons:
        for start in starts[1:4]:
            if start.bbox[1] < starts[0].bbox[1]:
                block = _block(top_lines, start)
                found = byline_persons(lines, block, page_height)
                if found:
                    return _joined(block), block, found
    return _joined(first), first, persons


def _prose(text: str) -> bool:
    """A sentence: six words or more, most of them in lower case."""
    words = [w for w in text.split() if w[0].isalpha()]
    return len(words) >= 6 and sum(w[0].islower() for w in words) * 2 >= len(words)


def _rows(lines: Sequence[Line]) -> list[list[Line]]:
    rows: list[list[Line]] = []
    for ln in sorted(lines, key=lambda ln: ln.bbox[1]):
        if rows and ln.bbox[1] - rows[-1][-1].bbox[1] <= 4:
            rows[-1].append(ln)
        else:
            rows.append([ln])
    return [sorted(row, key=lambda ln: ln.bbox[0]) for row in rows]


def byline_persons(
    lines: Sequence[Line], title: Sequence[Line], page_height: float
) -> list[tuple[str, str]]:
    """``(display name, family name)`` of each author in the byline under the ``title`` lines
    (see the module docstring); empty when no row under the title reads as names."""
    if not title:
        return []
    bottom = max(ln.bbox[3] for ln in title)
    size = title[0].size
    below = [
        ln
        for ln in lines
        if ln.horizontal
        and ln not in title
        and bottom - 2 <= ln.bbox[1] < bottom + page_height * 0.3
        and ln.size < size + 0.5
    ]
    joined, gap, adjacent = "", 0, False
    for whole in _rows(below):
        if _HEADING_RE.match(whole[0].text):
            break
        # the other column's running text beside a byline set in one column (Science)
        row = [ln for ln in whole if not _prose(ln.text) or split_persons(ln.names_text)]
        text = ", ".join(ln.names_text for ln in row)
        found = len(split_persons(text))
        if not found and len(row) < len(whole):
            if joined:  # the abstract or a footnote ("These authors contributed equally")
                break
            gap += 1
            if gap > 2:
                break
            continue
        if len(text) > 300:
            break
        pieces = name_pieces(text)
        if found and found * 2 >= len(pieces) - sum(is_affiliation(p) for p in pieces):
            # a name broken over two rows ("Ana Dias, Connor" / "Clairmont") is joined again
            head = pieces[0].strip()
            broken = adjacent and not joined.endswith(",") and NAME_TOKEN_RE.match(head)
            joined = f"{joined}{' ' if broken else ', '}{text}" if joined else text
            gap, adjacent = 0, True
            continue
        gap, adjacent = gap + 1, False
        if gap > (6 if joined else 2):  # affiliation / e-mail rows between rows of names
            break
    return split_persons(joined)


def _venue_line(text: str) -> bool:
    return bool(_VENUE_RE.search(text)) or any(c.search(text) for c in _CITATION_RES)


def printed_year(lines: Sequence[Line], page_height: float, *texts: str) -> int | None:
    """The publication year printed on page 1 (see the module docstring), or None.

    ``texts`` are metadata fields read as venue lines (a PDF's ``subject`` often is
    ``"Journal of X 2022.37:209-226"``).
    """
    kept = sorted(
        (
            ln
            for ln in lines
            if ln.horizontal
            and len(ln.text) <= 250
            and (
                ln.block_lines <= 4
                or ln.bbox[1] < page_height * 0.15
                or ln.bbox[1] > page_height * 0.85
            )
        ),
        key=lambda ln: (ln.bbox[1], ln.bbox[0]),
    )
    short = [ln.text for ln in kept]
    venue = [t for t in texts if _venue_line(t)]
    for i, ln in enumerate(kept):
        if not _venue_line(ln.text):
            continue
        nxt = kept[i + 1] if i + 1 < len(kept) else None
        if nxt is not None and nxt.bbox[1] - ln.bbox[3] < ln.size:  # "..., pages 1-10" / "2020."
            venue.append(f"{ln.text} {nxt.text}")
        else:
            venue.append(ln.text)
    for pattern, pool in (
        (_PUBLISHED_RE, short),
        *((citation, venue) for citation in _CITATION_RES),
        (_ANY_YEAR_RE, venue),
        (_COPYRIGHT_RE, short),
        (_ACCEPTED_RE, short),
    ):
        for text in pool:
            m = pattern.search(text)
            if m:
                return int(m.group(1))
    return None
