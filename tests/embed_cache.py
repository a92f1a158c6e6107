"""A disk cache of the real encoder's passage vectors, for re-running the suite locally.

The session store embeds the same 5.3K fixed texts on every run (about 6 minutes on a 2-core
CPU). With ``LITSIFT_TEST_EMBED_CACHE=DIR`` set, :class:`CachedEncoder` keeps the output of
each ``encode_passages`` call in ``DIR/passages.sqlite`` keyed by (ONNX file sha256, batch
size, every text of the call in order) and answers a repeat of the same call from it. The key
is the whole call, not each text, because int8 dynamic quantisation makes a vector depend
slightly on the other texts of its batch: a cached answer is exactly what the real encoder gave
for that call. Unset (as in CI), the encoder is used as it is.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np


class CachedEncoder:
    """Wraps a :class:`litsift.models_onnx.Encoder`; ``encode_passages`` reads through a cache.

    Every other attribute (``model_id``, ``onnx_sha256``, ``dim``, ``encode_queries``, ...) is
    the wrapped encoder's.
    """

    def __init__(self, encoder: Any, directory: Path) -> None:
        self._inner = encoder
        directory.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(directory / "passages.sqlite", check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=60000")
        self._db.execute("CREATE TABLE IF NOT EXISTS calls (key BLOB PRIMARY KEY, v BLOB)")
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _key(self, texts: Sequence[str], batch_size: int) -> bytes:
        h = hashlib.sha256(f"{self._inner.onnx_sha256}\0{batch_size}\0{len(texts)}".encode())
        for t in texts:
            b = t.encode("utf-8", "surrogatepass")
            h.update(f"{len(b)}:".encode() + b)
        return h.digest()

    def encode_passages(
        self,
        texts: Sequence[str],
        batch_size: int = 32,
        progress: Callable[[int, int], None] | None = None,
    ) -> np.ndarray:
        if not texts:
            return np.asarray(self._inner.encode_passages(texts, batch_size=batch_size))
        key = self._key(texts, batch_size)
        with self._lock:
            row = self._db.execute("SELECT v FROM calls WHERE key = ?", (key,)).fetchone()
        if row is not None:
            out = np.frombuffer(row[0], dtype=np.float32).reshape(len(texts), -1).copy()
        else:
            out = np.asarray(
                self._inner.encode_passages(texts, batch_size=batch_size), dtype=np.float32
            )
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO calls VALUES (?, ?)", (key, out.tobytes()))
                self._db.commit()
        if progress is not None:
            progress(len(texts), len(texts))
        return out
