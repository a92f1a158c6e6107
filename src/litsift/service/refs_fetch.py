"""Fetching the citation trail (``litsift refs fetch``; :meth:`RefsService.fetch` of
:mod:`litsift.service.refs`): each (source, seed, direction) walk is fetched page by page,
its works written like any import and its edges to :mod:`litsift.store.citations`, with a
checkpoint in ``refs_fetches`` after each page so an interrupted walk resumes there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from litsift.config import Config
from litsift.errors import LitsiftError
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.store import Store
    from litsift.store.refs_fetches import Direction
    from litsift.store.report import IngestReport

__all__ = ["RefsError", "RefsFetchReport", "Walk", "fetch_walks", "ids_of"]


class RefsError(LitsiftError):
    """A citation-trail request that cannot run (unknown paper or collection, nothing kept)."""


@dataclass
class Walk:
    """One (seed, direction) of a fetch: ``status`` is ``fetched``, ``resumed``, ``cached``
    (done before; not fetched again), ``partial`` (``max_pages`` reached), ``no-id`` or
    ``failed`` (``problem`` says why, ``hint`` what to do); ``note`` says why a walk that
    ended found nothing (the service withholds the list)."""

    doc_id: str
    direction: str
    status: str
    pages: int = 0
    records: int = 0
    problem: str = ""
    hint: str = ""
    note: str = ""


@dataclass
class RefsFetchReport:
    """What ``refs fetch`` did: the walks, the works written (as an import counts them), the
    edges added, and -- when the service could not be reached -- why it stopped."""

    source: str
    counts: IngestReport
    walks: list[Walk] = field(default_factory=list)
    edges_added: int = 0
    stopped: LitsiftError | None = None

    @property
    def ok(self) -> bool:
        return self.stopped is None and not any(w.status in ("failed", "no-id") for w in self.walks)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "walks": [vars(w) for w in self.walks],
            **self.counts.to_json(),
            "edges_added": self.edges_added,
            "stopped": None
            if self.stopped is None
            else {"message": self.stopped.message, "hint": self.stopped.hint},
        }


def ids_of(store: Store, doc_id: str) -> dict[str, str]:
    """The identifiers of stored paper ``doc_id`` (``{scheme: value}``), its id's own
    scheme included."""
    from litsift.sources.identity.ids import SCHEMES
    from litsift.store.repositories import Identities

    ids = Identities(store).ids_of_docs(Kind.PAPER, [doc_id]).get(doc_id, {})
    scheme, _, value = doc_id.partition(":")
    if scheme in SCHEMES and value:
        ids.setdefault(scheme, value)
    return ids


def fetch_walks(
    store_of: Callable[[], Store],
    changed: Callable[[Kind], None],
    config: Config,
    doc_ids: Sequence[str],
    directions: Sequence[Direction] = ("backward", "forward"),
    source: str = "openalex",
    *,
    refresh: bool = False,
    max_pages: int | None = None,
    progress: Callable[[str, str, int, int | None], None] | None = None,
    lock: AbstractContextManager[object] | None = None,
) -> RefsFetchReport:
    """:meth:`RefsService.fetch`: fetch the references and/or citing works of each paper
    from ``source``.

    Args:
        doc_ids: stored paper ids (:meth:`seeds`).
        directions: ``backward`` (references) and/or ``forward`` (citing works).
        source: ``openalex`` or ``s2`` (base URL, delay, retries under ``[sources.NAME]``).
        refresh: walk again the seeds fetched before (else they count as ``cached``).
        max_pages: at most this many pages per walk (the rest on the next run).
        progress: ``progress(doc_id, direction, works so far, total or None)`` per page.
        lock: held around each page's writes (and the searchers' invalidation), never
            across a request: the app's service lock, so that its searches go on while a
            walk waits on the network (a page of OpenAlex, a Retry-After).

    Returns:
        The report; when the service cannot be reached it stops at that walk and says
        so in ``stopped`` (what was written stays, and the next run resumes there).
    """
    from litsift import __version__
    from litsift.sources.base import BadItem, SourceRecord
    from litsift.sources.identity.ids import preferred
    from litsift.sources.online.http import FetchError, PoliteClient
    from litsift.sources.online.trail import (
        SEED_SCHEMES,
        TRAIL_SOURCES,
        TrailError,
        fetch_trail,
        seed_key,
    )
    from litsift.sources.writer import RecordWriter
    from litsift.store.history import now_iso
    from litsift.store.refs_fetches import Checkpoint
    from litsift.store.report import IngestReport
    from litsift.store.repositories import Checkpoints, Citations

    if source not in TRAIL_SOURCES:
        raise RefsError(f"unknown source {source!r}", f"use one of: {', '.join(TRAIL_SOURCES)}")
    store = store_of()
    store.require_writable()
    cfg = config.sources
    settings = cfg.service(source)
    agent = f"litsift/{__version__}" + (f" (mailto:{cfg.mailto})" if cfg.mailto else "")
    client = PoliteClient(
        delay_s=settings.delay_s,
        timeout_s=settings.timeout_s,
        max_response_bytes=int(settings.max_response_mb * 1_000_000),
        max_retries=settings.max_retries,
        user_agent=agent,
    )
    api_key = os.environ.get(cfg.s2_api_key_env) if cfg.s2_api_key_env else None
    report = RefsFetchReport(source, IngestReport())
    edges, checkpoints = Citations(store), Checkpoints(store)
    edges_before = edges.count()
    label = f"refs:{source}"
    writes = lock if lock is not None else nullcontext()
    try:
        for doc_id in doc_ids:
            for direction in directions:
                # per walk: a lookup by DOI in the first one stores the seed's OpenAlex id
                key = seed_key(source, ids_of(store, doc_id))
                state = checkpoints.load(source, doc_id, direction)
                if state.done and not refresh:
                    report.walks.append(Walk(doc_id, direction, "cached", state.pages))
                    continue
                if key is None:
                    report.walks.append(
                        Walk(
                            doc_id,
                            direction,
                            "no-id",
                            problem=f"{doc_id}: no identifier {source} knows "
                            f"(it needs {SEED_SCHEMES[source]})",
                        )
                    )
                    continue
                if state.done:  # refresh: walk again from the start
                    state = Checkpoint()
                writer = RecordWriter(store, Kind.PAPER)
                walk = Walk(doc_id, direction, "resumed" if state.token else "fetched")

                def sink(
                    records: list[SourceRecord],
                    bad: list[BadItem],
                    page_no: int,
                    writer: RecordWriter = writer,
                    doc_id: str = doc_id,
                    direction: Direction = direction,
                    walk: Walk = walk,
                ) -> None:
                    with writes:
                        write_page(records, bad, page_no, writer, doc_id, direction, walk)
                    if progress is not None:
                        progress(doc_id, direction, walk.records, None)

                def write_page(
                    records: list[SourceRecord],
                    bad: list[BadItem],
                    page_no: int,
                    writer: RecordWriter,
                    doc_id: str,
                    direction: Direction,
                    walk: Walk,
                ) -> None:
                    orphans: list[tuple[str, str]] = []
                    for rec in records:
                        rec.location = rec.source_key or (
                            f"{doc_id} {direction} page {page_no} {rec.location}"
                        )
                        if direction == "backward":
                            rec.cited_by = [*rec.cited_by, doc_id]
                        else:
                            rec.references = [*rec.references, doc_id]
                        other = preferred(rec.ids)
                        if not rec.title.strip() and other:  # an edge without a stub
                            orphans.append(
                                (doc_id, other) if direction == "backward" else (other, doc_id)
                            )
                            continue
                        writer.add(source, label, rec)
                    for item in bad:
                        where = f"{doc_id} {direction} page {page_no} {item.location}"
                        writer.add(source, label, BadItem(where, item.reason))
                    writer.flush()
                    if orphans:
                        with store.transaction():
                            edges.add_edges(orphans, source)
                    walk.pages += 1
                    walk.records += len(records)

                def checkpoint(
                    token: str | None,
                    doc_id: str = doc_id,
                    direction: Direction = direction,
                    state: Checkpoint = state,
                ) -> None:
                    state.token, state.done = token, token is None
                    state.pages += 1
                    state.fetched_at = now_iso()
                    with writes, store.transaction():
                        checkpoints.save(source, doc_id, direction, state)

                def seed_found(
                    rec: SourceRecord, writer: RecordWriter = writer, doc_id: str = doc_id
                ) -> None:
                    rec.location = rec.source_key  # the seed's own Work: its OpenAlex id
                    # it merges onto the seed by a shared id: the seed's own ids join the
                    # record's (a seed looked up by its arXiv DOI may come back as the
                    # published version, under the journal's DOI alone)
                    with writes:
                        for scheme, value in ids_of(store, doc_id).items():
                            rec.ids.setdefault(scheme, value)
                        writer.add(source, label, rec)

                try:
                    result = fetch_trail(
                        source,
                        settings.base_url,
                        client,
                        key,
                        direction,
                        sink,
                        mailto=cfg.mailto,
                        api_key=api_key,
                        resume_token=state.token,
                        max_pages=max_pages,
                        checkpoint=checkpoint,
                        seed_found=seed_found,
                    )
                except TrailError as err:
                    walk.status, walk.problem = "failed", f"{doc_id}: {err.message}"
                    walk.hint = err.hint
                    report.walks.append(walk)
                    continue
                except FetchError as err:  # the pages written so far stay counted
                    walk.status, walk.problem = "failed", err.message
                    report.walks.append(walk)
                    raise
                finally:
                    with writes:
                        writer.flush()
                    report.counts.fold(writer.counts)
                if result.withheld:
                    what = "references" if direction == "backward" else "citing papers"
                    name = "Semantic Scholar" if source == "s2" else "OpenAlex"
                    walk.note = f"{doc_id}: {name} gives none of its {what} ({result.withheld})"
                if result.restarted:
                    walk.status = "fetched"
                if not result.complete:
                    walk.status = "partial"
                report.walks.append(walk)
    except FetchError as err:
        report.stopped = LitsiftError(
            err.message,
            f"{err.hint}; what was fetched is kept, and fetching again goes on from the page "
            "it stopped at",
        )
    finally:
        client.close()
        with writes:
            changed(Kind.PAPER)
            report.edges_added = edges.count() - edges_before
    return report
