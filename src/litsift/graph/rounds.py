"""One snowball step over the citation graph (Wohlin 2014: backward + forward snowballing).

Candidates are the references and citing works of the kept papers that carry no label yet.
Each is ranked by

* ``links`` -- how many kept papers cite it or are cited by it (the first criterion: a work
  linked to more of what the user kept is more likely to belong);
* bibliographic coupling (Kessler 1963) -- references it shares with the kept papers;
* co-citation (Small 1973) -- works that cite both it and a kept paper
  (the three counts are :func:`litsift.graph.signal.citation_signal`);
* its hybrid relevance to the current query (given by the caller, in [0, 1]);

as ``score = links + mean(coupling, co-citation, relevance each scaled to [0, 1] by the
round's largest)``, so the three lesser signals order works with the same number of links and
never outweigh one more link. Ties break on the key (deterministic).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from litsift.types.citations import Neighbour, SnowballCandidate

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["candidates_of", "rank_candidates"]


def candidates_of(g: nx.DiGraph, kept: Collection[str], exclude: Collection[str]) -> set[str]:
    """The works one edge away from ``kept`` (either direction), minus ``kept`` and
    ``exclude`` (the already labelled)."""
    out: set[str] = set()
    for k in kept:
        if k in g:
            out.update(g.successors(k))
            out.update(g.predecessors(k))
    return out - set(kept) - set(exclude)


def rank_candidates(
    g: nx.DiGraph,
    kept: Collection[str],
    exclude: Collection[str] = (),
    relevance: Mapping[str, float] | None = None,
) -> list[SnowballCandidate]:
    """Rank the snowball candidates of ``kept`` (see the module docstring).

    Args:
        g: citation graph, an edge ``citing -> cited`` per citation; it must hold the edges of
            the kept papers and of the candidates (for coupling / co-citation).
        kept: ids of the kept papers (the seeds).
        exclude: ids never proposed (labelled already).
        relevance: key -> hybrid relevance to the query in [0, 1]; missing keys count 0.

    Returns:
        Candidates, best first; their ``neighbour`` holds only the key (callers fill in the
        title, year and label).
    """
    from litsift.graph.signal import citation_signal

    kept_set = {k for k in kept if k in g}
    rel = relevance or {}
    found = sorted(candidates_of(g, kept_set, exclude))
    signal = citation_signal(g, found, kept_set)
    raw: list[tuple[str, int, int, int, float]] = [
        (
            c,
            signal[c].linked,
            signal[c].coupling,
            signal[c].cocitation,
            max(0.0, min(1.0, rel.get(c, 0.0))),
        )
        for c in found
    ]
    top_coupling = max((r[2] for r in raw), default=0) or 1
    top_cocitation = max((r[3] for r in raw), default=0) or 1
    top_rel = max((r[4] for r in raw), default=0.0) or 1.0
    ranked = [
        SnowballCandidate(
            Neighbour(c),
            links,
            coupling,
            cocitation,
            relevance,
            links
            + (coupling / top_coupling + cocitation / top_cocitation + relevance / top_rel) / 3,
        )
        for c, links, coupling, cocitation, relevance in raw
    ]
    ranked.sort(key=lambda s: (-s.score, s.neighbour.key))
    return ranked
