"""One searcher per kind of record: BM25 + dense retrieval with the year filter pushed down,
pseudo-relevance feedback, and fusion.

:class:`KindSearcher` owns the BM25 index, the dense index, the year column and the encoder of
one kind (papers or datasets). :meth:`KindSearcher.runs` gives each retriever's candidate list
and :meth:`KindSearcher.search` fuses them and cuts to ``k``, as the stages
``BM25Run >> DenseRun >> Fusion`` of :mod:`litsift.search.retrieval.hybrid_stages` -- the shape of
pyserini's
``HybridSearcher(dense_searcher, sparse_searcher).search(query, k0, k)``
(castorini/pyserini ``pyserini/search/hybrid/_searcher.py``). Dataset search composes one of
these with the paper searcher (:mod:`litsift.search.datasets`). While the dense part of a kind
is missing or behind its BM25 part (a background build is embedding), the searcher has no dense
index: every query of it is answered by BM25 alone, and :attr:`KindSearcher.partial` says why.
A damaged part is left out the same way (found on open, or by tantivy's error at the first
query): BM25 alone when the dense part is damaged, dense alone when the BM25 part is, with
:attr:`KindSearcher.partial` naming the damage and the fix (``litsift index``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.errors import IndexDamagedError
from litsift.search.retrieval.filters import YEAR_MISSING, allowed_mask
from litsift.search.retrieval.fusion import Fused, Run
from litsift.search.retrieval.hybrid_stages import (
    BM25Run,
    DenseRun,
    Fusion,
    Ranking,
    RocchioFeedback,
)
from litsift.search.retrieval.record_text import passage_text
from litsift.search.retrieval.rocchio import rocchio
from litsift.search.retrieval.stages import Ranked
from litsift.types import MULTI_RUN_FUSIONS, Hit, Kind, Query, Record, YearRange

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.search.build.manifest import Manifest
    from litsift.search.retrieval.retrievers import DenseRetriever, SparseRetriever

FloatVector = npt.NDArray[np.float32]

#: :attr:`KindSearcher.partial` of a searcher opened with BM25 alone while its built dense part
#: loads in the background (:mod:`litsift.search.open_searchers`)
DENSE_LOADING = "dense index loading"


class KindSearcher:
    """Hybrid search over the indexes of one kind.

    Args:
        kind: papers or datasets.
        bm25: the kind's BM25 retriever (tantivy locally, a Milvus collection:
            :mod:`litsift.search.engines.base`), or None when it is damaged: every fusion then
            degrades to dense alone.
        dense: the kind's dense retriever (hnswlib locally; ids are SQLite rowids), or None
            while it is not built yet: every fusion then degrades to BM25 alone.
        year_by_rowid: ``(n,)`` int32 year per rowid (``Store.year_by_rowid``).
        encoder: the bi-encoder that built ``dense``.
        ranking: retrieval and fusion settings.
        manifest: what the indexes were built from (None for indexes built in memory).
        partial: why this searcher answers with one retriever (e.g. ``"dense index: 1,200 /
            19,588 embedded"``); default: derived from ``manifest`` when ``dense`` is None.
        index_dir: the kind's index directory, where damage found at query time is marked.

    Attributes:
        dense_pending: True when a built, intact dense part was left unloaded
            (``open(..., load_dense=False)``): BM25 answers alone until a searcher opened with
            it takes this one's place.
    """

    def __init__(
        self,
        kind: Kind,
        bm25: SparseRetriever | None,
        dense: DenseRetriever | None,
        year_by_rowid: npt.NDArray[np.int32],
        encoder: Encoder,
        ranking: Ranking | None = None,
        manifest: Manifest | None = None,
        partial: str | None = None,
        index_dir: Path | None = None,
    ) -> None:
        if bm25 is None and dense is None:
            raise ValueError("a searcher needs a BM25 or a dense index")
        self.kind = kind
        self.bm25 = bm25
        self.dense = dense
        self.year_by_rowid = year_by_rowid
        self.encoder = encoder
        self.ranking = ranking or Ranking()
        self.manifest = manifest
        self.index_dir = index_dir
        if dense is None and partial is None:
            m = manifest
            done = m.part_count("dense") if m is not None else 0
            total = m.count if m is not None else bm25.count() if bm25 is not None else 0
            partial = f"dense index: {done:,} / {total:,} embedded"
        self.partial = None if dense is not None and bm25 is not None else partial
        self.dense_pending = False

    @classmethod
    def open(
        cls,
        index_root: Path,
        kind: Kind,
        encoder: Encoder,
        year_by_rowid: npt.NDArray[np.int32],
        ranking: Ranking | None = None,
        load_dense: bool = True,
    ) -> KindSearcher:
        """Open the built indexes of ``kind`` under ``index_root``.

        ``load_dense=False`` checks both parts but loads only BM25: a built, intact dense part
        is left for later (:attr:`dense_pending`, :data:`DENSE_LOADING` in :attr:`partial`).

        Raises:
            IndexMissingError: no index was built for ``kind``.
            IndexMismatchError: the index was built by another encoder or layout.
            IndexDamagedError: the manifest is unreadable, or both parts are damaged.

        A dense part not built yet (or behind BM25) opens as ``dense=None``: BM25 only; a
        damaged part (:func:`~litsift.search.build.index_pair.open_parts`) opens as None too, and
        :attr:`partial` says which and how to repair it.
        """
        from litsift.search.build.index_pair import open_parts
        from litsift.search.build.layout import index_dir_for

        bm25, dense, manifest, damage = open_parts(index_root, kind, encoder, load_dense)
        partial = None
        if "bm25" in damage:
            partial = _damaged_note("BM25", damage["bm25"], "dense")
        elif "dense" in damage:
            partial = _damaged_note("dense", damage["dense"], "BM25")
        pending = (
            not load_dense
            and bm25 is not None
            and "dense" in manifest.parts
            and "dense" not in damage
            and not manifest.dense_behind
        )
        if pending:
            partial = DENSE_LOADING
        directory = index_dir_for(index_root, kind)
        searcher = cls(
            kind, bm25, dense, year_by_rowid, encoder, ranking, manifest, partial, directory
        )
        searcher.dense_pending = pending
        return searcher

    # -- pieces ----------------------------------------------------------------------------
    def resolve(self, query: Query) -> Query:
        """``query`` with this searcher's defaults for unset k, k0 and fusion (the k0 rule
        applied; a query resolved by :func:`litsift.search.pipeline.resolve_query` has
        none
        unset); without a dense index the fusion is ``"bm25"``. The text is taken as given
        (cleaned once, by the pipeline). Raises QueryError for an unknown fusion or k/k0 out
        of range."""
        r = self.ranking
        query = query.with_defaults(r.k, r.k0, r.fusion)
        if self.bm25 is None:
            return replace(query, fusion="dense")
        return query if self.dense is not None else replace(query, fusion="bm25")

    def signals(self, query: Query) -> tuple[str, ...]:
        """The retrievers a search for ``query`` runs: ``("bm25", "dense")``, or one of them."""
        fusion = self.resolve(query).fusion
        return tuple(s for s in ("bm25", "dense") if fusion in (s, *MULTI_RUN_FUSIONS))

    def encode(self, text: str) -> FloatVector:
        """The query vector, ``(dim,)`` float32."""
        return np.asarray(self.encoder.encode_queries([text])[0], dtype=np.float32)

    def bm25_run(self, text: str, depth: int, years: YearRange) -> Run:
        """BM25 top ``depth`` for ``text`` as given (no query handling), year filter pushed
        down; empty without a BM25 index. A file tantivy finds damaged now (e.g. "Fst data is
        corrupted": same-size garbage in a large part, not checksummed on open) drops the BM25
        index from this searcher and marks it damaged for ``litsift index``.

        Raises:
            IndexDamagedError: the BM25 part is damaged and there is no dense index either.
        """
        if self.bm25 is None:
            return []
        try:
            return self.bm25.search(text, depth, years)
        except BaseException as err:  # tantivy raises ValueError; a Rust panic, PanicException
            if not isinstance(err, Exception) and type(err).__name__ != "PanicException":
                raise
            self._drop_bm25(str(err).splitlines()[0][:200] if str(err) else type(err).__name__)
            return []

    def _drop_bm25(self, why: str) -> None:
        from litsift.search.build.manifest import REBUILD_HINT, mark_damaged

        if self.index_dir is not None and self.manifest is not None:
            mark_damaged(self.index_dir, self.manifest, {"bm25": why})
        if self.dense is None:
            raise IndexDamagedError(
                f"the bm25 part of the {self.kind.value} index is damaged: {why}", REBUILD_HINT
            )
        self.bm25 = None
        self.partial = _damaged_note("BM25", why, "dense")

    def dense_run(self, qvec: FloatVector, depth: int, years: YearRange, prf_docs: int = 0) -> Run:
        """Dense top ``depth`` for a query vector, year filter pushed down.

        With ``prf_docs > 0`` the query vector becomes the Rocchio vector of the query and the
        top ``prf_docs`` hits (pseudo-relevance feedback: alpha 1, beta ``ranking.prf_weight``,
        gamma 0; Rocchio 1971, IIR §9.1.6) and the search runs again. Empty without a dense
        index.
        """
        if self.dense is None:
            return []
        run = self.dense.search(qvec, depth, years, self.year_by_rowid)
        if prf_docs > 0 and run:
            found, vecs = self.dense.vectors(np.asarray([d for d, _ in run[:prf_docs]]))
            if len(found):
                fb = rocchio(qvec, vecs, alpha=1.0, beta=self.ranking.prf_weight, gamma=0.0)
                run = self.dense.search(fb, depth, years, self.year_by_rowid)
        return run

    def allowed(self, years: YearRange) -> npt.NDArray[np.bool_]:
        """Bool mask over rowids: which records ``years`` keeps."""
        return allowed_mask(self.year_by_rowid, years)

    def year_of(self, rowid: int) -> int | None:
        """The indexed year of a rowid (None when it has none or is newer than the column)."""
        y = int(self.year_by_rowid[rowid]) if 0 <= rowid < len(self.year_by_rowid) else YEAR_MISSING
        return None if y == YEAR_MISSING else y

    # -- search: BM25 >> dense >> fusion -------------------------------------------------------
    def runs(
        self,
        query: Query,
        qvec: FloatVector | None = None,
        timings: dict[str, float] | None = None,
    ) -> dict[str, Run]:
        """Each retriever's candidates for ``query``: ``{"bm25": run, "dense": run}``, only
        those its fusion uses, ``candidate_depth(k0, k)`` each, best first
        (:class:`BM25Run` ``>>`` :class:`DenseRun`).

        Args:
            query: the query (unset fields take this searcher's defaults).
            qvec: the query vector when already encoded.
            timings: if given, filled with seconds spent in ``bm25``, ``encode``, ``dense``.
        """
        spent = timings if timings is not None else {}
        ranked = Ranked(self.resolve(query), qvec=qvec, timings=spent)
        return (BM25Run(self) >> DenseRun(self))(ranked).runs

    def search(
        self,
        query: Query,
        extra_runs: Mapping[str, Run] | None = None,
        weights: Mapping[str, float] | None = None,
        depth: int | None = None,
        qvec: FloatVector | None = None,
        timings: dict[str, float] | None = None,
    ) -> list[Fused]:
        """Retrieve, fuse, cut: ``BM25Run >> DenseRun >> Fusion`` over one
        :class:`~litsift.search.retrieval.stages.Ranked`.

        Args:
            query: the query; empty or whitespace-only text gives no hits.
            extra_runs: further runs fused with BM25 and dense (multi-run fusions only, e.g.
                the dataset usage run); they re-score the retrievers' candidates and never add
                one (a run over a small set would otherwise pull its unrelated top items into
                every result).
            weights: per-run fusion weights; default ``ranking.weights``.
            depth: how many fused results to keep; default the query's ``k``.
            qvec: the query vector when already encoded.
            timings: if given, filled as by :meth:`runs` plus ``fuse``.

        Returns:
            Fused results best first (docids are rowids), each with every run's score and rank.

        Raises:
            QueryError: unknown fusion or non-positive k/k0.
        """
        q = self.resolve(query)
        if not q.text.strip():
            return []
        spent = timings if timings is not None else {}
        ranked = Ranked(q, qvec=qvec, timings=spent)
        chain = BM25Run(self) >> DenseRun(self) >> Fusion(self, extra_runs, weights, depth)
        return chain(ranked).fused

    def vectors(self, rowids: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], FloatVector]:
        """Stored vectors of ``rowids`` (no re-encoding): ``(found rowids, (m, dim))``; none
        found without a dense index."""
        if self.dense is None:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.encoder.dim), dtype=np.float32)
        return self.dense.vectors(np.asarray(rowids, dtype=np.int64))

    def record_vectors(self, records: Sequence[Record]) -> FloatVector:
        """Embeddings of records, ``(n, dim)`` float32: read back from the dense index (no
        re-encoding); records missing from it are encoded from their passage text."""
        rowids = [-1 if r.rowid is None else int(r.rowid) for r in records]
        found, vecs = self.vectors(rowids)
        row_of = {int(r): i for i, r in enumerate(found)}
        out = np.zeros((len(records), self.encoder.dim), dtype=np.float32)
        missing = [i for i, rowid in enumerate(rowids) if rowid not in row_of]
        for i, rowid in enumerate(rowids):
            if rowid in row_of:
                out[i] = vecs[row_of[rowid]]
        if missing:
            texts = [passage_text(records[i]) for i in missing]
            out[missing] = self.encoder.encode_passages(texts)
        return out

    def more_like_this(
        self,
        query_text: str,
        hits: Sequence[Hit],
        kept: Sequence[Record],
        discarded: Sequence[Record] = (),
    ) -> tuple[Hit, ...]:
        """Re-rank ``hits`` by cosine to the Rocchio vector of the query, the kept records and
        the discarded ones (the :class:`RocchioFeedback` stage).

        Raises:
            ValueError: nothing to build a Rocchio vector from.
        """
        ranked = Ranked(Query(query_text, self.kind), hits=list(hits))
        return tuple(RocchioFeedback(self, kept, discarded)(ranked).hits)

    def count(self) -> int:
        """Documents in the dense index (0 while it is not built)."""
        return self.dense.count() if self.dense is not None else 0


def _damaged_note(part: str, why: str, other: str) -> str:
    """The status note of a searcher answering without its damaged ``part`` (the CLI and the
    TUI put "BM25 only — " before a note when BM25 alone answered)."""
    only = "" if other == "BM25" else f"{other} only — "
    return f"{only}{part} index damaged ({why}); run `litsift index` to rebuild it"
