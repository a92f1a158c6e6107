"""The committed vectors of the session index's texts (:mod:`tests.embed_seed`) are this
encoder's: made with another encoder or export they would never be hit and every run would
embed the 5,631 passages again in silence. Each passage of the session index is in the seed,
and a seeded vector is the encoder's own up to the last digits another CPU's int8 kernels
change (cosine > 0.999 with a fresh one)."""

from __future__ import annotations

from typing import Any

import numpy as np

from litsift.cache.embeddings import EmbeddingCache
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Kind
from tests.embed_seed import SEED


def test_the_seed_is_this_encoders_and_covers_the_session_index(service: Any, encoder: Any) -> None:
    with np.load(SEED) as data:
        key, keys, vectors = str(data["encoder_key"]), data["keys"], data["vectors"]
    assert key == encoder.cache_key, (
        "tests/data/embed-seed/vectors.npz was made with another encoder: remake it "
        "(tests/embed_seed.py says how)"
    )
    row_of = {bytes(k): i for i, k in enumerate(keys)}
    texts = [
        passage_text(r)
        for kind in (Kind.PAPER, Kind.DATASET)
        for batch in service.store.rows_since(kind)
        for r in batch
    ]
    assert len(texts) > 5_000
    missing = [t for t in texts if EmbeddingCache.key(key, t) not in row_of]
    assert missing == [], f"{len(missing)} passages not in the seed, e.g. {missing[0][:80]!r}"
    sample = texts[:: len(texts) // 5][:5]
    fresh = encoder.encode_passages(sample)
    seeded = vectors[[row_of[EmbeddingCache.key(key, t)] for t in sample]]
    cosines = np.sum(fresh * seeded, axis=1) / (
        np.linalg.norm(fresh, axis=1) * np.linalg.norm(seeded, axis=1)
    )
    assert cosines.min() > 0.999, cosines
