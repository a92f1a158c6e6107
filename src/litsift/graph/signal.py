"""The citation signal: how a candidate paper is linked to the papers a user kept.

For a candidate ``c`` and the kept set ``K`` in a citation graph (``citing -> cited``):

* ``linked`` (k) -- kept papers ``c`` cites or is cited by: ``|(succ(c) ∪ pred(c)) ∩ K|``;
* ``coupling`` -- bibliographic coupling (Kessler 1963, "Bibliographic coupling between
  scientific papers", American Documentation 14(1)): references ``c`` shares with kept papers,
  summed over them, ``Σ_{k∈K} |succ(c) ∩ succ(k)|``;
* ``cocitation`` -- co-citation (Small 1973, "Co-citation in the scientific literature", JASIS
  24(4)): papers citing both ``c`` and a kept paper, summed, ``Σ_{k∈K} |pred(c) ∩ pred(k)|``.

:func:`citation_signal` answers for a few candidates (the detail pane, a snowball round) on a
``networkx.DiGraph`` (:func:`litsift.store.citations.graph`). :class:`SignalFeatures` gives the
same three counts for every record of a set at once (sparse matrix products), as the features
the screening learner retrains on after each decision.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

if TYPE_CHECKING:
    import networkx as nx

    from litsift.store.repo import Store

__all__ = [
    "CitationSignal",
    "SignalFeatures",
    "citation_signal",
    "kept_link_counts",
    "kept_links",
    "stored_signal",
]


@dataclass(frozen=True)
class CitationSignal:
    """The three counts of one candidate (see the module docstring)."""

    linked: int
    coupling: int
    cocitation: int


def citation_signal(
    g: nx.DiGraph, candidates: Iterable[Hashable], kept: Iterable[Hashable]
) -> dict[Hashable, CitationSignal]:
    """The citation signal of each candidate towards ``kept`` (nodes absent from ``g`` count 0).

    A kept paper does not count towards itself when it is also a candidate.
    """
    kept_set = {k for k in kept if k in g}
    kept_refs = {k: set(g.successors(k)) for k in kept_set}
    kept_citers = {k: set(g.predecessors(k)) for k in kept_set}
    out: dict[Hashable, CitationSignal] = {}
    for c in candidates:
        if c not in g:
            out[c] = CitationSignal(0, 0, 0)
            continue
        refs, citers = set(g.successors(c)), set(g.predecessors(c))
        others = kept_set - {c}
        out[c] = CitationSignal(
            linked=len((refs | citers) & others),
            coupling=sum(len(refs & kept_refs[k]) for k in others),
            cocitation=sum(len(citers & kept_citers[k]) for k in others),
        )
    return out


def stored_signal(
    store: Store, candidates: Collection[str], kept: Collection[str]
) -> dict[str, CitationSignal]:
    """:func:`citation_signal` of stored papers (ids) towards kept ones, on the store's edges
    (:func:`litsift.store.citations.graph` one step out from both sets, which holds every
    reference and citing paper the three counts read)."""
    from litsift.store.repositories import Citations

    g = Citations(store).graph([*candidates, *kept])
    return {str(k): v for k, v in citation_signal(g, candidates, kept).items()}


def kept_link_counts(
    store: Store, candidates: Collection[str], kept: Collection[str]
) -> dict[str, int]:
    """``linked`` (k) of each candidate towards ``kept`` read straight from the store's edges:
    the distinct kept papers it cites or is cited by, itself not counted. The same count as
    :func:`stored_signal`'s ``linked`` without building a graph: one indexed query that reads
    only the edges between the two sets (both passed as JSON arrays, so any size fits).

    Returns:
        ``{candidate id: k}`` for the candidates with ``k > 0`` only.
    """
    return {c: len(linked) for c, linked in kept_links(store, candidates, kept).items()}


def kept_links(
    store: Store, candidates: Collection[str], kept: Collection[str]
) -> dict[str, set[str]]:
    """The kept papers each candidate cites or is cited by (itself not counted), in candidate
    order; candidates with none are left out (:func:`kept_link_counts` counts them)."""
    if not kept or not candidates:
        return {}
    from litsift.store.repositories import Citations

    wanted = list(dict.fromkeys(candidates))
    rows = Citations(store).links_between(wanted, list(kept))
    near: dict[str, set[str]] = {}
    for c, other in rows:
        if other != c:
            near.setdefault(str(c), set()).add(str(other))
    return {c: near[c] for c in wanted if c in near}


class SignalFeatures:
    """The citation signal of every record of a set towards a changing kept set.

    Built once from the graph; :meth:`matrix` then costs three sparse matrix-vector products.

    Args:
        g: the citation graph; nodes not in ``records`` are external works (references
            outside the set), which count for coupling.
        records: the set's nodes, in row order.
    """

    def __init__(self, g: nx.DiGraph, records: Sequence[Hashable]) -> None:
        import networkx as nx

        n = len(records)
        inside = set(records)
        externals = [v for v in g.nodes if v not in inside]
        adj = sp.csr_matrix(
            nx.to_scipy_sparse_array(g, nodelist=[*records, *externals], dtype=np.float32)
        )
        within = adj[:n, :n]
        self.linked = _no_diagonal(((within + within.T) > 0).astype(np.float32))
        refs = adj[:n]  # each record's references, inside and outside the set
        self.coupling = _no_diagonal(refs @ refs.T)
        citers = adj[:, :n]  # who cites each record (only records cite: externals have no refs)
        self.cocitation = _no_diagonal(citers.T @ citers)

    def permuted(self, perm: npt.NDArray[np.int64]) -> SignalFeatures:
        """The same features with rows (and kept flags) in ``perm`` order."""
        other = object.__new__(SignalFeatures)
        for name in ("linked", "coupling", "cocitation"):
            m: sp.csr_matrix = getattr(self, name)
            setattr(other, name, sp.csr_matrix(m[perm][:, perm]))
        return other

    def counts(self, kept: npt.NDArray[np.bool_]) -> npt.NDArray[np.float32]:
        """``(N, 3)`` float32: linked, coupling and co-citation counts of every row towards the
        rows flagged in ``kept`` (``(N,)`` bool)."""
        v = kept.astype(np.float32)
        cols = [m @ v for m in (self.linked, self.coupling, self.cocitation)]
        return np.stack(cols, axis=1).astype(np.float32)

    def matrix(self, kept: npt.NDArray[np.bool_]) -> npt.NDArray[np.float32]:
        """``(N, 3)`` float32 features for the learner: ``log1p`` of :meth:`counts`, each column
        divided by its maximum (0..1, like the TF-IDF rows' scale)."""
        x = np.log1p(self.counts(kept))
        top = x.max(axis=0)
        return np.asarray(x / np.where(top > 0, top, 1.0), dtype=np.float32)


def _no_diagonal(m: sp.spmatrix) -> sp.csr_matrix:
    out = sp.csr_matrix(m, dtype=np.float32)
    out.setdiag(0)
    out.eliminate_zeros()
    return out
