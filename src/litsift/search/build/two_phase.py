"""Two-phase index builds: BM25 published first (seconds), the dense part after it, in chunks.

:func:`build_bm25` brings the BM25 part of a kind up to the store and publishes it at once,
keeping the dense part as it was (a dense part of an older revision than BM25 is "behind": the
searchers then use BM25 alone, :func:`litsift.search.build.index_pair.open_indexes`).
:func:`build_dense`
then embeds the rows the dense part lacks, up to the BM25 part's revision, and publishes the
dense part every ``publish_every`` rows and at the end. Each publication is a swap of the whole
index directory (:mod:`litsift.search.build.layout`; the BM25 files are hard links, the dense files
written anew), recording the dense part's revision, count and resume cursor in the manifest, so
a search only ever reads published parts, and an interrupted build (an exception, including
one raised by ``progress``, or a kill) leaves the BM25 part and the last published dense part
usable; the next build resumes after the rows already published. A chunk only joins fusion
once the dense part covers every BM25 row: a partial dense run would bias interpolation toward
the rows embedded first. Rebuilding a dense part that is still usable (``rebuild``) publishes
only at the end, so search stays hybrid meanwhile. Each phase holds the kind's write lock.
Rows ingested while a build runs are caught up before it returns (:func:`catch_up`: BM25 and
dense again, incremental), so a finished build never leaves BM25 behind the store it read.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from litsift.errors import IndexDamagedError, IndexMissingError
from litsift.search.build.fill import (
    index_bm25,
    index_dense,
    new_manifest,
    read_current,
    record_if_unrecorded,
)
from litsift.search.build.index_pair import IndexReport, merge_reports
from litsift.search.build.layout import (
    HNSW_EF_CONSTRUCTION,
    HNSW_M,
    HNSW_SEED,
    Progress,
    clear_staging,
    index_dir_for,
    recover,
    staging_dir,
    swap,
    write_lock,
)
from litsift.search.build.manifest import (
    DENSE_FILES,
    Manifest,
    current_parts,
    read_manifest,
    record_files,
    record_part,
    verify_files,
    write_manifest,
)
from litsift.search.retrieval.bm25 import BM25Index
from litsift.search.retrieval.dense import DenseIndex
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.store import Store

#: rows embedded between two publications of a dense part being built (about 2.5 min of
#: embedding on a 2-core laptop; a publication costs a graph save and a checksum)
PUBLISH_EVERY = 2000
#: a publication waits until the build has run this many times as long as the previous
#: publication took: a publication saves and checksums the whole graph, so publishing every
#: ``publish_every`` rows when they come fast (vectors from the embedding cache) costs
#: O(N^2); with the wait, publications stay under ~1/11 of a build (issue 32: 100K cached
#: vectors, 50 publications of a growing graph)
PUBLISH_COST_RATIO = 10.0
#: times :func:`catch_up` runs the two phases again for rows ingested during a build
CATCH_UP_ROUNDS = 3


def _quiet(_s: str, _d: int, _t: int) -> None:
    pass


def build_bm25(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    index_root: Path,
    rebuild: bool = False,
    progress: Progress | None = None,
    check: bool = False,
) -> IndexReport:
    """Bring the BM25 part of ``kind`` up to the store and publish it; the dense part is kept
    (behind, if rows were added) unless it is stale or damaged, when it is dropped.

    Args: as :func:`build_in_two_phases`; ``rebuild`` rebuilds BM25 here (and
        :func:`build_dense` with ``rebuild`` re-embeds, keeping the old dense part meanwhile).

    Returns:
        An :class:`IndexReport` (``rebuilt``: ``("bm25",)`` when built from scratch;
        ``repaired`` names damage of either part).

    Raises:
        LitsiftError: another build of ``kind`` is running.
    """
    index_root = Path(index_root)
    index_root.mkdir(parents=True, exist_ok=True)
    with write_lock(index_root, kind):
        return _build_bm25(store, encoder, kind, index_root, rebuild, progress or _quiet, check)


def _build_bm25(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    index_root: Path,
    rebuild: bool,
    progress: Progress,
    check: bool,
) -> IndexReport:
    started = time.perf_counter()
    target = index_dir_for(index_root, kind)
    current, redo, repaired, check = read_current(index_root, kind, encoder, False, check)
    max_revision = int(store.max_revision(kind))
    redo_bm25 = current is None or rebuild or "bm25" in redo
    has_dense = current is not None and "dense" in current.parts
    keep_dense = has_dense and "dense" not in redo
    since = 0 if current is None or redo_bm25 else current.revision("bm25")
    if current is not None and not redo_bm25 and since >= max_revision and keep_dense == has_dense:
        current = record_if_unrecorded(target, current)
        return IndexReport(
            kind, "unchanged", 0, current.count, 0.0, {}, target, current, (), {}, check
        )
    tmp = staging_dir(index_root, kind)
    try:
        t0 = time.perf_counter()
        if redo_bm25:
            bm25 = BM25Index.create(tmp / "bm25", kind)
            written = index_bm25(store, kind, 0, bm25, int(store.count(kind)), progress)
        else:
            shutil.copytree(target / "bm25", tmp / "bm25")
            written = index_bm25(store, kind, since, BM25Index.open(tmp / "bm25"), 0, progress)
        stages = {"bm25": time.perf_counter() - t0}
        parts = {"bm25": current_parts()["bm25"]}
        revisions = {"bm25": max_revision}
        counts = {"bm25": BM25Index.open(tmp / "bm25").count()}
        params, cursor = (HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_SEED), 0
        if keep_dense and current is not None:
            for name in DENSE_FILES:  # never written in place: builds save to a new directory
                os.link(target / name, tmp / name)
            parts["dense"] = current.parts["dense"]
            revisions["dense"] = current.revision("dense")
            counts["dense"] = current.part_count("dense")
            params = (current.M, current.ef_construction, current.seed)
            if current.revision("bm25") == max_revision and not redo_bm25:
                cursor = current.dense_cursor  # still relative to the same BM25 revision
        seconds = time.perf_counter() - started
        files = record_files(tmp)
        manifest = new_manifest(
            encoder, kind, parts, revisions, counts, params, files, seconds, cursor
        )
        write_manifest(tmp, manifest)
        swap(index_root, kind, tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    mode = "full" if current is None else "incremental"
    rebuilt = ("bm25",) if redo_bm25 else ()
    return IndexReport(
        kind, mode, written, manifest.count, seconds, stages, target, manifest, rebuilt, repaired
    )


def build_dense(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    index_root: Path,
    rebuild: bool = False,
    progress: Progress | None = None,
    publish_every: int = PUBLISH_EVERY,
) -> IndexReport:
    """Embed the rows the dense part of ``kind`` lacks, up to the BM25 part's revision,
    publishing the dense part every ``publish_every`` rows and when done.

    The dense part starts from scratch when it is missing, stale (another part version,
    model, ONNX file or dimension), damaged (a recorded file missing or of another size) or
    ``rebuild`` is set; otherwise it gets the rows changed since its revision, resuming after
    the rows an interrupted build had published.

    Args:
        store, encoder, kind, index_root: as :func:`build_in_two_phases`.
        rebuild: re-embed every row (a usable old dense part stays published until the end).
        progress: ``("embed" | "hnsw", done, total)``, counted over the whole dense part
            (``done`` starts at the rows it already holds; ``total`` is the BM25 part's count).
        publish_every: rows embedded between two publications (>= 1); a publication also
            waits until :data:`PUBLISH_COST_RATIO` times the previous one's seconds have
            passed since it, so publishing never dominates a build whose vectors are cached.

    Returns:
        An :class:`IndexReport` of the dense part (``rebuilt``: ``("dense",)`` when it started
        from scratch; ``mode`` ``"unchanged"`` when it already covered the BM25 part).

    Raises:
        IndexMissingError: there is no index of ``kind`` (run :func:`build_bm25` first).
        IndexDamagedError: the manifest is unreadable.
        LitsiftError: another build of ``kind`` is running.
    """
    index_root = Path(index_root)
    index_root.mkdir(parents=True, exist_ok=True)
    with write_lock(index_root, kind):
        return _build_dense(
            store, encoder, kind, index_root, rebuild, progress or _quiet, max(1, publish_every)
        )


def _start_dense(
    current: Manifest, encoder: Encoder, target: Path, rebuild: bool
) -> tuple[DenseIndex, bool, dict[str, str]]:
    """The dense graph to continue (loaded) or a new empty one; whether it is new; damage."""
    damage = {p: r for p, r in verify_files(target, current).items() if p == "dense"}
    fresh = rebuild or bool(damage) or "dense" in current.stale_parts(encoder)
    if not fresh:
        try:
            return DenseIndex.open(target / "dense.bin"), False, {}
        except (IndexDamagedError, IndexMissingError) as err:
            damage = {"dense": err.message}
    params = (HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_SEED)
    capacity = current.part_count("bm25")
    return DenseIndex.create(target / "dense.bin", encoder.dim, capacity, *params), True, damage


def _build_dense(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    index_root: Path,
    rebuild: bool,
    progress: Progress,
    publish_every: int,
) -> IndexReport:
    started = time.perf_counter()
    recover(index_root, kind, locked=True)
    clear_staging(index_root, kind)
    target = index_dir_for(index_root, kind)
    current = read_manifest(target)
    if current is None:
        raise IndexMissingError(f"no {kind.value} index in {target}", "run `litsift index`")
    upto = current.revision("bm25")
    if not rebuild and not current.dense_behind and "dense" not in current.stale_parts(encoder):
        return IndexReport(
            kind, "unchanged", 0, current.part_count("dense"), 0.0, {}, target, current
        )
    dense, fresh, damage = _start_dense(current, encoder, target, rebuild)
    since = 0 if fresh else current.revision("dense")
    after = 0 if fresh else current.dense_cursor
    usable_old = fresh and "dense" in current.parts and not damage and not current.dense_behind
    usable_old = usable_old and "dense" not in current.stale_parts(encoder)
    base, total = dense.count(), current.part_count("bm25")
    stages: dict[str, float] = {"publish": 0.0}
    state = {"manifest": current, "published": 0}
    last = {"cost": 0.0, "end": time.perf_counter()}  # the previous publication

    def publish(last_rowid: int, final: bool) -> None:
        t = time.perf_counter()
        m = state["manifest"]
        assert isinstance(m, Manifest)
        tmp = staging_dir(index_root, kind)
        try:
            shutil.copytree(target / "bm25", tmp / "bm25", copy_function=os.link)
            dense.path = tmp / "dense.bin"
            dense.save()
            manifest = new_manifest(
                encoder,
                kind,
                {**m.parts, "dense": current_parts()["dense"]},
                {"bm25": upto, "dense": upto if final else since},
                {"bm25": m.part_count("bm25"), "dense": dense.count()},
                (dense.M, dense.ef_construction, dense.seed),
                {
                    "bm25": m.files.get("bm25") or record_part(tmp, "bm25"),
                    "dense": record_part(tmp, "dense"),
                },
                time.perf_counter() - started,
                0 if final else last_rowid,
            )
            manifest = replace(
                manifest, damaged={p: r for p, r in m.damaged.items() if p != "dense"}
            )
            write_manifest(tmp, manifest)
            swap(index_root, kind, tmp)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        state["manifest"] = manifest
        last["end"] = time.perf_counter()
        last["cost"] = last["end"] - t
        stages["publish"] += last["cost"]

    def on_batch(embedded: int, last_rowid: int) -> None:
        published = state["published"]
        assert isinstance(published, int)
        waited = time.perf_counter() - last["end"]
        if (
            not usable_old
            and embedded - published >= publish_every
            and waited >= PUBLISH_COST_RATIO * last["cost"]
        ):
            publish(last_rowid, final=False)
            state["published"] = embedded

    def shifted(stage: str, done: int, todo: int) -> None:
        progress(stage, base + done, max(total, base + todo))

    embedded = index_dense(
        store,
        encoder,
        kind,
        since,
        dense,
        max(total - base, 0),
        shifted,
        stages,
        after=after,
        on_batch=on_batch,
    )
    publish(0, final=True)
    manifest = state["manifest"]
    assert isinstance(manifest, Manifest)
    seconds = time.perf_counter() - started
    rebuilt = ("dense",) if fresh else ()
    return IndexReport(
        kind,
        "full" if fresh else "incremental",
        embedded,
        dense.count(),
        seconds,
        stages,
        target,
        manifest,
        rebuilt,
        damage,
    )


def catch_up(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    index_root: Path,
    report: IndexReport,
    progress: Progress | None = None,
    dense: bool = True,
    rounds: int = CATCH_UP_ROUNDS,
) -> IndexReport:
    """Index the rows of ``kind`` ingested while the build of ``report`` ran (the store's
    revision moved past its BM25 part's): BM25 then (with ``dense``) the dense part again,
    incrementally, up to ``rounds`` times while the store keeps moving.

    Returns:
        ``report`` with this work added (``indexed``, ``seconds``, stages, the last manifest);
        ``behind`` counts the rows still newer than the BM25 part when ``rounds`` ran out.
    """
    for _ in range(rounds):
        if store.max_revision(kind) <= report.manifest.revision("bm25"):
            break
        more = build_bm25(store, encoder, kind, index_root, False, progress)
        if dense:
            more = merge_reports(
                more, build_dense(store, encoder, kind, index_root, False, progress)
            )
        stages = dict(report.stage_seconds)
        for stage, seconds in more.stage_seconds.items():
            stages[stage] = stages.get(stage, 0.0) + seconds
        report = replace(
            more,
            mode=report.mode if report.mode != "unchanged" else more.mode,
            indexed=report.indexed + more.indexed,
            seconds=report.seconds + more.seconds,
            stage_seconds=stages,
            rebuilt=report.rebuilt,
            repaired=report.repaired,
            checked=report.checked,
        )
    behind = 0
    revision = report.manifest.revision("bm25")
    if store.max_revision(kind) > revision:
        behind = sum(len(batch) for batch in store.rows_since(kind, revision))
    return replace(report, behind=behind)


def build_in_two_phases(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    index_root: Path,
    rebuild: bool = False,
    progress: Progress | None = None,
    check: bool = False,
    on_bm25: Callable[[IndexReport], None] | None = None,
    publish_every: int = PUBLISH_EVERY,
    *,
    dense: bool = True,
) -> IndexReport:
    """Build (or bring up to date) the indexes of ``kind``: the one build path of litsift.

    :func:`build_bm25` (published: searchable at once, BM25 only), then ``on_bm25(report)``,
    then :func:`build_dense` (skipped when ``dense`` is False: searches stay BM25-only), then
    :func:`catch_up` for rows ingested meanwhile.

    Args:
        store: the SQLite store (``rows_since``, ``max_revision``, ``count``).
        encoder: the bi-encoder embedding
        :func:`~litsift.search.retrieval.record_text.passage_text`.
        kind: papers or datasets.
        index_root: the directory of all indexes (``Paths.index_dir``).
        rebuild: build both parts from scratch (the old dense part stays published until the
            new one is complete).
        progress: ``(stage, done, total)`` with stage ``"bm25"``, ``"embed"`` or ``"hnsw"``.
        check: verify the sha256 of every file (not only sizes) before deciding.
        on_bm25: called with the BM25 phase's report once BM25 is published.
        publish_every: rows embedded between two publications of the dense part.
        dense: also build the dense part.

    Returns:
        The merged :class:`IndexReport` (``mode`` ``"full"``, ``"incremental"`` or
        ``"unchanged"``; ``rebuilt`` the parts built from scratch; ``behind`` the rows still
        not in BM25).

    Raises:
        LitsiftError: another build of ``kind`` is running.
    """
    report = build_bm25(store, encoder, kind, index_root, rebuild, progress, check)
    if on_bm25 is not None:
        on_bm25(report)
    if dense:
        second = build_dense(store, encoder, kind, index_root, rebuild, progress, publish_every)
        report = merge_reports(report, second)
    # rows ingested meanwhile (another process, the TUI) join BM25 before this returns
    return catch_up(store, encoder, kind, index_root, report, progress, dense=dense)
