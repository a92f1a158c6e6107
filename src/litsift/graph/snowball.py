"""Snowballing (Wohlin 2014, "Guidelines for snowballing in systematic literature studies",
EASE): from a start set of included papers, screen their references (backward) and the
papers citing them (forward); the included ones join the start set; repeat until a round
brings nothing new.

:func:`snowball` runs it inside one record set (a review's search results), with the set's
labels standing in for the reviewer: what ``litsift eval snowball`` measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["SnowballRun", "set_graph", "snowball"]


def set_graph(work_ids: Sequence[str], references: Sequence[Sequence[str]]) -> nx.DiGraph:
    """The citation graph of a record set: node ``i`` (int) is row ``i``; an edge ``i -> j``
    when row ``i`` cites row ``j``'s work, ``i -> "openalex:W.."`` for a work outside the set.

    Args:
        work_ids: ``(N,)`` each row's work id (OpenAlex ``W123``; ``""`` when unknown).
        references: ``(N,)`` the work ids each row cites.
    """
    import networkx as nx

    row_of = {w: i for i, w in enumerate(work_ids) if w}
    g: nx.DiGraph = nx.DiGraph()
    g.add_nodes_from(range(len(work_ids)))
    for i, refs in enumerate(references):
        for w in refs:
            j = row_of.get(w)
            if j is None:
                g.add_edge(i, f"openalex:{w}")
            elif j != i:
                g.add_edge(i, j)
    return g


@dataclass(frozen=True)
class SnowballRun:
    """One snowball from a start set.

    Attributes:
        start: the start set's rows (included records the reviewer already has).
        rounds: rounds until a round found no new included record.
        screened: records screened in the rounds (the start set not counted).
        found: included records found in the rounds (the start set not counted).
        recall: ``(len(start) + found) / included`` -- the share of the set's included records
            the reviewer holds at the end.
        screened_frac: ``(len(start) + screened) / N`` -- the share of the set's records read.
    """

    start: tuple[int, ...]
    rounds: int
    screened: int
    found: int
    recall: float
    screened_frac: float


def snowball(g: nx.DiGraph, labels: npt.NDArray[np.integer], start: Sequence[int]) -> SnowballRun:
    """Backward + forward snowballing inside the set (int nodes of ``g``) from ``start``.

    Each round screens every record that a newly included record cites or is cited by and
    that nobody screened before; the included ones among them seed the next round.

    Raises:
        ValueError: a start row is not an included record.
    """
    if any(not labels[i] for i in start):
        raise ValueError("snowball start rows must be included records")
    seen = set(start)
    frontier = list(start)
    rounds = screened = found = 0
    while frontier:
        rounds += 1
        candidates = set()
        for node in frontier:
            for other in (*g.successors(node), *g.predecessors(node)):
                if isinstance(other, int) and other not in seen:
                    candidates.add(other)
        seen |= candidates
        screened += len(candidates)
        frontier = sorted(c for c in candidates if labels[c])
        found += len(frontier)
    n_incl = int(np.count_nonzero(labels))
    return SnowballRun(
        tuple(start),
        rounds,
        screened,
        found,
        (len(start) + found) / n_incl,
        (len(start) + screened) / labels.size,
    )
