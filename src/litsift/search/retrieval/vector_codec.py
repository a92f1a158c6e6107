"""Compact storage of embedding vectors: int8 with one float32 scale per vector.

A 384-dim vector takes 388 bytes instead of 1,536 as float32 (768 as float16). Symmetric
("absmax") quantisation with one scale per vector, so no calibration set is needed and a vector
depends on itself alone; the vectors are L2-normalised again after unpacking, so stored cosines
stay cosines: a cosine with a query moves by < 0.01 (``tests/unit/test_sentence_cache.py``),
and DORIS-MAE dev's aspect measures are those of float32 (``benchmarks/aspect_storage.py``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["pack_vectors", "round_vectors", "unpack_vectors"]

FloatArray = npt.NDArray[np.float32]


def pack_vectors(vectors: npt.ArrayLike) -> bytes:
    """``(m, dim)`` float vectors as int8 with one scale per vector.

    Each vector ``v`` is stored as ``s = max|v_i| / 127`` and ``q = round(v / s)`` in
    ``[-127, 127]``: ``m`` little-endian float32 scales, then ``m * dim`` int8 values, row-major
    (``m * (4 + dim)`` bytes; 388 for one 384-dim vector, against 1,536 as float32).

    Raises:
        ValueError: ``vectors`` is not two-dimensional.
    """
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim != 2:
        raise ValueError(f"vectors must be (m, dim), got shape {v.shape}")
    peak = np.abs(v).max(axis=1) if v.size else np.zeros(len(v), dtype=np.float32)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype("<f4")
    q = np.clip(np.rint(v / scale[:, None]), -127, 127).astype(np.int8)
    return bytes(scale.tobytes() + q.tobytes())


def unpack_vectors(blob: bytes, m: int, dim: int) -> FloatArray | None:
    """The ``(m, dim)`` float32 vectors of :func:`pack_vectors`, L2-normalised again (a zero
    vector stays zero); None when ``blob`` does not hold ``m`` vectors of ``dim`` (a torn or
    foreign row)."""
    if m < 0 or len(blob) != m * (4 + dim):
        return None
    scale = np.frombuffer(blob, dtype="<f4", count=m).astype(np.float32)
    q = np.frombuffer(blob, dtype=np.int8, offset=4 * m).reshape(m, dim)
    v = q.astype(np.float32) * scale[:, None]
    norm = np.linalg.norm(v, axis=1, keepdims=True)
    out: FloatArray = np.divide(v, norm, out=np.zeros_like(v), where=norm > 0)
    return out


def round_vectors(vectors: npt.ArrayLike) -> FloatArray:
    """``vectors`` ``(m, dim)`` as the store gives them back (packed and unpacked): freshly
    embedded vectors are rounded so, so that grades do not depend on where vectors came from."""
    v = np.asarray(vectors, dtype=np.float32)
    out = unpack_vectors(pack_vectors(v), v.shape[0], v.shape[1])
    assert out is not None
    return out
