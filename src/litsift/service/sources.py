"""The part of the service door that brings literature in: imports, de-duplication, syncs.

Reached as ``LitsiftService.sources``; it shares the service's store and tells the service's
searchers that their kind changed, so the next search reopens them (the next ``litsift index``
indexes the new rows incrementally).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.config import Config
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.sources.dedup import DedupPlan
    from litsift.sources.importer import ImportProgress
    from litsift.sources.online.sync import SyncResult
    from litsift.store import IngestReport, Store
    from litsift.types import SyncSpec

__all__ = ["SourceService"]


class SourceService:
    """Imports and de-duplication on one store (see :mod:`litsift.sources`)."""

    def __init__(
        self,
        store: Callable[[], Store],
        changed: Callable[[Kind], None],
        config: Config | None = None,
    ) -> None:
        self._store = store
        self._changed = changed
        self._config = config or Config()

    def import_paths(
        self,
        kind: Kind,
        paths: Sequence[Path],
        fmt_name: str | None = None,
        progress: ImportProgress | None = None,
    ) -> IngestReport:
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
        from litsift.sources.formats.registry import formats

        return [(f.name, f.kind.value, f.description) for f in formats().values()]

    def dedup(self, apply: bool = False) -> DedupPlan:
        """The groups of stored papers that are one work, and of stored datasets that are
        one dataset; merged when ``apply``.

        See :func:`litsift.sources.dedup.find_duplicates` /
        :func:`~litsift.sources.dedup.apply`.
        """
        from litsift.sources import dedup

        plan = dedup.find_duplicates(self._store())
        if apply and (plan.groups or plan.dataset_groups):
            dedup.apply(self._store(), plan)
            for kind, groups in ((Kind.PAPER, plan.groups), (Kind.DATASET, plan.dataset_groups)):
                if groups:
                    self._changed(kind)
        return plan

    def arrivals(self) -> int:
        """Papers that saved syncs brought in since the last :meth:`mark_arrivals_seen`
        (provenance rows whose file is ``sync:NAME``, newer than the last look)."""
        from litsift.store.repositories import Provenance, SavedSyncs

        store = self._store()
        return Provenance(store).synced_since(SavedSyncs(store).arrivals_seen_at())

    def mark_arrivals_seen(self) -> None:
        """Remember that the user has seen what syncs brought in until now."""
        from litsift.store.history import now_iso
        from litsift.store.repositories import SavedSyncs

        store = self._store()
        if store.readonly:
            return
        SavedSyncs(store).mark_arrivals_seen(now_iso())

    def saved_syncs(self) -> list[SyncSpec]:
        """Every saved sync of this store."""
        from litsift.store.repositories import SavedSyncs

        return SavedSyncs(self._store()).load()

    def sync(
        self,
        spec: SyncSpec | None = None,
        max_pages: int | None = None,
        progress: Callable[[str, int, int | None], None] | None = None,
    ) -> list[tuple[SyncSpec, SyncResult, IngestReport]]:
        """Run one sync (saved under ``spec.name`` first) or, with None, every saved sync.

        A sync saved before with the same name and parameters continues from its high-water
        mark, so only what is new is fetched; its records are imported (merged like any
        import, provenance ``sync:NAME``), and the new high water is saved after the run.

        Raises:
            SyncError: unknown source, missing parameter, or an error the service reported.
            FetchError: a service could not be reached after the retries.
        """
        import os

        from litsift import __version__
        from litsift.sources.base import BadItem
        from litsift.sources.online.http import PoliteClient
        from litsift.sources.online.sync import now_utc, run_sync
        from litsift.sources.writer import RecordWriter
        from litsift.store.repositories import SavedSyncs

        store = self._store()
        syncs = SavedSyncs(store)
        saved = {s.name: s for s in syncs.load()}
        specs = [spec] if spec is not None else list(saved.values())
        cfg = self._config.sources
        agent = f"litsift/{__version__}" + (f" (mailto:{cfg.mailto})" if cfg.mailto else "")
        done = []
        for job in specs:
            old = saved.get(job.name)
            if old is not None and (old.source, old.params) == (job.source, job.params):
                job.high_water = job.high_water or old.high_water
                if job.resume_token is None:  # an interrupted walk of the same query: finish it
                    job.resume_token, job.resume_high_water = (
                        old.resume_token,
                        old.resume_high_water,
                    )
            else:  # new parameters: a token of the old query means nothing for them
                job.resume_token = job.resume_high_water = None
            syncs.save(job)
            settings = cfg.service(job.source)
            client = PoliteClient(
                delay_s=settings.delay_s,
                timeout_s=settings.timeout_s,
                max_response_bytes=int(settings.max_response_mb * 1_000_000),
                max_retries=settings.max_retries,
                user_agent=agent,
            )
            writer = RecordWriter(store, Kind.PAPER)
            label = f"sync:{job.name}"

            def sink(
                records: list[Any],
                bad: list[BadItem],
                page_no: int,
                writer: RecordWriter = writer,
                job: SyncSpec = job,
                label: str = label,
            ) -> None:
                for rec in records:
                    rec.location = rec.source_key or f"page {page_no} {rec.location}"
                    writer.add(job.source, label, rec)
                for item in bad:
                    writer.add(
                        job.source, label, BadItem(f"page {page_no} {item.location}", item.reason)
                    )
                writer.flush()

            def report(records: int, total: int | None, name: str = job.name) -> None:
                if progress is not None:
                    progress(name, records, total)

            def checkpoint(token: str | None, high_water: str | None, job: SyncSpec = job) -> None:
                # after the page's records were written: an interruption from here on resumes
                # at the next page (high water and parameters of the walk are kept unchanged)
                job.resume_token = token
                job.resume_high_water = high_water if token is not None else None
                syncs.save(job)

            try:
                result = run_sync(
                    job,
                    settings.base_url,
                    client,
                    sink,
                    mailto=cfg.mailto,
                    api_key=os.environ.get(cfg.s2_api_key_env) if cfg.s2_api_key_env else None,
                    max_pages=max_pages,
                    progress=report,
                    checkpoint=checkpoint,
                )
            finally:
                client.close()
                writer.flush()
                self._changed(Kind.PAPER)
            if job.resume_token is None:  # the walk ended: the next run asks for what is new
                job.high_water = result.high_water
            job.last_run_at = now_utc()
            job.last_added = writer.counts.added
            syncs.save(job)
            done.append((job, result, writer.counts))
        return done
