"""The store's dataset mention counts, computed once and kept on disk until the store changes.

Counting (:func:`~litsift.search.datasets.popularity.count_mentions`) reads every paper: about
2 s per 20K papers. The result is cached in ``index_dir/popularity.json`` with the store state
it was computed from (row counts and revisions of both kinds) and recomputed when papers or
datasets were ingested since.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from litsift.search.datasets.popularity import MentionCounts, count_mentions
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.store import Store

#: the cache file's name inside the index directory
CACHE_FILE = "popularity.json"


def store_state(store: Store) -> dict[str, int]:
    """What the counts depend on: row counts and max revisions of papers and datasets."""
    return {
        "papers": store.count(Kind.PAPER),
        "papers_revision": store.max_revision(Kind.PAPER),
        "datasets": store.count(Kind.DATASET),
        "datasets_revision": store.max_revision(Kind.DATASET),
    }


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
            cached = MentionCounts.load(self._path)
            if cached is not None and dict(cached.state) == state:
                self._counts = cached
                return cached
            st = self._store
            datasets = [r for b in st.rows_since(Kind.DATASET) for r in b]
            papers = (r for b in st.rows_since(Kind.PAPER, batch_size=2000) for r in b)
            counts = count_mentions(datasets, papers, state)  # type: ignore[arg-type]
            try:
                counts.save(self._path)
            except OSError:  # a read-only home still searches; it just recounts next time
                pass
            self._counts = counts
            return counts
