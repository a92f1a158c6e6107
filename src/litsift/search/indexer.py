"""Builds and updates the BM25 + dense index pair of one kind of record from the store.

Layout: ``<index_root>/<kind>/`` holds ``bm25/`` (tantivy), ``dense.bin`` + ``dense.json``
(hnswlib) and ``manifest.json`` (:mod:`litsift.search.manifest`), which versions the two parts
apart and records every file's size and checksum, so a stale or damaged part is rebuilt alone
from the store. Every build writes into a temp dir beside
the target (``.<kind>.tmp-*``) and swaps it in with two renames (current -> ``.<kind>.old``,
new -> current), then deletes the old one. A crash between the renames is repaired on the next
open or build (``.<kind>.old`` is put back and its checksums verified); a crash before them
leaves only a temp dir, which the next build deletes. One build per kind at a time (a single
writer, like the store).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litsift.errors import IndexDamagedError, IndexMismatchError, IndexMissingError
from litsift.search.bm25 import BM25Index
from litsift.search.dense import DenseIndex
from litsift.search.manifest import MANIFEST as MANIFEST  # re-exported
from litsift.search.manifest import (
    MANIFEST_VERSION,
    PARTS,
    REBUILD_HINT,
    Manifest,
    check_files,
    current_parts,
    find_damage,
    mark_damaged,
    read_manifest,
    record_files,
    unrecorded_parts,
    verify_files,
    write_manifest,
)
from litsift.search.text import passage_text
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.store import Store

HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
HNSW_SEED = 100
BATCH_SIZE = 1000

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class IndexReport:
    """The outcome of :func:`build_index`.

    Attributes:
        kind: the kind indexed.
        mode: ``"full"`` (both parts built from scratch), ``"incremental"`` (at least one part
            updated in place) or ``"unchanged"`` (nothing new in the store, no stale part).
        indexed: rows (re)indexed by this build (in its largest part).
        count: documents in the index afterwards.
        seconds: wall time of the build; ``stage_seconds`` splits it into bm25/embed/hnsw.
        path: the index directory.
        manifest: the manifest written (or the current one when unchanged).
        rebuilt: the parts built from scratch; the others only got the rows changed since.
        repaired: ``{part: what was wrong}`` for the damaged parts this build rebuilt.
        checked: the checksums of every file were verified before building.
    """

    kind: Kind
    mode: str
    indexed: int
    count: int
    seconds: float
    stage_seconds: dict[str, float]
    path: Path
    manifest: Manifest
    rebuilt: tuple[str, ...] = ()
    repaired: dict[str, str] = field(default_factory=dict)
    checked: bool = False

    def summary(self) -> str:
        """One line for the CLI, e.g. ``full build: 3,327 indexed, 3,327 in index, 41.2 s``."""
        repaired = "".join(f"repaired {p}: {why}; " for p, why in self.repaired.items())
        if self.mode == "unchanged":
            checked = ", every file matches its checksum" if self.checked else ""
            return f"up to date: {self.count:,} in index{checked}"
        stages = ", ".join(f"{k} {v:.1f} s" for k, v in self.stage_seconds.items())
        partial = self.mode == "incremental" and self.rebuilt
        rebuilt = f" ({', '.join(self.rebuilt)} rebuilt)" if partial else ""
        return (
            f"{repaired}{self.mode} build{rebuilt}: {self.indexed:,} indexed, "
            f"{self.count:,} in index, {self.seconds:.1f} s ({stages})"
        )


def index_dir_for(index_root: Path, kind: Kind) -> Path:
    """``index_root/<kind>/``, the directory holding ``bm25/``, ``dense.bin``, ``manifest.json``."""
    return Path(index_root) / kind.value


def _old_dir(index_root: Path, kind: Kind) -> Path:
    return Path(index_root) / f".{kind.value}.old"


def _recover(index_root: Path, kind: Kind) -> bool:
    """Repair a swap interrupted between its two renames; True when ``.<kind>.old`` was put
    back (its files are then checked in full before use)."""
    target, old = index_dir_for(index_root, kind), _old_dir(index_root, kind)
    if old.exists():
        if target.exists():
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(old, target)
            return True
    return False


def index_status(index_root: Path, kind: Kind) -> Manifest | None:
    """The manifest of the current index of ``kind``, or None when there is none.

    Raises:
        IndexDamagedError: the manifest exists but cannot be read as a :class:`Manifest`.
    """
    _recover(index_root, kind)
    return read_manifest(index_dir_for(index_root, kind))


def check_index(index_root: Path, kind: Kind) -> dict[str, str]:
    """Verify every file of the index of ``kind`` against its recorded size and sha256
    (``litsift index --check``) and record the damaged parts in the manifest, so that opening
    refuses them and :func:`build_index` rebuilds them.

    Returns:
        ``{part: reason}`` for the damaged parts, ``{"manifest": reason}`` when the manifest
        itself is unreadable (``build_index`` then rebuilds both parts); empty when all is
        well or there is no index.
    """
    _recover(index_root, kind)
    return check_files(index_dir_for(index_root, kind))


def open_indexes(
    index_root: Path, kind: Kind, encoder: Encoder
) -> tuple[BM25Index, DenseIndex, Manifest]:
    """Open the index pair of ``kind`` after checking its manifest against ``encoder`` and
    its files against their recorded sizes (and checksums, after a crash recovery).

    Raises:
        IndexMissingError: no index was built for ``kind`` (hint: ``litsift index``).
        IndexMismatchError: the index was built with another model, ONNX file or dimension
            (hint: ``litsift index --rebuild``), or a part of it is of an older version than
            this litsift builds (hint: ``litsift index``, which rebuilds that part alone).
        IndexDamagedError: the manifest is unreadable, or a file is missing, of the wrong size,
            fails its checksum or cannot be read by tantivy/hnswlib; the message names the
            part and the file (hint: ``litsift index``, which rebuilds that part alone).
    """
    recovered = _recover(index_root, kind)
    directory = index_dir_for(index_root, kind)
    manifest = read_manifest(directory)
    if manifest is None:
        raise IndexMissingError(f"no {kind.value} index in {directory}", "run `litsift index`")
    if manifest.kind != kind.value or manifest.encoder_mismatch(encoder) is not None:
        raise IndexMismatchError(
            f"the {kind.value} index does not match: "
            f"{manifest.encoder_mismatch(encoder) or 'wrong kind'}",
            "run `litsift index --rebuild`",
        )
    damage = verify_files(directory, manifest, full=recovered)
    if recovered:
        mark_damaged(directory, manifest, damage)
    if damage:
        part, reason = next(iter(damage.items()))
        raise IndexDamagedError(
            f"the {part} part of the {kind.value} index is damaged: {reason}", REBUILD_HINT
        )
    why = manifest.mismatch(encoder)
    if why is not None:
        raise IndexMismatchError(
            f"the {kind.value} index is out of date: {why}", "run `litsift index`"
        )
    part = "bm25"
    try:
        bm25 = BM25Index.open(directory / "bm25")
        part = "dense"
        dense = DenseIndex.open(directory / "dense.bin")
    except (IndexDamagedError, IndexMissingError) as err:  # marked: `litsift index` repairs it
        mark_damaged(directory, manifest, {part: err.message})
        raise IndexDamagedError(
            f"the {part} part of the {kind.value} index is damaged: {err.message}", REBUILD_HINT
        ) from err
    return bm25, dense, manifest


def _swap(index_root: Path, kind: Kind, new_dir: Path) -> None:
    target, old = index_dir_for(index_root, kind), _old_dir(index_root, kind)
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.rename(target, old)
    os.rename(new_dir, target)
    shutil.rmtree(old, ignore_errors=True)


def _index_bm25(
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


def _index_dense(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    since: int,
    dense: DenseIndex,
    total: int,
    progress: Progress,
    stage_seconds: dict[str, float],
) -> int:
    """Embed every row changed since revision ``since`` into ``dense`` and save it; the count."""
    embedded = 0
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
        dense.add(np.array([r.rowid for r in batch], dtype=np.int64), vectors)
        t3 = time.perf_counter()
        stage_seconds["embed"] += t2 - t1
        stage_seconds["hnsw"] += t3 - t2
        progress("hnsw", embedded, max(total, embedded))
    t4 = time.perf_counter()
    dense.save()
    stage_seconds["hnsw"] += time.perf_counter() - t4
    return embedded


def build_index(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    index_root: Path,
    rebuild: bool = False,
    progress: Progress | None = None,
    check: bool = False,
) -> IndexReport:
    """Build (or bring up to date) the BM25 + dense indexes of ``kind``.

    Each part (:data:`PARTS`) is built from scratch when there is no index (or its manifest
    is unreadable), ``rebuild`` is set, the manifest marks that part stale (an older
    ``BM25_VERSION``/``DENSE_VERSION``; for the dense part also another model, ONNX file or
    dimension), or the part is damaged: a recorded file missing or of another size, with
    ``check`` (or after a crash recovery) one failing its sha256, or marked damaged by
    :func:`check_index`; a part whose files are not recorded (an older manifest) must open,
    and its files are recorded by this build even when nothing else changes. A part that is current
    keeps its contents and gets only the rows changed since the manifest's ``max_revision``.
    So a BM25-only change never re-embeds. The parts are written into a copy of the current
    index that is swapped in atomically; an exception midway (including one raised by
    ``progress``) leaves the previous index as it was.

    Args:
        store: the SQLite store (``rows_since``, ``max_revision``, ``count``).
        encoder: the bi-encoder embedding :func:`~litsift.search.text.passage_text`.
        kind: papers or datasets.
        index_root: the directory of all indexes (``Paths.index_dir``).
        rebuild: force a full build.
        check: verify the sha256 of every file (not only sizes) before deciding.
        progress: ``(stage, done, total)`` with stage ``"bm25"``, ``"embed"`` or ``"hnsw"``;
            for an incremental build the bm25 total is 0 (unknown) until rows are read.

    Returns:
        An :class:`IndexReport`.
    """
    started = time.perf_counter()
    report_progress: Progress = progress or (lambda _s, _d, _t: None)
    index_root = Path(index_root)
    index_root.mkdir(parents=True, exist_ok=True)
    check = _recover(index_root, kind) or check
    for stale in index_root.glob(f".{kind.value}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
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
    max_revision = int(store.max_revision(kind))
    if current is not None and not rebuilt and current.max_revision >= max_revision:
        if unrecorded_parts(current):  # a manifest from before file records: add them
            current = replace(current, schema_version=MANIFEST_VERSION, files=record_files(target))
            write_manifest(target, current)
        return IndexReport(
            kind, "unchanged", 0, current.count, 0.0, {}, target, current, checked=check
        )

    tmp = Path(tempfile.mkdtemp(prefix=f".{kind.value}.tmp-", dir=index_root))
    stage_seconds: dict[str, float] = {}
    since = current.max_revision if current is not None else 0
    params = (HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_SEED)
    try:
        if current is not None:
            shutil.copytree(target, tmp, dirs_exist_ok=True)
            if "dense" not in rebuilt:
                params = (current.M, current.ef_construction, current.seed)
        total_rows = int(store.count(kind))
        written, t0 = {"bm25": 0, "dense": 0}, time.perf_counter()
        if "bm25" in rebuilt:
            shutil.rmtree(tmp / "bm25", ignore_errors=True)
            bm25 = BM25Index.create(tmp / "bm25", kind)
            written["bm25"] = _index_bm25(store, kind, 0, bm25, total_rows, report_progress)
        elif since < max_revision:
            bm25 = BM25Index.open(tmp / "bm25")
            written["bm25"] = _index_bm25(store, kind, since, bm25, 0, report_progress)
        if "bm25" in rebuilt or since < max_revision:
            stage_seconds["bm25"] = time.perf_counter() - t0
        count = current.count if current is not None else 0
        if "dense" in rebuilt:
            for name in ("dense.bin", "dense.json"):
                (tmp / name).unlink(missing_ok=True)
            dense = DenseIndex.create(tmp / "dense.bin", encoder.dim, total_rows, *params)
            written["dense"] = _index_dense(
                store, encoder, kind, 0, dense, total_rows, report_progress, stage_seconds
            )
            count = dense.count()
        elif since < max_revision:
            n_new = written["bm25"] if "bm25" not in rebuilt else 0  # 0: not counted
            dense = DenseIndex.open(tmp / "dense.bin")
            written["dense"] = _index_dense(
                store, encoder, kind, since, dense, n_new, report_progress, stage_seconds
            )
            count = dense.count()
        seconds = time.perf_counter() - started
        manifest = Manifest(
            schema_version=MANIFEST_VERSION,
            kind=kind.value,
            model_id=encoder.model_id,
            onnx_sha256=encoder.onnx_sha256,
            dim=encoder.dim,
            M=params[0],
            ef_construction=params[1],
            seed=params[2],
            count=count,
            max_revision=max_revision,
            built_at=datetime.now(UTC).isoformat(timespec="seconds"),
            build_seconds=round(seconds, 3),
            parts=current_parts(),
            files=record_files(tmp),
        )
        write_manifest(tmp, manifest)
        _swap(index_root, kind, tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    mode = "full" if rebuilt == PARTS else "incremental"
    indexed = max(written.values())
    return IndexReport(
        kind,
        mode,
        indexed,
        manifest.count,
        seconds,
        stage_seconds,
        target,
        manifest,
        rebuilt,
        repaired,
        check,
    )
