"""Retrieval: one searcher per kind over BM25 (tantivy) and dense kNN (hnswlib), fusion, and
dataset search composed with the paper searcher.

Modules: :mod:`~litsift.search.text` (what is indexed), :mod:`~litsift.search.filters`,
:mod:`~litsift.search.bm25`, :mod:`~litsift.search.dense`, :mod:`~litsift.search.fusion` (RRF,
interpolation), :mod:`~litsift.search.rocchio` (feedback), :mod:`~litsift.search.searcher`
(:class:`~litsift.search.searcher.KindSearcher`), :mod:`~litsift.search.datasets` (usage
profiles, popularity prior, learned re-ranker) and :mod:`~litsift.search.indexer` (builds,
manifests, atomic swaps). Import the submodules directly; this package imports nothing heavy.

The CLI and eval use only what this package exports (import-linter keeps them out of its
modules): the text BM25 indexes for a record (:func:`record_fields`, :data:`ALL_FIELD`), for
peers that must index exactly what litsift does.
"""

from litsift.search.text import ALL_FIELD, record_fields

__all__ = ["ALL_FIELD", "record_fields"]
