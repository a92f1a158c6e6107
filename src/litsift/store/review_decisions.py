"""A review's decisions as the reviewer writes them: record decisions (the user's or priors
read from an imported file; on condition that no other session decided the record
meanwhile), take back the newest (of a record). Notes: :mod:`litsift.store.review_notes`.

The decisions log is the ``review_decisions`` table (:mod:`litsift.store.schema`); the current
decision of each record is read by :func:`litsift.store.reviews.current_decisions`.
"""

from __future__ import annotations

from collections.abc import Sequence

from litsift.errors import ReviewError
from litsift.store.history import now_iso
from litsift.store.repo import Store
from litsift.store.reviews import DECISIONS

__all__ = ["decide", "undo"]


def decide(
    store: Store,
    name: str,
    decisions: Sequence[tuple[str, str]],
    source: str = "user",
    *,
    stage: str = "tiab",
    reviewer: str = "",
    reason: str = "",
    unless_decided_after: int | None = None,
    decided_at: str | None = None,
) -> int:
    """Record decisions, in order, in one transaction.

    Args:
        decisions: ``(doc_id, decision)`` pairs; decision one of :data:`DECISIONS`.
        source: ``user``, ``prior`` for labels read from an imported file, or ``resolved``
            for the third decision that settles two reviewers' conflict.
        stage: ``tiab`` or ``fulltext`` (:data:`litsift.store.review_stages.STAGES`).
        reviewer: who decided (``""``: the unnamed single reviewer).
        reason: the exclusion reason (kept with an exclude only).
        unless_decided_after: write only if none of the records has a live ``user`` decision
            by ``reviewer`` at ``stage`` with an id above this one, checked in the same
            transaction: the id of the record's newest decision the caller read (0: none), so
            a decision another session (a second terminal) stored since the caller read the
            record is not silently decided over. None: write regardless.
        decided_at: the ISO 8601 time to record (default now): a review's copy gives the vote
            whose reason its file kept the later one.

    Returns:
        The id of the last decision written; 0 when ``unless_decided_after`` held it back
        (nothing was written) or ``decisions`` is empty.

    Raises:
        ReviewError: an unknown decision or stage.
    """
    from litsift.store.review_stages import STAGES

    bad = sorted({d for _, d in decisions if d not in DECISIONS})
    if bad:
        raise ReviewError(f"unknown decision {bad[0]!r}", f"use one of {', '.join(DECISIONS)}")
    if stage not in STAGES:
        raise ReviewError(f"unknown stage {stage!r}", f"use one of {', '.join(STAGES)}")
    now = decided_at or now_iso()
    with store._write_transaction() as conn:
        if unless_decided_after is not None:
            for doc_id, _ in decisions:
                if conn.execute(
                    "SELECT 1 FROM review_decisions WHERE review = ? AND doc_id = ? AND stage = ? "
                    "AND reviewer = ? AND source = 'user' AND undone = 0 AND id > ? LIMIT 1",
                    (name, doc_id, stage, reviewer, unless_decided_after),
                ).fetchone():
                    return 0
        conn.executemany(
            "INSERT INTO review_decisions(review, doc_id, decision, source, decided_at, stage, "
            "reviewer, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (name, doc_id, d, source, now, stage, reviewer, reason if d == "exclude" else "")
                for doc_id, d in decisions
            ],
        )
        if not decisions:
            return 0
        row = conn.execute("SELECT MAX(id) FROM review_decisions WHERE review = ?", (name,))
        return int(row.fetchone()[0])


def undo(
    store: Store, name: str, stage: str = "tiab", reviewer: str = "", doc_id: str | None = None
) -> str | None:
    """Take back the newest decision ``reviewer`` made at ``stage`` (priors are never undone);
    with ``doc_id``, the newest live decision of that record (the one a screening session
    itself made last: not the one another session on the review made since).

    Returns:
        The record whose decision was taken back (it then has its previous decision, or none),
        or None when there was nothing to undo.
    """
    only = "" if doc_id is None else "AND doc_id = ? "
    with store._write_transaction() as conn:
        row = conn.execute(
            "SELECT id, doc_id FROM review_decisions WHERE review = ? AND undone = 0 "
            f"AND source = 'user' AND stage = ? AND reviewer = ? {only}ORDER BY id DESC LIMIT 1",
            (name, stage, reviewer, *(() if doc_id is None else (doc_id,))),
        ).fetchone()
        if row is None:
            return None
        conn.execute("UPDATE review_decisions SET undone = 1 WHERE id = ?", (row[0],))
    return str(row[1])
