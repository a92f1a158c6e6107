"""Passages sent to the model and the mechanical check of the ``[n]`` markers it writes back.

Zero fabricated citations by construction (EVALUATION.md §5): every marker must name a passage
that was sent; any other number is stripped from the text and reported. An author-year citation
(``(Smith et al., 2020)``) is resolved against the records sent (:mod:`litsift.llm.author_year`):
one that names a record is checked as that record's ``[n]``, one that names none is reported.
References are built from the records the passages came from, never from the model's text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from litsift.llm.author_year import link_author_year
from litsift.types import Dataset, Hit, Record
from litsift.types import Passage as TextPassage
from litsift.types.llm import MARKER_RE, Passage, Sentence

_SENT_END_RE = re.compile(r"[.!?][\"')]*(?:\s*\[[\d\s,;\-–]+\])*$")
#: a marker in full-width or lenticular brackets, as some models write one (``【3】``,
#: ``［2, 4］``, ``【7†source】``): the ``[n]`` it stands for, checked like any other
_WIDE_MARKER_RE = re.compile(r"[【［]\s*(\d+(?:\s*[,;\-–]\s*\d+)*)\s*(?:†[^】］\n]{0,40})?[】］]")
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_ET_AL_RE = re.compile(r"\bet al\.$")


@dataclass(frozen=True)
class VerifiedText:
    """The answer after citation checking: sentences in order, every stripped number and every
    author-year citation that names no record sent (as written)."""

    sentences: tuple[Sentence, ...]
    fabricated: tuple[int, ...]
    invented: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return "".join(s.text + s.separator for s in self.sentences)

    @property
    def cited(self) -> tuple[int, ...]:
        """Passage numbers cited anywhere, in order of first citation."""
        return tuple(dict.fromkeys(n for s in self.sentences for n in s.citations))


def _marker_numbers(marker: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"[,;]", marker.strip("[] ")):
        bounds = [int(x) for x in re.split(r"[-–]", part) if x.strip()]
        if len(bounds) == 2 and 0 < bounds[1] - bounds[0] < 50:
            out.extend(range(bounds[0], bounds[1] + 1))
        else:
            out.extend(bounds)
    return out


def split_sentences(text: str) -> list[tuple[str, str]]:
    """``(sentence, separator)`` pieces whose concatenation is ``text``.

    A sentence ends at ``.``/``!``/``?`` (plus any trailing ``[n]`` markers) before whitespace
    and a capital, digit or quote, or at a line break; not at the ``et al.`` of an author-year
    citation (``Smith et al. (2020)``, ``(Smith et al. 2020)``).
    """
    pieces: list[tuple[str, str]] = []
    for line in re.split(r"(\n+)", text):
        if not line:
            continue
        if line.startswith("\n"):
            if pieces:
                pieces[-1] = (pieces[-1][0], pieces[-1][1] + line)
            else:
                pieces.append(("", line))
            continue
        pos = 0
        for m in re.finditer(r"\s+", line):
            if m.start() == 0 or m.end() == len(line):
                continue
            before = line[max(0, m.start() - 80) : m.start()]
            if line[m.end()] == "[" or not _SENT_END_RE.search(before) or _ET_AL_RE.search(before):
                continue
            if not re.match(r"[A-Z0-9\"'(]", line[m.end()]):
                continue
            pieces.append((line[pos : m.start()], m.group()))
            pos = m.end()
        pieces.append((line[pos:], ""))
    return pieces


def verify_citations(text: str, n_passages: int, passages: Sequence[Passage] = ()) -> VerifiedText:
    """Check every ``[n]`` marker of ``text`` against passages ``1..n_passages`` (markers in
    full-width or lenticular brackets, ``【n】``, read as ``[n]``), and every author-year
    citation against the records of ``passages``.

    Valid numbers are kept (a marker is rewritten as ``[a][b]``); other numbers are stripped
    and listed per sentence and overall. An author-year citation that names a record sent gets
    that record's markers written after it (``(Smith 2020) [2][3]``) and is checked as them;
    one that names none stays as written and is listed per sentence and overall.

    Args:
        text: the model's answer.
        n_passages: how many passages were sent.
        passages: the passages sent, numbered from 1 (none: author-year citations are left
            as they are, unchecked).

    Returns:
        The sentences with their citations, the fabricated numbers and the invented
        author-year citations.
    """
    sentences: list[Sentence] = []
    all_bad: list[int] = []
    all_invented: list[str] = []
    # a wide marker was left as it was written: shown unverified, an invented one unflagged
    text = _WIDE_MARKER_RE.sub(r"[\1]", text)
    for raw, sep in split_sentences(text):
        cited: list[int] = []
        bad: list[int] = []
        invented: tuple[str, ...] = ()
        if passages:
            raw, invented = link_author_year(raw, passages)

        def fix(m: re.Match[str], cited: list[int] = cited, bad: list[int] = bad) -> str:
            nums = _marker_numbers(m.group())
            good = [k for k in nums if 1 <= k <= n_passages]
            bad.extend(k for k in nums if not 1 <= k <= n_passages)
            cited.extend(good)
            return "".join(f"[{k}]" for k in dict.fromkeys(good))

        clean = MARKER_RE.sub(fix, raw)
        clean = re.sub(r"[ \t]+([.,;:!?])", r"\1", clean)
        clean = re.sub(r"[ \t]{2,}", " ", clean).rstrip(" \t")
        sentences.append(
            Sentence(
                clean,
                tuple(dict.fromkeys(cited)),
                tuple(dict.fromkeys(bad)),
                separator=sep,
                invented=invented,
            )
        )
        all_bad.extend(bad)
        all_invented.extend(invented)
    return VerifiedText(
        tuple(sentences), tuple(dict.fromkeys(all_bad)), tuple(dict.fromkeys(all_invented))
    )


#: the start of a marker that more streamed text may complete: ``[``, ``[1``, ``[1,`` ...
_PARTIAL_MARKER_RE = re.compile(r"\[[\d\s,;\-–]*$")
#: a longer unclosed ``[...`` is not a marker in the making; it is let through.
_MAX_PARTIAL_MARKER_CHARS = 32
UNVERIFIED = "?"


class StreamedCitations:
    """Marks citations of a streamed draft as unverified until the full text is checked.

    Every complete ``[n]`` marker naming a passage that was not sent is shown as ``[?]`` (and
    ``[1, 99]`` as ``[1, ?]``); valid markers pass unchanged. A tail that may be the start of a
    marker (``"... [9"``) is held back until the next delta or :meth:`flush`. The checked answer
    (:func:`verify_citations`) is unaffected.

    Args:
        n_passages: how many passages were sent (valid numbers are ``1..n_passages``).
    """

    def __init__(self, n_passages: int) -> None:
        self.n_passages = n_passages
        self._held = ""

    def _mark(self, m: re.Match[str]) -> str:
        nums = _marker_numbers(m.group())
        if all(1 <= k <= self.n_passages for k in nums):
            return m.group()
        return (
            "[" + ", ".join(str(k) if 1 <= k <= self.n_passages else UNVERIFIED for k in nums) + "]"
        )

    def feed(self, delta: str) -> str:
        """The draft text that can be shown now, invalid citations marked ``[?]``."""
        text = self._held + delta
        partial = _PARTIAL_MARKER_RE.search(text)
        cut = len(text)
        if partial is not None and len(text) - partial.start() <= _MAX_PARTIAL_MARKER_CHARS:
            cut = partial.start()
        self._held = text[cut:]
        return MARKER_RE.sub(self._mark, text[:cut])

    def flush(self) -> str:
        """What :meth:`feed` held back, once the stream has ended."""
        out, self._held = self._held, ""
        return MARKER_RE.sub(self._mark, out)


def _record_body(record: Record) -> str:
    if isinstance(record, Dataset):
        return record.description
    return record.abstract


def chunk_text(text: str, words: int, max_chunks: int) -> list[str]:
    """Split ``text`` into at most ``max_chunks`` chunks of about ``words`` words, at sentence
    boundaries where possible (a sentence longer than ``words`` is cut)."""
    chunks: list[str] = []
    current: list[str] = []
    for sentence in _SENTENCE_SPLIT_RE.split(" ".join(text.split())):
        tokens = sentence.split()
        while tokens:
            room = words - len(current)
            if room <= 0 or (current and len(tokens) > room and len(tokens) <= words):
                chunks.append(" ".join(current))
                current = []
                if len(chunks) == max_chunks:
                    return chunks
                continue
            current.extend(tokens[:room])
            tokens = tokens[room:]
    if current and len(chunks) < max_chunks:
        chunks.append(" ".join(current))
    return chunks


def build_passages(
    hits: Sequence[Hit],
    *,
    max_records: int = 10,
    max_per_record: int = 3,
    chunk_words: int = 120,
    fulltext: Mapping[str, Sequence[TextPassage]] | None = None,
) -> tuple[Passage, ...]:
    """Number the passages of the top ``max_records`` hits: title + abstract chunks, at most
    ``max_per_record`` per record (OpenScholar, Asai et al. 2024, §2.1, retrieves passages
    rather than whole papers). A record without an abstract gives one title-only passage.

    ``fulltext`` maps a record id to its best full-text passages for the question (best first);
    such a record contributes those (at most ``max_per_record``, as OpenScholar's 3 per paper)
    instead of its abstract chunks."""
    out: list[Passage] = []
    for hit in hits[:max_records]:
        body = (fulltext or {}).get(hit.docid, ())
        if body:
            for p in list(body)[:max_per_record]:
                out.append(Passage(len(out) + 1, hit.record, p.idx, p.text, p.where, True))
            continue
        chunks = chunk_text(_record_body(hit.record), chunk_words, max_per_record) or [""]
        for i, chunk in enumerate(chunks):
            out.append(Passage(len(out) + 1, hit.record, i, chunk))
    return tuple(out)
