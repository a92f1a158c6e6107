"""What a merge of two stored papers does to the reviews that hold them: ``litsift dedup``
merges paper ``other`` into paper ``keep`` and deletes ``other``
(:func:`litsift.store.merges.move_record`), and each review's rows of ``other`` -- its
membership, the decisions of every stage and reviewer (priors and resolutions too), the
reviewers' notes and the LLM verdicts -- move onto ``keep`` in the same transaction, so a
screened record stays screened under the surviving id (before, they stayed on the deleted id:
the record dropped out of the review's exports and screening while its counts still held it).

Where both ids have rows in one review:

* **membership**: one record at the earlier position, standing for the entries of both (the
  PRISMA counts then have one record fewer and one more duplicate removed);
* **decisions**: ``other``'s whole log moves (undo still reaches it). Per stage, reviewer and
  kind (a resolution or not) where both have a current decision, the one kept current is a
  reviewer's decision over a prior (as screening replaces priors), else on the same decision
  ``keep``'s (its reason, unless only ``other``'s gives one), else the newer one (by
  ``decided_at``): a :class:`DecisionClash`, which ``litsift dedup`` lists. When the row kept
  is not the newest of the joined log, a copy of it (its source, reviewer, reason and time)
  is appended, as ``litsift review merge`` appends another reviewer's rows;
* **notes**: one reviewer's two notes are joined, ``keep``'s first (a line each; a note the
  other already holds is not repeated);
* **verdicts**: per model the newer (by ``judged_at``; ``keep``'s on a tie).

Stores merged before this kept such rows on the deleted ids: :func:`review_orphans` (a schema
migration) moves those whose id is an identifier (``doi:...``) that a stored paper holds in
``record_ids`` onto that paper. The store records no other trace of a merge, so rows on a
deleted ``key:`` id stay where they are.

Callers hold the write transaction; nothing here commits.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

__all__ = ["REVIEW_DOC_TABLES", "DecisionClash", "move_review_rows", "review_orphans"]

#: the review tables whose rows belong to one paper (column ``doc_id``)
REVIEW_DOC_TABLES = ("review_records", "review_decisions", "review_notes", "review_verdicts")


@dataclass(frozen=True)
class DecisionClash:
    """Two decisions of one reviewer (``""``: the unnamed one) at one stage of a review that a
    merge made one record's: ``kept`` (``keep``'s now) is the newer, ``dropped`` stays in the
    decisions log under it (``include`` / ``exclude`` / ``maybe``, with ``: reason`` after an
    exclude that has one)."""

    review: str
    stage: str
    reviewer: str
    keep: str
    other: str
    kept: str
    dropped: str


@dataclass(frozen=True)
class _Row:
    id: int
    review: str
    stage: str
    reviewer: str
    resolved: bool
    decision: str
    source: str
    reason: str
    decided_at: str

    @property
    def key(self) -> tuple[str, str, str, bool]:
        return (self.review, self.stage, self.reviewer, self.resolved)

    @property
    def said(self) -> str:
        return f"{self.decision}: {self.reason}" if self.reason else self.decision


def move_review_rows(conn: sqlite3.Connection, keep: str, other: str) -> list[DecisionClash]:
    """Move every review's rows of paper ``other`` onto paper ``keep`` (the rules: module
    docstring). Returns the clashing decisions, in the order of the reviews' names."""
    if keep == other:
        return []
    _move_membership(conn, keep, other)
    clashes = _move_decisions(conn, keep, other)
    _move_notes(conn, keep, other)
    _move_verdicts(conn, keep, other)
    return clashes


def _move_membership(conn: sqlite3.Connection, keep: str, other: str) -> None:
    rows = conn.execute(
        "SELECT review, position, entries FROM review_records WHERE doc_id = ?", (other,)
    ).fetchall()
    for review, position, entries in rows:
        joined = conn.execute(
            "UPDATE review_records SET position = MIN(position, ?), entries = entries + ? "
            "WHERE review = ? AND doc_id = ?",
            (position, entries, review, keep),
        ).rowcount
        if joined:
            conn.execute(
                "DELETE FROM review_records WHERE review = ? AND doc_id = ?", (review, other)
            )
        else:
            conn.execute(
                "UPDATE review_records SET doc_id = ? WHERE review = ? AND doc_id = ?",
                (keep, review, other),
            )


def _current(conn: sqlite3.Connection, doc_id: str) -> dict[tuple[str, str, str, bool], _Row]:
    """The paper's current decision per review, stage, reviewer and kind (as
    :func:`litsift.store.review_stages.stage_rows` reads them)."""
    rows = conn.execute(
        "SELECT id, review, stage, reviewer, source = 'resolved', decision, source, reason, "
        "decided_at FROM review_decisions WHERE id IN (SELECT MAX(id) FROM review_decisions "
        "WHERE doc_id = ? AND undone = 0 GROUP BY review, stage, reviewer, source = 'resolved')",
        (doc_id,),
    ).fetchall()
    out = {}
    for i, review, stage, who, resolved, decision, source, reason, at in rows:
        row = _Row(int(i), str(review), str(stage), str(who), bool(resolved), str(decision),
                   str(source), str(reason), str(at))  # fmt: skip
        out[row.key] = row
    return out


