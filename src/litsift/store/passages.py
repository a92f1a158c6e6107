"""Reads of papers' full-text passages (table ``passages``, written by imports through
:func:`litsift.store.merges.replace_passages`) for the passage indexes and their searchers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from litsift.store.repo import Store
from litsift.types import Passage

__all__ = ["index_passages", "passages_at"]


def _passage(doc_id: str, idx: int, row: Sequence[Any]) -> Passage:
    page = row[3]
    return Passage(
        doc_id, idx, str(row[0]), str(row[1]), str(row[2]), None if page is None else int(page)
    )


def passages_at(store: Store, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Passage]:
    """The stored passages at ``(doc id, idx)`` keys, one indexed read each (under one hold of
    the store's lock); keys with no passage are absent."""
    out: dict[tuple[str, int], Passage] = {}
    with store._lock:
        for d, i in keys:
            row = store._conn.execute(
                "SELECT section, text, source, page FROM passages WHERE doc_id = ? AND idx = ?",
                (d, i),
            ).fetchone()
            if row is not None:
                out[(d, i)] = _passage(d, i, row)
    return out


def index_passages(
    store: Store, per_paper: int, field_chars: int, text_chars: int
) -> tuple[list[Passage], dict[str, str]]:
    """The passages a passage index holds, in (doc id, idx) order: each paper's first
    ``per_paper``, sections cut to ``field_chars`` and texts to ``text_chars`` characters; and
    the titles of their papers (``""`` for a paper not stored), cut to ``field_chars``.

    Returns:
        ``(passages, {doc id: title})``.
    """
    with store._lock:
        rows = store._conn.execute(
            "SELECT p.doc_id, p.idx, substr(p.section, 1, ?), substr(p.text, 1, ?), p.source, "
            "substr(COALESCE(r.title, ''), 1, ?), p.page "
            "FROM passages p LEFT JOIN papers r ON r.id = p.doc_id WHERE p.idx < ? "
            "ORDER BY p.doc_id, p.idx",
            (field_chars, text_chars, field_chars, per_paper),
        ).fetchall()
    passages = [
        Passage(str(d), int(i), str(s), str(t), str(src), None if pg is None else int(pg))
        for d, i, s, t, src, _, pg in rows
    ]
    titles = {str(r[0]): str(r[5]) for r in rows}
    return passages, titles
