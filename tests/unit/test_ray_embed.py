"""Embedding with Ray Data (issues 33, 42): a streaming job from the store to the cache.

A local Ray (one CPU, so the test leaves the other core to the suite) embeds 300 real papers of
the sample in blocks of 50 with ``map_batches`` over an actor pool. The job is stopped after
two blocks (the progress callback raises, as a Ctrl-C would): those two blocks must be in the
cache, each written as it landed, and the rerun must embed only the other 200. Every vector
must then equal, bit for bit, what the local encoder gives; the driver must never have held
more than one block; and no DeprecationWarning (Ray's included) may be raised. Needs the
``scale`` extra (ray).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray")

from litsift.cache.embeddings import EmbeddingCache
from litsift.cli.common import ProgressLine
from litsift.models_onnx.encoder import Encoder
from litsift.paths import get_paths
from litsift.search.engines.ray_embed import embed_with_ray, plan_blocks
from litsift.search.retrieval.record_text import passage_text
from litsift.service.facade import LitsiftService
from litsift.types import Kind

N = 300
BLOCK = 50
pytestmark = pytest.mark.xdist_group("ray")  # one worker runs the Ray tests in turn


class Stop(Exception):
    """Raised from the progress callback: the job is interrupted."""


def _deprecations(caught: list[warnings.WarningMessage]) -> list[str]:
    return [
        f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})"
        for w in caught
        if issubclass(w.category, DeprecationWarning)
    ]


@pytest.fixture(scope="module")
def local_ray():  # type: ignore[no-untyped-def]
    import ray

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ray.init(  # a Ray of its own, even while a head of test_ray_address runs
            address="local",
            num_cpus=1,
            # a small object store: Ray's default takes 30 % of RAM in /dev/shm, which the
            # other worker's tests share (a full tmpfs faults mmapped pages with SIGBUS)
            object_store_memory=256 * 1024**2,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    yield _deprecations(caught)
    ray.shutdown()


@pytest.fixture
def small_home(encoder, paper_slice_rows, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A service over ``N`` real papers whose encoder has an empty embedding cache."""
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:N]), "utf-8")
    enc = Encoder(encoder.spec, encoder.onnx_path, threads=1)
    enc.passage_cache = EmbeddingCache(tmp_path / "embeddings.sqlite")  # empty
    with LitsiftService(get_paths(tmp_path / "home"), encoder=enc) as svc:
        assert svc.ingest(Kind.PAPER, papers).ok
        yield svc, enc


def test_the_plan_holds_rowids_of_uncached_rows_only(small_home) -> None:  # type: ignore[no-untyped-def]
    svc, enc = small_home
    records = [r for batch in svc.store.rows_since(Kind.PAPER) for r in batch]
    texts = [passage_text(r) for r in records[:70]]
    enc.passage_cache.put(
        enc.cache_key,
        [enc.spec.passage_prefix + t for t in texts],
        np.zeros((70, enc.dim), np.float32),
    )
    total, blocks = plan_blocks(svc.store, enc, Kind.PAPER, BLOCK)
    assert total == N
    assert [len(b) for b in blocks] == [50, 50, 50, 50, 30]
    assert all(b.dtype == np.int64 for b in blocks)  # 8 bytes a row: no text is kept
    assert np.concatenate(blocks).tolist() == [r.rowid for r in records[70:]]


def test_progress_lines_say_rows_rate_and_eta() -> None:
    lines: list[str] = []
    clock = iter([0.0, 10.0, 20.0]).__next__
    line = ProgressLine(lines.append, clock)
    line("ray", 0, 1000)
    line("ray", 100, 1000)
    line("ray", 250, 1000)
    assert lines == [
        "ray: 1,000 passages to embed",
        "ray: 100/1,000 (10 %), 10.0 passages/s, ETA 1 min 30 s",
        "ray: 250/1,000 (25 %), 12.5 passages/s, ETA 1 min 00 s",
    ]


def test_a_stopped_job_keeps_its_blocks_and_the_rerun_embeds_the_rest_bit_identical(
    local_ray, small_home
) -> None:  # type: ignore[no-untyped-def]
    assert local_ray == []  # ray.init raised no DeprecationWarning
    svc, enc = small_home
    cache = enc.passage_cache
    records = [r for batch in svc.store.rows_since(Kind.PAPER) for r in batch]
    texts = [enc.spec.passage_prefix + passage_text(r) for r in records]
    distinct = len(set(texts))
    seen: list[tuple[int, int, int]] = []  # (done, total, rows in the cache) at each call

    def stop_after_two_blocks(stage: str, done: int, total: int) -> None:
        seen.append((done, total, cache.count()))
        if done >= 2 * BLOCK:
            raise Stop

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(Stop):
            embed_with_ray(
                svc.store,
                enc,
                Kind.PAPER,
                "local",
                progress=stop_after_two_blocks,
                block_rows=BLOCK,
            )
        # each block is in the cache when progress hears of it
        assert seen == [
            (0, distinct, 0),
            (BLOCK, distinct, BLOCK),
            (2 * BLOCK, distinct, 2 * BLOCK),
        ]
        assert cache.count() == 2 * BLOCK

        steps: list[int] = []
        report = embed_with_ray(
            svc.store,
            enc,
            Kind.PAPER,
            "local",
            progress=lambda s, d, t: steps.append(d),
            block_rows=BLOCK,
        )
    assert _deprecations(caught) == []
    # the rerun embeds only what the stopped job had not written, block by block
    assert (report.passages, report.embedded, report.actors) == (N, distinct - 2 * BLOCK, 1)
    assert steps == [*range(0, distinct - 2 * BLOCK, BLOCK), distinct - 2 * BLOCK]
    assert report.blocks == -(-(distinct - 2 * BLOCK) // BLOCK)
    assert report.max_held_blocks == 1  # the driver holds the block it writes, no more
    assert "embedded by Ray Data" in report.summary()

    cached, found = cache.get(enc.cache_key, texts, enc.dim)
    assert found.all() and cached.dtype == np.float32 and cached.shape == (N, enc.dim)
    # bit for bit what the local encoder gives (a fresh one without a cache: it embeds)
    local = Encoder(enc.spec, enc.onnx_path, threads=1)
    assert np.array_equal(cached, local.encode_passages([passage_text(r) for r in records]))
    again = embed_with_ray(svc.store, enc, Kind.PAPER, "local")
    assert again.embedded == 0 and "already cached" in again.summary()
