"""Query handling before retrieval: what text BM25 sees for a query.

A full-sentence query ("We propose a semi-supervised method for ...") carries function words
and request boilerplate that every document shares. BM25 scores them with a small but non-zero
idf, and with per-field length normalisation they still pull short fields (a dataset's name
or alias) up. :func:`bm25_query_text` removes them from the *query side only* (the index keeps
every token, so exact phrases and user-typed stopwords in names still match when asked).

Stopwords are tantivy's built-in English list (Lucene's ``EnglishAnalyzer`` set, the same 33
words as bm25s's ``STOPWORDS_EN``), applied by tantivy's own ``Filter.stopword``.

Before any of that, :func:`clean_query_text` makes the text safe for both retrievers: tantivy
and the tokenizer only take text that encodes as UTF-8, and a query can carry lone surrogates
(Python decodes invalid bytes in a command-line argument to U+DC80..U+DCFF).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import tantivy

from litsift.types import BM25_QUERY_MODES

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


#: Characters of a query that are read; the rest of a longer paste is dropped. The dense encoder
#: reads the first 128 tokens and BM25 at most 512 distinct terms, so a longer text only costs
#: time and memory (10 M characters: 36 s per query); 100,000 is a whole paper.
MAX_QUERY_CHARS = 100_000
#: C0 and C1 control characters other than tab, newline and carriage return: no meaning in a
#: query, each becomes a space (a word boundary, as it was on screen).
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: Unicode noncharacters (U+FDD0..U+FDEF and every U+xxFFFE / U+xxFFFF): never meant for
#: interchange; each becomes U+FFFD.
_NONCHARS = "".join(chr(p * 0x10000 + 0xFFFE) + chr(p * 0x10000 + 0xFFFF) for p in range(17))
_NONCHAR_RE = re.compile(f"[\ufdd0-\ufdef{_NONCHARS}]")
_REPLACEMENT = "\ufffd"


def clean_query_text(text: str) -> str:
    """The query text made safe to analyse (tantivy) and encode (tokenizers): any string in,
    a string that encodes as UTF-8 out. Cheap on clean text (printable ASCII is returned as
    it is). The search pipeline (:func:`litsift.search.pipeline.resolve_query`) calls it
    once per query; retrievers take its output as given.

    - a surrogate pair stored as two code points (UTF-16 style) becomes its one character; a
      lone surrogate (e.g. an invalid byte of a command-line argument, which Python decodes
      with ``surrogateescape``) becomes U+FFFD;
    - noncharacters become U+FFFD; C0/C1 control characters other than ``\\t \\n \\r``
      become a space;
    - text past :data:`MAX_QUERY_CHARS` is dropped;
    - the result is NFC-normalised, so an accent typed as a combining mark matches the
      precomposed letter of the indexed text.

    Args:
        text: any Python string.

    Returns:
        A string that encodes as UTF-8 (``text.encode("utf-8")`` never raises).
    """
    text = text[:MAX_QUERY_CHARS]
    if text.isascii() and text.isprintable():  # the common case, and an already cleaned one
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    text = _CONTROL_RE.sub(" ", text)
    text = _NONCHAR_RE.sub(_REPLACEMENT, text)
    return unicodedata.normalize("NFC", text)


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
        text: the query text, already cleaned by :func:`clean_query_text` (the search
            pipeline does it once per query).
        mode: ``"raw"`` (unchanged), ``"stop"`` (English stopwords removed) or
            ``"stop+request"`` (also :data:`REQUEST_WORDS`).

    Returns:
        The remaining lowercase words joined by spaces (unstemmed: the BM25 index's analyzer
        stems them). When every word is a stopword the original text is returned, so a query
        such as "The Pile" or "IT" still finds something.

    Raises:
        ValueError: unknown ``mode``.
    """
    if mode not in BM25_QUERY_MODES:
        raise ValueError(f"unknown BM25 query mode {mode!r}; use one of {BM25_QUERY_MODES}")
    if mode == "raw":
        return text
    kept = _analyzer(mode).analyze(text)
    return " ".join(kept) if kept else text
