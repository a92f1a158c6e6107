"""What a screening session (:class:`litsift.service.screening.ScreeningSession`) reads of
the store to keep in step with other sessions on the same review, stage and reviewer (a second
terminal): the reviewer's current decisions with their ids, and which decision ``u`` takes
back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litsift.store import Store
    from litsift.store.review_stages import DecisionRow

__all__ = ["reviewer_rows", "take_back"]


def reviewer_rows(
    store: Store, name: str, stage: str, reviewer: str, row_of: Mapping[str, int]
) -> list[tuple[int, DecisionRow]]:
    """``(row, decision)`` for each record of ``row_of`` that ``reviewer`` decided at
    ``stage`` (or that has a prior), oldest first; a decision's ``id`` is what the session
    last saw of its record (:func:`litsift.store.review_decisions.decide`'s
    ``unless_decided_after``). Reads the store (~10 ms for 2,000 decisions).

    Raises:
        ReviewError: there is no review ``name``.
    """
    from litsift.store.review_stages import reviewer_decisions, stage_rows

    found = reviewer_decisions(stage_rows(store, name, stage), reviewer)
    return [(row_of[r.doc_id], r) for r in found if r.doc_id in row_of]


def take_back(
    store: Store, name: str, stage: str, reviewer: str, mine: list[str]
) -> tuple[str, str | None] | None:
    """Take back a session's own last decision: the newest live decision of the last record
    of ``mine`` (the records the session decided, in order; popped) that still has one, not
    the newest decision of the reviewer, which another session may have made since. With none
    of its own left (a session just opened), the reviewer's newest decision at ``stage``.

    Returns:
        ``(doc_id, decision)``: the record whose decision was taken back and the decision it
        has now (its previous one, or None), or None when there was nothing to undo.
    """
    from litsift.store.review_decisions import undo
    from litsift.store.reviews import current_decisions

    doc_id = None
    while mine and doc_id is None:
        doc_id = undo(store, name, stage, reviewer, mine.pop())
    if doc_id is None:
        doc_id = undo(store, name, stage, reviewer)
    if doc_id is None:
        return None
    now = {d: v for d, v, _ in current_decisions(store, name, stage, reviewer)}
    return doc_id, now.get(doc_id)
