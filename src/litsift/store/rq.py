"""Papers' research questions in the store: ``papers.problem`` / ``papers.method`` plus how they
were made (table ``research_questions``, schema v4).

They are not content columns: re-ingesting a paper keeps them, and they are not indexed, so no
revision is bumped. ``source`` says who made them: ``"user"``, an offline extractor version
(``"offline-1"``) or ``"llm:<model>:<prompt version>"``; the UI shows every non-user source as
unverified.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from litsift.store.repo import Store
from litsift.types import Kind, Paper

__all__ = [
    "RQRow",
    "StoredRQ",
    "made_by",
    "papers_for_rq",
    "rq_info",
    "rq_rows",
    "rq_state",
    "set_rqs",
]

_MAX_PARAMS = 900


@dataclass(frozen=True)
class RQRow:
    """One paper's research question to store."""

    doc_id: str
    problem: str
    method: str
    source: str
    problem_sentence: str = ""
    method_sentence: str = ""


@dataclass(frozen=True)
class StoredRQ:
    """How a stored research question was made."""

    source: str
    created_at: str

    @property
    def verified(self) -> bool:
        """Only a user's own RQ is; extractions are shown as unverified."""
        return self.source == "user"

    @property
    def label(self) -> str:
        """``"yours"``, ``"offline extraction (offline-1), unverified"`` or ``"LLM-extracted
        (model, prompt rq-1), unverified"``."""
        if self.source == "user":
            return "yours"
        if self.source.startswith("llm:"):
            _, model, version = [*self.source.split(":", 2), "", ""][:3]
            return f"LLM-extracted ({model}, prompt {version}), unverified"
        return f"offline extraction ({self.source}), unverified"


def set_rqs(store: Store, rows: Iterable[RQRow]) -> int:
    """Write research questions (one transaction); unknown paper ids are skipped.

    Returns:
        The number of papers updated.
    """
    now = datetime.now(UTC).isoformat(timespec="seconds")
    done = 0
    with store._write_transaction() as conn:
        for r in rows:
            cur = conn.execute(
                "UPDATE papers SET problem = ?, method = ? WHERE id = ?",
                (r.problem.strip(), r.method.strip(), r.doc_id),
            )
            if cur.rowcount == 0:
                continue
            conn.execute(
                "INSERT OR REPLACE INTO research_questions VALUES (?, ?, ?, ?, ?)",
                (r.doc_id, r.source, r.problem_sentence, r.method_sentence, now),
            )
            done += 1
    return done


def rq_info(store: Store, doc_ids: Sequence[str]) -> dict[str, StoredRQ]:
    """How the research questions of ``doc_ids`` were made (ids without one are absent)."""
    out: dict[str, StoredRQ] = {}
    ids = list(dict.fromkeys(doc_ids))
    with store._lock:
        for start in range(0, len(ids), _MAX_PARAMS):
            chunk = ids[start : start + _MAX_PARAMS]
            marks = ",".join("?" * len(chunk))
            for doc_id, source, created in store._conn.execute(
                f"SELECT doc_id, source, created_at FROM research_questions "
                f"WHERE doc_id IN ({marks})",
                chunk,
            ):
                out[str(doc_id)] = StoredRQ(str(source), str(created))
    return out


def papers_for_rq(
    store: Store,
    *,
    only_missing: bool = True,
    replace_sources: Sequence[str] = (),
    year_from: int | None = None,
    year_to: int | None = None,
    doc_ids: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[Paper]:
    """Papers to extract research questions for, by rowid.

    Args:
        only_missing: skip papers that have one, except those whose source is in
            ``replace_sources`` (a user's own RQ is never in it unless named).
        year_from, year_to: inclusive year bounds (papers without a year are skipped when a
            bound is given).
        doc_ids: only these papers.
        limit: at most this many.
    """
    where: list[str] = ["1 = 1"]
    params: list[str | int] = []
    if only_missing:
        keep = ",".join("?" * len(replace_sources)) or "NULL"
        where.append(f"(rq.doc_id IS NULL OR rq.source IN ({keep}))")
        params += list(replace_sources)
    if year_from is not None:
        where.append("p.year >= ?")
        params.append(year_from)
    if year_to is not None:
        where.append("p.year <= ?")
        params.append(year_to)
    base = (
        "SELECT p.rowid FROM papers p LEFT JOIN research_questions rq ON rq.doc_id = p.id "
        f"WHERE {' AND '.join(where)}"
    )
    rowids: list[int] = []
    with store._lock:
        if doc_ids is None:
            rowids = [int(r[0]) for r in store._conn.execute(base, params)]
        else:
            ids = list(dict.fromkeys(doc_ids))
            for start in range(0, len(ids), _MAX_PARAMS):
                chunk = ids[start : start + _MAX_PARAMS]
                sql = f"{base} AND p.id IN ({','.join('?' * len(chunk))})"
                rowids += [int(r[0]) for r in store._conn.execute(sql, [*params, *chunk])]
    rowids = sorted(set(rowids))[:limit] if limit is not None else sorted(set(rowids))
    records = store.get_by_rowids(Kind.PAPER, rowids)
    return [r for r in records.values() if isinstance(r, Paper)]


def made_by(store: Store) -> list[str]:
    """Every distinct ``source`` among the stored research questions (``"user"`` included)."""
    with store._lock:
        return [
            str(r[0]) for r in store._conn.execute("SELECT DISTINCT source FROM research_questions")
        ]


def rq_state(store: Store) -> tuple[int, str]:
    """``(how many research questions are stored, the newest one's created_at or "")``: it
    changes whenever one is written, so a cached index over them can tell it is stale."""
    with store._lock:
        row = store._conn.execute(
            "SELECT COUNT(*), COALESCE(MAX(created_at), '') FROM research_questions"
        ).fetchone()
    return int(row[0]), str(row[1])


def rq_rows(store: Store) -> list[tuple[int, int | None, str, str]]:
    """``(rowid, year, problem, method)`` of every paper that has a research question."""
    with store._lock:
        rows = store._conn.execute(
            "SELECT p.rowid, p.year, p.problem, p.method FROM papers p "
            "JOIN research_questions rq ON rq.doc_id = p.id"
        ).fetchall()
    return [(int(r[0]), r[1], r[2], r[3]) for r in rows]
