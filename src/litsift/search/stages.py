"""Ranking stages applied to a searcher's hits: full-text passages fused in, and the opt-in
cross-encoder re-scoring the top. Pure functions of their inputs (records are loaded through a
callback), so the service only wires them (ranking logic stays out of the facade).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from litsift.search.engine import PassageSearch
from litsift.search.fusion import normalise
from litsift.search.passage_index import (
    FULLTEXT_FUSION,
    PASSAGE_GATE_RANK,
    dense_floor,
    fuse_fulltext,
    paper_run,
)
from litsift.search.text import passage_text
from litsift.types import Hit, Query, Record, SignalScore

__all__ = ["cross_encode", "with_passages"]


def with_passages(
    query: Query,
    hits: Sequence[Hit],
    index: PassageSearch,
    load: Callable[[str], Record | None],
    method: str = FULLTEXT_FUSION,
    gate: int | None = PASSAGE_GATE_RANK,
) -> list[Hit]:
    """The paper hits fused with the papers of the best full-text passages
    (:func:`litsift.search.passage_index.fuse_fulltext`), each carrying its best passage.

    A passage takes part only when it is as close to the query (dense cosine) as the
    ``gate``-th closest abstract among ``hits`` (:func:`~litsift.search.passage_index.
    dense_floor`): without it every paper with full text would enter every result list at
    its passage rank, however weak its best passage, and push down papers whose abstract
    answers the query (``benchmarks/fulltext_eval.py --known-item``). A hit still carries its
    paper's best passage when the gate kept that passage out of the ranking.

    Args:
        query: the resolved query (``k``, ``k0``, years set).
        hits: the abstract-level paper hits, best first.
        index: the passage index.
        load: a paper by id (for papers only the passages found), or None.
        method: how the two runs are combined.
        gate: the abstract rank whose dense cosine a passage must reach; None: no gate.

    Returns:
        At most ``query.k`` hits, ranks from 1; passage-only papers outside ``query.years`` are
        left out.
    """
    assert query.k is not None and query.k0 is not None
    found = index.search(query.text, k=query.k0, k0=query.k0)
    _, best = paper_run(found)  # a paper's best passage is shown even when the gate holds it
    floor = dense_floor(hits, gate) if gate is not None else None
    if floor is not None:
        found = [h for h in found if "dense" in h.signals and h.signals["dense"][0] >= floor]
    papers, ranked_by = paper_run(found)
    best.update(ranked_by)  # the passage that ranked the paper, where one did
    records: dict[str, Record | None] = {h.docid: h.record for h in hits}
    for doc_id, _ in papers:
        if doc_id not in records:
            records[doc_id] = load(doc_id)
    papers = [
        (d, s)
        for d, s in papers
        if (rec := records[d]) is not None and query.years.contains(rec.year)
    ]
    by_id = {h.docid: h for h in hits}
    fused = fuse_fulltext([(h.docid, h.score) for h in hits], papers, query.k, method)
    out: list[Hit] = []
    for f in fused:
        doc_id = str(f.docid)
        rec = records.get(doc_id)
        if rec is None:
            continue
        base = by_id.get(doc_id)
        signals = dict(base.signals) if base is not None else {}
        if "passages" in f.signals:
            signals["passages"] = f.signals["passages"]
        out.append(Hit(rec, len(out) + 1, float(f.score), signals, best.get(doc_id)))
    return out


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
