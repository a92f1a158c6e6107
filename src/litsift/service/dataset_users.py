"""A dataset's users: the stored papers that name it, for the dataset detail (the papers behind
the ``popularity`` count of a dataset search), reached as ``LitsiftService.refs.dataset_users``.

The papers come from the store's mention counts (:mod:`litsift.search.datasets.mentions`: one
pass over the papers, cached on disk), honour the query's year bound as the count does, and
are ordered for a researcher choosing the dataset: the papers the query finds first (their rank
among its paper hits: the users that work on the query's problem), then the newest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from litsift.errors import LitsiftError
from litsift.types import Kind, Paper, Query, SearchResult, YearRange
from litsift.types.citations import DatasetUsers

if TYPE_CHECKING:
    from litsift.search.datasets.popularity import MentionCounts
    from litsift.store import Store

__all__ = ["FEW_USERS", "RELEVANCE_DEPTH", "dataset_users"]

#: users a dataset detail lists (it says how many there are)
FEW_USERS = 5
#: paper hits of the query whose order ranks the users (a user further down counts by its year)
RELEVANCE_DEPTH = 200


def dataset_users(
    store: Store,
    mentions: MentionCounts,
    search: Callable[[Query], SearchResult] | None,
    doc_id: str,
    query_text: str = "",
    max_year: int | None = None,
    limit: int = FEW_USERS,
) -> DatasetUsers:
    """The papers of ``store`` that name the dataset ``doc_id`` (see the module docstring).

    Args:
        store: the store the papers are read from.
        mentions: the store's mention counts (with paper rowids).
        search: the paper search the query's order comes from (None: newest first).
        doc_id: the dataset's id.
        query_text: the query the papers are ordered by ('': newest first).
        max_year: only papers published up to this year (papers without a year count).
        limit: papers returned at most.

    Returns:
        ``total`` users and the first ``limit``; no users for a dataset not stored.
    """
    wanted = DatasetUsers(doc_id, query=query_text, max_year=max_year)
    dataset = store.get(Kind.DATASET, doc_id)
    if dataset is None or dataset.rowid is None:
        return wanted
    rowid = int(dataset.rowid)
    total = mentions.count(rowid, max_year)
    rowids = [int(r) for r in mentions.papers.get(rowid, ())[:total]]  # sorted by year
    if not rowids or limit <= 0:
        return DatasetUsers(doc_id, total, (), query_text, max_year)
    papers = store.get_by_rowids(Kind.PAPER, rowids)
    rank = _query_ranks(search, query_text, max_year)
    users = sorted(
        (p for p in papers.values() if isinstance(p, Paper)),
        key=lambda p: (rank.get(p.id, len(rank)), -(p.year or 0), p.title, p.id),
    )
    return DatasetUsers(doc_id, total, tuple(users[:limit]), query_text, max_year)


def _query_ranks(
    search: Callable[[Query], SearchResult] | None, text: str, max_year: int | None
) -> dict[str, int]:
    """``{paper id: rank}`` of the query's first :data:`RELEVANCE_DEPTH` paper hits; {} with no
    query, no paper search or no paper index (the users then go newest first)."""
    if search is None or not text.strip():
        return {}
    query = Query(text, Kind.PAPER, YearRange(None, max_year), k=RELEVANCE_DEPTH)
    try:
        hits = search(query).hits
    except LitsiftError:  # no paper index yet: newest first
        return {}
    return {h.docid: i for i, h in enumerate(hits)}
