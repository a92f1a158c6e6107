"""Passage vectors of the suite's fixed texts, committed so a CI run does not embed them again
(the brief: "cache what never changes (embeddings of fixed texts)").

``tests/data/embed-seed/vectors.npz`` holds ``keys`` (N x 16 uint8: the embedding cache's
BLAKE2b keys, :meth:`litsift.cache.embeddings.EmbeddingCache.key`, which name the encoder's
ONNX sha256, maximum length, prefix and batch rule), ``vectors`` (N x dim float32, as the
encoder gave them) and ``encoder_key``. The ``encoder`` fixture loads them into the session's
cache: the 5,631 passages of the session index (2,000 papers + the datasets: two minutes of
embedding on 2 cores, 8.7 MB) are then cache hits. The other fixed sets (the DataFinder and
PaperRQ slices, the screening set) would add 17K vectors and 26 MB, past what the working
tree may weigh (the device machine takes 64 MiB), so they are still embedded each run. A seed
made with another encoder or export is skipped whole (its keys could never be hit). Tests that
must embed use their own, empty cache directory (``LITSIFT_EMBED_CACHE_DIR``), as before.

The vectors are the int8 encoder's on the machine that made the file (an AMD EPYC, AVX2);
another CPU's kernels give vectors that differ in the last digits, so a session index built
from the seed is that machine's index, searched with this machine's query vectors.

Remake it after the default encoder changes (every test still passes without it, slower)::

    export LITSIFT_TEST_EMBED_CACHE=$(mktemp -d)
    python -m pytest -p no:cacheprovider tests/tui/test_answer_cancel.py  # builds the index
    python -m tests.embed_seed "$LITSIFT_TEST_EMBED_CACHE/embeddings.sqlite"
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import numpy as np

SEED = Path(__file__).parent / "data" / "embed-seed" / "vectors.npz"


def load_seed(cache: Any, encoder_key: str, seed: Path = SEED) -> int:
    """Put the seed's vectors into ``cache`` (an :class:`EmbeddingCache`; rows already there
    are kept). Returns the rows offered: 0 when there is no seed or it is another encoder's."""
    if not seed.is_file():
        return 0
    with np.load(seed) as data:
        if str(data["encoder_key"]) != encoder_key:
            return 0
        keys, vectors = data["keys"], data["vectors"]
    cache.put_keyed([bytes(k) for k in keys], vectors)
    return len(keys)


def write_seed(cache_file: Path, encoder_key: str, seed: Path = SEED) -> int:
    """Write every row of the cache file ``cache_file`` (table ``passages``) to ``seed``.
    Returns the rows written."""
    with sqlite3.connect(cache_file) as db:
        rows = db.execute("SELECT key, dim, vector FROM passages ORDER BY key").fetchall()
    dims = {int(d) for _, d, _ in rows}
    assert len(dims) == 1, dims  # one encoder's rows
    keys = np.frombuffer(b"".join(bytes(k) for k, _, _ in rows), dtype=np.uint8).reshape(-1, 16)
    vectors = np.frombuffer(b"".join(bytes(v) for _, _, v in rows), dtype="<f4")
    seed.parent.mkdir(parents=True, exist_ok=True)
    np.savez(seed, keys=keys, vectors=vectors.reshape(len(rows), -1),
             encoder_key=np.array(encoder_key))  # fmt: skip
    return len(rows)


if __name__ == "__main__":
    from litsift.models_onnx import load_encoder

    n = write_seed(Path(sys.argv[1]), load_encoder().cache_key)
    print(f"{n:,} vectors written to {SEED}")
