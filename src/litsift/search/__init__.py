"""Retrieval: BM25 (tantivy), dense kNN (hnswlib), year filters, fusion and index builds.

Modules: :mod:`~litsift.search.text` (what is indexed), :mod:`~litsift.search.filters`,
:mod:`~litsift.search.bm25`, :mod:`~litsift.search.dense`, :mod:`~litsift.search.hybrid`
(RRF, interpolation, :func:`~litsift.search.hybrid.hybrid_search`) and
:mod:`~litsift.search.indexer` (builds, manifests, atomic swaps). Import the submodules
directly; this package imports nothing heavy.
"""