def _kept(mine: _Row, theirs: _Row) -> _Row:
    """Which of two current decisions of one reviewer stays current (module docstring)."""
    if (mine.source == "prior") != (theirs.source == "prior"):
        return theirs if mine.source == "prior" else mine
    if mine.decision == theirs.decision:
        return theirs if theirs.reason and not mine.reason else mine
    return max(mine, theirs, key=lambda r: (r.decided_at, r.id))


def _move_decisions(conn: sqlite3.Connection, keep: str, other: str) -> list[DecisionClash]:
    mine, theirs = _current(conn, keep), _current(conn, other)
    conn.execute("UPDATE review_decisions SET doc_id = ? WHERE doc_id = ?", (keep, other))
    clashes = []
    for key in sorted(mine.keys() & theirs.keys()):
        m, t = mine[key], theirs[key]
        kept = _kept(m, t)
        if kept.id != max(m.id, t.id):  # the newest row is the current one: make it the kept
            conn.execute(
                "INSERT INTO review_decisions(review, doc_id, decision, source, decided_at, "
                "stage, reviewer, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (kept.review, keep, kept.decision, kept.source, kept.decided_at, kept.stage,
                 kept.reviewer, kept.reason),
            )  # fmt: skip
        if m.decision != t.decision and (m.source == "prior") == (t.source == "prior"):
            dropped = t if kept is m else m
            clashes.append(
                DecisionClash(m.review, m.stage, m.reviewer, keep, other, kept.said, dropped.said)
            )
    return clashes


def _move_notes(conn: sqlite3.Connection, keep: str, other: str) -> None:
    rows = conn.execute(
        "SELECT review, reviewer, note FROM review_notes WHERE doc_id = ?", (other,)
    ).fetchall()
    for review, reviewer, note in rows:
        mine = conn.execute(
            "SELECT note FROM review_notes WHERE review = ? AND doc_id = ? AND reviewer = ?",
            (review, keep, reviewer),
        ).fetchone()
        if mine is None:
            conn.execute(
                "UPDATE review_notes SET doc_id = ? WHERE review = ? AND doc_id = ? "
                "AND reviewer = ?",
                (keep, review, other, reviewer),
            )
            continue
        if " ".join(str(note).split()) not in " ".join(str(mine[0]).split()):
            conn.execute(
                "UPDATE review_notes SET note = ? WHERE review = ? AND doc_id = ? AND reviewer = ?",
                (f"{mine[0]}\n{note}", review, keep, reviewer),
            )
        conn.execute(
            "DELETE FROM review_notes WHERE review = ? AND doc_id = ? AND reviewer = ?",
            (review, other, reviewer),
        )


def _move_verdicts(conn: sqlite3.Connection, keep: str, other: str) -> None:
    conn.execute(  # keep's verdicts older than other's of the same model give way
        "DELETE FROM review_verdicts WHERE doc_id = ? AND EXISTS (SELECT 1 FROM "
        "review_verdicts o WHERE o.doc_id = ? AND o.review = review_verdicts.review "
        "AND o.model = review_verdicts.model AND o.judged_at > review_verdicts.judged_at)",
        (keep, other),
    )
    conn.execute("UPDATE OR IGNORE review_verdicts SET doc_id = ? WHERE doc_id = ?", (keep, other))
    conn.execute("DELETE FROM review_verdicts WHERE doc_id = ?", (other,))


def review_orphans(conn: sqlite3.Connection) -> None:
    """Schema migration: review rows left on the id of a paper that ``litsift dedup`` merged
    away before merges moved them, whose id is an identifier (``doi:10.1/x``) that a stored
    paper now holds (``record_ids``: the merge moved the identifiers), move onto that paper
    (:func:`move_review_rows`). Rows on ids no stored paper holds (``key:`` ids) stay."""
    orphans = [
        str(d)
        for (d,) in conn.execute(
            " UNION ".join(f"SELECT doc_id FROM {t}" for t in REVIEW_DOC_TABLES)
            + " EXCEPT SELECT id FROM papers"
        )
    ]
    for orphan in sorted(orphans):
        scheme, _, value = orphan.partition(":")
        row = conn.execute(
            "SELECT r.doc_id FROM record_ids r JOIN papers p ON p.id = r.doc_id "
            "WHERE r.kind = 'paper' AND r.scheme = ? AND r.value = ?",
            (scheme, value),
        ).fetchone()
        if row is not None:
            move_review_rows(conn, str(row[0]), orphan)
