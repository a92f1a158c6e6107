"""The query operators researchers type: exclusions (``-word``, ``-"a phrase"``, ``NOT word``)
and quoted phrases (``"knowledge graph"``).

User text never reaches tantivy's query parser (:mod:`litsift.search.retrieval.bm25`), so these
were read as words: ``-transformer`` searched for transformers, the opposite of what was meant,
and a quoted phrase was two loose words. :func:`parse_operators` takes them out of the text
before retrieval (an excluded word is neither searched for nor embedded); two stages act on the
loaded hits, both over the candidate pool (``max(k, k0)``, as the citation stage widens it):

- :class:`Exclude` drops hits whose indexed text (a paper's title and abstract, a dataset's
  name, aliases, description and intro paper title: ``record_fields(...)[ALL_FIELD]``) holds
  an excluded word or phrase, compared as BM25's analyzer reads both (``-graphs`` also
  excludes "graph"), and says what it excluded in ``partial``;
- :class:`PhraseFirst` moves the hits that hold more of the quoted phrases (the analysed
  tokens in a row) ahead of those that hold fewer, a stable re-order: the BM25 index keeps no
  positions (``index_option="freq"``), so a phrase query could not run in tantivy.

A minus only excludes at the start of a word and before a letter or a quote: ``state-of-the-art``,
``BERT-base``, ``-1`` and ``-2019`` are words. ``NOT`` is an operator in capitals only ("does not
use labels" is prose), and not after an auxiliary or a conjunction nor before an article or a
quantifier ("Style is NOT a single variable", "do NOT use labels": a sentence's emphasis).
An unbalanced quote is a character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

import tantivy

from litsift.search.retrieval.record_text import ALL_FIELD, record_fields
from litsift.search.retrieval.stages import Ranked, Stage
from litsift.types import Hit, Query

__all__ = ["ONLY_EXCLUSIONS", "Exclude", "PhraseFirst", "QueryOperators", "parse_operators"]

#: a quoted phrase, or an exclusion: ``-"phrase"``, ``-word`` (a letter after the minus) or
#: ``NOT`` and a word or a quoted phrase; a minus or NOT only at the start of a word
_OPERATOR_RE = re.compile(
    r"""(?:(?<!\S)(?P<neg>-|NOT\s+))?["\u201c]"""
    r"""(?P<phrase>[^"\u201c\u201d]*?[^\W_][^"\u201c\u201d]*?)["\u201d]"""
    r"""|(?<!\S)-(?P<word>[^\W\d_][^\s"]*)"""
    r"""|(?<!\S)NOT\s+(?P<notword>[^\s"]*[^\W_][^\s"]*)"""
)
#: punctuation around an excluded word that is not part of it (``-graph,``)
_TRAILING = " \t\n\r,;:.!?()[]{}"
#: why a query of exclusions alone has no hits (``SearchResult.partial``)
ONLY_EXCLUSIONS = (
    "nothing to search for: {excluded} only say what to leave out; "
    "type what to find as well, e.g. knowledge graph -embedding"
)


@dataclass(frozen=True)
class QueryOperators:
    """A query's text split into what is searched and the operators around it.

    Attributes:
        text: what BM25 and the encoder get: the query with its exclusions removed (a quoted
            phrase stays, quotes and all).
        exclude: the excluded words and phrases, as typed (no minus, NOT or quotes).
        phrases: the quoted phrases that are searched for, as typed (no quotes).
    """

    text: str
    exclude: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()


def parse_operators(text: str) -> QueryOperators:
    """The exclusions and quoted phrases of a query (see the module docstring).

    Args:
        text: the cleaned query text.

    Returns:
        The text without its exclusions (runs of spaces they leave are squeezed), the
        excluded words and phrases, the searched phrases; each tuple in query order, repeats
        dropped.
    """
    if '"' not in text and "\u201c" not in text and "-" not in text and "NOT" not in text:
        return QueryOperators(text)
    exclude: list[str] = []
    phrases: list[str] = []

    def take(m: re.Match[str]) -> str:
        phrase = m.group("phrase")
        if phrase is not None and not m.group("neg"):
            phrases.append(phrase.strip())
            return m.group(0)
        if (m.group("notword") or (m.group("neg") or "").startswith("NOT")) and _emphasis(
            text[: m.start()], m.group("notword") or ""
        ):  # "Style is NOT a single variable": prose, not an operator
            if phrase is not None:
                phrases.append(phrase.strip())
            return m.group(0)
        if m.group("word") is not None and _bullet(text, m):  # "-I proposed a ...": a list dash
            return m.group(0)
        exclude.append((phrase or m.group("word") or m.group("notword")).strip(_TRAILING))
        return " "

    rest = _OPERATOR_RE.sub(take, text)
    if not exclude and not phrases:
        return QueryOperators(text)
    rest = " ".join(rest.split()) if exclude else rest
    return QueryOperators(rest, tuple(dict.fromkeys(exclude)), tuple(dict.fromkeys(phrases)))


