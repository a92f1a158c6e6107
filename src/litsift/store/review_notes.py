"""Reviewers' notes on a review's records: one note per record and reviewer (table
``review_notes``, :mod:`litsift.store.schema_tables`), so a reviewer screening blind sees and
edits their own note only, never another's judgement of the record.

Where a review is reported as a whole (``litsift review show``, its CSV and RIS exports, its
decisions file) every reviewer's note appears, a named reviewer's under their name
(:func:`joined`).
"""

from __future__ import annotations

from collections.abc import Mapping

from litsift.errors import ReviewError
from litsift.store.repo import Store

__all__ = ["joined", "review_notes", "set_note"]


def set_note(store: Store, name: str, doc_id: str, note: str, reviewer: str = "") -> None:
    """Replace ``reviewer``'s note on a record (empty clears it; ``""``: the unnamed
    reviewer's).

    Raises:
        ReviewError: the record is not in the review.
    """
    with store._write_transaction() as conn:
        if not conn.execute(
            "SELECT 1 FROM review_records WHERE review = ? AND doc_id = ?", (name, doc_id)
        ).fetchone():
            raise ReviewError(f"{doc_id} is not in review {name!r}", "check the record id")
        if note.strip():
            conn.execute(
                "INSERT INTO review_notes(review, doc_id, reviewer, note) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(review, doc_id, reviewer) DO UPDATE SET note = excluded.note",
                (name, doc_id, reviewer, note.strip()),
            )
        else:
            conn.execute(
                "DELETE FROM review_notes WHERE review = ? AND doc_id = ? AND reviewer = ?",
                (name, doc_id, reviewer),
            )


def review_notes(store: Store, name: str, reviewer: str | None = None) -> dict[str, dict[str, str]]:
    """``{doc_id: {reviewer: note}}`` of the review's noted records, the unnamed reviewer's
    note first, then the named ones' by name; with ``reviewer``, that reviewer's only."""
    only = "" if reviewer is None else " AND reviewer = ?"
    with store._lock:
        rows = store._conn.execute(
            f"SELECT doc_id, reviewer, note FROM review_notes WHERE review = ?{only} "
            "ORDER BY doc_id, reviewer",
            (name, *(() if reviewer is None else (reviewer,))),
        ).fetchall()
    out: dict[str, dict[str, str]] = {}
    for doc_id, who, note in rows:
        out.setdefault(str(doc_id), {})[str(who)] = str(note)
    return out


def joined(notes: Mapping[str, str]) -> str:
    """One record's notes as one text: the unnamed reviewer's as written, each named
    reviewer's after its name (``"check dose; alice: wrong population; bob: ..."``)."""
    parts = [f"{who}: {text}" if who else text for who, text in sorted(notes.items()) if text]
    return "; ".join(parts)
