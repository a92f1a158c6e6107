"""An LLM judge's verdicts on a review's records (table ``review_verdicts``,
:mod:`litsift.store.schema_tables`): one per record and model, written as each call's replies
arrive (``litsift review judge``), so an interrupted run keeps what was judged. Verdicts are
never decisions: the learning order reads them as a column and the screen shows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from litsift.errors import ReviewError
from litsift.store.history import now_iso
from litsift.store.repo import Store

__all__ = ["StoredVerdict", "save_verdicts", "stale_verdicts", "stored_verdicts"]


@dataclass(frozen=True)
class StoredVerdict:
    """A record's verdict: ``value`` +1 include / 0 unsure / -1 exclude, the model's reason,
    the model, when it was judged (ISO 8601, UTC) and what it was asked with
    (:func:`litsift.llm.screening.prompt_id`: the prompt's version and the criteria's digest)."""

    value: int
    reason: str
    model: str
    judged_at: str
    prompt: str = ""

    @property
    def label(self) -> str:
        """``include`` / ``unsure`` / ``exclude``."""
        return {1: "include", 0: "unsure", -1: "exclude"}[self.value]


def save_verdicts(
    store: Store, name: str, model: str, verdicts: Mapping[str, tuple[int, str]], prompt: str
) -> int:
    """Store ``{doc_id: (value, reason)}`` judged by ``model`` with prompt version ``prompt``,
    replacing that model's earlier verdict on the same records; records no longer in the
    review are skipped (the caller keeps control characters out of the reasons:
    :func:`litsift.text.for_storage`). Returns the verdicts stored.

    Raises:
        ReviewError: there is no review ``name`` (deleted while its records were judged).
        MachineFaultError: the store cannot be written.
    """
    at = now_iso()
    with store._write_transaction() as conn:
        if conn.execute("SELECT 1 FROM reviews WHERE name = ?", (name,)).fetchone() is None:
            raise ReviewError(
                f"no review named {name!r}: it was deleted while its records were judged",
                "litsift review list shows the reviews",
            )
        members = {
            str(r[0])
            for r in conn.execute("SELECT doc_id FROM review_records WHERE review = ?", (name,))
        }
        rows = [
            (name, doc_id, model, int(value), reason, prompt, at)
            for doc_id, (value, reason) in verdicts.items()
            if doc_id in members
        ]
        conn.executemany(
            "INSERT INTO review_verdicts(review, doc_id, model, verdict, reason, prompt, "
            "judged_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(review, doc_id, model) DO "
            "UPDATE SET verdict = excluded.verdict, reason = excluded.reason, "
            "prompt = excluded.prompt, judged_at = excluded.judged_at",
            rows,
        )
    return len(rows)


def stored_verdicts(
    store: Store,
    name: str,
    model: str | None = None,
    *,
    prompt: str | None = None,
    prefer: str = "",
) -> dict[str, StoredVerdict]:
    """``{doc_id: verdict}`` of the review's judged records: ``model``'s, else each record's
    verdict of ``prefer`` (the configured model) where it gave one, else its newest of any
    model; with ``prompt``, only the verdicts asked with that prompt id (the review's criteria
    as they are now: a verdict given against earlier criteria is not the record's verdict)."""
    where = ("" if model is None else " AND model = ?") + (
        "" if prompt is None else " AND prompt = ?"
    )
    args = (name, *(() if model is None else (model,)), *(() if prompt is None else (prompt,)))
    with store._lock:
        rows = store._conn.execute(
            "SELECT doc_id, verdict, reason, model, judged_at, prompt FROM review_verdicts "
            f"WHERE review = ?{where} ORDER BY model = ?, judged_at, model",
            (*args, prefer),
        ).fetchall()
    return {  # the last row of a record wins: the preferred model's, else the newest
        str(d): StoredVerdict(int(v), str(r), str(m), str(at), str(p)) for d, v, r, m, at, p in rows
    }


def stale_verdicts(store: Store, name: str, prompt: str) -> int:
    """How many of the review's records have verdicts only from another prompt id than
    ``prompt`` (given against earlier criteria: ``litsift review judge`` asks them again)."""
    with store._lock:
        row = store._conn.execute(
            "SELECT COUNT(DISTINCT doc_id) FROM review_verdicts AS v WHERE review = ? AND "
            "prompt != ? AND NOT EXISTS (SELECT 1 FROM review_verdicts AS w WHERE "
            "w.review = v.review AND w.doc_id = v.doc_id AND w.prompt = ?)",
            (name, prompt, prompt),
        ).fetchone()
    return int(row[0])
