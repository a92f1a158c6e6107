"""Builds and updates the BM25 + dense index pair of one kind of record from the store.

Layout: ``<index_root>/<kind>/`` holds ``bm25/`` (tantivy), ``dense.bin`` + ``dense.json``
(hnswlib) and ``manifest.json`` (:class:`Manifest`). Every build writes into a temp dir beside
the target (``.<kind>.tmp-*``) and swaps it in with two renames (current -> ``.<kind>.old``,
new -> current), then deletes the old one. A crash between the renames is repaired on the next
open or build (``.<kind>.old`` is put back); a crash before them leaves only a temp dir, which
the next build deletes. One build per kind at a time (a single writer, like the store).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litsift.errors import IndexMismatchError, IndexMissingError
from litsift.search.bm25 import BM25Index
from litsift.search.dense import DenseIndex
from litsift.search.text import passage_text
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.store import Store

#: Bump when the index layout or the indexed text changes; older indexes must be rebuilt.
SCHEMA_VERSION = 2
MANIFEST = "manifest.json"
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
HNSW_SEED = 100
BATCH_SIZE = 1000

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Manifest:
    """What an index pair was built from; checked against the running encoder on open."""

    schema_version: int
    kind: str
    model_id: str
    onnx_sha256: str
    dim: int
    M: int
    ef_construction: int
    seed: int
    count: int
    max_revision: int
    built_at: str
    build_seconds: float

    def mismatch(self, encoder: Encoder) -> str | None:
        """Why this index cannot serve ``encoder`` (one line), or None when it can."""
        if self.schema_version != SCHEMA_VERSION:
            return f"index schema v{self.schema_version}, this litsift needs v{SCHEMA_VERSION}"
        if self.model_id != encoder.model_id:
            return f"built with {self.model_id}, the encoder is {encoder.model_id}"
        if self.onnx_sha256 != encoder.onnx_sha256:
            return (
                f"built with ONNX file {self.onnx_sha256[:12]}, "
                f"the encoder's is {encoder.onnx_sha256[:12]}"
            )
        if self.dim != encoder.dim:
            return f"built with dimension {self.dim}, the encoder gives {encoder.dim}"
        return None


@dataclass(frozen=True)
class IndexReport:
    """The outcome of :func:`build_index`.

    Attributes:
        kind: the kind indexed.
        mode: ``"full"``, ``"incremental"`` or ``"unchanged"`` (nothing new in the store).
        indexed: rows (re)indexed by this build.
        count: documents in the index afterwards.
        seconds: wall time of the build; ``stage_seconds`` splits it into bm25/embed/hnsw.
        path: the index directory.
    """

    kind: Kind
    mode: str
    indexed: int
    count: int
    seconds: float
    stage_seconds: dict[str, float]
    path: Path
    manifest: Manifest

    def summary(self) -> str:
        """One line for the CLI, e.g. ``full build: 3,327 indexed, 3,327 in index, 41.2 s``."""
        if self.mode == "unchanged":
            return f"up to date: {self.count:,} in index"
        stages = ", ".join(f"{k} {v:.1f} s" for k, v in self.stage_seconds.items())
        return (
            f"{self.mode} build: {self.indexed:,} indexed, {self.count:,} in index, "
            f"{self.seconds:.1f} s ({stages})"
        )


def index_dir_for(index_root: Path, kind: Kind) -> Path:
    """``index_root/<kind>/``, the directory holding ``bm25/``, ``dense.bin``, ``manifest.json``."""
    return Path(index_root) / kind.value


def _old_dir(index_root: Path, kind: Kind) -> Path:
    return Path(index_root) / f".{kind.value}.old"


def _recover(index_root: Path, kind: Kind) -> None:
    """Repair a swap interrupted between its two renames."""
    target, old = index_dir_for(index_root, kind), _old_dir(index_root, kind)
    if old.exists():
        if target.exists():
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(old, target)


def _read_manifest(directory: Path) -> Manifest | None:
    path = directory / MANIFEST
    if not path.is_file():
        return None
    names = {f.name for f in fields(Manifest)}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict) or set(raw) != names:
            raise ValueError("unexpected keys")
        return Manifest(**raw)
    except (OSError, ValueError) as err:
        raise IndexMismatchError(
            f"unreadable index manifest {path}: {err}", "run `litsift index --rebuild`"
        ) from err


def index_status(index_root: Path, kind: Kind) -> Manifest | None:
    """The manifest of the current index of ``kind``, or None when there is none.

    Raises:
        IndexMismatchError: the manifest exists but cannot be read as a :class:`Manifest`.
    """
    _recover(index_root, kind)
    return _read_manifest(index_dir_for(index_root, kind))


def open_indexes(
    index_root: Path, kind: Kind, encoder: Encoder
) -> tuple[BM25Index, DenseIndex, Manifest]:
    """Open the index pair of ``kind`` after checking its manifest against ``encoder``.

    Raises:
        IndexMissingError: no index was built for ``kind`` (hint: ``litsift index``).
        IndexMismatchError: the index was built with another model, ONNX file, dimension or
            index schema (hint: ``litsift index --rebuild``).
    """
    manifest = index_status(index_root, kind)
    directory = index_dir_for(index_root, kind)
    if manifest is None:
        raise IndexMissingError(f"no {kind.value} index in {directory}", "run `litsift index`")
    why = manifest.mismatch(encoder)
    if why is not None or manifest.kind != kind.value:
        raise IndexMismatchError(
            f"the {kind.value} index does not match: {why or 'wrong kind'}",
            "run `litsift index --rebuild`",
        )
    return BM25Index.open(directory / "bm25"), DenseIndex.open(directory / "dense.bin"), manifest


def _swap(index_root: Path, kind: Kind, new_dir: Path) -> None:
    target, old = index_dir_for(index_root, kind), _old_dir(index_root, kind)
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.rename(target, old)
    os.rename(new_dir, target)
    shutil.rmtree(old, ignore_errors=True)


def _index_rows(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    since: int,
    bm25: BM25Index,
    dense: DenseIndex,
    bm25_total: int,
    progress: Progress,
    stage_seconds: dict[str, float],
) -> int:
    """Index every row the store has changed since revision ``since``; returns the count."""
    t0 = time.perf_counter()
    done = 0
    progress("bm25", 0, bm25_total)
    for batch in store.rows_since(kind, since, batch_size=BATCH_SIZE):
        done += bm25.add(batch)
        progress("bm25", done, max(bm25_total, done))
    bm25.close()
    stage_seconds["bm25"] = time.perf_counter() - t0

    total, embedded, added = done, 0, 0
    progress("embed", 0, total)
    stage_seconds.setdefault("embed", 0.0)
    stage_seconds.setdefault("hnsw", 0.0)
    for batch in store.rows_since(kind, since, batch_size=BATCH_SIZE):
        t1 = time.perf_counter()
        base = embedded

        def on_embed(d: int, _t: int, base: int = base) -> None:
            progress("embed", base + d, max(total, base + d))

        vectors = encoder.encode_passages([passage_text(r) for r in batch], progress=on_embed)
        embedded += len(batch)
        t2 = time.perf_counter()
        rowids = np.array([r.rowid for r in batch], dtype=np.int64)
        dense.add(rowids, vectors)
        added += len(batch)
        t3 = time.perf_counter()
        stage_seconds["embed"] += t2 - t1
        stage_seconds["hnsw"] += t3 - t2
        progress("hnsw", added, max(total, added))
    t4 = time.perf_counter()
    dense.save()
    stage_seconds["hnsw"] += time.perf_counter() - t4
    return done


def build_index(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    index_root: Path,
    rebuild: bool = False,
    progress: Progress | None = None,
) -> IndexReport:
    """Build (or bring up to date) the BM25 + dense indexes of ``kind``.

    A full build happens when there is no index, ``rebuild`` is set, or the manifest does not
    match ``encoder``; otherwise only rows changed since the manifest's ``max_revision`` are
    (re)indexed into a copy of the current index. Either way the result is swapped in
    atomically; an exception midway (including one raised by ``progress``) leaves the previous
    index as it was.

    Args:
        store: the SQLite store (``rows_since``, ``max_revision``, ``count``).
        encoder: the bi-encoder embedding :func:`~litsift.search.text.passage_text`.
        kind: papers or datasets.
        index_root: the directory of all indexes (``Paths.index_dir``).
        rebuild: force a full build.
        progress: ``(stage, done, total)`` with stage ``"bm25"``, ``"embed"`` or ``"hnsw"``;
            for an incremental build the bm25 total is 0 (unknown) until rows are read.

    Returns:
        An :class:`IndexReport`.
    """
    started = time.perf_counter()
    report_progress: Progress = progress or (lambda _s, _d, _t: None)
    index_root = Path(index_root)
    index_root.mkdir(parents=True, exist_ok=True)
    _recover(index_root, kind)
    for stale in index_root.glob(f".{kind.value}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    target = index_dir_for(index_root, kind)
    try:
        current = _read_manifest(target)
    except IndexMismatchError:
        current = None
    incremental = current is not None and not rebuild and current.mismatch(encoder) is None
    max_revision = int(store.max_revision(kind))
    if incremental and current is not None and current.max_revision >= max_revision:
        return IndexReport(kind, "unchanged", 0, current.count, 0.0, {}, target, current)

    tmp = Path(tempfile.mkdtemp(prefix=f".{kind.value}.tmp-", dir=index_root))
    stage_seconds: dict[str, float] = {}
    try:
        if incremental and current is not None:
            shutil.copytree(target, tmp, dirs_exist_ok=True)
            bm25 = BM25Index.open(tmp / "bm25")
            dense = DenseIndex.open(tmp / "dense.bin")
            since, bm25_total = current.max_revision, 0
            params = (current.M, current.ef_construction, current.seed)
        else:
            total_rows = int(store.count(kind))
            params = (HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_SEED)
            bm25 = BM25Index.create(tmp / "bm25", kind)
            dense = DenseIndex.create(tmp / "dense.bin", encoder.dim, total_rows, *params)
            since, bm25_total = 0, total_rows
        indexed = _index_rows(
            store, encoder, kind, since, bm25, dense, bm25_total, report_progress, stage_seconds
        )
        seconds = time.perf_counter() - started
        manifest = Manifest(
            schema_version=SCHEMA_VERSION,
            kind=kind.value,
            model_id=encoder.model_id,
            onnx_sha256=encoder.onnx_sha256,
            dim=encoder.dim,
            M=params[0],
            ef_construction=params[1],
            seed=params[2],
            count=dense.count(),
            max_revision=max_revision,
            built_at=datetime.now(UTC).isoformat(timespec="seconds"),
            build_seconds=round(seconds, 3),
        )
        (tmp / MANIFEST).write_text(json.dumps(asdict(manifest), indent=2), encoding="utf-8")
        del bm25, dense
        _swap(index_root, kind, tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    mode = "incremental" if incremental else "full"
    return IndexReport(
        kind, mode, indexed, manifest.count, seconds, stage_seconds, target, manifest
    )
