"""A review's decisions and notes as the reviewer writes them: record decisions (the user's or
priors read from an imported file), take back the newest, set a record's note.

The decisions log is the ``review_decisions`` table (:mod:`litsift.store.schema`); the current
decision of each record is read by :func:`litsift.store.reviews.current_decisions`.
"""

from __future__ import annotations

from collections.abc import Sequence

from litsift.errors import ReviewError
from litsift.store.history import now_iso
from litsift.store.repo import Store
from litsift.store.reviews import DECISIONS

__all__ = ["decide", "set_note", "undo"]


def decide(
    store: Store,
    name: str,
    decisions: Sequence[tuple[str, str]],
    source: str = "user",
    *,
    stage: str = "tiab",
    reviewer: str = "",
    reason: str = "",
) -> None:
    """Record decisions, in order, in one transaction.

    Args:
        decisions: ``(doc_id, decision)`` pairs; decision one of :data:`DECISIONS`.
        source: ``user``, ``prior`` for labels read from an imported file, or ``resolved``
            for the third decision that settles two reviewers' conflict.
        stage: ``tiab`` or ``fulltext`` (:data:`litsift.store.review_stages.STAGES`).
        reviewer: who decided (``""``: the unnamed single reviewer).
        reason: the exclusion reason (kept with an exclude only).

    Raises:
        ReviewError: an unknown decision or stage.
    """
    from litsift.store.review_stages import STAGES

    bad = sorted({d for _, d in decisions if d not in DECISIONS})
    if bad:
        raise ReviewError(f"unknown decision {bad[0]!r}", f"use one of {', '.join(DECISIONS)}")
    if stage not in STAGES:
        raise ReviewError(f"unknown stage {stage!r}", f"use one of {', '.join(STAGES)}")
    now = now_iso()
    with store._write_transaction() as conn:
        conn.executemany(
            "INSERT INTO review_decisions(review, doc_id, decision, source, decided_at, stage, "
            "reviewer, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (name, doc_id, d, source, now, stage, reviewer, reason if d == "exclude" else "")
                for doc_id, d in decisions
            ],
        )


def undo(store: Store, name: str, stage: str = "tiab", reviewer: str = "") -> str | None:
    """Take back the newest decision ``reviewer`` made at ``stage`` (priors are never undone).

    Returns:
        The record whose decision was taken back (it then has its previous decision, or none),
        or None when there was nothing to undo.
    """
    with store._write_transaction() as conn:
        row = conn.execute(
            "SELECT id, doc_id FROM review_decisions WHERE review = ? AND undone = 0 "
            "AND source = 'user' AND stage = ? AND reviewer = ? ORDER BY id DESC LIMIT 1",
            (name, stage, reviewer),
        ).fetchone()
        if row is None:
            return None
        conn.execute("UPDATE review_decisions SET undone = 1 WHERE id = ?", (row[0],))
    return str(row[1])


def set_note(store: Store, name: str, doc_id: str, note: str) -> None:
    """Replace a record's note (empty clears it).

    Raises:
        ReviewError: the record is not in the review.
    """
    with store._write_transaction() as conn:
        cur = conn.execute(
            "UPDATE review_records SET note = ? WHERE review = ? AND doc_id = ?",
            (note.strip(), name, doc_id),
        )
        if cur.rowcount == 0:
            raise ReviewError(f"{doc_id} is not in review {name!r}", "check the record id")
