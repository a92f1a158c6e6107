"""The "aspect coverage" ordering of a candidate pool (the TUI's ``o``, the eval's
``aspects`` system): records by their DORIS-MAE normalised coverage
(:meth:`litsift.search.aspects.scoring.AspectScorer.score`), blended with their fused rank."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from litsift.search.retrieval.stages import Ranked, Stage
from litsift.types import Coverage, Hit, Record

__all__ = ["AspectOrder", "coverage_order"]

T = TypeVar("T", Hit, Record)


def _doc_id(item: Hit | Record) -> str:
    return item.docid if isinstance(item, Hit) else item.id


def coverage_order(
    items: Sequence[T], coverages: Sequence[Coverage], blend: float = 0.0
) -> list[T]:
    """The "aspect coverage" ordering of a candidate pool.

    Each item covered by ``coverages`` gets
    ``key = (1 - blend)·normalised/2 + blend·(1 - (p - 1)/n)``, where ``p`` is its 1-based
    position in ``items`` (the fused ranking) and ``n = len(items)``; ties are broken by
    ``mean_combined``, then by position. Items without a coverage (beyond the scored top-k)
    follow the covered ones in their original order.

    Args:
        items: hits or records, best first.
        coverages: from :meth:`AspectScorer.score`, matched to items by doc id.
        blend: weight of the original rank in ``[0, 1]``; 0 = coverage only, 1 = unchanged.

    Returns:
        A new list with the same items.

    Raises:
        ValueError: ``blend`` outside ``[0, 1]``.
    """
    if not 0.0 <= blend <= 1.0:
        raise ValueError(f"blend must be in [0, 1], got {blend}")
    by_id = {c.doc_id: c for c in coverages}
    n = len(items)
    keyed: list[tuple[float, float, int]] = []
    rest: list[int] = []
    for p, item in enumerate(items):
        cov = by_id.get(_doc_id(item))
        if cov is None:
            rest.append(p)
            continue
        key = (1.0 - blend) * cov.normalised / 2.0 + blend * (1.0 - p / n)
        keyed.append((-round(key, 9), -cov.mean_combined, p))
    keyed.sort()
    return [items[p] for *_, p in keyed] + [items[p] for p in rest]


@dataclass(frozen=True)
class AspectOrder(Stage):
    """The "aspect coverage" order as a stage over loaded hits (:func:`coverage_order`; hits
    keep their scores and ranks, as the TUI shows them).

    Attributes:
        coverages: from :meth:`AspectScorer.score`, matched to hits by doc id.
        blend: weight of the original rank in ``[0, 1]``; 0 = coverage only.
    """

    coverages: Sequence[Coverage]
    blend: float = 0.0

    def __call__(self, ranked: Ranked) -> Ranked:
        ranked.hits = coverage_order(ranked.hits, self.coverages, self.blend)
        return ranked
