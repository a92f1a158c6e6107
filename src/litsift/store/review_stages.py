"""A review's screening rounds: stages (title/abstract, then full text), reviewers who screen
blind under a name, exclusion reasons, and how their decisions make one decision per record.

Each row of ``review_decisions`` carries its ``stage``, ``reviewer`` and ``reason`` (the
:data:`litsift.store.schema_tables.ROUNDS_SQL` migration). A reviewer's current decision on a
record is their newest active row of that stage; ``prior`` rows (labels of an imported file)
belong to the unnamed reviewer ``""``, whose own decisions replace them, as before reviewers
had names. A record's *final* decision of a stage is the newest ``resolved`` row (the third
decision that settles a conflict) if any, else the decision every reviewer who decided it
agrees on; when they differ it is a conflict and the record has no final decision until
someone resolves it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from litsift.errors import ReviewError
from litsift.store.repo import Store

__all__ = [
    "MAX_REASONS",
    "STAGES",
    "STAGE_NAMES",
    "DecisionRow",
    "attachment_paths",
    "conflicts",
    "final_decisions",
    "get_reasons",
    "merge_rows",
    "reviewer_decisions",
    "set_reasons",
    "stage_rows",
]

#: Screening stages in order: title/abstract, then the full text of the records not excluded.
STAGES = ("tiab", "fulltext")
STAGE_NAMES = {"tiab": "title/abstract", "fulltext": "full text"}
#: Reasons one key each (1-9) in the screening screen.
MAX_REASONS = 9
_MAX_PARAMS = 900


@dataclass(frozen=True)
class DecisionRow:
    """One current decision: ``id`` orders them (screening order); ``source`` is ``user``,
    ``prior`` or ``resolved``; ``reason`` the exclusion reason (may be empty)."""

    id: int
    doc_id: str
    decision: str
    source: str
    reviewer: str
    reason: str
    decided_at: str


def _require(store: Store, name: str) -> None:
    with store._lock:
        row = store._conn.execute("SELECT 1 FROM reviews WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise ReviewError(f"no review named {name!r}", "litsift review list shows the reviews")


def set_reasons(store: Store, name: str, reasons: Sequence[str]) -> list[str]:
    """Replace the review's exclusion reasons (order = keys 1-9; blanks and repeats dropped).

    Raises:
        ReviewError: no such review, or more than :data:`MAX_REASONS` reasons.
    """
    _require(store, name)
    clean = list(dict.fromkeys(" ".join(r.split()) for r in reasons if r.strip()))
    if len(clean) > MAX_REASONS:
        raise ReviewError(
            f"{len(clean)} exclusion reasons: at most {MAX_REASONS} (one key each, 1-9)",
            "merge related reasons into one, e.g. 'wrong population or setting'",
        )
    with store._write_transaction() as conn:
        conn.execute("UPDATE reviews SET reasons = ? WHERE name = ?", (json.dumps(clean), name))
    return clean


def set_criteria(
    store: Store, name: str, criteria: str | None = None, keywords: Sequence[str] | None = None
) -> None:
    """Replace the review's criteria text and/or keywords (None keeps that one; "" or ``()``
    clears it). The learning order reads them from the next screening session on.

    Raises:
        ReviewError: no such review.
    """
    _require(store, name)
    with store._write_transaction() as conn:
        if criteria is not None:
            conn.execute("UPDATE reviews SET criteria = ? WHERE name = ?", (criteria.strip(), name))
        if keywords is not None:
            words = json.dumps([k.strip() for k in keywords if k.strip()])
            conn.execute("UPDATE reviews SET keywords = ? WHERE name = ?", (words, name))


def get_reasons(store: Store, name: str) -> list[str]:
    """The review's exclusion reasons, key 1 first (raises ReviewError when unknown)."""
    _require(store, name)
    with store._lock:
        row = store._conn.execute("SELECT reasons FROM reviews WHERE name = ?", (name,)).fetchone()
    return [str(r) for r in json.loads(row[0] or "[]")]


