"""The Milvus engine: papers and datasets as Milvus collections
(:mod:`litsift.search.engines.milvus_collections`), BM25 and dense search in Milvus, pushes
(:mod:`litsift.search.engines.milvus_push`) and the
passages collection (:mod:`litsift.search.engines.milvus_passages`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.errors import IndexMismatchError
from litsift.search.build.layout import BATCH_SIZE
from litsift.search.engines.milvus_collections import (
    _REBUILD_HINT,
    MilvusCollections,
    query_terms,
)
from litsift.search.engines.milvus_passages import PASSAGES, MilvusPassages, _passages_encoder
from litsift.search.engines.milvus_push import PushReport, push_kind
from litsift.search.kind_searcher import KindSearcher
from litsift.types import Kind, YearRange

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.search.build.layout import Progress
    from litsift.search.retrieval.hybrid_stages import Ranking
    from litsift.store import Store

__all__ = ["MilvusBM25", "MilvusDense", "MilvusEngine"]


class MilvusEngine(MilvusCollections):
    """Papers and datasets in Milvus collections (see
    :mod:`litsift.search.engines.milvus_collections`): the engine seam's search, push and
    passages over :class:`~litsift.search.engines.milvus_collections.MilvusCollections`, whose
    arguments (URI, token, prefix, index root) and errors it takes."""

    name = "milvus"

    # -- push -----------------------------------------------------------------------------
    def push(
        self,
        store: Store,
        encoder: Encoder,
        kind: Kind,
        rebuild: bool = False,
        progress: Progress | None = None,
        batch_size: int = BATCH_SIZE,
    ) -> PushReport:
        """Upsert the rows of ``kind`` changed since the last push (all with ``rebuild``, or
        when the collection is missing or of another encoder: it is then dropped and made
        again), ``batch_size`` rows at a time, vectors from ``encoder`` (its passage cache
        first: nothing already embedded is embedded again).

        Resumable: the cursor is saved after every batch; an interrupted push goes on after
        the last batch saved. Progress: ``("push", done, total)``
        (:func:`litsift.search.engines.milvus_push.push_kind`).

        Raises:
            IndexMissingError: Milvus cannot be reached or refuses a write.
        """

        return push_kind(self, store, encoder, kind, rebuild, progress, batch_size)

    def passages(self, store: Store, encoder: Encoder) -> MilvusPassages | None:
        """The passages collection as a passage index, or None when none was pushed.

        Raises:
            IndexMismatchError: it was built by another encoder.
        """
        name = f"{self.prefix}{PASSAGES}"
        with self._errors(f"opening {name}"):
            if not self.client.has_collection(name):
                return None
            if _passages_encoder(self, name) != encoder.cache_key:
                raise IndexMismatchError(
                    f"the Milvus collection {name} was built by another encoder", _REBUILD_HINT
                )
            self.client.load_collection(name)
            got = self.client.query(name, filter="", output_fields=["count(*)"])
        count = int(got[0]["count(*)"]) if got else 0
        return MilvusPassages(self, store, encoder, count) if count else None

    def has_passages(self) -> bool:
        """Whether a passages collection exists (asked once, then remembered until a push)."""
        if self._has_passages is None:
            with self._errors("opening the passages collection"):
                self._has_passages = bool(self.client.has_collection(f"{self.prefix}{PASSAGES}"))
        return self._has_passages

    def has_index(self, kind: Kind) -> bool:
        name = self.collection(kind)
        with self._errors(f"opening {name}"):
            return bool(self.client.has_collection(name))

    def searcher(
        self,
        kind: Kind,
        encoder: Encoder,
        year_by_rowid: npt.NDArray[np.int32],
        ranking: Ranking,
    ) -> KindSearcher:
        """A :class:`KindSearcher` over this kind's collection (BM25 and dense in Milvus).

        Raises:
            IndexMissingError: no collection of ``kind`` (or Milvus cannot be reached).
            IndexMismatchError: it was built by another encoder.
        """

        name = self.check(kind, encoder)
        with self._errors(f"loading {name}"):
            self.client.load_collection(name)
        count = self.count(kind)
        bm25 = MilvusBM25(self, kind, count)
        dense = MilvusDense(self, kind, count, encoder.dim)
        return KindSearcher(kind, bm25, dense, year_by_rowid, encoder, ranking)


class MilvusBM25:
    """The BM25 retriever of one kind's collection (the sparse side of the engine seam):
    each boosted field searched in Milvus, scores summed times the field's boost."""

    def __init__(self, engine: MilvusCollections, kind: Kind, count: int) -> None:
        self.engine = engine
        self.kind = kind
        self.boosts = MilvusEngine.fields(kind)
        self._count = count

    def search(self, query_text: str, k0: int, years: YearRange) -> list[tuple[int, float]]:
        """Up to ``k0`` ``(rowid, BM25 score)``: sum over the fields of boost x Milvus BM25,
        each field's top ``k0`` (a document outside a field's top ``k0`` gets 0 from it).
        Best first, ties by rowid; none for a text without a word."""
        terms = query_terms(query_text)
        if not terms or k0 <= 0 or self._count == 0:
            return []
        k0 = min(k0, self._count)
        scores: dict[int, float] = {}
        for field, boost in self.boosts.items():
            for rowid, s in self.engine.search(self.kind, f"{field}_bm25", [terms], k0, years):
                scores[rowid] = scores.get(rowid, 0.0) + boost * s
        return sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:k0]

    def count(self) -> int:
        return self._count


class MilvusDense:
    """The dense retriever of one kind's collection (HNSW, inner product)."""

    def __init__(self, engine: MilvusCollections, kind: Kind, count: int, dim: int) -> None:
        self.engine = engine
        self.kind = kind
        self.dim = dim
        self._count = count

    def search(
        self,
        qvec: npt.NDArray[np.floating],
        k0: int,
        years: YearRange,
        year_by_rowid: npt.NDArray[np.int32] | None = None,
    ) -> list[tuple[int, float]]:
        """Top ``k0`` ``(rowid, cosine)`` for a ``(dim,)`` query vector, ``years`` pushed
        into Milvus (``year_by_rowid`` is not needed: the collection has the year)."""
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise ValueError(f"query vector has dim {q.shape[0]}, index has {self.dim}")
        return self.engine.search(self.kind, "dense", [q.tolist()], min(k0, self._count), years)

    def vectors(
        self, rowids: npt.NDArray[np.int64] | Sequence[int]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Stored vectors of ``rowids``: ``(found rowids (m,), (m, dim) float32)``, in the
        order asked."""
        ids = [int(r) for r in np.asarray(rowids, dtype=np.int64).reshape(-1) if r >= 0]
        if not ids:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.dim), dtype=np.float32)
        name = self.engine.collection(self.kind)
        with self.engine._errors(f"reading {name}"):
            got = self.engine.client.get(name, ids=ids, output_fields=["dense"])
        by_id = {int(g["id"]): g["dense"] for g in got}
        found = [i for i in ids if i in by_id]
        vecs = np.asarray([by_id[i] for i in found], dtype=np.float32).reshape(-1, self.dim)
        return np.asarray(found, dtype=np.int64), vecs

    def count(self) -> int:
        return self._count
