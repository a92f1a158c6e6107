"""The citation signal as a search stage: hits linked to the papers the user kept move up.

When papers are kept, the pipeline's first ``k0`` paper hits (the candidate pool) are
fused with a third run -- the pool's papers linked to kept papers, ordered by how many kept
papers each cites or is cited by (:func:`litsift.graph.signal.kept_link_counts`), pool rank
breaking ties -- by weighted reciprocal rank fusion (after
:func:`litsift.search.retrieval.fusion.rrf`): ``score(d) = 1 / (rrf_k + rank_pool(d)) + w *
s(d) / (rrf_k + rank_kept(d))``. ``s(d)`` in [0, 1] is how much the kept papers ``d`` links to
are about this query: each kept paper counts 1 in the first half of the pool's ``n`` hits,
then less, linearly, to 0 at its end (``min(1, 2 (1 - (rank - 1) / n))``), 0 outside the
pool, and ``s(d)`` is their sum, at most 1. So a paper
linked to kept papers the query also finds moves up with the full weight, and one linked to
kept papers of another topic does not jump over the query's best matches (it did: one kept
paper about a literature graph put a paper citing it, at BM25 rank 61 and dense rank 53, first
for "word embeddings", above the hit first in both). A moved hit carries the signal ``kept``
(score: its link count k, rank: its rank in the linked run), which the detail pane explains as
"linked to k kept papers". Kept papers themselves stay at the rank the search gave them
(searching for a kept paper still finds it first); the other hits are fused around them.

With nothing kept, for datasets and for a pool with no linked paper, the inner searcher's
answer is returned unchanged (same hits, scores and ranks). Measured on the screening sets with
references (``benchmarks/citation_search.py``; docs/EVALUATION.md, "Citations"): there every
kept paper is on the query's topic, and the gate costs 1.9 points of R@20 and 2.8 of nDCG@10
against the ungated signal (test seeds: 23.0 / 35.0 against 24.9 / 37.8; search alone 15.4 /
24.9), the price of not reordering off-topic searches.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from litsift.search.retrieval.stages import Ranked, Stage
from litsift.types import Hit, Kind, Label, Query, SignalScore

if TYPE_CHECKING:
    from litsift.store import Store

__all__ = ["KEPT_SIGNAL", "CitationStage", "fuse_kept_links", "kept_strength"]

#: the hit signal this stage adds
KEPT_SIGNAL = "kept"


def fuse_kept_links(
    order: Sequence[str],
    links: Mapping[str, int],
    weight: float,
    rrf_k: int = 60,
    strength: Mapping[str, float] | None = None,
) -> list[tuple[str, float, SignalScore | None]]:
    """Weighted RRF of a ranked pool and the pool's linked papers ordered by link count.

    Args:
        order: the pool's doc ids, best first.
        links: ``{doc id: k}`` for the linked ones (k > 0); ids outside ``order`` are ignored.
        weight: the linked run's RRF weight (the pool's is 1).
        rrf_k: the RRF constant.
        strength: ``{doc id: s}`` in [0, 1], multiplying ``weight`` for that hit (the module
            docstring); None: 1 for every linked hit. A hit of strength 0 is not in the run.

    Returns:
        ``[(doc id, fused score, SignalScore(k, rank in the linked run) or None)]`` for every
        id of ``order``, best first (ties by pool rank).
    """
    pool_rank = {d: i for i, d in enumerate(order)}
    power = {d: 1.0 if strength is None else min(1.0, strength.get(d, 0.0)) for d in links}
    linked = sorted(
        (d for d in links if d in pool_rank and power[d] > 0),
        key=lambda d: (-links[d], pool_rank[d]),
    )
    kept_rank = {d: i for i, d in enumerate(linked, start=1)}
    scored = []
    for d in order:
        score = 1.0 / (rrf_k + pool_rank[d] + 1)
        sig = None
        if d in kept_rank:
            score += weight * power[d] / (rrf_k + kept_rank[d])
            sig = SignalScore(float(links[d]), kept_rank[d])
        scored.append((d, score, sig))
    scored.sort(key=lambda t: (-t[1], pool_rank[t[0]]))
    return scored


#: the share of the pool in which a kept paper counts in full (:func:`kept_strength`)
KEPT_FULL_SHARE = 0.5


def kept_strength(
    pool: Sequence[str], links: Mapping[str, set[str]], full: float | None = None
) -> dict[str, float]:
    """``{doc id: s}``: how much the kept papers each hit links to are about the query (the
    module docstring): the sum over them of ``1 - (rank - 1) / n`` at their rank in ``pool``
    (n hits; 0 outside it), at most 1. With ``full`` (default :data:`KEPT_FULL_SHARE`) > 0,
    a kept paper in the pool's first ``full`` share counts 1 and the rest fall linearly to
    0 at its end."""
    n, full = len(pool), KEPT_FULL_SHARE if full is None else full
    near = {d: min(1.0, (1.0 - i / n) / (1.0 - full)) for i, d in enumerate(pool)}
    return {d: min(1.0, sum(near.get(q, 0.0) for q in kept)) for d, kept in links.items()}


@dataclass
class CitationStage(Stage):
    """Fuse the citation signal into paper searches while papers are kept (module docstring).
    While papers are kept it widens the pool to ``max(k, k0)`` hits (:meth:`pool`), fuses
    them and keeps the first :attr:`Ranked.k`.

    Attributes:
        store: where the labels and the citation edges are read.
        weight: the linked run's RRF weight (``[search] citation_weight``).
        rrf_k: the RRF constant.
    """

    store: Store
    weight: float
    rrf_k: int = 60

    def _kept(self) -> list[str]:
        from litsift.store.triage import Triage

        return Triage(self.store).ids_with_label(Kind.PAPER, Label.KEEP)

    def pool(self, query: Query) -> Query:
        """The candidate pool: ``max(k, k0)`` hits while papers are kept."""
        if query.kind is not Kind.PAPER or not self._kept():
            return query
        assert query.k is not None and query.k0 is not None
        return replace(query, k=max(query.k, query.k0))

    def __call__(self, ranked: Ranked) -> Ranked:
        query = ranked.query
        kept = self._kept() if query.kind is Kind.PAPER else []
        if not kept:
            return ranked
        from litsift.graph.signal import kept_links

        assert query.k is not None
        k = ranked.k if ranked.k is not None else query.k
        t = time.perf_counter()
        pool = [h.docid for h in ranked.hits]
        near = kept_links(self.store, pool, kept)
        strength = kept_strength(pool, near)
        kept_set = set(kept)
        by_id: dict[str, Hit] = {h.docid: h for h in ranked.hits}
        others = [d for d in by_id if d not in kept_set]
        linked = {d: len(q) for d, q in near.items() if d not in kept_set and strength[d] > 0}
        if linked:
            fused = iter(fuse_kept_links(others, linked, self.weight, self.rrf_k, strength))
            # kept papers stay where the search put them; the others fill the remaining ranks
            order = [
                (h.docid, -1.0, None) if h.docid in kept_set else next(fused) for h in ranked.hits
            ]
            hits = []
            for rank, (doc_id, score, sig) in enumerate(order[:k], start=1):
                hit = by_id[doc_id]
                signals = dict(hit.signals)
                if sig is not None:
                    signals[KEPT_SIGNAL] = sig
                if score < 0:  # a kept paper: the fused score of the hit after it
                    later = [s for _, s, _ in order[rank:] if s >= 0]
                    score = later[0] if later else 0.0
                hits.append(replace(hit, rank=rank, score=score, signals=signals))
            ranked.hits = hits
            ranked.signals_used = (*ranked.signals_used, KEPT_SIGNAL)
        else:
            ranked.hits = ranked.hits[:k]
        ranked.timings[KEPT_SIGNAL] = time.perf_counter() - t
        return ranked
