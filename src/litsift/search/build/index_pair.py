"""Opens the BM25 + dense index pair of one kind of record; its status and checks.

Layout and publishing (staging dir, swap, crash recovery, the one-writer lock) are in
:mod:`litsift.search.build.layout`; the manifest, which versions the two parts apart and records
every
file's size and checksum, in :mod:`litsift.search.build.manifest`. Builds have one path,
:func:`litsift.search.build.two_phase.build_in_two_phases`: BM25 published first, the dense part
after
it (what ``litsift index``, ``litsift demo``, the TUI, tests and benchmarks use). A kind whose
dense part is missing or behind its BM25 part opens with no dense index: BM25-only search;
:func:`open_parts` also leaves out a damaged part (BM25 alone, or dense alone) and says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from litsift.errors import IndexDamagedError, IndexMismatchError, IndexMissingError
from litsift.search.build.layout import current_dir, index_dir_for, recover
from litsift.search.build.manifest import (
    PARTS,
    REBUILD_HINT,
    Manifest,
    check_files,
    mark_damaged,
    read_manifest,
    verify_files,
)
from litsift.search.retrieval.bm25 import BM25Index
from litsift.search.retrieval.dense import DenseIndex
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder


@dataclass(frozen=True)
class IndexReport:
    """The outcome of a build (:func:`litsift.search.build.two_phase.build_in_two_phases`).

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
        behind: rows changed in the store during the build and still newer than its BM25
            part (0: the build covers the store as it was when it finished).
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
    behind: int = 0

    def summary(self) -> str:
        """One line for the CLI, e.g. ``full build: 3,327 indexed, 3,327 in index, 41.2 s``."""
        repaired = "".join(f"repaired {p}: {why}; " for p, why in self.repaired.items())
        behind = ""
        if self.behind:
            behind = (
                f"; {self.behind:,} rows changed during the build are not indexed yet "
                "(run `litsift index` again)"
            )
        if self.mode == "unchanged":
            checked = ", every file matches its checksum" if self.checked else ""
            return f"up to date: {self.count:,} in index{checked}{behind}"
        stages = ", ".join(f"{k} {v:.1f} s" for k, v in self.stage_seconds.items())
        partial = self.mode == "incremental" and self.rebuilt
        rebuilt = f" ({', '.join(self.rebuilt)} rebuilt)" if partial else ""
        return (
            f"{repaired}{self.mode} build{rebuilt}: {self.indexed:,} indexed, "
            f"{self.count:,} in index, {self.seconds:.1f} s ({stages}){behind}"
        )


def index_status(index_root: Path, kind: Kind) -> Manifest | None:
    """The manifest of the current index of ``kind``, or None when there is none.

    Raises:
        IndexDamagedError: the manifest exists but cannot be read as a :class:`Manifest`.
    """
    recover(index_root, kind)
    return read_manifest(current_dir(index_root, kind))


def check_index(index_root: Path, kind: Kind, mark: bool = True) -> dict[str, str]:
    """Verify every file of the index of ``kind`` against its recorded size and sha256
    (``litsift index --check``) and record the damaged parts in the manifest, so that opening
    refuses them and the next build rebuilds them.

    Returns:
        ``{part: reason}`` for the damaged parts, ``{"manifest": reason}`` when the manifest
        itself is unreadable (the next build then rebuilds both parts); empty when all is
        well or there is no index.
    """
    if mark:  # a read-only home is checked as it is, nothing written
        recover(index_root, kind)
    return check_files(index_dir_for(index_root, kind), mark)


def open_indexes(
    index_root: Path, kind: Kind, encoder: Encoder
) -> tuple[BM25Index, DenseIndex | None, Manifest]:
    """Open the index pair of ``kind``, refusing it when either part is damaged (see
    :func:`open_parts`, which opens what is intact instead).

    Returns:
        ``(bm25, dense, manifest)``; ``dense`` is None while the dense part is missing or
        behind the BM25 part (:attr:`Manifest.dense_behind`): the kind is then searchable by
        BM25 alone until the dense build publishes it.

    Raises:
        IndexMissingError, IndexMismatchError: as :func:`open_parts`.
        IndexDamagedError: the manifest is unreadable, or a file of either part is missing, of
            the wrong size, fails its checksum or cannot be read by tantivy/hnswlib; the
            message names the part and the file (hint: ``litsift index``, which rebuilds that
            part alone).
    """
    bm25, dense, manifest, damage = open_parts(index_root, kind, encoder)
    if damage or bm25 is None:
        part, reason = next(iter(damage.items()))
        raise IndexDamagedError(
            f"the {part} part of the {kind.value} index is damaged: {reason}", REBUILD_HINT
        )
    return bm25, dense, manifest


