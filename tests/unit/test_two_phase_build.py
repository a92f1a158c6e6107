"""Two-phase builds (issue 15, item 1): BM25 is published first and searchable at once, BM25
only and saying so; the dense part lands after it (in chunks, resumable) and the search is
then hybrid again, with the hits of a one-go build; an interrupted dense build leaves BM25 and
the previously published dense part usable."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from litsift.errors import LitsiftError
from litsift.paths import get_paths
from litsift.search.build.index_pair import index_status
from litsift.search.build.layout import index_dir_for, write_lock
from litsift.search.build.two_phase import build_bm25, build_dense, build_in_two_phases
from litsift.search.kind_searcher import KindSearcher
from litsift.service.facade import LitsiftService
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind, Query
from tests.conftest import DATASETS_GZ, read_jsonl_gz
from tests.counting import CountingEncoder

N_ROWS, FIRST = 200, 150
KIND = Kind.DATASET
QUERIES = ("image classification", "question answering over tables", "speech recognition")


class Boom(RuntimeError):
    pass


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def file_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def top(svc: LitsiftService) -> list[list[tuple[str, float]]]:
    return [
        [(h.docid, round(h.score, 5)) for h in svc.search(Query(q, KIND, k=10)).hits]
        for q in QUERIES
    ]


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    """The first N_ROWS datasets with distinct ids (rowids 1..N_ROWS in a fresh store)."""
    unique = {r["id"]: r for r in reversed(read_jsonl_gz(DATASETS_GZ)[: N_ROWS + 20])}
    return list(reversed(unique.values()))[:N_ROWS]


@pytest.fixture(scope="module")
def one_go(tmp_path_factory: pytest.TempPathFactory, rows: list[dict], encoder):  # type: ignore[no-untyped-def]
    """The hits of QUERIES over one build call (``build_in_two_phases``) of the N_ROWS datasets."""
    home = tmp_path_factory.mktemp("one-go")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        svc.ingest(KIND, write_jsonl(home / "a.jsonl", rows))
        build_in_two_phases(svc.store, encoder, KIND, svc.paths.index_dir)
        yield top(svc)


@pytest.fixture
def svc(tmp_path: Path, encoder) -> Iterator[LitsiftService]:  # type: ignore[no-untyped-def]
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as service:
        yield service


def test_bm25_first_is_searchable_and_partial_then_hybrid_as_one_go(  # type: ignore[no-untyped-def]
    svc: LitsiftService, rows: list[dict], one_go, tmp_path: Path
) -> None:
    svc.ingest(KIND, write_jsonl(tmp_path / "a.jsonl", rows))
    report = svc.build_index(KIND, dense=False)
    assert report.rebuilt == ("bm25",) and report.count == N_ROWS
    manifest = index_status(svc.paths.index_dir, KIND)
    assert manifest is not None and manifest.dense_behind and "dense" not in manifest.parts

    result = svc.search(Query(QUERIES[0], KIND, k=10))
    assert result.hits and result.signals_used == ("bm25",)
    assert result.partial == f"dense index: 0 / {N_ROWS} embedded"
    assert all(set(h.signals) == {"bm25"} for h in result.hits)  # nothing pretends hybrid
    scores = [h.signals["bm25"].score for h in result.hits]
    assert [h.score for h in result.hits] == scores  # the BM25 run itself
    # an explicit dense query degrades too, and says so
    dense_q = svc.search(Query(QUERIES[0], KIND, k=10, fusion="dense"))
    assert dense_q.signals_used == ("bm25",) and dense_q.partial and dense_q.hits

    stages: list[str] = []
    report = svc.build_index(KIND, progress=lambda s, d, t: stages.append(s))
    assert report.rebuilt == ("dense",) and report.count == N_ROWS
    assert "bm25" not in stages and "embed" in stages  # BM25 was current
    result = svc.search(Query(QUERIES[0], KIND, k=10))
    assert result.partial is None and result.signals_used == ("bm25", "dense")
    assert any("dense" in h.signals for h in result.hits)
    assert top(svc) == one_go
    assert svc.build_index(KIND).mode == "unchanged"


def test_interrupted_dense_build_keeps_bm25_and_the_published_dense_part(  # type: ignore[no-untyped-def]
    svc: LitsiftService, rows: list[dict], encoder, tmp_path: Path
) -> None:
    root = svc.paths.index_dir
    svc.ingest(KIND, write_jsonl(tmp_path / "a.jsonl", rows[:FIRST]))
    svc.build_index(KIND)
    directory = index_dir_for(root, KIND)
    dense_before = {n: b for n, b in file_bytes(directory).items() if n.startswith("dense")}

    # new rows: BM25 takes them at once; the dense build dies before publishing anything
    svc.ingest(KIND, write_jsonl(tmp_path / "b.jsonl", rows[FIRST:]))
    assert build_bm25(svc.store, encoder, KIND, root).indexed == N_ROWS - FIRST

    def explode(stage: str, done: int, total: int) -> None:
        if stage == "embed" and done > FIRST:
            raise Boom("interrupted")

    with pytest.raises(Boom):
        build_dense(svc.store, encoder, KIND, root, progress=explode)
    assert [p.name for p in root.iterdir()] == [KIND.value]  # no staging dir, no lock left
    after = file_bytes(directory)
    assert {n: after[n] for n in dense_before} == dense_before  # the previous dense part
    svc.searchers.invalidate(KIND)
    result = svc.search(Query(rows[-1]["id"], KIND, k=10))
    assert result.signals_used == ("bm25",)
    assert result.partial == f"dense index: {FIRST} / {N_ROWS} embedded"
    assert rows[-1]["id"] in [h.docid for h in result.hits]  # a new row, found by BM25

    # the next build embeds only the new rows and the search is hybrid again
    counting = CountingEncoder(encoder)
    report = build_dense(svc.store, counting, KIND, root)
    assert counting.passages == N_ROWS - FIRST and report.count == N_ROWS
    svc.searchers.invalidate(KIND)
    result = svc.search(Query(rows[-1]["id"], KIND, k=10))
    assert result.partial is None and result.signals_used == ("bm25", "dense")


def test_dense_chunks_are_published_and_a_build_resumes_after_them(  # type: ignore[no-untyped-def]
    tmp_path: Path, rows: list[dict], encoder
) -> None:
    store = Store(tmp_path / "store.sqlite")
    ingest_jsonl(store, KIND, write_jsonl(tmp_path / "a.jsonl", rows))
    root = tmp_path / "indexes"
    build_bm25(store, encoder, KIND, root)
    chunks: list[int] = []
    real_rows = store.rows_since

    def small_batches(kind, revision=0, batch_size=1000):  # type: ignore[no-untyped-def]
        return real_rows(kind, revision, batch_size=50)

    store.rows_since = small_batches  # type: ignore[method-assign]

    def explode(stage: str, done: int, total: int) -> None:
        if stage == "hnsw":
            chunks.append(done)
        if stage == "embed" and done > 100:
            raise Boom("killed")

    with pytest.raises(Boom):
        build_dense(store, encoder, KIND, root, progress=explode, publish_every=100)
    manifest = index_status(root, KIND)
    assert manifest is not None and manifest.dense_behind
    assert manifest.part_count("dense") == 100 and manifest.dense_cursor > 0
    assert manifest.revision("dense") == 0  # covers no revision in full yet

    counting = CountingEncoder(encoder)
    report = build_dense(store, counting, KIND, root, publish_every=100)
    assert counting.passages == N_ROWS - 100  # resumed after the published chunk
    manifest = report.manifest
    assert not manifest.dense_behind and manifest.part_count("dense") == N_ROWS
    assert manifest.dense_cursor == 0
    searcher = KindSearcher.open(root, KIND, encoder, store.year_by_rowid(KIND))
    assert searcher.partial is None and searcher.dense is not None
    found, vecs = searcher.vectors(np.arange(1, N_ROWS + 1))
    assert len(found) == N_ROWS and vecs.shape == (N_ROWS, encoder.dim)
    store.close()


def test_one_writer_per_kind(tmp_path: Path, rows: list[dict], encoder) -> None:  # type: ignore[no-untyped-def]
    store = Store(tmp_path / "store.sqlite")
    ingest_jsonl(store, KIND, write_jsonl(tmp_path / "a.jsonl", rows[:20]))
    root = tmp_path / "indexes"
    root.mkdir()
    with write_lock(root, KIND):
        with pytest.raises(LitsiftError) as err:
            build_bm25(store, encoder, KIND, root)
        assert "another build" in err.value.message
        build_bm25(store, encoder, Kind.PAPER, root)  # other kinds are not blocked
    assert build_bm25(store, encoder, KIND, root).count == 20
    store.close()


def test_cli_index_says_bm25_is_ready_first_and_search_notes_partial(  # type: ignore[no-untyped-def]
    tmp_path: Path, rows: list[dict], encoder
) -> None:
    from click.testing import CliRunner

    from litsift.cli.root import main

    home = tmp_path / "home"
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        svc.ingest(KIND, write_jsonl(tmp_path / "a.jsonl", rows[:50]))
        svc.build_index(KIND, dense=False)
    runner = CliRunner()
    out = runner.invoke(main, ["--home", str(home), "search", "--datasets", "--json", "speech"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["signals_used"] == ["bm25"] and data["partial"] == "dense index: 0 / 50 embedded"
    out = runner.invoke(main, ["--home", str(home), "search", "--datasets", "speech"])
    assert out.exit_code == 0 and "note: BM25 only — dense index: 0 / 50 embedded" in out.stderr
    out = runner.invoke(main, ["--home", str(home), "index", "datasets", "--quiet"])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0].startswith("datasets: BM25 ready, searchable now (up to date")
    assert lines[1].startswith("datasets: incremental build (dense rebuilt): 50 indexed")


def test_cached_vectors_are_not_published_every_chunk(  # type: ignore[no-untyped-def]
    tmp_path: Path, rows: list[dict], encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: vectors from the embedding cache arrive faster than a publication (a save and
    a checksum of the whole graph) takes; publishing every ``publish_every`` rows regardless
    made a build of N cached vectors O(N^2) (1M papers: 500 saves of a growing graph). A
    publication now waits for ten times the last one's cost; the result is the same index."""
    from litsift.search.build import two_phase as builder
    from litsift.search.retrieval.record_text import passage_text

    store = Store(tmp_path / "store.sqlite")
    ingest_jsonl(store, KIND, write_jsonl(tmp_path / "a.jsonl", rows))
    root = tmp_path / "indexes"
    build_bm25(store, encoder, KIND, root)
    encoder.encode_passages([passage_text(r) for b in store.rows_since(KIND) for r in b])
    real_rows, real_swap = store.rows_since, builder.swap
    swaps: list[Path] = []

    def small_batches(kind, revision=0, batch_size=1000):  # type: ignore[no-untyped-def]
        return real_rows(kind, revision, batch_size=10)

    def counted_swap(index_root: Path, kind: Kind, tmp: Path) -> None:
        swaps.append(tmp)
        real_swap(index_root, kind, tmp)

    store.rows_since = small_batches  # type: ignore[method-assign]
    monkeypatch.setattr(builder, "swap", counted_swap)
    report = build_dense(store, encoder, KIND, root, publish_every=10)
    # main published after each of the 20 chunks, then at the end: 21 swaps
    assert 2 <= len(swaps) <= 8, len(swaps)
    manifest = report.manifest
    assert not manifest.dense_behind and manifest.part_count("dense") == N_ROWS
    searcher = KindSearcher.open(root, KIND, encoder, store.year_by_rowid(KIND))
    assert searcher.partial is None and searcher.dense is not None
    found, _ = searcher.vectors(np.arange(1, N_ROWS + 1))
    assert len(found) == N_ROWS
    store.close()
