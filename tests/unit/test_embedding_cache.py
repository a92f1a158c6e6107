"""Vectors are a function of the text alone (issue 15, item 2) and the passage cache keyed by
(encoder, exact text) embeds nothing twice, across rebuilds and a killed build (item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from litsift.cache.embeddings import EmbeddingCache
from litsift.paths import get_paths
from litsift.search.build.two_phase import build_bm25, build_dense
from litsift.service.facade import LitsiftService
from litsift.types import Kind
from tests.conftest import DATASETS_GZ, read_jsonl_gz

N = 200


class Boom(RuntimeError):
    pass


@pytest.fixture(scope="module")
def texts(paper_slice_rows: list[dict]) -> list[str]:
    return [f"{r['title']}. {r.get('abstract') or ''}" for r in paper_slice_rows[:24]]


def test_a_passage_vector_does_not_depend_on_its_batch(
    encoder, texts: list[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(encoder, "passage_cache", None)
    whole = encoder.encode_passages(texts)
    assert np.array_equal(encoder.encode_passages(texts[::-1])[::-1], whole)
    assert np.array_equal(encoder.encode_passages(texts[7:9]), whole[7:9])
    assert np.array_equal(encoder.encode_passages([texts[3]])[0], whole[3])


def test_the_cache_answers_exactly_what_the_encoder_gives(
    encoder, texts: list[str], tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(encoder, "passage_cache", None)
    plain = encoder.encode_passages(texts)
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    monkeypatch.setattr(encoder, "passage_cache", cache)
    runs: list[int] = []
    real_run = encoder._run
    monkeypatch.setattr(encoder, "_run", lambda enc: runs.append(len(enc)) or real_run(enc))
    assert np.array_equal(encoder.encode_passages(texts[:10]), plain[:10])
    assert sum(runs) == 10 and cache.count() == 10
    assert np.array_equal(encoder.encode_passages(texts), plain)  # 10 hits, 14 embedded
    assert sum(runs) == 24 and cache.count() == 24
    assert np.array_equal(encoder.encode_passages(texts + texts[:3]), np.vstack([plain, plain[:3]]))
    assert sum(runs) == 24
    # another encoder key (another ONNX file or prefix) never reads these rows
    _, found = cache.get(
        "other-model", [encoder.spec.passage_prefix + t for t in texts], encoder.dim
    )
    assert not found.any()


def test_a_killed_dense_build_resumes_without_re_embedding(
    encoder, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    cache = EmbeddingCache(tmp_path / "cache" / "embeddings.sqlite")
    monkeypatch.setattr(encoder, "passage_cache", cache)
    runs: list[int] = []
    real_run = encoder._run
    monkeypatch.setattr(encoder, "_run", lambda enc: runs.append(len(enc)) or real_run(enc))
    rows = list({r["id"]: r for r in read_jsonl_gz(DATASETS_GZ)[: N + 10]}.values())[:N]
    src = tmp_path / "d.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        svc.ingest(Kind.DATASET, src)
        root = svc.paths.index_dir
        build_bm25(svc.store, encoder, Kind.DATASET, root)

        def kill(stage: str, done: int, total: int) -> None:
            if stage == "embed" and done >= 70:
                raise Boom("killed")

        with pytest.raises(Boom):  # nothing published (publish_every > N)
            build_dense(svc.store, encoder, Kind.DATASET, root, progress=kill, publish_every=10 * N)
        embedded_before = sum(runs)
        assert 64 <= embedded_before < N and cache.count() == embedded_before
        report = build_dense(svc.store, encoder, Kind.DATASET, root)
        assert report.count == N
        assert sum(runs) == N  # the restart embedded only what the killed build had not
        # a rebuild from scratch embeds nothing: every text is in the cache
        before = sum(runs)
        assert build_dense(svc.store, encoder, Kind.DATASET, root, rebuild=True).count == N
        assert sum(runs) == before


def test_a_vector_sits_in_its_page_and_an_earlier_file_is_read_through(
    encoder, texts: list[str], tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The cache file holds little more than its vectors (the first layout, WITHOUT ROWID on
    4 KiB pages, put each 1.5 KB vector on an overflow page: ~4.7 KB a row), and a file made by
    that layout still answers, its rows read after the new table's."""
    import sqlite3

    monkeypatch.setattr(encoder, "passage_cache", None)
    plain = encoder.encode_passages(texts)
    key = encoder.cache_key
    prefixed = [encoder.spec.passage_prefix + t for t in texts]
    # 2,000 random 384-d rows: the size per row, from the file itself
    rng = np.random.default_rng(0)
    many = rng.standard_normal((2000, encoder.dim)).astype(np.float32)
    cache = EmbeddingCache(tmp_path / "new.sqlite")
    cache.put(key, [f"text {i}" for i in range(2000)], many)
    cache.close()
    with sqlite3.connect(tmp_path / "new.sqlite") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages, size = (
            conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "page_size")
        )
    assert size * pages / 2000 < 1.25 * 4 * encoder.dim  # under 25 % above the vectors

    # a file in the first layout, holding the first 10 vectors
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as conn:
        conn.execute(
            "CREATE TABLE vectors (key BLOB PRIMARY KEY, dim INTEGER NOT NULL, "
            "vector BLOB NOT NULL) WITHOUT ROWID"
        )
        conn.executemany(
            "INSERT INTO vectors VALUES (?, ?, ?)",
            [
                (EmbeddingCache.key(key, t), encoder.dim, plain[i].astype("<f4").tobytes())
                for i, t in enumerate(prefixed[:10])
            ],
        )
    cache = EmbeddingCache(old)
    assert (
        cache.count() == 10 and cache.has(key, prefixed[:12]).tolist() == [True] * 10 + [False] * 2
    )
    monkeypatch.setattr(encoder, "passage_cache", cache)
    runs: list[int] = []
    real_run = encoder._run
    monkeypatch.setattr(encoder, "_run", lambda enc: runs.append(len(enc)) or real_run(enc))
    assert np.array_equal(encoder.encode_passages(texts), plain)
    assert sum(runs) == len(texts) - 10  # the 10 old rows are hits
    with sqlite3.connect(old) as conn:  # new rows go to the new table only
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 10
        assert conn.execute("SELECT count(*) FROM passages").fetchone()[0] == len(texts) - 10
    assert cache.count() == len(texts)
