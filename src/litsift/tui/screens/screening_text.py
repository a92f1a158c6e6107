"""The screening screen's record text (:mod:`litsift.tui.screens.screening`): the review's
keywords and criteria words highlighted."""

from __future__ import annotations

import re

from litsift.tui.widgets.safe_text import Part

__all__ = ["CRITERIA_STYLE", "KEYWORD_STYLE", "highlighted"]

KEYWORD_STYLE = "bold black on yellow"
CRITERIA_STYLE = "bold underline"


def highlighted(text: str, keywords: list[str], terms: list[str]) -> list[Part]:
    """``text`` cut into plain parts and ``(word, style)`` parts for each keyword (whole
    words, any case) and criteria term (word starts)."""
    pats = [(k, KEYWORD_STYLE, r"\b") for k in keywords]
    pats += [(t, CRITERIA_STYLE, r"\w*") for t in terms]
    if not pats or not text:
        return [text]
    alts = "|".join(
        f"(?P<g{i}>" + r"\b" + re.escape(w) + end + ")" for i, (w, _, end) in enumerate(pats)
    )
    regex = re.compile(alts, re.IGNORECASE)
    parts: list[Part] = []
    at = 0
    for m in regex.finditer(text):
        style = pats[int(str(m.lastgroup)[1:])][1]
        parts.extend([text[at : m.start()], (m.group(0), style)])
        at = m.end()
    parts.append(text[at:])
    return parts
