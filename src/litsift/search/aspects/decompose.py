"""Offline, deterministic decomposition of a query into aspects (the idea of DORIS-MAE).

A researcher's long query ("a method that does X, on data like Y, that also handles Z") is split
into the requirements a result should cover, each with the span of query text it came from:

1. lines (bullets and numbering removed), then sentences (:func:`split_sentences`, pysbd's
   rule-based segmenter, which knows "e.g.", "et al." and decimals);
2. inside a sentence, clauses and coordinated requirements: cuts at ``;`` ``:`` ``,`` and before
   coordinators and means/purpose markers (and, or, but, while, whereas, by, using, through, via,
   so that, in order to, ...), kept only where both sides hold at least
   :data:`MIN_CONTENT_WORDS` content words, so "authorities and truck companies" stays whole;
3. keyphrase queries ("3d face reconstruction, facial landmarks, faces") become their phrases.

The structure mirrors DORIS-MAE's aspects and sub-aspects (Wang et al., NeurIPS 2023, §3): a
sentence is an aspect (``parent=None``); when it splits further its clauses follow it as
sub-aspects whose ``parent`` is the sentence's index in the returned list. Every aspect's text is
exactly ``query[start:end]``. An LLM decomposition may replace this one where a client is
configured; this one is always available.

Scoring of aspects against records lives in :mod:`litsift.search.aspects.scoring` (importing
this module stays cheap: no numpy).
"""

from __future__ import annotations

import itertools
import re

from litsift.text.sentences import split_sentences
from litsift.types import Aspect

__all__ = [
    "MIN_CONTENT_WORDS",
    "STOPWORDS",
    "content_terms",
    "decompose",
    "is_keyphrase_query",
]

#: A clause cut is kept only if both sides have at least this many content words.
MIN_CONTENT_WORDS = 3
#: A keyphrase query's phrases have at most this many words each.
MAX_KEYPHRASE_WORDS = 6

#: English function words plus the boilerplate of research queries ("I need a method that ...").
#: Used to count content words when splitting and to build an aspect's lexical terms.
STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each either else
    etc few for from further had has have having he her here hers herself him himself his how i
    if in into is it its itself just let like may me might more most much must my myself no nor
    not now of off on once only or other our ours ourselves out over own per perhaps possibly
    rather same she should so some such than that the their theirs them themselves then there
    these they this those though through thus to too under until up upon us very via was we were
    what when where whether which while who whom whose why will with within without would yet you
    your yours yourself e.g i.e eg ie
    need needs needed want wants wanted wish hope hoping plan planning planned currently thinking
    think trying try looking able way ways something someone kind sort lot lots many one two
    paper papers document documents work works study use used uses using propose proposed
    aim goal order overall make makes well new certain specific given various""".split()
)

_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*")
_BULLET_RE = re.compile(r"\s*(?:[-*•·]+|\(?\d{1,2}[.)]|\(?[a-zA-Z][.)])\s+")
# Cut points inside a sentence: after ; or : or , and before a coordinator/marker word.
_PUNCT_CUT_RE = re.compile(r"[;:,](?=\s)")
_MARKERS = (
    "and",
    "or",
    "but",
    "while",
    "whereas",
    "although",
    "though",
    "because",
    "since",
    "so that",
    "such that",
    "in order to",
    "as well as",
    "which",
    "by",
    "using",
    "through",
    "via",
    "possibly",
    "then",
    "thus",
)
_MARKER_CUT_RE = re.compile(r"\s(?=(?:" + "|".join(re.escape(m) for m in _MARKERS) + r")\b)", re.I)
# Leading words and punctuation trimmed from a clause (pure coordinators carry no requirement).
_LEAD_TRIM_RE = re.compile(r"^(?:[\s,;:.\-–—]+|(?:and|or|but|also|so|then|thus|plus)\b)+", re.I)
_TRAIL_TRIM_RE = re.compile(
    r"(?:[\s,;:\-–—]+|\b(?:and|or|but|also|so|then|thus|plus|possibly))+$", re.I
)
_KEYPHRASE_SEP_RE = re.compile(r"[,;|\n]+")
_SENTENCE_WORDS = frozenset("the a an we i is are to that which this of for".split())


def content_terms(text: str) -> list[str]:
    """Lower-cased content words of a text, in order (stopwords and boilerplate removed).

    Args:
        text: any string.

    Returns:
        The words (letters/digits, inner hyphens and apostrophes kept) not in :data:`STOPWORDS`
        and longer than one character, unstemmed.
    """
    return [
        w
        for w in (m.group(0).lower() for m in _WORD_RE.finditer(text))
        if len(w) > 1 and w not in STOPWORDS
    ]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` past leading coordinators/punctuation and trailing punctuation."""
    piece = text[start:end]
    m = _LEAD_TRIM_RE.match(piece)
    if m and m.end() < len(piece):
        start += m.end()
    piece = text[start:end]
    t = _TRAIL_TRIM_RE.search(piece)
    if t and t.start() > 0:
        end = start + t.start()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def is_keyphrase_query(query: str) -> bool:
    """Whether a query is a list of keyphrases rather than prose.

    True when it has at least two phrases separated by ``,`` ``;`` ``|`` or line breaks, every
    phrase has at most :data:`MAX_KEYPHRASE_WORDS` words, and no phrase reads like a sentence
    (no article, pronoun or "to/that/which/is").
    """
    phrases = [p.strip() for p in _KEYPHRASE_SEP_RE.split(query) if p.strip()]
    if len(phrases) < 2:
        return False
    for p in phrases:
        words = [w.lower() for w in _WORD_RE.findall(p)]
        if len(words) > MAX_KEYPHRASE_WORDS or _SENTENCE_WORDS.intersection(words):
            return False
    return True


