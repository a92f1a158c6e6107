"""Reviews in the store: candidate papers imported for screening, their decisions and notes.

A review is a named set of papers (rows of ``papers``: the records its files brought in, after
the importer grouped duplicates onto one paper by identifier or title + first author + year),
the criteria text and keywords, and a log of decisions (tables of the ``reviews`` migration,
:mod:`litsift.store.schema`). Each imported entry keeps its ``provenance`` row, so a group of
duplicates is listed, never silently dropped.

Decisions are written by :mod:`litsift.store.review_decisions`, notes (per reviewer) by
:mod:`litsift.store.review_notes`; feeds are read by :mod:`litsift.store.feeds`.
"""

from __future__ import annotations

import json
import re
import shlex
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litsift.errors import ReviewError
from litsift.store.history import now_iso
from litsift.store.repo import Store

__all__ = [
    "DECISIONS",
    "Prisma",
    "ReviewInfo",
    "ReviewRecord",
    "add_records",
    "create_review",
    "current_decisions",
    "delete_review",
    "duplicate_groups",
    "get_review",
    "last_opened",
    "list_reviews",
    "mark_opened",
    "natural_key",
    "prisma",
    "review_records",
]

#: The decisions a reviewer makes on a record.
DECISIONS = ("include", "exclude", "maybe")
_MAX_PARAMS = 900


@dataclass(frozen=True)
class ReviewInfo:
    """One review: ``keywords`` highlighted while screening; ``records`` after duplicates were
    grouped; ``decided`` records with a decision (priors included)."""

    name: str
    criteria: str
    keywords: tuple[str, ...]
    created_at: str
    records: int
    decided: int


@dataclass(frozen=True)
class ReviewRecord:
    """One record of a review: the paper's id, its import position, how many imported entries
    it stands for, the reviewers' note (or one reviewer's) and its current decision (None =
    unscreened)."""

    doc_id: str
    position: int
    entries: int
    note: str
    decision: str | None
    source: str | None
    reason: str = ""


@dataclass(frozen=True)
class Prisma:
    """PRISMA 2020 flow counts of a review: title/abstract screening, then full text.

    The boxes add up as the PRISMA 2020 diagram draws them: ``identified − duplicates_removed
    − bad = records``; ``records − excluded − unscreened = fulltext["sought"]`` (``included +
    maybe + conflicts``); ``sought − unassessed = assessed``; ``assessed − excluded − maybe −
    conflicts = included`` (of the full text). Records in conflict are screened (assessed),
    awaiting resolution.

    Attributes:
        identified: entries read from the review's files, readable or not.
        duplicates_removed: entries grouped onto another entry's record.
        records: records after duplicates were grouped and unreadable entries left out
            (``identified − duplicates_removed − bad``).
        screened: records with a decision (include, exclude or maybe) or in conflict.
        excluded, included, maybe: records per decision.
        unscreened: records no reviewer decided.
        bad: entries of the files that could not be read (reported at import; an unreadable
            file counts as one), removed before screening.
        conflicts: records two reviewers decided differently, not resolved yet: screened,
            awaiting resolution (in no decision's count; not excluded: sought in full text).
        reasons: ``{reason: records}`` excluded at title/abstract (``""``: none given).
        sources: ``{file: entries}`` identified per file the review was built from (they add
            up to ``identified``).
        fulltext: the full-text stage's counts: ``sought`` (records not excluded at
            title/abstract), ``pdfs`` (of them with a PDF in the library), ``pdfs_here``
            (of those, with the PDF file on this machine), ``assessed``,
            ``excluded``, ``included``, ``maybe``, ``conflicts``, ``unassessed`` and
            ``reasons`` (excluded per reason).
    """

    identified: int
    duplicates_removed: int
    records: int
    screened: int
    excluded: int
    included: int
    maybe: int
    unscreened: int
    bad: int
    conflicts: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)
    fulltext: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The counts as a plain dict, in flow order."""
        return dict(self.__dict__)


def natural_key(location: str) -> tuple[tuple[int, str], ...]:
    """Sort key of an entry's location that orders ``record 2`` before ``record 11``."""
    return tuple(
        (int(part), "") if part.isdigit() else (0, part) for part in re.split(r"(\d+)", location)
    )