def open_parts(
    index_root: Path, kind: Kind, encoder: Encoder, load_dense: bool = True
) -> tuple[BM25Index | None, DenseIndex | None, Manifest, dict[str, str]]:
    """Open the intact parts of the index pair of ``kind``, after checking its manifest
    against ``encoder`` and its files against their recorded sizes, and checksums where cheap
    (:data:`~litsift.search.build.manifest.VERIFY_ON_OPEN_BYTES`; every file after a crash
    recovery). A damaged part is marked in the manifest (so ``litsift index`` rebuilds it
    without ``--check``) and left closed. ``load_dense=False`` checks everything the same way
    but leaves the dense graph unloaded (its load grows with N: ~1 s per 100K papers), so
    BM25 can answer first (:meth:`~litsift.search.kind_searcher.KindSearcher.open`).

    Returns:
        ``(bm25, dense, manifest, {part: why damaged})``: ``bm25`` is None when that part is
        damaged (search is dense alone); ``dense`` is None when it is damaged, missing or
        behind BM25 (search is BM25 alone).

    Raises:
        IndexMissingError: no index was built for ``kind`` (hint: ``litsift index``).
        IndexMismatchError: the dense part was built with another model, ONNX file or
            dimension (hint: ``litsift index --rebuild``), or a part is of an older version
            than this litsift builds (hint: ``litsift index``, which rebuilds that part alone).
        IndexDamagedError: the manifest is unreadable, or no part is left to search with.
    """
    recovered = recover(index_root, kind)
    directory = current_dir(index_root, kind)
    manifest = read_manifest(directory)
    if manifest is None:
        raise IndexMissingError(f"no {kind.value} index in {directory}", "run `litsift index`")
    has_dense = "dense" in manifest.parts
    why = manifest.encoder_mismatch(encoder) if has_dense else None
    if manifest.kind != kind.value or why is not None:
        raise IndexMismatchError(
            f"the {kind.value} index does not match: {why or 'wrong kind'}",
            "run `litsift index --rebuild`",
        )
    damage = verify_files(directory, manifest, full=recovered, cheap=True)
    why = replace(manifest, damaged={}).mismatch(encoder)
    stale = set(manifest.stale_parts(encoder)) & set(manifest.parts)
    if why is not None and stale - set(damage):
        raise IndexMismatchError(
            f"the {kind.value} index is out of date: {why}", "run `litsift index`"
        )
    bm25 = dense = None
    try:
        if "bm25" not in damage:
            bm25 = BM25Index.open(directory / "bm25")
    except (IndexDamagedError, IndexMissingError) as err:
        damage["bm25"] = _reason(err.message, directory)
    try:
        if load_dense and "dense" not in damage and has_dense and not manifest.dense_behind:
            dense = DenseIndex.open(directory / "dense.bin")
    except (IndexDamagedError, IndexMissingError) as err:
        damage["dense"] = _reason(err.message, directory)
    damage = {p: damage[p] for p in PARTS if p in damage}
    mark_damaged(directory, manifest, damage)  # `litsift index` repairs it
    if bm25 is None and dense is None:
        part, reason = next(iter(damage.items()))
        raise IndexDamagedError(
            f"the {part} part of the {kind.value} index is damaged: {reason}", REBUILD_HINT
        )
    return bm25, dense, manifest, damage


def _reason(message: str, directory: Path) -> str:
    """A part's error message as a damage reason: without "the ... part is damaged: " and
    with file paths relative to the index directory (the caller names the part)."""
    for prefix in ("the BM25 part is damaged: ", "the dense part is damaged: "):
        message = message.removeprefix(prefix)
    return message.replace(f"{directory}/", "")


def merge_reports(bm25: IndexReport, dense: IndexReport) -> IndexReport:
    """One report of a two-phase build (what ``litsift index`` prints)."""
    if bm25.mode == dense.mode == "unchanged":
        return replace(dense, checked=bm25.checked)
    rebuilt = tuple(p for p in PARTS if p in bm25.rebuilt or p in dense.rebuilt)
    return IndexReport(
        dense.kind,
        "full" if rebuilt == PARTS else "incremental",
        max(bm25.indexed, dense.indexed),
        dense.manifest.part_count("dense"),
        bm25.seconds + dense.seconds,
        {**bm25.stage_seconds, **dense.stage_seconds},
        dense.path,
        dense.manifest,
        rebuilt,
        {**bm25.repaired, **dense.repaired},
        bm25.checked,
    )
