"""Retrieval as stages of one ranked-results type (issue 41, item 5): :class:`Ranked`, the
:class:`Stage` s that fill and re-rank it, composed with ``>>`` into a :class:`Chain`
(pyterrier's ``retriever >> reranker``, terrier-org/pyterrier ``pyterrier/transformer.py``),
and the opt-in cross-encoder re-scoring the top (:func:`cross_encode`, a pure function).

The stages: BM25, dense and fusion (:mod:`litsift.search.kind_searcher`), the kind's retrieval,
full-text passages and the row load (:mod:`litsift.search.pipeline`), the cross-encoder
(:class:`CrossEncoderStage`), the citation signal
(:mod:`litsift.search.retrieval.citation_stage`), Rocchio feedback
(:mod:`litsift.search.retrieval.rocchio`) and the aspect order
(:mod:`litsift.search.aspects.coverage`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.search.retrieval.fusion import normalise
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Hit, Kind, Passage, Query, SignalScore

if TYPE_CHECKING:
    from litsift.search.retrieval.fusion import Fused, Run

__all__ = [
    "Candidate",
    "Chain",
    "CrossEncoderStage",
    "Cut",
    "Ranked",
    "Stage",
    "cross_encode",
]


def cross_encode(
    text: str,
    hits: Sequence[Hit],
    top: int,
    weight: float,
    score: Callable[[str, Sequence[str]], npt.NDArray[np.float32]],
) -> list[Hit]:
    """Re-score the first ``top`` hits: ``(1 - weight)·minmax(first-stage score) +
    weight·minmax(cross-encoder logit)``; the rest keep their order after them.

    Args:
        text: the query.
        hits: best first.
        top: how many to re-score.
        weight: the cross-encoder's share, in [0, 1].
        score: ``score(query, passages)`` -> logits (e.g. ``CrossEncoder.score``); a hit's
            passage is its full-text passage when it has one, else its record's text.

    Returns:
        All hits, ranks from 1; re-scored ones carry a ``cross_encoder`` signal (logit, rank
        among them).
    """
    head, rest = list(hits[:top]), list(hits[top:])
    if len(head) < 2:
        return list(hits)
    bodies = [h.passage.text if h.passage is not None else passage_text(h.record) for h in head]
    logits = np.asarray(score(text, bodies), dtype=np.float32)
    first = normalise([h.score for h in head], "minmax")
    second = normalise([float(x) for x in logits], "minmax")
    fused = (1.0 - weight) * first + weight * second
    order = sorted(range(len(head)), key=lambda i: (-fused[i], i))
    ce_rank = {int(i): r for r, i in enumerate(np.argsort(-logits, kind="stable"), start=1)}
    out = [
        replace(
            head[i],
            rank=rank,
            score=float(fused[i]),
            signals={**head[i].signals, "cross_encoder": SignalScore(float(logits[i]), ce_rank[i])},
        )
        for rank, i in enumerate(order, start=1)
    ]
    return out + [replace(h, rank=len(head) + i) for i, h in enumerate(rest, start=1)]


#: a fused candidate before its row is loaded: ``(rowid, score, {signal: (score, rank)})``
Candidate = tuple[int, float, Mapping[str, SignalScore]]


@dataclass
class Ranked:
    """The one ranked-results type every stage of a search takes and returns.

    As pyterrier composes ``retriever >> reranker`` over one frame of results, a litsift search
    is a :class:`Chain` of :class:`Stage` s over one ``Ranked``, filled as they run: the
    retrievers add ``runs`` (BM25, dense, the dataset usage run), fusion sets ``fused``, the
    kind's retrieval turns them into ``candidates`` (rowids, no row read yet; full-text
    passages are fused in there), the row load sets ``hits``, and the hit stages (cross-encoder,
    citations, Rocchio feedback, aspect order) re-rank ``hits``.

    Attributes:
        query: the resolved query; its ``k`` is the depth the stages keep (a stage that needs a
            deeper pool widens it with :meth:`Stage.pool`; the chain's last stage cuts back).
        k: the hits asked for (the query's ``k`` before a stage widened the pool); None: as
            ``query.k``.
        qvec: the query vector, once encoded (``(dim,)`` float32), else None.
        runs: each retriever's ``(docid, score)`` best first, by name (``bm25``, ``dense``, ...).
        fused: the runs fused and cut (:class:`~litsift.search.retrieval.fusion.Fused`, rowids).
        candidates: ``(rowid, score, signals)`` best first, before their rows are loaded.
        passages: the best full-text passage of a rowid, where it has one.
        hits: best first, ranks from 1, once loaded.
        signals_used: the retrievers and stages that ran (``("bm25", "dense", "passages")``).
        partial: why the answer is less than the full hybrid (None when it is not).
        timings: seconds per step (``bm25``, ``encode``, ``dense``, ``fuse``, ``passages``,
            ``load``, ``cross_encoder``, ... those that ran).
    """

    query: Query
    k: int | None = None
    qvec: npt.NDArray[np.float32] | None = None
    runs: dict[str, Run] = field(default_factory=dict)
    fused: list[Fused] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    passages: dict[int, Passage] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)
    signals_used: tuple[str, ...] = ()
    partial: str | None = None
    timings: dict[str, float] = field(default_factory=dict)

    def note(self, why: str) -> None:
        """Add ``why`` to :attr:`partial` (``"; "``-joined)."""
        self.partial = "; ".join(n for n in (self.partial, why) if n)


class Stage:
    """One step of a ranking: ``stage(ranked) -> ranked``; ``a >> b`` runs ``a``, then ``b``
    (pyterrier's ``>>``). A stage changes the fields it owns and passes the rest through."""

    def __call__(self, ranked: Ranked) -> Ranked:
        raise NotImplementedError

    def pool(self, query: Query) -> Query:
        """``query`` with the candidate depth this stage needs (default: unchanged)."""
        return query

    def __rshift__(self, other: Stage) -> Chain:
        return Chain((*_parts(self), *_parts(other)))


def _parts(stage: Stage) -> tuple[Stage, ...]:
    return stage.stages if isinstance(stage, Chain) else (stage,)


@dataclass(frozen=True)
class Chain(Stage):
    """Stages run in order over one :class:`Ranked`; :meth:`pool` asks each in turn."""

    stages: tuple[Stage, ...]

    def __call__(self, ranked: Ranked) -> Ranked:
        for stage in self.stages:
            ranked = stage(ranked)
        return ranked

    def pool(self, query: Query) -> Query:
        for stage in self.stages:
            query = stage.pool(query)
        return query


@dataclass(frozen=True)
class Cut(Stage):
    """Keep the first :attr:`Ranked.k` hits (the depth asked before a stage widened the
    pool); the last stage of a chain."""

    def __call__(self, ranked: Ranked) -> Ranked:
        if ranked.k is not None:
            ranked.hits = ranked.hits[: ranked.k]
        return ranked


@dataclass
class CrossEncoderStage(Stage):
    """Re-score the top ``top`` paper hits with a cross-encoder (:func:`cross_encode`); other
    kinds and single hits pass through.

    Attributes:
        top: how many hits are re-scored.
        weight: the cross-encoder's share in [0, 1].
        score: ``score(query, passages) -> (n,) float32 logits``; default the packaged
            cross-encoder (:func:`litsift.models_onnx.cross_encoder.load_cross_encoder`,
            loaded on the first re-scored query; raises ModelNotBuiltError without it).
    """

    top: int
    weight: float
    score: Callable[[str, Sequence[str]], npt.NDArray[np.float32]] | None = None

    def __call__(self, ranked: Ranked) -> Ranked:
        if ranked.query.kind is not Kind.PAPER or len(ranked.hits) < 2:
            return ranked
        t = time.perf_counter()
        score = self.score
        if score is None:
            from litsift.models_onnx.cross_encoder import load_cross_encoder

            score = load_cross_encoder().score  # one per process
        ranked.hits = cross_encode(ranked.query.text, ranked.hits, self.top, self.weight, score)
        ranked.timings["cross_encoder"] = time.perf_counter() - t
        ranked.signals_used = (*ranked.signals_used, "cross_encoder")
        return ranked
