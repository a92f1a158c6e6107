"""Passage vectors of the suite's fixed texts, committed so a CI run does not embed them again
(the brief: "cache what never changes (embeddings of fixed texts)").

Two files in ``tests/data/embed-seed/``, each with ``keys`` (N x 16 uint8: the embedding
cache's BLAKE2b keys, :meth:`litsift.cache.embeddings.EmbeddingCache.key`, which name the
encoder's ONNX sha256, maximum length, prefix and batch rule), ``vectors`` (N x dim) and
``encoder_key`` (the default encoder's, which the file was made with):

- ``vectors.npz``: the 5,631 passages of the session index (2,000 papers + the datasets: two
  minutes of embedding on 2 cores), float32 as the encoder gave them (8.7 MB).
- ``fixed-sets.npz``: the rest of what the evaluation tests embed into the session's cache
  (the DataFinder slice's dataset sentences, the SciFact, DORIS-MAE and PaperRQ slices, and
  bge-small's vectors of the screening sets, keyed by bge's own cache key), about 20K vectors
  stored as float16 to halve the file (15 MB): a vector differs from the encoder's by at most 2^-11
  of its largest component (cosine > 0.99999), less than two CPUs' int8 kernels change it.
  Without it those tests embed for about five minutes of one core each run.

The ``encoder`` fixture loads both into the session's cache. A file made with another encoder
or export is skipped whole (its keys could never be hit). Tests that must embed use their
own, empty cache directory (``LITSIFT_EMBED_CACHE_DIR``), as before.

The vectors are the int8 encoder's on the machine that made the files (an AMD EPYC, AVX2);
another CPU's kernels give vectors that differ in the last digits, so a session index built
from the seed is that machine's index, searched with this machine's query vectors.

Remake them after the default encoder changes (every test still passes without them, slower)::

    export LITSIFT_TEST_EMBED_CACHE=$(mktemp -d)
    python -m pytest -p no:cacheprovider tests/tui/test_answer_cancel.py  # builds the index
    python -m tests.embed_seed "$LITSIFT_TEST_EMBED_CACHE/embeddings.sqlite"
    python -m pytest -p no:cacheprovider tests/unit/test_eval.py tests/unit/test_rq.py \
        tests/unit/test_screening.py tests/unit/test_review_defects.py
    python -m tests.embed_seed "$LITSIFT_TEST_EMBED_CACHE/embeddings.sqlite" --fixed-sets
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import numpy as np

SEED = Path(__file__).parent / "data" / "embed-seed" / "vectors.npz"
FIXED_SETS = SEED.with_name("fixed-sets.npz")
SEEDS = (SEED, FIXED_SETS)


def load_seed(cache: Any, encoder_key: str, seeds: tuple[Path, ...] = SEEDS) -> int:
    """Put the seed files' vectors into ``cache`` (an :class:`EmbeddingCache`; rows already
    there are kept), as float32. Returns the rows offered: 0 when there is no seed or each is
    another encoder's."""
    offered = 0
    for seed in seeds:
        if not seed.is_file():
            continue
        with np.load(seed) as data:
            if str(data["encoder_key"]) != encoder_key:
                continue
            keys, vectors = data["keys"], data["vectors"].astype(np.float32)
        cache.put_keyed([bytes(k) for k in keys], vectors)
        offered += len(keys)
    return offered


def write_seed(
    cache_file: Path,
    encoder_key: str,
    seed: Path = SEED,
    exclude: tuple[Path, ...] = (),
    dtype: str = "<f4",
) -> int:
    """Write the rows of the cache file ``cache_file`` (table ``passages``) to ``seed`` as
    ``dtype``, but those whose keys are in the ``exclude`` seed files. Returns the rows
    written."""
    known: set[bytes] = set()
    for other in exclude:
        with np.load(other) as data:
            known.update(bytes(k) for k in data["keys"])
    with sqlite3.connect(cache_file) as db:
        rows = db.execute("SELECT key, dim, vector FROM passages ORDER BY key").fetchall()
    rows = [r for r in rows if bytes(r[0]) not in known]
    dims = {int(d) for _, d, _ in rows}
    assert len(dims) == 1, dims  # one width: the bge rows share all-MiniLM-L6-v2's 384
    keys = np.frombuffer(b"".join(bytes(k) for k, _, _ in rows), dtype=np.uint8).reshape(-1, 16)
    vectors = np.frombuffer(b"".join(bytes(v) for _, _, v in rows), dtype="<f4")
    seed.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(seed, keys=keys, vectors=vectors.reshape(len(rows), -1).astype(dtype),
             encoder_key=np.array(encoder_key))  # fmt: skip
    return len(rows)


if __name__ == "__main__":
    from litsift.models_onnx import load_encoder

    key = load_encoder().cache_key
    if "--fixed-sets" in sys.argv[2:]:
        n = write_seed(Path(sys.argv[1]), key, FIXED_SETS, exclude=(SEED,), dtype="<f2")
        print(f"{n:,} vectors written to {FIXED_SETS}")
    else:
        n = write_seed(Path(sys.argv[1]), key)
        print(f"{n:,} vectors written to {SEED}")
