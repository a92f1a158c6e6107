"""The stages that act on a query's operators (:mod:`litsift.search.retrieval.operators`) over
the loaded hits, both over the candidate pool (``max(k, k0)``, as the citation stage widens
it), and the test they share (:func:`held_exclusion`):

- :class:`Exclude` drops hits whose indexed text (a paper's title and abstract, a dataset's
  name, aliases, description and intro paper title: ``record_fields(...)[ALL_FIELD]``) holds
  an excluded word or phrase, compared as BM25's analyzer reads both (``-graphs`` also
  excludes "graph"), and says what it excluded in ``partial``;
- :class:`PhraseFirst` moves the hits that hold more of the quoted phrases (the analysed
  tokens in a row) ahead of those that hold fewer, a stable re-order: the BM25 index keeps no
  positions (``index_option="freq"``), so a phrase query could not run in tantivy.

Both read a record's text through ``text_of`` (by default its indexed text); the search by a
research question (``problem:`` / ``method:``, :mod:`litsift.service.rq`) gives its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import tantivy

from litsift.search.retrieval.operators import excluded_label
from litsift.search.retrieval.record_text import ALL_FIELD, record_fields
from litsift.search.retrieval.stages import Ranked, Stage
from litsift.types import Hit, Query, Record

__all__ = ["Exclude", "PhraseFirst", "held_exclusion", "holds", "indexed_text"]


@lru_cache(maxsize=1)
def _analyzer() -> tantivy.TextAnalyzer:
    from litsift.search.retrieval.bm25 import analyzer

    return analyzer()


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_analyzer().analyze(text))


def indexed_text(record: Record) -> str:
    """The text BM25 indexes of ``record`` whole (``record_fields(record)[ALL_FIELD]``)."""
    return record_fields(record)[ALL_FIELD]


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


def held_exclusion(text: str, exclude: Sequence[str]) -> str | None:
    """The first of ``exclude`` (words or phrases, as typed) that ``text`` holds, compared
    as BM25's analyzer reads both (stemmed, in a row); None when it holds none."""
    if not exclude:
        return None
    tokens = _tokens(text)
    return next((e for e in exclude if holds(tokens, _tokens(e))), None)


def _pool(query: Query, wanted: tuple[str, ...]) -> Query:
    if not wanted:
        return query
    assert query.k is not None and query.k0 is not None
    return replace(query, k=max(query.k, query.k0))


def _renumbered(hits: list[Hit]) -> list[Hit]:
    return [h if h.rank == i else replace(h, rank=i) for i, h in enumerate(hits, start=1)]


@dataclass(frozen=True)
class Exclude(Stage):
    """Drop the loaded hits whose text (``text_of``; by default :func:`indexed_text`) holds an
    excluded word or phrase (``query.exclude``), then note what was excluded and how many hits
    it dropped. The pool is ``max(k, k0)`` so that ``k`` hits remain where the candidates
    allow."""

    text_of: Callable[[Record], str] = indexed_text

    def pool(self, query: Query) -> Query:
        return _pool(query, query.exclude)

    def __call__(self, ranked: Ranked) -> Ranked:
        exclude = ranked.query.exclude
        if not exclude:
            return ranked
        banned = [t for t in (_tokens(e) for e in exclude) if t]
        kept = [
            h
            for h in ranked.hits
            if not any(holds(_tokens(self.text_of(h.record)), b) for b in banned)
        ]
        dropped = len(ranked.hits) - len(kept)
        ranked.hits = _renumbered(kept)
        n = f"{dropped} hit{'s' if dropped != 1 else ''}"
        ranked.note(f"excluded {excluded_label(exclude)} ({n} left out)")
        return ranked


@dataclass(frozen=True)
class PhraseFirst(Stage):
    """Put the loaded hits whose text (``text_of``; by default :func:`indexed_text`) holds
    more of the quoted phrases (``query.phrases``, analysed as BM25 reads them, tokens in a
    row) first; ties keep their order. The pool is ``max(k, k0)``, so a phrase hit ranked
    below ``k`` by the fusion can reach the top."""

    text_of: Callable[[Record], str] = indexed_text

    def pool(self, query: Query) -> Query:
        return _pool(query, query.phrases)

    def __call__(self, ranked: Ranked) -> Ranked:
        phrases = [t for t in (_tokens(p) for p in ranked.query.phrases) if t]
        if not phrases or len(ranked.hits) < 2:
            return ranked
        found = {
            id(h): sum(holds(_tokens(self.text_of(h.record)), p) for p in phrases)
            for h in ranked.hits
        }
        ranked.hits = _renumbered(sorted(ranked.hits, key=lambda h: -found[id(h)]))
        return ranked
