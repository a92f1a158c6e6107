"""Retrieval at query time: BM25, dense kNN, fusion, feedback, the kind searchers and the search
pipeline."""
