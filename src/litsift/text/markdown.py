"""Papers with Code's dataset descriptions as readable text.

PwC descriptions are markdown-ish: ``The **Stanford Question Answering Dataset** (**SQuAD**)``,
``Source: [Microsoft COCO Captions: ...](https://arxiv.org/abs/1504.00325)``, links relative to
paperswithcode.com (``(/paper/distortion-adaptive-...)``) and Windows line ends (``\\r\\n``).
Shown as stored, a researcher reads the asterisks and brackets (1,304 of the 3,327 sample
descriptions have ``**``, 2,956 a ``Source:`` link). :func:`readable` removes the emphasis
marks (paired, on one line), writes a link ``[text](url)`` as ``text <url>`` (a relative one
made absolute) and an image ``![alt](url)`` as ``alt <url>``; it is applied when a
description is shown, never to what is stored or indexed, and to an evidence sentence the
same way so it is found in it.
"""

from __future__ import annotations

import re

__all__ = ["PWC_BASE", "readable"]

#: the site PwC's relative links point into
PWC_BASE = "https://paperswithcode.com"
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(\s*([^)\s]+)\s*\)")
#: a pair of ``**`` around text on one line, inside a word too (``**ModelNet**40``), or of
#: ``__`` around words (CommonMark's rules); a lone ``2**10`` or ``snake_case`` is text
_EMPHASIS = re.compile(r"\*\*(?=\S)([^\n]+?)(?<=\S)\*\*|(?<!\w)__(?=\S)([^\n]+?)(?<=\S)__(?!\w)")


def _link(m: re.Match[str]) -> str:
    text, url = m.group(1).strip(), m.group(2)
    if url.startswith("/"):
        url = PWC_BASE + url
    return f"{text} <{url}>" if text and text != url else f"<{url}>"


def readable(text: str) -> str:
    """``text`` without markdown emphasis, its links written ``text <url>``, lines ended by
    ``\\n`` (see the module docstring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), _LINK.sub(_link, text))
