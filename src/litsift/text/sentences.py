"""Sentence boundaries of any text (pysbd), shared by aspect scoring, passages and RQs."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pysbd

__all__ = ["split_sentences"]


@functools.cache
def _segmenter() -> pysbd.Segmenter:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split text into sentences, as character spans.

    Uses pysbd's rule-based sentence boundary disambiguation (Sadvilkar & Neumann, 2020), which
    does not break after abbreviations ("e.g.", "i.e.", "et al."), initials or inside decimals
    ("3.5"). Each segment is located in ``text`` left to right, so repeated sentences map to
    their own positions.

    Args:
        text: any string.

    Returns:
        ``(start, end)`` character offsets (``end`` exclusive), in order, non-overlapping, with
        surrounding whitespace excluded; ``[]`` if the text is empty or only whitespace.
    """
    if not text.strip():
        return []
    spans: list[tuple[int, int]] = []
    pos = 0
    for seg in _segmenter().segment(text):
        piece = seg.strip()
        if not piece:
            continue
        found = text.find(piece, pos)
        if found < 0:  # the segmenter altered the text; fall back to the rest of the text
            break
        spans.append((found, found + len(piece)))
        pos = found + len(piece)
    rest = text[pos:]
    if rest.strip():
        lead = len(rest) - len(rest.lstrip())
        spans.append((pos + lead, pos + len(rest.rstrip())))
    return spans
