"""Ranking functions applied to loaded hits: the opt-in cross-encoder re-scoring the top. Pure
functions of their inputs; :mod:`litsift.search.pipeline` runs them as stages (full-text
passages are fused there, before the one row load).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from litsift.search.fusion import normalise
from litsift.search.text import passage_text
from litsift.types import Hit, SignalScore

__all__ = ["cross_encode"]


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
