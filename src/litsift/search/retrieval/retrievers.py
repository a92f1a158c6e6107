"""What a kind searcher asks of its retrievers, whichever engine runs them (the engine seam,
:mod:`litsift.search.engines.base`): BM25 hits for a query text and nearest vectors for a
query vector, the year filter pushed down."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from litsift.types import YearRange

__all__ = ["DenseRetriever", "SparseRetriever"]


class SparseRetriever(Protocol):
    """BM25 over one kind (``BM25Index`` locally, a Milvus collection's BM25 function)."""

    def search(self, query_text: str, k0: int, years: YearRange) -> list[tuple[int, float]]:
        """Up to ``k0`` ``(rowid, BM25 score)`` for any user text, best first, ties by rowid,
        restricted to ``years`` inside the engine."""
        ...

    def count(self) -> int:
        """Documents indexed."""
        ...


class DenseRetriever(Protocol):
    """Nearest vectors of one kind (``DenseIndex`` locally, a Milvus HNSW index)."""

    def search(
        self,
        qvec: npt.NDArray[np.floating],
        k0: int,
        years: YearRange,
        year_by_rowid: npt.NDArray[np.int32],
    ) -> list[tuple[int, float]]:
        """Up to ``k0`` ``(rowid, cosine)`` for a ``(dim,)`` query vector, best first, ties by
        rowid, restricted to ``years`` inside the engine."""
        ...

    def vectors(
        self, rowids: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Stored vectors of ``rowids``: ``(found rowids (m,), (m, dim) float32)``."""
        ...

    def count(self) -> int:
        """Vectors indexed."""
        ...
