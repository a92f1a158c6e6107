"""Index builds from a real SQLite store with the real ONNX encoder: swaps, updates, manifests."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from litsift.errors import IndexDamagedError, IndexMismatchError, IndexMissingError
from litsift.search.build import manifest as versions  # the part versions
from litsift.search.build.index_pair import index_status, open_indexes
from litsift.search.build.layout import index_dir_for
from litsift.search.build.manifest import MANIFEST
from litsift.search.build.two_phase import build_in_two_phases
from litsift.search.kind_searcher import KindSearcher
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind, Query, YearRange
from tests.conftest import DATASETS_GZ, read_jsonl_gz
from tests.counting import CountingEncoder

FIRST, SECOND = 60, 20


class Boom(RuntimeError):
    pass


def hybrid(bm25, dense, encoder, store: Store, text: str):  # type: ignore[no-untyped-def]
    """The fused top 10 of the default hybrid over these indexes."""
    years = store.year_by_rowid(Kind.DATASET)
    searcher = KindSearcher(Kind.DATASET, bm25, dense, years, encoder)
    return searcher.search(Query(text, Kind.DATASET, k=10, k0=20))


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return read_jsonl_gz(DATASETS_GZ)[: FIRST + SECOND]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, rows: list[dict], encoder):  # type: ignore[no-untyped-def]
    """A store with FIRST datasets and their indexes, the stages reported while building."""
    home = tmp_path_factory.mktemp("idx")
    store = Store(home / "store.sqlite")
    ingest_jsonl(store, Kind.DATASET, write_jsonl(home / "a.jsonl", rows[:FIRST]))
    stages: list[tuple[str, int, int]] = []
    report = build_in_two_phases(
        store, encoder, Kind.DATASET, home / "indexes", progress=lambda *a: stages.append(a)
    )
    yield home, store, report, stages
    store.close()


def test_full_build_writes_both_indexes_and_manifest(built, encoder) -> None:  # type: ignore[no-untyped-def]
    home, store, report, stages = built
    root = home / "indexes"
    assert report.mode == "full" and report.indexed == report.count == store.count(Kind.DATASET)
    directory = index_dir_for(root, Kind.DATASET)
    assert {p.name for p in directory.iterdir()} >= {"bm25", "dense.bin", "dense.json", MANIFEST}
    assert [p.name for p in root.iterdir()] == [Kind.DATASET.value]  # no temp dirs left
    manifest = index_status(root, Kind.DATASET)
    assert manifest == report.manifest
    assert (manifest.model_id, manifest.onnx_sha256, manifest.dim) == (
        encoder.model_id,
        encoder.onnx_sha256,
        encoder.dim,
    )
    assert (manifest.M, manifest.ef_construction, manifest.seed) == (16, 200, 100)
    assert manifest.max_revision == store.max_revision(Kind.DATASET)
    assert {s for s, _, _ in stages} == {"bm25", "embed", "hnsw"}
    for stage in ("bm25", "embed", "hnsw"):
        last = [(d, t) for s, d, t in stages if s == stage][-1]
        assert last == (FIRST, FIRST)
    bm25, dense, _ = open_indexes(root, Kind.DATASET, encoder)
    assert bm25.count() == dense.count() == FIRST


def test_open_without_index_says_how_to_build(tmp_path: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(IndexMissingError) as err:
        open_indexes(tmp_path, Kind.PAPER, encoder)
    assert "litsift index" in err.value.hint
    assert index_status(tmp_path, Kind.PAPER) is None


def test_build_is_atomic_incremental_and_checked(  # type: ignore[no-untyped-def]
    tmp_path: Path, built, rows: list[dict], encoder
) -> None:
    _, store_a, _, _ = built
    # a private copy of the store and index, since this test writes
    home = tmp_path
    store = Store(home / "store.sqlite")
    ingest_jsonl(store, Kind.DATASET, write_jsonl(home / "a.jsonl", rows[:FIRST]))
    root = home / "indexes"
    build_in_two_phases(store, encoder, Kind.DATASET, root)
    query = rows[0]["id"]
    bm25, dense, manifest = open_indexes(root, Kind.DATASET, encoder)
    before = hybrid(bm25, dense, encoder, store, query)
    assert before

    # nothing changed: nothing is rebuilt
    assert build_in_two_phases(store, encoder, Kind.DATASET, root).mode == "unchanged"

    # new rows, but the build dies while embedding: BM25 was published with them first (the
    # two-phase build), the dense part stays as it was, behind BM25, and the pair opens
    # BM25-only until the next build embeds the new rows
    ingest_jsonl(store, Kind.DATASET, write_jsonl(home / "b.jsonl", rows[FIRST:]))

    def explode(stage: str, done: int, total: int) -> None:
        if stage == "embed" and done > 0:
            raise Boom("interrupted")

    with pytest.raises(Boom):
        build_in_two_phases(store, encoder, Kind.DATASET, root, progress=explode)
    assert [p.name for p in root.iterdir()] == [Kind.DATASET.value]
    bm25, dense, after_crash = open_indexes(root, Kind.DATASET, encoder)
    assert bm25.count() == after_crash.count == len(rows) and dense is None
    assert after_crash.part_count("dense") == manifest.part_count("dense") == FIRST
    assert after_crash.dense_behind and query in [
        store.get_by_rowids(Kind.DATASET, [r])[r].id for r, _ in bm25.search(query, 10, YearRange())
    ]

    # the next build is incremental and indexes only the new rows
    embedded: list[tuple[int, int]] = []
    report = build_in_two_phases(
        store,
        encoder,
        Kind.DATASET,
        root,
        progress=lambda s, d, t: embedded.append((d, t)) if s == "embed" else None,
    )
    n_new = store.count(Kind.DATASET) - FIRST
    assert report.mode == "incremental" and report.indexed == n_new
    assert report.summary().startswith(f"incremental build: {n_new} indexed")
    # the embed progress counts over the whole dense part: it starts at the rows already held
    assert {t for _, t in embedded} == {len(rows)} and min(d for d, _ in embedded) >= FIRST
    bm25, dense, manifest = open_indexes(root, Kind.DATASET, encoder)
    assert bm25.count() == dense.count() == manifest.count == store.count(Kind.DATASET)
    new_name = rows[-1]["id"]
    new_record = store.get(Kind.DATASET, new_name)
    assert new_record is not None and new_record.rowid is not None
    assert new_record.rowid in [r for r, _ in bm25.search(new_name, 10, YearRange())]

    # a crash between the two renames of a swap is repaired on the next open
    target = index_dir_for(root, Kind.DATASET)
    os.rename(target, root / f".{Kind.DATASET.value}.old")
    bm25, dense, recovered = open_indexes(root, Kind.DATASET, encoder)
    assert recovered == manifest and target.is_dir()

    # an index built with another ONNX file is refused with the fix, and a build replaces its
    # dense part (BM25 does not depend on the encoder)
    data = json.loads((target / MANIFEST).read_text())
    data["onnx_sha256"] = "f" * 64
    (target / MANIFEST).write_text(json.dumps(data))
    with pytest.raises(IndexMismatchError) as err:
        open_indexes(root, Kind.DATASET, encoder)
    assert "litsift index --rebuild" in err.value.hint
    report = build_in_two_phases(store, encoder, Kind.DATASET, root)
    assert report.rebuilt == ("dense",) and report.count == store.count(Kind.DATASET)
    assert report.indexed == store.count(Kind.DATASET)
    open_indexes(root, Kind.DATASET, encoder)
    assert build_in_two_phases(store, encoder, Kind.DATASET, root, rebuild=True).mode == "full"
    store.close()
    assert store_a.count(Kind.DATASET) == FIRST


def test_corrupt_manifest_is_damage_with_the_fix(tmp_path: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    directory = index_dir_for(tmp_path, Kind.PAPER)
    directory.mkdir()
    (directory / MANIFEST).write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexDamagedError) as err:
        open_indexes(tmp_path, Kind.PAPER, encoder)
    assert err.value.hint == "run `litsift index` to rebuild it"
    assert isinstance(err.value, IndexMismatchError)  # callers treating it as stale still do


def file_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


@pytest.fixture
def small_index(tmp_path: Path, rows: list[dict], encoder):  # type: ignore[no-untyped-def]
    """A private store with FIRST datasets and their freshly built index pair."""
    store = Store(tmp_path / "store.sqlite")
    ingest_jsonl(store, Kind.DATASET, write_jsonl(tmp_path / "a.jsonl", rows[:FIRST]))
    root = tmp_path / "indexes"
    assert build_in_two_phases(store, encoder, Kind.DATASET, root).mode == "full"
    yield store, root
    store.close()


def test_a_stale_bm25_part_is_rebuilt_without_re_embedding(  # type: ignore[no-untyped-def]
    small_index, rows: list[dict], encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, root = small_index
    directory = index_dir_for(root, Kind.DATASET)
    dense_before = file_bytes(directory)
    dense_before.pop(MANIFEST)
    monkeypatch.setattr(versions, "BM25_VERSION", versions.BM25_VERSION + 1)

    # the old BM25 part is refused with the repair, which is a plain `litsift index`
    with pytest.raises(IndexMismatchError) as err:
        open_indexes(root, Kind.DATASET, encoder)
    assert err.value.hint == "run `litsift index`" and "bm25" in err.value.message

    counting = CountingEncoder(encoder)
    report = build_in_two_phases(store, counting, Kind.DATASET, root)
    assert report.rebuilt == ("bm25",) and report.mode == "incremental"
    assert counting.passages == 0  # no re-embedding
    after = file_bytes(directory)
    assert {n: after[n] for n in dense_before} == dense_before  # dense.bin/.json untouched
    bm25, dense, manifest = open_indexes(root, Kind.DATASET, encoder)
    assert manifest.parts == {"bm25": versions.BM25_VERSION, "dense": versions.DENSE_VERSION}
    assert bm25.count() == dense.count() == manifest.count == FIRST
    first = store.get(Kind.DATASET, rows[0]["id"])
    assert first is not None
    assert first.rowid in [r for r, _ in bm25.search(rows[0]["id"], 10, YearRange())]

    # stale BM25 and new rows: BM25 gets every row, only the new rows are embedded
    monkeypatch.setattr(versions, "BM25_VERSION", versions.BM25_VERSION + 1)
    ingest_jsonl(store, Kind.DATASET, write_jsonl(root.parent / "b.jsonl", rows[FIRST:]))
    report = build_in_two_phases(store, counting, Kind.DATASET, root)
    assert report.rebuilt == ("bm25",) and counting.passages == SECOND
    bm25, dense, _ = open_indexes(root, Kind.DATASET, encoder)
    assert bm25.count() == dense.count() == FIRST + SECOND


def test_a_stale_dense_part_is_rebuilt_alone(  # type: ignore[no-untyped-def]
    small_index, encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, root = small_index
    bm25_dir = index_dir_for(root, Kind.DATASET) / "bm25"
    bm25_before = file_bytes(bm25_dir)
    monkeypatch.setattr(versions, "DENSE_VERSION", versions.DENSE_VERSION + 1)
    with pytest.raises(IndexMismatchError) as err:
        open_indexes(root, Kind.DATASET, encoder)
    assert err.value.hint == "run `litsift index`" and "dense" in err.value.message

    counting = CountingEncoder(encoder)
    report = build_in_two_phases(store, counting, Kind.DATASET, root)
    assert report.rebuilt == ("dense",) and counting.passages == FIRST
    assert file_bytes(bm25_dir) == bm25_before
    bm25, dense, manifest = open_indexes(root, Kind.DATASET, encoder)
    assert manifest.parts["dense"] == versions.DENSE_VERSION
    assert bm25.count() == dense.count() == FIRST


def test_a_manifest_from_before_parts_reads_as_current(  # type: ignore[no-untyped-def]
    small_index, encoder
) -> None:
    """Indexes written with one schema_version 2 for both parts keep working, unrebuilt."""
    store, root = small_index
    path = index_dir_for(root, Kind.DATASET) / MANIFEST
    data = json.loads(path.read_text())
    del data["parts"]
    data["schema_version"] = 2
    path.write_text(json.dumps(data))
    _, _, manifest = open_indexes(root, Kind.DATASET, encoder)
    assert manifest.parts == {"bm25": 2, "dense": 2} == versions.current_parts()
    counting = CountingEncoder(encoder)
    assert build_in_two_phases(store, counting, Kind.DATASET, root).mode == "unchanged"

    # schema v1 (before the BM25 'all' field): both parts are stale and rebuilt
    data["schema_version"] = 1
    path.write_text(json.dumps(data))
    with pytest.raises(IndexMismatchError):
        open_indexes(root, Kind.DATASET, encoder)
    report = build_in_two_phases(store, counting, Kind.DATASET, root)
    assert report.mode == "full" and counting.passages == FIRST
    open_indexes(root, Kind.DATASET, encoder)


def test_a_search_during_a_build_s_swap_reads_the_old_index_and_leaves_the_swap_alone(  # type: ignore[no-untyped-def]
    tmp_path: Path, rows: list[dict], encoder
) -> None:
    """A build swaps its new index in with two renames (current -> ``.old``, new -> current).
    A search opening the index between them took ``.old`` beside no current index for a
    crash and put it back, so the build's second rename failed and the new index was never
    published. A reader now repairs only when no build holds the lock, and reads the old
    index where it lies. (The state between the renames is made here as a build makes it,
    under the build's lock, since the real window is microseconds.)"""
    from litsift.search.build.layout import old_dir, recover, swap, write_lock

    store = Store(tmp_path / "store.sqlite")
    ingest_jsonl(store, Kind.DATASET, write_jsonl(tmp_path / "a.jsonl", rows[:FIRST]))
    root = tmp_path / "indexes"
    build_in_two_phases(store, encoder, Kind.DATASET, root)
    target, old = index_dir_for(root, Kind.DATASET), old_dir(root, Kind.DATASET)
    new = root / f".{Kind.DATASET.value}.tmp-next"
    shutil.copytree(target, new)
    with write_lock(root, Kind.DATASET):  # a build, between its two renames
        os.rename(target, old)
        status = index_status(root, Kind.DATASET)  # the app's status line
        bm25, dense, manifest = open_indexes(root, Kind.DATASET, encoder)  # a search
        assert status is not None and status == manifest and manifest.count == FIRST
        assert bm25.count() == FIRST and dense is not None
        assert old.is_dir() and not target.exists(), "the reader moved the old index back"
        os.rename(new, target)  # the build's second rename: it failed (ENOTEMPTY) before
        assert recover(root, Kind.DATASET, locked=True) is False and not old.exists()
    # and a crash between the renames (no build holds the lock) is still repaired by a reader
    swap_dir = root / f".{Kind.DATASET.value}.tmp-again"
    shutil.copytree(target, swap_dir)
    os.rename(target, old)
    assert open_indexes(root, Kind.DATASET, encoder)[2].count == FIRST
    assert target.is_dir() and not old.exists()
    swap(root, Kind.DATASET, swap_dir)
    assert open_indexes(root, Kind.DATASET, encoder)[2].count == FIRST
    store.close()
