"""Retrieval: one searcher per kind over BM25 (tantivy) and dense kNN (hnswlib), fusion, and
dataset search composed with the paper searcher.

Modules: :mod:`~litsift.search.retrieval.record_text` (what is indexed),
:mod:`~litsift.search.retrieval.filters`,
:mod:`~litsift.search.retrieval.bm25`, :mod:`~litsift.search.retrieval.dense`,
:mod:`~litsift.search.retrieval.fusion` (RRF,
interpolation), :mod:`~litsift.search.retrieval.rocchio` (feedback),
:mod:`~litsift.search.kind_searcher`
(:class:`~litsift.search.kind_searcher.KindSearcher`), :mod:`~litsift.search.datasets`
(usage
profiles, popularity prior, learned re-ranker) and :mod:`~litsift.search.build.index_pair` (builds,
manifests, atomic swaps). Import the submodules directly; this package imports nothing heavy.

The CLI and eval use only what this package exports (import-linter keeps them out of its
modules): the text BM25 indexes for a record (:func:`record_fields`, :data:`ALL_FIELD`), for
peers that must index exactly what litsift does.
"""

from litsift.search.retrieval.record_text import ALL_FIELD, record_fields

__all__ = ["ALL_FIELD", "record_fields"]