def stage_rows(store: Store, name: str, stage: str = "tiab") -> list[DecisionRow]:
    """Every reviewer's current decision of ``stage`` (and every current resolution), oldest
    first: the newest active row per (record, reviewer, resolution or not).

    Raises:
        ReviewError: there is no review ``name`` (checked when no row is found: an empty
            answer is never given for a misspelt name, e.g. "0 conflicts").
    """
    with store._lock:
        rows = store._conn.execute(
            "SELECT id, doc_id, decision, source, reviewer, reason, decided_at "
            "FROM review_decisions WHERE id IN (SELECT MAX(id) FROM review_decisions "
            "WHERE review = ? AND stage = ? AND undone = 0 "
            "GROUP BY doc_id, reviewer, source = 'resolved') ORDER BY id",
            (name, stage),
        ).fetchall()
    if not rows:
        _require(store, name)
    return [DecisionRow(int(i), str(d), str(v), str(s), str(r), str(w), str(t))
            for i, d, v, s, r, w, t in rows]  # fmt: skip


def reviewer_decisions(rows: Sequence[DecisionRow], reviewer: str) -> list[DecisionRow]:
    """What ``reviewer`` sees (blind): their own decisions and the priors, their own first."""
    mine = {r.doc_id: r for r in rows if r.reviewer == reviewer and r.source != "resolved"}
    for r in rows:
        if r.source == "prior" and r.doc_id not in mine:
            mine[r.doc_id] = r
    return sorted(mine.values(), key=lambda r: r.id)


def _by_doc(rows: Sequence[DecisionRow]) -> dict[str, list[DecisionRow]]:
    out: dict[str, list[DecisionRow]] = {}
    for r in rows:
        out.setdefault(r.doc_id, []).append(r)
    return out


def final_decisions(rows: Sequence[DecisionRow]) -> list[DecisionRow]:
    """One decision per record that has one (see the module docstring), in screening order:
    a resolution, else the reviewers' common decision (its newest row). Conflicts are left out
    (:func:`conflicts` lists them)."""
    out = []
    for group in _by_doc(rows).values():
        resolved = [r for r in group if r.source == "resolved"]
        if resolved:
            out.append(resolved[-1])
        elif len({r.decision for r in group}) == 1:
            out.append(group[-1])
    return sorted(out, key=lambda r: r.id)


def conflicts(rows: Sequence[DecisionRow]) -> dict[str, list[DecisionRow]]:
    """``{doc_id: each reviewer's row}`` of the records whose reviewers disagree and that no
    resolution settled, in the order of their newest row."""
    out = {
        doc: group
        for doc, group in _by_doc(rows).items()
        if not any(r.source == "resolved" for r in group) and len({r.decision for r in group}) > 1
    }
    return dict(sorted(out.items(), key=lambda kv: kv[1][-1].id))


def merge_rows(store: Store, name: str, rows: Sequence[DecisionRow], stage: str) -> int:
    """Add decisions read from another reviewer's export (``id`` ignored), keeping their
    reviewer, source, reason and time; a row already in the log (same record, stage, reviewer,
    source, decision, reason and time) is skipped, so merging a file twice adds nothing.

    Returns:
        Rows added.
    """
    added = 0
    with store._write_transaction() as conn:
        for r in rows:
            known = conn.execute(
                "SELECT 1 FROM review_decisions WHERE review = ? AND doc_id = ? AND stage = ? "
                "AND reviewer = ? AND source = ? AND decision = ? AND reason = ? "
                "AND decided_at = ? AND undone = 0",
                (name, r.doc_id, stage, r.reviewer, r.source, r.decision, r.reason, r.decided_at),
            ).fetchone()
            if known is None:
                conn.execute(
                    "INSERT INTO review_decisions(review, doc_id, decision, source, decided_at, "
                    "stage, reviewer, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, r.doc_id, r.decision, r.source, r.decided_at, stage, r.reviewer,
                     r.reason),
                )  # fmt: skip
                added += 1
    return added


def attachment_paths(store: Store, doc_ids: Sequence[str]) -> dict[str, list[str]]:
    """``{doc_id: [path, ...]}`` of the PDF files the library attached to the records (from
    the imported files' ``file`` fields, Zotero storage...), for the full-text stage."""
    out: dict[str, list[str]] = {}
    ids = list(doc_ids)
    with store._lock:
        for start in range(0, len(ids), _MAX_PARAMS):
            chunk = ids[start : start + _MAX_PARAMS]
            marks = ",".join("?" * len(chunk))
            for doc_id, path in store._conn.execute(
                f"SELECT doc_id, path FROM attachments WHERE kind = 'paper' AND doc_id IN "
                f"({marks}) ORDER BY rowid",
                chunk,
            ):
                if str(path).lower().endswith(".pdf"):
                    out.setdefault(str(doc_id), []).append(str(path))
    return out
