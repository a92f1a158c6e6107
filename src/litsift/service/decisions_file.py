"""A review's decisions file (``litsift review export NAME --format decisions``): one JSON
header line, then one line per decision a reviewer made (every stage) and one per record
note, for ``litsift review merge`` in another reviewer's litsift.

A decision line: ``{"doc_id", "doi", "stage", "reviewer", "decision", "reason", "source",
"decided_at"}``. A note line: ``{"doc_id", "doi", "reviewer", "note"}`` (no decision): one
reviewer's note on the record as written in the exporting litsift (``reviewer`` ``""``: the
unnamed reviewer's), merged as that reviewer's note.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.errors import ReviewError
from litsift.store.repositories import Identities
from litsift.text import for_storage
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.store import Store

__all__ = [
    "DECISIONS_FORMAT",
    "decisions_review",
    "decisions_text",
    "merge_notes",
    "read_decisions",
]

#: First key of a decisions file.
DECISIONS_FORMAT = "litsift-review-decisions"
#: The fields of a row (a decision's, or a note's: ``doc_id``, ``doi``, ``reviewer``, ``note``).
FIELDS = ("doc_id", "doi", "stage", "reviewer", "decision", "reason", "source", "decided_at")


def decisions_text(store: Store, name: str, reviewer: str | None = None) -> str:
    """The file's text: the header (with the review's exclusion reasons in their key order,
    ``"reasons"``), every stage's current decisions of the review's reviewers (of
    ``reviewer`` only when given; priors left out: they come with the review's files), then
    each reviewer's notes on the records, under the reviewer's name (of ``reviewer`` only
    when given), in the records' order.

    Raises:
        ReviewError: ``reviewer`` made no decision and wrote no note in the review (a name
            mistyped wrote a file of no decision)."""
    from litsift.store.review_notes import review_notes
    from litsift.store.review_stages import STAGES, get_reasons, stage_rows
    from litsift.store.reviews import review_records

    position = {r.doc_id: r.position for r in review_records(store, name)}
    head = {"format": DECISIONS_FORMAT, "version": 1, "review": name}
    lines = [json.dumps({**head, "reasons": get_reasons(store, name)}, ensure_ascii=True)]
    made = {s: [r for r in stage_rows(store, name, s) if r.source != "prior"] for s in STAGES}
    noted = review_notes(store, name, reviewer)
    whose = {r.reviewer for rows in made.values() for r in rows}
    if reviewer is not None and reviewer not in whose and not noted:  # a typo: an empty file
        named = ", ".join(repr(w) for w in sorted(whose) if w) or "none named"
        raise ReviewError(
            f"review {name!r} holds no decision or note of reviewer {reviewer!r}",
            f"its reviewers: {named} (without --reviewer: every reviewer's decisions)",
        )
    for stage in STAGES:
        rows = [r for r in made[stage] if reviewer in (None, r.reviewer)]
        ids = Identities(store).ids_of_docs(Kind.PAPER, [r.doc_id for r in rows])
        for r in rows:
            got = ids.get(r.doc_id, {})
            lines.append(json.dumps(
                {"doc_id": r.doc_id, "doi": got.get("doi", ""), "stage": stage,
                 "reviewer": r.reviewer, "decision": r.decision, "reason": r.reason,
                 "source": r.source, "decided_at": r.decided_at},
                ensure_ascii=True,
            ))  # fmt: skip
    ids = Identities(store).ids_of_docs(Kind.PAPER, sorted(noted))
    for doc_id in sorted(noted, key=lambda d: position.get(d, -1)):
        for who, note in noted[doc_id].items():
            lines.append(json.dumps(
                {"doc_id": doc_id, "doi": ids.get(doc_id, {}).get("doi", ""),
                 "reviewer": who, "note": note},
                ensure_ascii=True,
            ))  # fmt: skip
    return "\n".join(lines) + "\n"


def merge_notes(store: Store, name: str, notes: list[tuple[str, str, str]]) -> dict[str, int]:
    """Merge ``(doc_id, reviewer, text)`` notes read from decisions files into the reviewers'
    notes (:mod:`litsift.store.review_notes`): a reviewer without a note on the record here
    takes the text; a note that already holds the text keeps it (merging twice adds nothing);
    any other note of that reviewer gets the text after it, after ``"; "``, so no note is lost.

    Returns:
        ``{"added": records whose note was set or extended, "known": notes already there}``.
    """
    from litsift.store.review_notes import review_notes, set_note

    have = review_notes(store, name)
    got = {"added": 0, "known": 0}
    added: set[str] = set()
    for doc_id, who, text in notes:
        mine = have.setdefault(doc_id, {})
        text, now = for_storage(text).strip(), mine.get(who, "").strip()
        if not text or text in now:
            got["known"] += 1
            continue
        mine[who] = text if not now else f"{now}; {text}"
        set_note(store, name, doc_id, mine[who], who)
        added.add(doc_id)
    got["added"] = len(added)
    return got


def decisions_review(path: Path) -> str | None:
    """The review a decisions file was exported from (``""``: not named) when ``path`` is one
    (its first line is the header), else None; a file that cannot be read is none."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            head = json.loads(fh.readline(1 << 16))
    except (OSError, ValueError):
        return None
    if not isinstance(head, dict) or head.get("format") != DECISIONS_FORMAT:
        return None
    return for_storage(head["review"]) if isinstance(head.get("review"), str) else ""


def read_decisions(
    path: Path,
) -> tuple[list[tuple[int, dict[str, str]]], list[tuple[int, str]], list[str], str]:
    """The rows of a decisions file (decisions and notes), each with its line number, as text
    (:func:`_row`), ``(line, why)`` for each row that is not one (not JSON, a field that is
    not text, a time that is none: the others are kept), the exclusion reasons its header
    lists in their key order (``[]`` in a file written before they were) and the name of the
    review it was exported from (``""``: none given).

    Raises:
        ReviewError: the file cannot be read, or its first row is not the decisions header.
    """
    hint = "give a file of litsift review export NAME --format decisions"
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM an editor saved it with: none
    except (OSError, UnicodeDecodeError) as err:
        raise ReviewError(f"{path}: cannot be read ({err})", hint) from err
    rows = [(n, ln) for n, ln in enumerate(text.split("\n"), start=1) if ln.strip()]
    try:
        head = json.loads(rows[0][1]) if rows else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("format") != DECISIONS_FORMAT:
        where = f" (line {rows[0][0]} is not its header)" if rows else " (the file is empty)"
        raise ReviewError(f"{path}: not a litsift decisions file{where}", hint)
    items: list[tuple[int, dict[str, str]]] = []
    bad: list[tuple[int, str]] = []
    for n, line in rows[1:]:
        try:
            item = json.loads(line)
        except ValueError as err:
            bad.append((n, f"not JSON ({getattr(err, 'msg', err)})"))
            continue
        row = _row(item) if isinstance(item, dict) else f"not a decision (a JSON {_kind(item)})"
        if isinstance(row, dict):
            items.append((n, row))
        else:
            bad.append((n, row))
    listed = head.get("reasons")
    if not isinstance(listed, list):
        listed = []
    reasons = [" ".join(r.split()) for r in listed if isinstance(r, str) and r.strip()]
    review = head.get("review")
    return items, bad, reasons, for_storage(review) if isinstance(review, str) else ""


#: what a JSON value is, as a bad row is named (``a JSON list``)
_KINDS: dict[type, str] = {dict: "object", list: "list", str: "string", bool: "boolean",
                           int: "number", float: "number"}  # fmt: skip


def _kind(value: object) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def _row(item: dict[str, Any]) -> dict[str, str] | str:
    """A row's :data:`FIELDS` as text as the store keeps it (``""`` for one absent or null;
    control characters removed, a reviewer's name and a reason on one line, ``decided_at`` as
    the export writes it: ISO 8601 in UTC to the millisecond, a time without offset taken as
    UTC), ``note`` too in a row that has one; or why the row is no decision: a field that is
    not text (a hand-edited ``"reviewer": ["bob"]`` was stored as the name ``['bob']``), a
    ``decided_at`` that is no time (``30/11/2026`` sorted after every real time, so the
    reviewer's later decisions were taken for older ones and not merged)."""
    out: dict[str, str] = {}
    for key in (*FIELDS, "note") if "note" in item else FIELDS:
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            return f"{key} is not text (a JSON {_kind(value)})"
        text = for_storage(value or "")
        out[key] = " ".join(text.split()) if key in ("reviewer", "reason") else text.strip()
    if out["decided_at"]:
        try:
            at = datetime.fromisoformat(out["decided_at"])
        except ValueError:
            when = out["decided_at"]
            return f"decided_at {when!r} is not a time (ISO 8601: 2026-01-31T09:30:00+00:00)"
        at = at if at.tzinfo else at.replace(tzinfo=UTC)
        out["decided_at"] = at.astimezone(UTC).isoformat(timespec="milliseconds")
    return out
