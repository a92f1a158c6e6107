"""The store's dataset mention counts, computed once and kept on disk until the store changes.

Counting (:func:`~litsift.search.datasets.popularity.count_mentions`) reads every paper: about
2 s per 20K papers. The result is cached in ``index_dir/popularity.json`` with the store state
it was computed from (row counts and revisions of both kinds, the papers' largest rowid). When
only papers were added or changed since, the cached counts are updated from those papers alone
(:func:`~litsift.search.datasets.popularity.updated_mentions`): adding 10K papers to a 1M
store reads 10K papers, not 1M (issue 32). Any other change -- datasets ingested, papers
deleted (``litsift dedup``) -- recounts everything.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from litsift.search.datasets.popularity import MentionCounts, count_mentions, updated_mentions
from litsift.types import Kind, Paper

if TYPE_CHECKING:
    from litsift.store import Store

#: the cache file's name inside the index directory
CACHE_FILE = "popularity.json"


def store_state(store: Store) -> dict[str, int]:
    """What the counts depend on: row counts and max revisions of papers and datasets, and the
    papers' largest rowid (to tell added rows from deleted ones). Index look-ups only: this
    runs on every dataset search."""
    return {
        "papers": store.count(Kind.PAPER),
        "papers_revision": store.max_revision(Kind.PAPER),
        "papers_max_rowid": store.max_rowid(Kind.PAPER),
        "datasets": store.count(Kind.DATASET),
        "datasets_revision": store.max_revision(Kind.DATASET),
    }


def _papers_since(
    store: Store, old: Mapping[str, int], now: Mapping[str, int]
) -> list[Paper] | None:
    """The papers added or changed since the state ``old``, when that is all that happened
    (same datasets, no paper deleted); None when the counts must be recounted in full."""
    keys = ("papers", "papers_revision", "papers_max_rowid")
    if any(k not in old for k in keys) or any(
        old.get(k) != now[k] for k in ("datasets", "datasets_revision")
    ):
        return None
    if now["papers_revision"] < old["papers_revision"]:
        return None
    changed = []
    for batch in store.rows_since(Kind.PAPER, old["papers_revision"], 2000):
        changed.extend(batch)
        if len(changed) > now["papers"] // 2:
            return None  # most papers changed: a full count is as cheap
    new = [
        int(r.rowid) for r in changed if r.rowid is not None and r.rowid > old["papers_max_rowid"]
    ]
    # a deleted paper leaves fewer rows than the old ones plus the new ones (a new row takes
    # a rowid above every current one; one that takes a deleted maximum's rowid is changed
    # since, so its old mentions are replaced): recount
    if now["papers"] != old["papers"] + len(new):
        return None
    return changed  # type: ignore[return-value]


class MentionCache:
    """Mention counts of one store, in memory and in ``index_dir/popularity.json``.

    Args:
        store: the store the counts are read from.
        index_dir: where the cache file lives (``Paths.index_dir``).
    """

    def __init__(self, store: Store, index_dir: Path) -> None:
        self._store = store
        self._path = Path(index_dir) / CACHE_FILE
        self._counts: MentionCounts | None = None
        self._lock = threading.Lock()

    def get(self) -> MentionCounts:
        """The counts for the store as it is now (recounted when it changed since)."""
        with self._lock:
            state = store_state(self._store)
            if self._counts is not None and dict(self._counts.state) == state:
                return self._counts
            cached = self._counts or MentionCounts.load(self._path)
            if cached is not None and dict(cached.state) == state:
                self._counts = cached
                return cached
            st = self._store
            datasets = [r for b in st.rows_since(Kind.DATASET) for r in b]
            changed = None if cached is None else _papers_since(st, cached.state, state)
            if cached is not None and changed is not None:
                counts = updated_mentions(cached, datasets, changed, state)  # type: ignore[arg-type]
            else:
                papers = (r for b in st.rows_since(Kind.PAPER, batch_size=2000) for r in b)
                counts = count_mentions(datasets, papers, state)  # type: ignore[arg-type]
            try:
                counts.save(self._path)
            except OSError:  # a read-only home still searches; it just recounts next time
                pass
            self._counts = counts
            return counts
