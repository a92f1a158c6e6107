"""Embedding over worker processes: one encoder per core, one ONNX thread each.

One passage per ONNX run (litsift's batch size, so that a vector depends on its text alone)
parallelises badly over ONNX Runtime's intra-op threads; one process per core does not.
``benchmarks/embed_scaleout.py`` measured it: on a 16-core Xeon, 16 workers x 1 thread embed
465.8 passages/s against 94.2 for one process with 16 threads (4.9x); on this project's 2-core
machines 2 workers x 1 thread give about 1.5x (AMD EPYC: ~60 passages/s; Intel Xeon with AMX:
69-79, vs 36-47 for one process x 1 thread and 38-62 for one process x 2 threads;
``benchmarks/embed_rate.py --layouts``, issue 32). The vectors are identical to the in-process ones
(same ONNX file, same tokenizer, same batch size), so a corpus embedded here is searched with
queries embedded in-process.

Used by index builds through :meth:`litsift.models_onnx.encoder.Encoder.worker_pool`; the
workers are started with ``spawn`` (the caller may be a threaded TUI) and only when there is
something to embed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.models_onnx.registry import ModelSpec

if TYPE_CHECKING:
    from litsift.models_onnx.encoder import Encoder

FloatArray = npt.NDArray[np.float32]

#: Texts per task sent to a worker: small enough to balance the load and report progress.
POOL_CHUNK = 64
#: Fewer texts than this are embedded in-process (a worker's start costs about a second).
POOL_MIN = 256
#: The environment variable that sets the worker count (``1`` turns the pool off).
WORKERS_ENV = "LITSIFT_EMBED_WORKERS"

_worker: Encoder | None = None


def embed_workers() -> int:
    """Worker processes for an index build's embedding: ``$LITSIFT_EMBED_WORKERS`` when it is a
    positive integer, else the number of cores (``os.cpu_count()``)."""
    raw = os.environ.get(WORKERS_ENV, "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return os.cpu_count() or 1


def _init(spec: ModelSpec, onnx_path: str, tokenizer_path: str) -> None:
    global _worker
    from litsift.models_onnx.encoder import Encoder

    _worker = Encoder(spec, Path(onnx_path), Path(tokenizer_path), threads=1)


def _embed(texts: list[str]) -> FloatArray:
    if _worker is None:  # pragma: no cover - the initializer always runs first
        raise RuntimeError("embedding worker used before its encoder was loaded")
    return _worker.embed_prefixed(texts)


class EmbedPool:
    """Worker processes, each holding the same encoder with one ONNX thread.

    Args:
        encoder: The in-process encoder whose ONNX file and tokenizer the workers load.
        workers: Process count (>= 2).
    """

    def __init__(self, encoder: Encoder, workers: int) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=get_context("spawn"),
            initializer=_init,
            initargs=(encoder.spec, str(encoder.onnx_path), str(encoder.tokenizer_path)),
        )

    @property
    def usable(self) -> bool:
        """False once a worker died (the caller then embeds in-process)."""
        return self._executor is not None

    def encode(
        self, texts: list[str], progress: Callable[[int, int], None] | None
    ) -> FloatArray | None:
        """``(len(texts), dim)`` vectors of already-prefixed passages in input order, or None
        when the pool broke (a worker was killed: out of memory, a signal); the caller then
        embeds in-process, so a build never fails for the pool's sake."""
        if self._executor is None:
            return None
        chunks = [texts[i : i + POOL_CHUNK] for i in range(0, len(texts), POOL_CHUNK)]
        parts: list[FloatArray] = []
        done = 0
        try:
            for part in self._executor.map(_embed, chunks):
                parts.append(part)
                done += len(part)
                if progress is not None:
                    progress(done, len(texts))
        except BrokenProcessPool:
            self.close()
            return None
        return np.vstack(parts)

    def close(self) -> None:
        """Stop the workers (pending chunks are cancelled)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
