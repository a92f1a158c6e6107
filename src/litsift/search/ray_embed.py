"""Embedding with Ray Data: the passage encoder in Ray actors, vectors into the embedding cache.

:func:`embed_with_ray` finds the rows of a kind whose passage vectors are not in the encoder's
embedding cache (:mod:`litsift.cache.embeddings`), embeds them with ``map_batches`` over a pool
of Ray actors (each loads the same ONNX file with one ONNX Runtime thread) and puts the vectors
in the cache. The index build or the Milvus push that follows reads them from there, so the
index is the same whether Ray or the local encoder embedded it: a passage's vector depends on
its text alone (one passage per ONNX run, :data:`litsift.models_onnx.encoder.PASSAGE_BATCH`),
never on the batch or the actor that ran it.

``address="local"`` starts Ray on this machine with one actor per core; any other address is
given to ``ray.init`` (``"auto"`` or ``"ray://head:10001"`` for a cluster, whose workers need
litsift and the ONNX file at the same path, e.g. a shared models dir).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from litsift.errors import ConfigError
from litsift.search.layout import BATCH_SIZE
from litsift.search.text import passage_text
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.models_onnx.registry import ModelSpec
    from litsift.search.layout import Progress
    from litsift.store import Store

__all__ = ["RayEmbedReport", "embed_with_ray", "ray_encode"]

#: Passages per ``map_batches`` batch (one ONNX run each inside the actor).
RAY_BATCH = 64


@dataclass(frozen=True)
class RayEmbedReport:
    """What :func:`embed_with_ray` did: passages of the kind, those embedded by Ray now (the
    others were cached), actors, seconds of the Ray job (actor start-up and model load
    included), seconds to start or join Ray, and the job's throughput (passages/s)."""

    kind: Kind
    passages: int
    embedded: int
    actors: int
    seconds: float
    start_seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        if not self.embedded:
            return f"all {self.passages:,} passage vectors already cached (Ray not needed)"
        return (
            f"{self.embedded:,} of {self.passages:,} passages embedded by Ray Data "
            f"({self.actors} actors, {self.seconds:.1f} s after Ray's start in "
            f"{self.start_seconds:.1f} s: {self.per_second:.1f} passages/s)"
        )


class _EncodeBatch:
    """A Ray actor's callable: the encoder loaded once, a batch of texts in, vectors out."""

    def __init__(self, spec: ModelSpec, onnx_path: str, threads: int) -> None:
        from litsift.models_onnx.encoder import Encoder

        self.encoder = Encoder(spec, Path(onnx_path), threads=threads)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        texts = [str(t) for t in batch["text"]]
        vectors = self.encoder.encode_passages(texts)
        return {"i": batch["i"], "vector": list(vectors)}


def _init_ray(address: str, actors: int | None) -> int:
    """Start (or join) Ray; the number of actors to run."""
    try:
        import ray
    except ImportError as err:
        raise ConfigError(
            "--ray needs Ray, which is not installed",
            'install the extra: pip install "litsift[scale]"',
        ) from err
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if address == "local":
            kwargs["num_cpus"] = actors or os.cpu_count() or 1
        else:
            kwargs["address"] = address
        try:
            ray.init(**kwargs)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise ConfigError(
                f"cannot start or reach Ray at {address!r}: {str(err).splitlines()[0][:200]}",
                "use --ray local, or the address of a running Ray head (ray start --head)",
            ) from err
    cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
    return max(1, min(actors or cpus, cpus))


def ray_encode(
    encoder: Encoder,
    texts: Sequence[str],
    address: str = "local",
    actors: int | None = None,
    batch_size: int = RAY_BATCH,
) -> tuple[npt.NDArray[np.float32], int]:
    """Embed passage ``texts`` with Ray Data (``map_batches`` over actors running
    ``encoder``'s ONNX file, one thread each).

    Args:
        encoder: the encoder whose model runs in the actors (its cache is not used here).
        texts: passage texts, without the model's passage prefix (as for
            :meth:`Encoder.encode_passages`).
        address: "local" or a Ray address.
        actors: actors to run; default one per CPU of the Ray cluster.
        batch_size: passages per Ray batch.

    Returns:
        ``((len(texts), dim) float32 in input order, actors used)``: the very vectors
        ``encoder.encode_passages(texts)`` gives.

    Raises:
        ConfigError: Ray is not installed or cannot be started / reached.
    """
    n = len(texts)
    if n == 0:
        return np.zeros((0, encoder.dim), dtype=np.float32), 0
    import ray.data

    pool = _init_ray(address, actors)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    # at least one block per actor, so every actor gets work
    batch_size = max(1, min(batch_size, -(-n // pool)))
    blocks = max(1, -(-n // batch_size))
    items = [{"i": i, "text": t} for i, t in enumerate(texts)]
    ds = ray.data.from_items(items, override_num_blocks=blocks)
    out = ds.map_batches(
        _EncodeBatch,
        fn_constructor_kwargs={
            "spec": encoder.spec,
            "onnx_path": str(encoder.onnx_path),
            "threads": 1,
        },
        batch_size=batch_size,
        compute=ray.data.ActorPoolStrategy(size=pool),
        num_cpus=1,
        max_restarts=0,
    )
    vectors = np.zeros((n, encoder.dim), dtype=np.float32)
    for row in out.iter_rows():  # rows may come in any order: each carries its index
        vectors[int(row["i"])] = np.asarray(row["vector"], dtype=np.float32)
    return vectors, pool


def embed_with_ray(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    address: str = "local",
    actors: int | None = None,
    progress: Progress | None = None,
    batch_size: int = RAY_BATCH,
) -> RayEmbedReport:
    """Embed with Ray the passages of ``kind`` missing from ``encoder``'s embedding cache and
    put them there (see the module docstring).

    Raises:
        ConfigError: the encoder has no embedding cache, or Ray cannot be started / reached.
    """
    cache = encoder.passage_cache
    if cache is None:
        raise ConfigError("--ray writes to the embedding cache, and this home has none")
    texts: list[str] = []
    for batch in store.rows_since(kind, 0, batch_size=BATCH_SIZE):
        texts.extend(passage_text(r) for r in batch)
    prefix = encoder.spec.passage_prefix
    _, found = cache.get(encoder.cache_key, [prefix + t for t in texts], encoder.dim)
    todo = list(dict.fromkeys(texts[i] for i in np.flatnonzero(~found)))
    if progress is not None:
        progress("ray", 0, len(todo))
    start = time.perf_counter()
    if todo:
        _init_ray(address, actors)
    started = time.perf_counter() - start
    start = time.perf_counter()
    vectors, pool = ray_encode(encoder, todo, address, actors, batch_size)
    seconds = time.perf_counter() - start
    if todo:
        cache.put(encoder.cache_key, [prefix + t for t in todo], vectors)
    if progress is not None:
        progress("ray", len(todo), len(todo))
    return RayEmbedReport(kind, len(texts), len(todo), pool, seconds, started)
