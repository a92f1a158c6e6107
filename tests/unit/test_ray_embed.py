"""Embedding with Ray Data (issue 33): the encoder in Ray actors gives the local path's vectors.

A local Ray (one CPU, so the test leaves the other core to the suite) embeds real papers of the
sample with ``map_batches`` in small batches; every vector must equal, bit for bit, what the
local encoder gives, and :func:`embed_with_ray` must leave them in the embedding cache that
the index build and the Milvus push read. Needs the ``scale`` extra (ray).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray")

from litsift.cache.embeddings import EmbeddingCache
from litsift.models_onnx.encoder import Encoder
from litsift.paths import get_paths
from litsift.search.ray_embed import embed_with_ray
from litsift.search.text import passage_text
from litsift.service import LitsiftService
from litsift.types import Kind

N = 24


@pytest.fixture(scope="module")
def local_ray():  # type: ignore[no-untyped-def]
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_ray_vectors_land_in_the_cache_and_equal_the_local_encoders(
    local_ray, encoder, paper_slice_rows, tmp_path: Path
) -> None:
    import json

    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:N]), "utf-8")
    enc = Encoder(encoder.spec, encoder.onnx_path, threads=1)
    enc.passage_cache = EmbeddingCache(tmp_path / "embeddings.sqlite")  # empty
    with LitsiftService(get_paths(tmp_path / "home"), encoder=enc) as svc:
        assert svc.ingest(Kind.PAPER, papers).ok
        report = embed_with_ray(svc.store, enc, Kind.PAPER, "local", batch_size=5)
        assert (report.passages, report.embedded, report.actors) == (N, N, 1)
        assert "embedded by Ray Data" in report.summary()
        records = [r for batch in svc.store.rows_since(Kind.PAPER) for r in batch]
        texts = [enc.spec.passage_prefix + passage_text(r) for r in records]
        cached, found = enc.passage_cache.get(enc.cache_key, texts, enc.dim)
        assert found.all() and cached.dtype == np.float32 and cached.shape == (N, enc.dim)
        # bit for bit what the local encoder gives (a fresh one without a cache: it embeds)
        local = Encoder(encoder.spec, encoder.onnx_path, threads=1)
        assert np.array_equal(cached, local.encode_passages([passage_text(r) for r in records]))
        again = embed_with_ray(svc.store, enc, Kind.PAPER, "local")
        assert again.embedded == 0 and "already cached" in again.summary()
