"""The part of the service door that brings literature in: imports, de-duplication, syncs.

Reached as ``LitsiftService.sources``; it shares the service's store and tells the service's
searchers that their kind changed, so the next search reopens them (the next ``litsift index``
indexes the new rows incrementally).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.sources.dedup import DedupPlan
    from litsift.sources.importer import ImportProgress, ImportReport
    from litsift.store import Store

__all__ = ["SourceService"]


class SourceService:
    """Imports and de-duplication on one store (see :mod:`litsift.sources`)."""

    def __init__(self, store: Callable[[], Store], changed: Callable[[Kind], None]) -> None:
        self._store = store
        self._changed = changed

    def import_paths(
        self,
        kind: Kind,
        paths: Sequence[Path],
        fmt_name: str | None = None,
        progress: ImportProgress | None = None,
    ) -> ImportReport:
        """Import files / directories (format detected per file unless ``fmt_name``).

        See :func:`litsift.sources.importer.import_paths` for the report and errors.
        """
        from litsift.sources.importer import import_paths

        try:
            return import_paths(self._store(), paths, kind, fmt_name, progress)
        finally:
            self._changed(kind)

    @staticmethod
    def format_table() -> list[tuple[str, str, str]]:
        """``(name, kind, description)`` of every format ``litsift ingest`` reads."""
        from litsift.sources.registry import formats

        return [(f.name, f.kind.value, f.description) for f in formats().values()]

    def dedup(self, apply: bool = False) -> DedupPlan:
        """The groups of stored papers that are one work; merged when ``apply``.

        See :func:`litsift.sources.dedup.find_duplicates` / :func:`~litsift.sources.dedup.apply`.
        """
        from litsift.sources import dedup

        plan = dedup.find_duplicates(self._store())
        if apply and plan.groups:
            dedup.apply(self._store(), plan)
            self._changed(Kind.PAPER)
        return plan

    def arrivals(self) -> int:
        """Papers that saved syncs brought in since the last :meth:`mark_arrivals_seen`
        (provenance rows whose file is ``sync:NAME``, newer than the last look)."""
        store = self._store()
        with store.lock:
            seen = store.conn.execute(
                "SELECT value FROM meta WHERE key = 'arrivals_seen_at'"
            ).fetchone()
            row = store.conn.execute(
                "SELECT COUNT(DISTINCT doc_id) FROM provenance WHERE kind = 'paper' "
                "AND file LIKE 'sync:%' AND fetched_at > ?",
                (seen[0] if seen else "",),
            ).fetchone()
        return int(row[0])

    def mark_arrivals_seen(self) -> None:
        """Remember that the user has seen what syncs brought in until now."""
        from litsift.store.history import now_iso

        store = self._store()
        if store.readonly:
            return
        with store.lock:
            store.conn.execute(
                "INSERT INTO meta(key, value) VALUES ('arrivals_seen_at', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (now_iso(),),
            )
            store.conn.commit()

