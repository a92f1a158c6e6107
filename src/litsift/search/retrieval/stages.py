"""Ranking over loaded hits: what a hit-level searcher returns (:class:`Ranked`,
:class:`HitSearcher`) and the opt-in cross-encoder re-scoring the top (pure functions of their
inputs). :mod:`litsift.search.pipeline` runs them as stages (full-text passages are fused
there, before the one row load).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np
import numpy.typing as npt

from litsift.search.retrieval.fusion import normalise
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Hit, Query, SignalScore

__all__ = ["HitSearcher", "Ranked", "cross_encode"]


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


@dataclass
class Ranked:
    """What a hit-level searcher returns for one resolved query.

    Attributes:
        hits: best first, ranks from 1.
        signals_used: the retrievers and stages that ran (``("bm25", "dense", "passages")``).
        partial: why the answer is less than the full hybrid (None when it is not).
        timings: seconds per step (``bm25``, ``encode``, ``dense``, ``fuse``, ``passages``,
            ``load``, ``cross_encoder``, ... those that ran).
    """

    hits: list[Hit]
    signals_used: tuple[str, ...]
    partial: str | None = None
    timings: dict[str, float] = field(default_factory=dict)


class HitSearcher(Protocol):
    """A searcher that returns loaded hits: :class:`Retrieval`, or a stage over one."""

    def search(self, query: Query) -> Ranked:
        """The hits of a resolved ``query`` (``k``, ``k0`` and fusion set)."""
        ...
