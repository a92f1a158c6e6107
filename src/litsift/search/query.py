"""Query handling before retrieval: what text BM25 sees for a query.

A full-sentence query ("We propose a semi-supervised method for ...") carries function words
and request boilerplate that every document shares. BM25 scores them with a small but non-zero
idf, and with per-field length normalisation they still pull short fields (a dataset's name
or alias) up. :func:`bm25_query_text` removes them from the *query side only* (the index keeps
every token, so exact phrases and user-typed stopwords in names still match when asked).

Stopwords are tantivy's built-in English list (Lucene's ``EnglishAnalyzer`` set, the same 33
words as bm25s's ``STOPWORDS_EN``), applied by tantivy's own ``Filter.stopword``.
"""

from __future__ import annotations

from functools import lru_cache

import tantivy

#: Query modes of :func:`bm25_query_text`.
BM25_QUERY_MODES = ("raw", "stop", "stop+request")

#: Words of the request around a scientific query ("I want to build ...", "we propose a
#: novel ...") that carry no topic; removed in mode ``stop+request``. Only request words: topic
#: words that merely are frequent ("model", "method", "system") stay, since a user's "model
#: compression" must keep them.
REQUEST_WORDS = (
    "i",
    "we",
    "our",
    "my",
    "me",
    "you",
    "want",
    "wants",
    "would",
    "like",
    "need",
    "needs",
    "propose",
    "proposed",
    "present",
    "introduce",
    "novel",
    "paper",
    "can",
    "which",
    "what",
    "how",
    "from",
    "also",
    "should",
    "could",
    "please",
    "find",
    "help",
)


@lru_cache(maxsize=4)
def _analyzer(mode: str) -> tantivy.TextAnalyzer:
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword("english"))
    )
    if mode == "stop+request":
        builder = builder.filter(tantivy.Filter.custom_stopword(list(REQUEST_WORDS)))
    return builder.build()


def bm25_query_text(text: str, mode: str = "stop") -> str:
    """The text sent to BM25 for a query.

    Args:
        text: the user's query, any string.
        mode: ``"raw"`` (unchanged), ``"stop"`` (English stopwords removed) or
            ``"stop+request"`` (also :data:`REQUEST_WORDS`).

    Returns:
        The remaining lowercase words joined by spaces (unstemmed: the BM25 index's analyzer
        stems them). When every word is a stopword the original text is returned, so a query
        such as "The Pile" or "IT" still finds something.

    Raises:
        ValueError: unknown ``mode``.
    """
    if mode == "raw":
        return text
    if mode not in BM25_QUERY_MODES:
        raise ValueError(f"unknown BM25 query mode {mode!r}; use one of {BM25_QUERY_MODES}")
    kept = _analyzer(mode).analyze(text)
    return " ".join(kept) if kept else text
