"""Records of the citation trail that cross the service boundary (TUI <-> service).

A *neighbour* is one end of a citation edge seen from a paper: a stored paper (``stored`` True,
``key`` its record id) or a work known only by an external key (``doi:…``, ``openalex:W…``)
that ``litsift refs fetch`` can bring in. A *snowball candidate* is a neighbour of the kept
papers, with the evidence it was ranked by. A dataset's *users* are the stored papers whose
title or abstract names it (the count behind the dataset search's popularity signal).
"""

from __future__ import annotations

from dataclasses import dataclass

from litsift.types.core import Label, Paper

__all__ = [
    "DatasetUsers",
    "KeptLinks",
    "Neighbour",
    "Neighbours",
    "SnowballCandidate",
    "SnowballRound",
    "TrailFetch",
]


@dataclass(frozen=True)
class Neighbour:
    """One cited or citing work of a paper.

    Attributes:
        key: the stored paper's id, or the external key of a work not stored.
        title: its title; for a work not stored, the title the reference came with (a
            GROBID or PDF reference list: :func:`litsift.store.citations.labels`),
            else ''.
        year: its publication year, if known.
        stored: True when ``key`` is a stored paper.
        label: the triage label of a stored paper.
    """

    key: str
    title: str = ""
    year: int | None = None
    stored: bool = False
    label: Label | None = None

    @property
    def display_title(self) -> str:
        return self.title or f"(not stored) {self.key}"


@dataclass(frozen=True)
class Neighbours:
    """A paper's references (works it cites) and citing works, stored ones first."""

    doc_id: str
    title: str
    references: tuple[Neighbour, ...] = ()
    cited_by: tuple[Neighbour, ...] = ()


@dataclass(frozen=True)
class TrailFetch:
    """What one ``F`` of the citations screen fetched (:meth:`RefsService.fetch_trail`).

    Attributes:
        added: citation edges added to the store.
        cached: every walk had been fetched before, so nothing was asked of the services
            (walked again only with ``refresh``: new citing works since).
    """

    added: int
    cached: bool = False


@dataclass(frozen=True)
class SnowballCandidate:
    """A work linked to the kept papers, with why it ranks where it does.

    Attributes:
        neighbour: the work.
        links: how many kept papers cite it or are cited by it.
        coupling: references it shares with the kept papers (bibliographic coupling, Kessler
            1963), summed over them.
        cocitation: works citing both it and a kept paper (co-citation, Small 1973), summed.
        relevance: its hybrid relevance to the query in [0, 1] (0 without a query, or when
            the search did not return it).
        score: ``links`` + the mean of the three evidences above, each scaled to [0, 1] by its
            largest value among the round's candidates (so one more link always ranks higher).
    """

    neighbour: Neighbour
    links: int
    coupling: int = 0
    cocitation: int = 0
    relevance: float = 0.0
    score: float = 0.0

    def why(self) -> str:
        """The evidence in words, e.g. ``linked to 2 kept · coupling 5 · co-cited 1``."""
        parts = [f"linked to {self.links} kept"]
        if self.coupling:
            parts.append(f"coupling {self.coupling}")
        if self.cocitation:
            parts.append(f"co-cited {self.cocitation}")
        if self.relevance:
            parts.append(f"relevance {self.relevance:.2f}")
        return " · ".join(parts)


@dataclass(frozen=True)
class SnowballRound:
    """One snowball step: the kept seeds it started from and the ranked new candidates
    (every neighbour of a kept paper that carries no label yet). Empty ``candidates``: nothing
    new -- the snowballing is done for the stored edges."""

    seeds: int
    candidates: tuple[SnowballCandidate, ...] = ()


@dataclass(frozen=True)
class KeptLinks:
    """How one paper is linked to the papers the user kept: the third explainable signal.

    Attributes:
        doc_id: the paper.
        kept: how many papers are kept (the paper itself not counted).
        cites: the kept papers it cites (stored, newest first).
        cited_by: the kept papers citing it (stored, newest first).
    """

    doc_id: str
    kept: int = 0
    cites: tuple[Neighbour, ...] = ()
    cited_by: tuple[Neighbour, ...] = ()

    @property
    def linked(self) -> int:
        """k: the kept papers it cites or is cited by (one that does both counts once)."""
        return len({n.key for n in (*self.cites, *self.cited_by)})

    def why(self) -> str:
        """The signal in words, e.g. ``linked to 2 of your 5 kept papers (cites 1 · cited by
        1)``; '' when it is linked to none."""
        if not self.linked:
            return ""
        noun = "paper" if self.kept == 1 else "papers"
        return (
            f"linked to {self.linked} of your {self.kept} kept {noun} "
            f"(cites {len(self.cites)} · cited by {len(self.cited_by)})"
        )


@dataclass(frozen=True)
class DatasetUsers:
    """The stored papers that name a dataset (its title or abstract holds the dataset's name or
    an alias: :func:`litsift.search.datasets.popularity.count_mentions`).

    Attributes:
        doc_id: the dataset.
        total: how many papers name it, published up to ``max_year`` (the number the dataset
            search's ``popularity`` signal shows).
        papers: a few of them: those the query finds first (by their rank among its paper
            hits), then the newest (ties by title).
        query: the query text the papers were ordered by ('' for newest first).
        max_year: the year bound they were counted under (None: all years).
    """

    doc_id: str
    total: int = 0
    papers: tuple[Paper, ...] = ()
    query: str = ""
    max_year: int | None = None
