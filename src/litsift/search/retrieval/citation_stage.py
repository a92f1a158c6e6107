"""The citation signal as a search stage: hits linked to the papers the user kept move up.

When papers are kept, the pipeline's first ``k0`` paper hits (the candidate pool) are
fused with a third run -- the pool's papers linked to kept papers, ordered by how many kept
papers each cites or is cited by (:func:`litsift.graph.signal.kept_link_counts`), pool rank
breaking ties -- by weighted reciprocal rank fusion (:func:`litsift.search.retrieval.fusion.rrf`):
``score(d) = 1 / (rrf_k + rank_pool(d)) + w / (rrf_k + rank_kept(d))``. A moved hit carries the
signal ``kept`` (score: its link count k, rank: its rank in the linked run), which the detail
pane explains as "linked to k kept papers". Kept papers themselves stay at the rank the search
gave them (searching for a kept paper still finds it first); the other hits are fused around
them.

With nothing kept, for datasets and for a pool with no linked paper, the inner searcher's
answer is returned unchanged (same hits, scores and ranks). Measured on the screening sets with
references (``benchmarks/citation_search.py``; docs/EVALUATION.md, "Citations").
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from litsift.search.retrieval.fusion import rrf
from litsift.search.retrieval.stages import Ranked, Stage
from litsift.types import Hit, Kind, Label, Query, SignalScore

if TYPE_CHECKING:
    from litsift.store import Store

__all__ = ["KEPT_SIGNAL", "CitationStage", "fuse_kept_links"]

#: the hit signal this stage adds
KEPT_SIGNAL = "kept"


def fuse_kept_links(
    order: Sequence[str], links: Mapping[str, int], weight: float, rrf_k: int = 60
) -> list[tuple[str, float, SignalScore | None]]:
    """Weighted RRF of a ranked pool and the pool's linked papers ordered by link count.

    Args:
        order: the pool's doc ids, best first.
        links: ``{doc id: k}`` for the linked ones (k > 0); ids outside ``order`` are ignored.
        weight: the linked run's RRF weight (the pool's is 1).
        rrf_k: the RRF constant.

    Returns:
        ``[(doc id, fused score, SignalScore(k, rank in the linked run) or None)]`` for every
        id of ``order``, best first (ties by doc id).
    """
    pool_rank = {d: i for i, d in enumerate(order)}
    linked = sorted((d for d in links if d in pool_rank), key=lambda d: (-links[d], pool_rank[d]))
    runs = {
        "pool": [(d, 0.0) for d in order],
        KEPT_SIGNAL: [(d, float(links[d])) for d in linked],
    }
    fused = rrf(runs, k=rrf_k, weights={KEPT_SIGNAL: weight})
    return [(str(f.docid), f.score, f.signals.get(KEPT_SIGNAL)) for f in fused]


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
        from litsift.graph.signal import kept_link_counts

        assert query.k is not None
        k = ranked.k if ranked.k is not None else query.k
        t = time.perf_counter()
        links = kept_link_counts(self.store, [h.docid for h in ranked.hits], kept)
        kept_set = set(kept)
        by_id: dict[str, Hit] = {h.docid: h for h in ranked.hits}
        others = [d for d in by_id if d not in kept_set]
        linked = {d: n for d, n in links.items() if d not in kept_set}
        if linked:
            fused = iter(fuse_kept_links(others, linked, self.weight, self.rrf_k))
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