def _keyphrases(query: str) -> list[Aspect]:
    out: list[Aspect] = []
    pos = 0
    for m in _KEYPHRASE_SEP_RE.finditer(query + "\n"):
        s = pos
        b = _BULLET_RE.match(query, pos, min(m.start(), len(query)))
        if b and b.end() < m.start():
            s = b.end()
        s, e = _trim(query, s, min(m.start(), len(query)))
        if e > s and _WORD_RE.search(query[s:e]):
            out.append(Aspect(query[s:e], s, e))
        pos = m.end()
    return out


def _lines(query: str) -> list[tuple[int, int]]:
    """Non-empty lines of the query with bullet/numbering markers removed."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in query.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        m = _BULLET_RE.match(line)
        if m and m.end() < len(line):
            start += m.end()
        if query[start:end].strip():
            spans.append((start, end))
    return spans


def _n_content(text: str) -> int:
    return len(content_terms(text))


def _clauses(query: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut the sentence ``query[start:end]`` into clauses with >= MIN_CONTENT_WORDS each side."""
    sent = query[start:end]
    cuts = sorted(
        {m.end() for m in _PUNCT_CUT_RE.finditer(sent)}
        | {m.start() for m in _MARKER_CUT_RE.finditer(sent)}
    )
    bounds = [c for c in cuts if 0 < c < len(sent)] + [len(sent)]
    pieces: list[tuple[int, int]] = []
    left = 0
    for c, nxt in itertools.pairwise(bounds):
        # cut at c if the clause so far and the segment up to the next candidate cut both
        # carry a requirement; so "randomness or noise, ..." is not cut before "or noise"
        if _n_content(sent[left:c]) >= MIN_CONTENT_WORDS and (
            _n_content(sent[c:nxt]) >= MIN_CONTENT_WORDS
        ):
            pieces.append((left, c))
            left = c
    pieces.append((left, len(sent)))
    out: list[tuple[int, int]] = []
    for a, b in pieces:
        s, e = _trim(query, start + a, start + b)
        if e > s:
            out.append((s, e))
    return out


def decompose(query: str) -> list[Aspect]:
    """Split a query into aspects, offline and deterministically.

    Sentences become aspects (``parent=None``); a sentence with several clauses or coordinated
    requirements is followed by those clauses as sub-aspects (``parent`` = the index of the
    sentence's aspect in the returned list), the layout of DORIS-MAE's expert decompositions
    (Wang et al., NeurIPS 2023). A keyphrase query (:func:`is_keyphrase_query`) becomes one aspect
    per phrase.

    Args:
        query: any string.

    Returns:
        Aspects in query order, each with ``text == query[start:end]``. Empty only if the query
        is empty or whitespace; otherwise at least one aspect (the whole stripped query if
        nothing else remains).
    """
    if not query.strip():
        return []
    if is_keyphrase_query(query):
        phrases = _keyphrases(query)
        if phrases:
            return phrases
    aspects: list[Aspect] = []
    for ls, le in _lines(query):
        for ss, se in split_sentences(query[ls:le]):
            s, e = _trim(query, ls + ss, ls + se)
            if e <= s or not _WORD_RE.search(query[s:e]):
                continue
            parent = len(aspects)
            aspects.append(Aspect(query[s:e], s, e))
            clauses = _clauses(query, s, e)
            if len(clauses) > 1:
                aspects.extend(Aspect(query[a:b], a, b, parent) for a, b in clauses)
    if not aspects:
        s = len(query) - len(query.lstrip())
        e = len(query.rstrip())
        aspects.append(Aspect(query[s:e], s, e))
    return aspects
