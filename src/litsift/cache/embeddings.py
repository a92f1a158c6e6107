"""A disk cache of passage vectors keyed by (encoder key, exact input text).

Re-ingesting a corpus, ``litsift index --rebuild``, an evaluation home built again, or a build
killed half-way and restarted never embed the same text twice: :func:`encode_cached`
(:mod:`litsift.search.build.fill`) asks the cache first and embeds only the misses.

This is sound only because a passage's vector is a function of its text alone: the encoder
embeds passages one at a time (``Encoder.encode_passages`` with batch size 1), so int8 dynamic
quantisation computes each text's activation scales from that text only. The encoder key
therefore names the ONNX file's sha256, the maximum length, the passage prefix and that
batch-size rule; another model or export never reads this model's rows.

The file (``embeddings.sqlite``, SQLite in WAL mode) is shared by every ``LITSIFT_HOME`` like
the exported models (``Paths.embeddings_file``); several processes may read and write it.
Rows of table ``passages`` are ``(key BLOB PRIMARY KEY, dim INTEGER, vector BLOB)``: key =
16-byte BLAKE2b of ``encoder key + NUL + text``, vector = ``dim`` little-endian float32. It is
an ordinary (rowid) table on 8 KiB pages, so a 1.5 KB vector sits in its leaf page: 20,213
passages of a 384-d model take 34 MB (31 MB of vectors). The first layout, table ``vectors``
``WITHOUT ROWID`` on 4 KiB pages, spilled every such row onto an overflow page (SQLite keeps at
most ~1 KB of a row in a WITHOUT ROWID leaf): 95 MB for the same rows. A file made by an
earlier litsift keeps its ``vectors`` rows and is read through (``passages`` first, then
``vectors``); new rows go to ``passages`` only.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["EmbeddingCache", "open_cache"]

_MAX_PARAMS = 900
#: page size of a new cache file: 5 float32 384-d rows per page (SQLite's default 4096 holds 2)
PAGE_SIZE = 8192


class EmbeddingCache:
    """Passage vectors by (encoder key, text). Thread-safe; one connection per instance."""

    def __init__(self, path: Path) -> None:
        """Open (creating) the cache file at ``path``.

        Raises:
            sqlite3.Error: the file cannot be opened (callers treat the cache as absent).
        """
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # takes effect on a new file only
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS passages (key BLOB PRIMARY KEY, dim INTEGER NOT NULL, "
            "vector BLOB NOT NULL)"
        )
        self._db.commit()
        #: tables read, newest first: ``vectors`` where an earlier litsift made the file
        self._tables = ["passages"]
        if self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vectors'"
        ).fetchone():
            self._tables.append("vectors")
        self._lock = threading.Lock()

    @staticmethod
    def key(encoder_key: str, text: str) -> bytes:
        """The 16-byte key of ``text`` under ``encoder_key``."""
        data = f"{encoder_key}\0".encode() + text.encode("utf-8", "surrogatepass")
        return hashlib.blake2b(data, digest_size=16).digest()

    def get(
        self, encoder_key: str, texts: Sequence[str], dim: int
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Cached vectors of ``texts``.

        Returns:
            ``(len(texts), dim)`` float32 (zeros where missing) and a ``(len(texts),)`` bool
            mask of the rows found.
        """
        out = np.zeros((len(texts), dim), dtype=np.float32)
        found = np.zeros(len(texts), dtype=bool)
        keys = [self.key(encoder_key, t) for t in texts]
        where: dict[bytes, list[int]] = {}
        for i, k in enumerate(keys):
            where.setdefault(k, []).append(i)
        with self._lock:
            for table in self._tables:  # a key found in the new table is not asked again
                for k, d, blob in self._select("key, dim, vector", table, list(where)):
                    if d != dim or len(blob) != 4 * dim:
                        continue
                    vec = np.frombuffer(blob, dtype="<f4")
                    for i in where.pop(bytes(k), ()):
                        out[i] = vec
                        found[i] = True
        return out, found

    def _select(self, columns: str, table: str, keys: list[bytes]) -> Iterator[tuple[Any, ...]]:
        """``columns`` of the rows of ``table`` whose key is in ``keys``, asked
        :data:`_MAX_PARAMS` keys at a time (the caller holds the lock)."""
        for start in range(0, len(keys), _MAX_PARAMS):
            chunk = keys[start : start + _MAX_PARAMS]
            marks = ", ".join("?" * len(chunk))
            yield from self._db.execute(
                f"SELECT {columns} FROM {table} WHERE key IN ({marks})", chunk
            ).fetchall()

    def put(self, encoder_key: str, texts: Sequence[str], vectors: npt.NDArray[np.float32]) -> None:
        """Store ``vectors[i]`` as the vector of ``texts[i]`` (existing rows are kept)."""
        if len(texts) == 0:
            return
        arr = np.asarray(vectors, dtype="<f4")
        rows = [
            (self.key(encoder_key, t), int(arr.shape[1]), arr[i].tobytes())
            for i, t in enumerate(texts)
        ]
        with self._lock:
            self._db.executemany("INSERT OR IGNORE INTO passages VALUES (?, ?, ?)", rows)
            self._db.commit()

    def has(self, encoder_key: str, texts: Sequence[str]) -> npt.NDArray[np.bool_]:
        """A ``(len(texts),)`` bool mask of the texts cached under ``encoder_key`` (no vector
        is read: a planning pass over a large store stays light)."""
        keys = [self.key(encoder_key, t) for t in texts]
        unique = list(dict.fromkeys(keys))
        present: set[bytes] = set()
        with self._lock:
            for table in self._tables:
                present.update(bytes(k) for (k,) in self._select("key", table, unique))
        return np.fromiter((k in present for k in keys), dtype=bool, count=len(keys))

    def put_keyed(self, keys: Sequence[bytes], vectors: npt.NDArray[np.float32]) -> None:
        """Store ``vectors[i]`` under the ready-made key ``keys[i]`` (:meth:`key`, computed
        where the text was, e.g. in a Ray actor); existing rows are kept. One commit."""
        if len(keys) == 0:
            return
        arr = np.asarray(vectors, dtype="<f4")
        dim = int(arr.shape[1])
        rows = [(bytes(k), dim, arr[i].tobytes()) for i, k in enumerate(keys)]
        with self._lock:
            self._db.executemany("INSERT OR IGNORE INTO passages VALUES (?, ?, ?)", rows)
            self._db.commit()

    def count(self) -> int:
        """Rows in the cache (all encoders; a key in both tables of an earlier file counts
        once per table)."""
        with self._lock:
            return sum(
                int(self._db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
                for t in self._tables
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()


_open: dict[Path, EmbeddingCache] = {}
_open_lock = threading.Lock()


def open_cache(path: Path) -> EmbeddingCache | None:
    """The process's cache at ``path`` (one connection per file), or None when it cannot be
    opened (a read-only or full disk): litsift then embeds without a cache."""
    key = Path(path).resolve()
    with _open_lock:
        if key not in _open:
            try:
                _open[key] = EmbeddingCache(key)
            except (OSError, sqlite3.Error):
                return None
        return _open[key]
