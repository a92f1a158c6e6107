"""Feeds: new papers from syncs, ranked against a collection's judgments. The store's side:
when a feed was last looked at (``meta`` rows ``feed_seen_at:<feed>``), the papers syncs
brought in since, the papers it learns from and a random sample of the rest.
"""

from __future__ import annotations

from litsift.errors import ReviewError
from litsift.store.history import now_iso
from litsift.store.repo import Store

__all__ = ["feed_seen_at", "judged_papers", "mark_feed_seen", "other_papers", "synced_since"]


def feed_seen_at(store: Store, feed: str) -> str:
    """When feed ``feed`` was last looked at (ISO 8601 UTC; ``""`` = never)."""
    with store._lock:
        row = store._conn.execute(
            "SELECT value FROM meta WHERE key = ?", (f"feed_seen_at:{feed}",)
        ).fetchone()
    return "" if row is None else str(row[0])


def mark_feed_seen(store: Store, feed: str) -> None:
    """Remember that ``feed`` was looked at now (its next look shows newer arrivals only)."""
    with store._write_transaction() as conn:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (f"feed_seen_at:{feed}", now_iso()),
        )


def synced_since(store: Store, since: str) -> list[str]:
    """Papers that saved syncs (``litsift sync``) brought in after ``since`` (provenance rows
    whose file is ``sync:NAME``), oldest first."""
    with store._lock:
        rows = store._conn.execute(
            "SELECT doc_id, MIN(fetched_at) AS t FROM provenance WHERE kind = 'paper' "
            "AND file LIKE 'sync:%' AND fetched_at > ? GROUP BY doc_id ORDER BY t, doc_id",
            (since,),
        ).fetchall()
    return [str(d) for d, _ in rows]


def judged_papers(store: Store, collection: str | None) -> tuple[list[str], list[str]]:
    """The papers a feed learns from: ``(liked, disliked)``. Liked = the collection's papers
    (or, without one, the papers labelled keep); disliked = the papers labelled discard.

    Raises:
        ReviewError: the collection does not exist.
    """
    with store._lock:
        if collection is not None:
            if not store._conn.execute(
                "SELECT 1 FROM collections WHERE name = ?", (collection,)
            ).fetchone():
                raise ReviewError(
                    f"no collection named {collection!r}",
                    "press c on a result in the TUI to make one, or leave COLLECTION out "
                    "to learn from your kept papers",
                )
            liked = store._conn.execute(
                "SELECT doc_id FROM collection_items WHERE collection = ? AND kind = 'paper' "
                "ORDER BY doc_id",
                (collection,),
            ).fetchall()
        else:
            liked = store._conn.execute(
                "SELECT doc_id FROM labels WHERE kind = 'paper' AND label = 'keep' ORDER BY doc_id"
            ).fetchall()
        disliked = store._conn.execute(
            "SELECT doc_id FROM labels WHERE kind = 'paper' AND label = 'discard' ORDER BY doc_id"
        ).fetchall()
    good = [str(d) for (d,) in liked]
    seen = set(good)
    return good, [str(d) for (d,) in disliked if str(d) not in seen]


def other_papers(store: Store, exclude: set[str], limit: int, seed: int = 0) -> list[str]:
    """Up to ``limit`` stored papers not in ``exclude``, drawn at random (fixed ``seed``)."""
    import random

    with store._lock:
        ids = [str(d) for (d,) in store._conn.execute("SELECT id FROM papers ORDER BY rowid")]
    pool = [d for d in ids if d not in exclude]
    if len(pool) <= limit:
        return pool
    return sorted(random.Random(seed).sample(pool, limit))
