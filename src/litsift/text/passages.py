"""Full-text passages: papers' sections cut into ~250-word passages for retrieval and answers.

OpenScholar's datastore (Asai et al., 2024, §3.1) is 250-word passages of full papers with the
title prepended for embedding; PaperQA2 chunks a user's PDFs the same way. :func:`chunk_sections`
cuts along the structure the importers give (:mod:`litsift.sources.formats.pdf`, ``fulltext``): a
passage never spans two sections, paragraphs of a section are joined until the next would pass
``words``, and a paragraph longer than ``words`` is split at sentence ends
(:func:`litsift.text.sentences.split_sentences`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from litsift.text.sentences import split_sentences
from litsift.types import Passage

__all__ = ["PASSAGE_WORDS", "chunk_sections", "chunk_sections_paged", "passage_input"]

#: target passage length in words (OpenScholar: 250)
PASSAGE_WORDS = 250
#: passages shorter than this many words are merged into their neighbour in the same section
MIN_WORDS = 40


def _pieces(paragraph: str, words: int) -> list[str]:
    """A paragraph as pieces of at most ``words`` words, cut at sentence ends when possible."""
    if len(paragraph.split()) <= words:
        return [paragraph]
    out: list[str] = []
    cur: list[str] = []
    n = 0
    for s, e in split_sentences(paragraph):
        sentence = paragraph[s:e]
        k = len(sentence.split())
        if cur and n + k > words:
            out.append(" ".join(cur))
            cur, n = [], 0
        if k > words:  # one very long "sentence" (a table, a list): cut by words
            toks = sentence.split()
            for i in range(0, len(toks), words):
                out.append(" ".join(toks[i : i + words]))
            continue
        cur.append(sentence)
        n += k
    if cur:
        out.append(" ".join(cur))
    return out


def chunk_sections(
    sections: Iterable[tuple[str, str]], words: int = PASSAGE_WORDS
) -> list[tuple[str, str]]:
    """Cut ``(heading, paragraph)`` pairs into ``(heading, passage)`` pairs of ~``words`` words.

    Returns:
        Passages in reading order; empty paragraphs are dropped.
    """
    return [(h, t) for h, t, _ in chunk_sections_paged(sections, (), words)]


def chunk_sections_paged(
    sections: Iterable[tuple[str, str]],
    pages: Sequence[int] = (),
    words: int = PASSAGE_WORDS,
) -> list[tuple[str, str, int | None]]:
    """As :func:`chunk_sections`, with the page each passage starts on when ``pages`` gives
    the 1-based page of every paragraph (PDFs); None otherwise.
    """
    out: list[tuple[str, str, int | None]] = []
    cur_head: str | None = None
    cur: list[str] = []
    cur_page: int | None = None
    n = 0

    def flush() -> None:
        nonlocal cur, n, cur_page
        if cur:
            text = " ".join(cur)
            page = cur_page
            if out and out[-1][0] == (cur_head or "") and n < MIN_WORDS:
                _head, prev, page = out.pop()  # too short alone: joined to the previous one
                text = f"{prev} {text}"
            out.append((cur_head or "", text, page))
        cur, n, cur_page = [], 0, None

    for i, (head, paragraph) in enumerate(sections):
        para = " ".join(paragraph.split())
        if not para:
            continue
        page = pages[i] if i < len(pages) else None
        head = " ".join(head.split())
        if head != cur_head:
            flush()
            cur_head = head
        for piece in _pieces(para, words):
            k = len(piece.split())
            if cur and n + k > words:
                flush()
            if not cur:
                cur_page = page
            cur.append(piece)
            n += k
    flush()
    return out


def passage_input(title: str, passage: Passage | str) -> str:
    """The text embedded for a passage: the paper's title, then the passage (OpenScholar)."""
    text = passage.text if isinstance(passage, Passage) else passage
    return f"{title}. {text}" if title.strip() else text
