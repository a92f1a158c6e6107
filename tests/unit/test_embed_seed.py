"""The committed vectors of the suite's fixed texts (:mod:`tests.embed_seed`) are this encoder's:
made with another encoder or export they would never be hit and every run would embed them
again in silence (the session index's 5,631 passages, the evaluation slices' 20K texts). Each
passage of the session index is in the first file, the datasets' sentences (the DataFinder
slice's sentence phase) in the second, and a seeded vector is the encoder's own up to the last
digits another CPU's int8 kernels (or the second file's float16) change: cosine > 0.999 with
one embedded now by an encoder without the cache."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from litsift.cache.embeddings import EmbeddingCache
from litsift.models_onnx import load_encoder
from litsift.search.aspects.sentences import MAX_SENTENCE_CHARS, MAX_SENTENCES
from litsift.search.retrieval.record_text import passage_text
from litsift.text.sentences import split_sentences
from litsift.types import Kind
from tests.embed_seed import FIXED_SETS, SEED


def _seed(path: Path, encoder: Any) -> tuple[dict[bytes, int], np.ndarray]:
    with np.load(path) as data:
        key, keys, vectors = str(data["encoder_key"]), data["keys"], data["vectors"]
    assert key == encoder.cache_key, (
        f"{path} was made with another encoder: remake it (tests/embed_seed.py says how)"
    )
    return {bytes(k): i for i, k in enumerate(keys)}, vectors


def _close_to_fresh(texts: list[str], row_of: dict[bytes, int], vectors: np.ndarray) -> None:
    fresh = load_encoder().encode_passages(texts)  # no passage cache: embedded now
    key = load_encoder().cache_key
    seeded = vectors[[row_of[EmbeddingCache.key(key, t)] for t in texts]].astype(np.float32)
    cosines = np.sum(fresh * seeded, axis=1) / (
        np.linalg.norm(fresh, axis=1) * np.linalg.norm(seeded, axis=1)
    )
    assert cosines.min() > 0.999, cosines


def test_the_seed_is_this_encoders_and_covers_the_session_index(service: Any, encoder: Any) -> None:
    row_of, vectors = _seed(SEED, encoder)
    texts = [
        passage_text(r)
        for kind in (Kind.PAPER, Kind.DATASET)
        for batch in service.store.rows_since(kind)
        for r in batch
    ]
    assert len(texts) > 5_000
    key = encoder.cache_key
    missing = [t for t in texts if EmbeddingCache.key(key, t) not in row_of]
    assert missing == [], f"{len(missing)} passages not in the seed, e.g. {missing[0][:80]!r}"
    _close_to_fresh(texts[:: len(texts) // 5][:5], row_of, vectors)


@pytest.mark.skipif(not FIXED_SETS.is_file(), reason="no fixed-sets seed")
def test_the_fixed_sets_seed_holds_the_datasets_sentences(service: Any, encoder: Any) -> None:
    row_of, vectors = _seed(FIXED_SETS, encoder)
    assert vectors.dtype == np.float16
    assert not set(row_of) & set(_seed(SEED, encoder)[0]), "a row of both files"
    datasets = [r for batch in service.store.rows_since(Kind.DATASET) for r in batch]
    sentences = []
    for record in datasets[::300]:
        text = passage_text(record)
        spans = split_sentences(text)[:MAX_SENTENCES]
        sentences += [text[s : min(e, s + MAX_SENTENCE_CHARS)] for s, e in spans]
    assert len(sentences) > 20
    key = encoder.cache_key
    missing = [t for t in sentences if EmbeddingCache.key(key, t) not in row_of]
    assert missing == [], f"{len(missing)} sentences not in the seed, e.g. {missing[0][:80]!r}"
    _close_to_fresh(sentences[:6], row_of, vectors)
