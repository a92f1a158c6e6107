"""The parts of an index pair, filled from the store: the BM25 and dense loops, the manifest
of a published pair, and the decision of what to rebuild (used by the build of
:mod:`litsift.search.build.two_phase`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litsift.errors import IndexDamagedError
from litsift.search.build.layout import BATCH_SIZE, Progress, clear_staging, index_dir_for, recover
from litsift.search.build.manifest import (
    MANIFEST_VERSION,
    PARTS,
    FileRecords,
    Manifest,
    find_damage,
    read_manifest,
    record_files,
    unrecorded_parts,
    write_manifest,
)
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.search.retrieval.bm25 import BM25Index
    from litsift.search.retrieval.dense import DenseIndex
    from litsift.store import Store


def index_bm25(
    store: Store, kind: Kind, since: int, bm25: BM25Index, total: int, progress: Progress
) -> int:
    """Add every row changed since revision ``since`` to ``bm25`` and close it; the count."""
    done = 0
    progress("bm25", 0, total)
    for batch in store.rows_since(kind, since, batch_size=BATCH_SIZE):
        done += bm25.add(batch)
        progress("bm25", done, max(total, done))
    bm25.close()
    return done


def index_dense(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    since: int,
    dense: DenseIndex,
    total: int,
    progress: Progress,
    stage_seconds: dict[str, float],
    after: int = 0,
    on_batch: Callable[[int, int], None] | None = None,
) -> int:
    """Embed every row changed since revision ``since`` (and of rowid > ``after``) into
    ``dense`` (not saved); the count. Progress ``("embed", done, total)`` counts from
    ``total - rows left``: ``done`` starts at 0 here; ``on_batch(embedded, last rowid)`` runs
    after each batch is in the graph (the builder publishes from it)."""
    embedded = 0
    progress("embed", 0, total)
    stage_seconds.setdefault("embed", 0.0)
    stage_seconds.setdefault("hnsw", 0.0)
    with encoder.worker_pool():  # one process per core: same vectors, faster
        for batch in store.rows_since(kind, since, batch_size=BATCH_SIZE):
            batch = [r for r in batch if r.rowid is not None and r.rowid > after]
            if not batch:
                continue
            t1 = time.perf_counter()
            base = embedded

            def on_embed(d: int, _t: int, base: int = base) -> None:
                progress("embed", base + d, max(total, base + d))

            vectors = encoder.encode_passages([passage_text(r) for r in batch], progress=on_embed)
            embedded += len(batch)
            t2 = time.perf_counter()
            dense.add(np.array([r.rowid for r in batch], dtype=np.int64), vectors)
            t3 = time.perf_counter()
            stage_seconds["embed"] += t2 - t1
            stage_seconds["hnsw"] += t3 - t2
            progress("hnsw", embedded, max(total, embedded))
            if on_batch is not None:
                on_batch(embedded, int(batch[-1].rowid or 0))
    return embedded


def new_manifest(
    encoder: Encoder,
    kind: Kind,
    parts: dict[str, int],
    revisions: dict[str, int],
    counts: dict[str, int],
    params: tuple[int, int, int],
    files: FileRecords,
    seconds: float,
    dense_cursor: int = 0,
) -> Manifest:
    """The manifest of a freshly published index (``count``/``max_revision``: BM25's)."""
    return Manifest(
        schema_version=MANIFEST_VERSION,
        kind=kind.value,
        model_id=encoder.model_id,
        onnx_sha256=encoder.onnx_sha256,
        dim=encoder.dim,
        M=params[0],
        ef_construction=params[1],
        seed=params[2],
        count=counts["bm25"],
        max_revision=revisions["bm25"],
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        build_seconds=round(seconds, 3),
        parts=parts,
        files=files,
        revisions=revisions,
        counts=counts,
        dense_cursor=dense_cursor,
    )


def read_current(
    index_root: Path, kind: Kind, encoder: Encoder, rebuild: bool, check: bool
) -> tuple[Manifest | None, tuple[str, ...], dict[str, str], bool]:
    """Under the lock: recover, clear staging dirs, and decide what to rebuild.

    Returns:
        ``(current manifest or None, parts to rebuild, {part: damage}, check)``.
    """
    check = recover(index_root, kind, locked=True) or check
    clear_staging(index_root, kind)
    target = index_dir_for(index_root, kind)
    repaired: dict[str, str] = {}
    try:
        current = read_manifest(target)
    except IndexDamagedError as err:
        current, repaired = None, {"manifest": err.message}
    rebuilt: tuple[str, ...] = PARTS
    if current is None or rebuild or current.kind != kind.value:
        current = None
    else:
        repaired = find_damage(target, current, full=check)
        redo = set(current.stale_parts(encoder)) | set(repaired)
        rebuilt = tuple(p for p in PARTS if p in redo)
    return current, rebuilt, repaired, check


def record_if_unrecorded(target: Path, current: Manifest) -> Manifest:
    """A manifest from before file records gets them (and the current schema version)."""
    if unrecorded_parts(current):
        current = replace(current, schema_version=MANIFEST_VERSION, files=record_files(target))
        write_manifest(target, current)
    return current