def _clean_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 100 or any(unicodedata.category(c)[0] == "C" for c in name):
        raise ReviewError(
            f"bad review name {name[:40]!r}", "use 1-100 printable characters, e.g. statins-2025"
        )
    if "/" in name or "\\" in name:  # it names files (NAME-prisma.svg): not folders
        raise ReviewError(
            f"bad review name {name[:40]!r}: no / or \\ (the name is used in file names)",
            "use e.g. statins-2025",
        )
    return name


def _require(store: Store, name: str) -> None:
    with store._lock:
        row = store._conn.execute("SELECT 1 FROM reviews WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise ReviewError(f"no review named {name!r}", "litsift review list shows the reviews")


def create_review(
    store: Store,
    name: str,
    criteria: str = "",
    keywords: Sequence[str] = (),
    files: Sequence[tuple[str, str, int, int]] = (),
) -> str:
    """Make an empty review (records come with :func:`add_records`).

    Args:
        files: ``(file, format, entries read, bad entries)`` per imported file.

    Returns:
        The name as stored (stripped).

    Raises:
        ReviewError: the name is empty, too long, or taken.
    """
    name = _clean_name(name)
    words = [k.strip() for k in keywords if k.strip()]
    with store._write_transaction() as conn:
        if conn.execute("SELECT 1 FROM reviews WHERE name = ?", (name,)).fetchone():
            raise ReviewError(
                f"a review named {name!r} exists",
                f"choose another name, or litsift review delete {shlex.quote(name)}",
            )
        conn.execute(
            "INSERT INTO reviews(name, criteria, keywords, created_at) VALUES (?, ?, ?, ?)",
            (name, criteria.strip(), json.dumps(words), now_iso()),
        )
        conn.executemany(
            "INSERT OR REPLACE INTO review_files VALUES (?, ?, ?, ?, ?)",
            [(name, f, fmt, n, bad) for f, fmt, n, bad in files],
        )
    return name


#: the tables holding a review's rows besides ``reviews`` (deleted with it)
_REVIEW_TABLES = ("review_decisions", "review_notes", "review_verdicts", "review_records",
                  "review_files")  # fmt: skip


def delete_review(store: Store, name: str) -> None:
    """Drop a review, its records' membership and its decisions (the papers stay).

    Raises:
        ReviewError: no such review.
    """
    _require(store, name)
    with store._write_transaction() as conn:
        for table in _REVIEW_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE review = ?", (name,))
        conn.execute("DELETE FROM reviews WHERE name = ?", (name,))


def add_records(store: Store, name: str, entries: dict[str, int]) -> int:
    """Add papers to a review, in the order given; a paper already in it gains the entries.

    Args:
        entries: ``{doc_id: imported entries grouped on it}``.

    Returns:
        Records added.
    """
    added = 0
    with store._write_transaction() as conn:
        start = conn.execute(
            "SELECT COALESCE(MAX(position), -1) + 1 FROM review_records WHERE review = ?", (name,)
        ).fetchone()[0]
        for i, (doc_id, n) in enumerate(entries.items()):
            cur = conn.execute(
                "INSERT INTO review_records(review, doc_id, position, entries) VALUES (?,?,?,?) "
                "ON CONFLICT(review, doc_id) DO UPDATE SET entries = entries + excluded.entries",
                (name, doc_id, int(start) + i, n),
            )
            added += cur.rowcount
    return added


def get_review(store: Store, name: str) -> ReviewInfo:
    """One review's settings and counts.

    Raises:
        ReviewError: no such review.
    """
    found = [r for r in list_reviews(store) if r.name == name]
    if not found:
        raise ReviewError(f"no review named {name!r}", "litsift review list shows the reviews")
    return found[0]


def list_reviews(store: Store) -> list[ReviewInfo]:
    """Every review, newest first."""
    with store._lock:
        rows = store._conn.execute(
            "SELECT name, criteria, keywords, created_at, "
            "(SELECT COUNT(*) FROM review_records r WHERE r.review = v.name) "
            "FROM reviews v ORDER BY created_at DESC, name"
        ).fetchall()
        decided = dict(
            store._conn.execute(
                "SELECT review, COUNT(DISTINCT doc_id) FROM review_decisions WHERE undone = 0 "
                "AND stage = 'tiab' GROUP BY review"
            ).fetchall()
        )
    return [
        ReviewInfo(
            str(n), str(c), tuple(json.loads(k or "[]")), str(t), int(r), int(decided.get(n, 0))
        )
        for n, c, k, t, r in rows
    ]


def current_decisions(
    store: Store, name: str, stage: str = "tiab", reviewer: str | None = None
) -> list[tuple[str, str, str]]:
    """``(doc_id, decision, source)`` of each decided record of ``stage``, in the order of
    its decision (oldest first): the final decisions (reviewers agreeing, or a resolution), or
    with ``reviewer`` what that reviewer decided (and the priors)."""
    from litsift.store import review_stages as rs

    rows = rs.stage_rows(store, name, stage)
    got = rs.final_decisions(rows) if reviewer is None else rs.reviewer_decisions(rows, reviewer)
    return [(r.doc_id, r.decision, r.source) for r in got]


def review_records(
    store: Store, name: str, stage: str = "tiab", reviewer: str | None = None
) -> list[ReviewRecord]:
    """Every record of a review's ``stage`` in import order, with its current decision (see
    :func:`current_decisions`): at ``fulltext`` the records not excluded at title/abstract.
    Its note is every reviewer's (:func:`litsift.store.review_notes.joined`), or with
    ``reviewer`` that reviewer's own (blind: no other reviewer's judgement).

    Raises:
        ReviewError: no such review.
    """
    from litsift.store import review_stages as rs
    from litsift.store.review_notes import joined, review_notes

    _require(store, name)
    rows = rs.stage_rows(store, name, stage)
    got = rs.final_decisions(rows) if reviewer is None else rs.reviewer_decisions(rows, reviewer)
    decided = {r.doc_id: r for r in got}
    keep = None
    if stage != "tiab":
        keep = rs.not_excluded(rs.stage_rows(store, name, "tiab"))
    with store._lock:
        found = store._conn.execute(
            "SELECT doc_id, position, entries FROM review_records WHERE review = ? "
            "ORDER BY position",
            (name,),
        ).fetchall()
    noted = review_notes(store, name, reviewer)
    out = []
    for doc_id, pos, n in found:
        if keep is not None and doc_id not in keep:
            continue
        r, by = decided.get(str(doc_id)), noted.get(str(doc_id), {})
        note = joined(by) if reviewer is None else by.get(reviewer, "")
        out.append(
            ReviewRecord(str(doc_id), int(pos), int(n), note, r.decision if r else None,
                         r.source if r else None, r.reason if r else "")
        )  # fmt: skip
    return out


def mark_opened(store: Store, name: str) -> None:
    """Remember that ``name`` was opened for screening now (see :func:`last_opened`)."""
    with store._write_transaction() as conn:
        conn.execute("UPDATE reviews SET opened_at = ? WHERE name = ?", (now_iso(), name))


def last_opened(store: Store) -> str | None:
    """The review screened last, else the newest one, else None."""
    with store._lock:
        row = store._conn.execute(
            "SELECT name FROM reviews ORDER BY COALESCE(opened_at, created_at) DESC LIMIT 1"
        ).fetchone()
    return None if row is None else str(row[0])


def duplicate_groups(store: Store, name: str) -> dict[str, list[str]]:
    """The imported entries grouped on each record that stands for more than one.

    Returns:
        ``{doc_id: ["FILE:LOCATION", ...]}`` from ``provenance``, limited to the review's files,
        for records with at least two entries.
    """
    with store._lock:
        files = [
            str(f)
            for (f,) in store._conn.execute(
                "SELECT file FROM review_files WHERE review = ? ORDER BY rowid", (name,)
            )
        ]
        multi = [
            str(d)
            for (d,) in store._conn.execute(
                "SELECT doc_id FROM review_records WHERE review = ? AND entries > 1 "
                "ORDER BY position",
                (name,),
            )
        ]
        out: dict[str, list[str]] = {d: [] for d in multi}
        for start in range(0, len(multi), _MAX_PARAMS):
            chunk = multi[start : start + _MAX_PARAMS]
            marks = ",".join("?" * len(chunk))
            rows = store._conn.execute(
                f"SELECT doc_id, file, location FROM provenance WHERE kind = 'paper' "
                f"AND doc_id IN ({marks})",
                chunk,
            ).fetchall()
            order = {f: i for i, f in enumerate(files)}
            for doc_id, file, location in sorted(
                rows, key=lambda r: (order.get(r[1], -1), natural_key(str(r[2])))
            ):
                if file in order:
                    out[str(doc_id)].append(f"{file}:{location}")
    return out


def prisma(store: Store, name: str) -> Prisma:
    """The review's PRISMA counts (see :class:`Prisma`).

    Raises:
        ReviewError: no such review.
    """
    from litsift.store import review_stages as rs

    records = review_records(store, name)
    with store._lock:
        files = store._conn.execute(
            "SELECT file, entries, bad FROM review_files WHERE review = ? ORDER BY rowid", (name,)
        ).fetchall()
    grouped = sum(r.entries for r in records)
    tiab = _stage_counts(records, rs.stage_rows(store, name, "tiab"))
    sought = review_records(store, name, "fulltext")
    full = _stage_counts(sought, rs.stage_rows(store, name, "fulltext"))
    pdfs = rs.attachment_paths(store, [r.doc_id for r in sought])
    return Prisma(
        identified=sum(int(n) + int(b) for _, n, b in files),  # unreadable ones too
        duplicates_removed=max(int(grouped) - len(records), 0),
        records=len(records),
        screened=tiab["screened"],
        excluded=tiab["excluded"],
        included=tiab["included"],
        maybe=tiab["maybe"],
        unscreened=len(records) - tiab["screened"],
        bad=sum(int(b) for _, _, b in files),
        conflicts=tiab["conflicts"],
        reasons=tiab["reasons"],
        sources={str(f): int(n) + int(b) for f, n, b in files},
        fulltext={
            "sought": len(sought),
            "pdfs": sum(1 for r in sought if r.doc_id in pdfs),
            # the library's paths as written; a Windows Zotero export read here names none
            "pdfs_here": sum(1 for r in sought if any(map(_is_file, pdfs.get(r.doc_id, [])))),
            "assessed": full["screened"],
            "excluded": full["excluded"],
            "included": full["included"],
            "maybe": full["maybe"],
            "conflicts": full["conflicts"],
            "unassessed": len(sought) - full["screened"],
            "reasons": full["reasons"],
        },
    )


def _stage_counts(records: Sequence[ReviewRecord], rows: Sequence[Any]) -> dict[str, Any]:
    """Decided records per decision, conflicts and exclusions per reason of one stage."""
    from litsift.store.review_stages import conflicts

    by = {d: sum(1 for r in records if r.decision == d) for d in DECISIONS}
    reasons: dict[str, int] = {}
    for r in records:
        if r.decision == "exclude":
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
    in_stage = {r.doc_id for r in records}
    clash = sum(1 for d in conflicts(rows) if d in in_stage)
    # a conflict is screened, awaiting resolution: counted once, in no decision's count
    return {"screened": sum(by.values()) + clash, "excluded": by["exclude"],
            "included": by["include"],
            "maybe": by["maybe"], "conflicts": clash,
            "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))}  # fmt: skip


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except (OSError, ValueError):  # a path this system cannot even stat
        return False
