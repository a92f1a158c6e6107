"""A review's screening rounds: stages (title/abstract, then full text), reviewers who screen
blind under a name, exclusion reasons, and how their decisions make one decision per record.

Each row of ``review_decisions`` carries its ``stage``, ``reviewer`` and ``reason`` (the
:data:`litsift.store.schema_tables.ROUNDS_SQL` migration). A reviewer's current decision on a
record is their newest active row of that stage; ``prior`` rows (labels of an imported file)
belong to the unnamed reviewer ``""``, whose own decisions replace them, as before reviewers
had names. A prior is no reviewer's vote: every reviewer sees it as decided, and any
reviewer's decision of the record replaces it (:func:`votes`). A record's *final* decision of a
stage is the newest ``resolved`` row (the third decision that settles a conflict) if any, else
the decision every reviewer who decided it agrees on; when they differ it is a conflict:
screened, *awaiting resolution*, with no final decision until someone resolves it (counted once,
as a conflict; at title/abstract it is not excluded, so its full text is sought:
:func:`not_excluded`). One reviewer's decision of a record the other has not decided is the
record's decision: merging a second reviewer's file never hides it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from litsift.errors import ReviewError
from litsift.store.repo import Store
from litsift.types.reviews import STAGE_NAMES

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
    "not_excluded",
    "resolution_reason",
    "reviewer_decisions",
    "set_reasons",
    "stage_rows",
    "votes",
]

#: Screening stages in order: title/abstract, then the full text of the records not excluded.
STAGES = ("tiab", "fulltext")
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


def votes(rows: Sequence[DecisionRow]) -> dict[str, list[DecisionRow]]:
    """``{doc_id: each reviewer's current row}``, resolutions left out, in screening order: a
    record's priors only while no reviewer decided it (a reviewer's decision replaces them)."""
    out: dict[str, list[DecisionRow]] = {}
    for doc, group in _by_doc(rows).items():
        cast = [r for r in group if r.source != "resolved"]
        decided = [r for r in cast if r.source != "prior"]
        if cast:
            out[doc] = decided or cast
    return out


def final_decisions(rows: Sequence[DecisionRow]) -> list[DecisionRow]:
    """One decision per record that has one (see the module docstring), in screening order:
    a resolution, else the reviewers' common decision (the one decided last, by its time,
    that gives a reason, else the one decided last). Conflicts are left out
    (:func:`conflicts` lists them).

    Reviewers who agree on exclude may give different reasons; the reason kept is the one
    given last by ``decided_at`` (then by reviewer's name), not by row id: a merged file's
    rows are written after the home's own, so by row id each reviewer's home kept the other's
    reason and the two homes counted different reasons from the same decisions."""
    cast = votes(rows)
    out = []
    for doc, group in _by_doc(rows).items():
        resolved = [r for r in group if r.source == "resolved"]
        mine = cast.get(doc, [])
        if resolved:
            out.append(resolved[-1])
        elif mine and len({r.decision for r in mine}) == 1:
            last = max([r for r in mine if r.reason] or mine, key=_decided_order)
            out.append(last)
    return sorted(out, key=lambda r: r.id)


def _decided_order(r: DecisionRow) -> tuple[str, str, int]:
    """When ``r`` was decided (a merged row keeps its reviewer's time), then by whom: the
    same order in every reviewer's home, whatever order their files were merged in."""
    return (r.decided_at, r.reviewer, r.id)


def conflicts(rows: Sequence[DecisionRow]) -> dict[str, list[DecisionRow]]:
    """``{doc_id: each reviewer's row}`` of the records whose reviewers disagree and that no
    resolution settled (awaiting resolution), in the order of their newest row."""
    settled = {r.doc_id for r in rows if r.source == "resolved"}
    out = {
        doc: group
        for doc, group in votes(rows).items()
        if doc not in settled and len({r.decision for r in group}) > 1
    }
    return dict(sorted(out.items(), key=lambda kv: kv[1][-1].id))


def not_excluded(rows: Sequence[DecisionRow]) -> set[str]:
    """The records a stage passes on (title/abstract's to the full text): a final include or
    maybe, or a conflict (awaiting resolution, and some reviewer did not exclude it: its full
    text is sought, as when in doubt; a merged file never takes a record out of the full-text
    stage by disagreeing)."""
    passed = {r.doc_id for r in final_decisions(rows) if r.decision in ("include", "maybe")}
    return passed | set(conflicts(rows))


def _who(r: DecisionRow) -> str:
    return r.reviewer or "the unnamed reviewer"


def _agreed(cast: Sequence[DecisionRow]) -> str:
    """Why a record's votes (:func:`votes`) are no conflict, in words."""
    named = [r for r in cast if r.source != "prior"]
    if not named:
        label = f" (the imported file labels it {cast[0].decision})" if cast else ""
        return f"no reviewer decided it yet{label}"
    if len(named) == 1:
        return f"only {_who(named[0])} decided it ({named[0].decision})"
    who = " and ".join(_who(r) for r in named)
    return f"{who} {'both' if len(named) == 2 else 'all'} decided {named[0].decision}"


def resolution_reason(
    store: Store, name: str, doc_id: str, decision: str, reason: str, stage: str
) -> str:
    """The reason to keep with a resolution of ``doc_id`` (``reason`` as the review's list
    spells it; a key 1-9 picks one), once the resolution is known to be one.

    Raises:
        ReviewError: the record's reviewers do not disagree at ``stage`` (a settled conflict
            may be settled again), a reason with another decision than exclude, or a reason
            that is not one of the review's (they are listed).
    """
    cast = votes(stage_rows(store, name, stage)).get(doc_id, [])
    if len({r.decision for r in cast}) < 2:
        other = next(s for s in STAGES if s != stage)
        there = votes(stage_rows(store, name, other)).get(doc_id, [])
        hint = f"litsift review conflicts {shlex.quote(name)} lists the records to resolve" + (
            f"; it is in conflict at {STAGE_NAMES[other]}: add --stage {other}"
            if len({r.decision for r in there}) > 1
            else ""
        )
        raise ReviewError(
            f"{doc_id} is not in conflict at {STAGE_NAMES.get(stage, stage)}: {_agreed(cast)}", hint
        )
    given = " ".join(reason.split())
    if not given:
        return ""
    if decision != "exclude":
        raise ReviewError(
            f"a reason goes with exclude only, not with {decision}",
            f"drop --reason, or resolve as exclude with one of the reasons that litsift "
            f"review reasons {shlex.quote(name)} lists",
        )
    reasons = get_reasons(store, name)
    if not reasons:
        raise ReviewError(
            f"review {name} has no exclusion reasons, so {given!r} is not one of them",
            f"set them first: litsift review reasons {shlex.quote(name)} 'wrong population' "
            "'wrong design'",
        )
    if given.isdigit() and 1 <= int(given) <= len(reasons):
        return reasons[int(given) - 1]
    for known in reasons:
        if known.casefold() == given.casefold():
            return known
    keyed = "; ".join(f"{i} {r}" for i, r in enumerate(reasons, 1))
    raise ReviewError(
        f"{given!r} is not an exclusion reason of review {name}",
        f"give one of them, or its key: {keyed} "
        f"(litsift review reasons {shlex.quote(name)} ... sets them)",
    )


def merge_rows(
    store: Store, name: str, rows: Sequence[DecisionRow], stage: str
) -> list[tuple[str, tuple[str, str] | None]]:
    """Add decisions read from another reviewer's export (``id`` ignored), keeping their
    reviewer, source, reason and time, in one transaction. A row is ``known`` when the log
    already has it (same record, stage, reviewer, source, decision, reason and time: merging a
    file twice adds nothing) or when its reviewer's current decision on the record here is the
    same; ``older`` when that current decision is another and newer (not taken back by an
    older file; not written); ``changed`` when it is another and older (the row is written and
    becomes the reviewer's decision: the caller names what it replaced). A row of the
    unnamed reviewer ``""`` (a single reviewer's file) ``differs`` when this review's own
    current decision (not a prior) on the record is another: whether it is the same reviewer's
    or someone else's cannot be told, so it is not written.

    Returns:
        One ``(outcome, (decision, reason) here before or None)`` per row; the outcome is
        ``added``, ``changed``, ``older``, ``known`` or ``differs``.
    """
    out: list[tuple[str, tuple[str, str] | None]] = []
    with store._write_transaction() as conn:
        for r in rows:
            known = conn.execute(
                "SELECT 1 FROM review_decisions WHERE review = ? AND doc_id = ? AND stage = ? "
                "AND reviewer = ? AND source = ? AND decision = ? AND reason = ? "
                "AND decided_at = ? AND undone = 0",
                (name, r.doc_id, stage, r.reviewer, r.source, r.decision, r.reason, r.decided_at),
            ).fetchone()
            now = conn.execute(
                "SELECT decision, reason, source, decided_at FROM review_decisions "
                "WHERE review = ? AND doc_id = ? AND stage = ? AND reviewer = ? AND undone = 0 "
                "AND (source = 'resolved') = ? ORDER BY id DESC LIMIT 1",
                (name, r.doc_id, stage, r.reviewer, r.source == "resolved"),
            ).fetchone()
            mine = now is not None and now[2] != "prior"
            here = (str(now[0]), str(now[1])) if mine else None
            if known is not None or here == (r.decision, r.reason):
                out.append(("known", here))
            elif here and r.reviewer and str(now[3]) > r.decided_at:
                out.append(("older", here))
            elif here and not r.reviewer:
                out.append(("differs", here))
            else:
                conn.execute(
                    "INSERT INTO review_decisions(review, doc_id, decision, source, decided_at, "
                    "stage, reviewer, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, r.doc_id, r.decision, r.source, r.decided_at, stage, r.reviewer,
                     r.reason),
                )  # fmt: skip
                out.append(("changed" if here else "added", here))
    return out


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