#: words after which a capital NOT is emphasis in a sentence ("is NOT", "do NOT"), and words
#: a NOT before which is emphasis ("NOT a", "NOT all"): neither is an exclusion
_PROSE_BEFORE_NOT = frozenset(
    "is are was were be been am do does did can could should would will shall may might must "
    "has have had why if whether or but".split()
)
_PROSE_AFTER_NOT = frozenset(
    "a an the all only just always every any one to be so as that this these those".split()
)


def _emphasis(before: str, word: str) -> bool:
    """Whether the ``NOT`` that follows ``before`` (and comes before ``word``; "" for a
    phrase) is a sentence's emphasis rather than the operator: after an auxiliary or a
    conjunction ("is NOT", "do NOT", "but NOT"), or before an article or a quantifier
    ("NOT a", "NOT all"). Titles say "Style is NOT a single variable"."""
    words = before.split()
    last = words[-1].strip(_TRAILING).lower() if words else ""
    return last in _PROSE_BEFORE_NOT or word.strip(_TRAILING).lower() in _PROSE_AFTER_NOT


#: words a dash before which is no exclusion: pronouns and articles ("-I proposed ...")
_NOT_EXCLUDED = frozenset("i we you he she it they me us them my our a an the this".split())


def _bullet(text: str, m: re.Match[str]) -> bool:
    """Whether the ``-word`` of ``m`` is a list dash or prose rather than an exclusion: the
    word is a pronoun or an article, or the dash starts a sentence-long query (six words or
    more) before a capital ("-Proposed a feature ...", as DataFinder's queries have one)."""
    word = m.group("word").strip(_TRAILING)
    if word.lower() in _NOT_EXCLUDED:
        return True
    return m.start() == 0 and word[:1].isupper() and len(text.split()) >= 6


@lru_cache(maxsize=1)
def _analyzer() -> tantivy.TextAnalyzer:
    from litsift.search.retrieval.bm25 import analyzer

    return analyzer()


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_analyzer().analyze(text))


def holds(tokens: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    """Whether ``phrase`` (analysed tokens) occurs in ``tokens`` as a run; an empty phrase
    never does."""
    n = len(phrase)
    if n == 0:
        return False
    if n == 1:
        return phrase[0] in tokens
    first = phrase[0]
    return any(
        tokens[i : i + n] == phrase for i in range(len(tokens) - n + 1) if tokens[i] == first
    )


def _hit_tokens(hit: Hit) -> tuple[str, ...]:
    return _tokens(record_fields(hit.record)[ALL_FIELD])


def _pool(query: Query, wanted: tuple[str, ...]) -> Query:
    if not wanted:
        return query
    assert query.k is not None and query.k0 is not None
    return replace(query, k=max(query.k, query.k0))


def _renumbered(hits: list[Hit]) -> list[Hit]:
    return [h if h.rank == i else replace(h, rank=i) for i, h in enumerate(hits, start=1)]


def excluded_label(exclude: tuple[str, ...]) -> str:
    """``-graph, -"knowledge graph"``: the exclusions as a user would type them."""
    return ", ".join(f'-"{e}"' if " " in e else f"-{e}" for e in exclude)


@dataclass(frozen=True)
class Exclude(Stage):
    """Drop the loaded hits that hold an excluded word or phrase (``query.exclude``), then
    note what was excluded and how many hits it dropped. The pool is ``max(k, k0)`` so that
    ``k`` hits remain where the candidates allow."""

    def pool(self, query: Query) -> Query:
        return _pool(query, query.exclude)

    def __call__(self, ranked: Ranked) -> Ranked:
        exclude = ranked.query.exclude
        if not exclude:
            return ranked
        banned = [t for t in (_tokens(e) for e in exclude) if t]
        kept = [h for h in ranked.hits if not any(holds(_hit_tokens(h), b) for b in banned)]
        dropped = len(ranked.hits) - len(kept)
        ranked.hits = _renumbered(kept)
        n = f"{dropped} hit{'s' if dropped != 1 else ''}"
        ranked.note(f"excluded {excluded_label(exclude)} ({n} left out)")
        return ranked


@dataclass(frozen=True)
class PhraseFirst(Stage):
    """Put the loaded hits holding more of the quoted phrases (``query.phrases``, analysed as
    BM25 reads them, tokens in a row) first; ties keep their order. The pool is
    ``max(k, k0)``, so a phrase hit ranked below ``k`` by the fusion can reach the top."""

    def pool(self, query: Query) -> Query:
        return _pool(query, query.phrases)

    def __call__(self, ranked: Ranked) -> Ranked:
        phrases = [t for t in (_tokens(p) for p in ranked.query.phrases) if t]
        if not phrases or len(ranked.hits) < 2:
            return ranked
        found = {id(h): sum(holds(_hit_tokens(h), p) for p in phrases) for h in ranked.hits}
        ranked.hits = _renumbered(sorted(ranked.hits, key=lambda h: -found[id(h)]))
        return ranked
