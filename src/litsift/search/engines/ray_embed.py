"""Embedding with Ray Data: a streaming job from the store to the embedding cache.

:func:`embed_with_ray` embeds the rows of a kind whose passage vectors are not in the encoder's
embedding cache (:mod:`litsift.cache.embeddings`) and puts them there, block by block. The
index build or the Milvus push that follows reads them from there, so the index is the same
whether Ray or the local encoder embedded it: a passage's vector depends on its text alone (one
passage per ONNX run, :data:`litsift.models_onnx.encoder.PASSAGE_BATCH`), never on the block or
the actor that ran it.

The job streams; the driver never holds the corpus's texts or vectors:

1. **Plan** (driver): the store is read in pages of :data:`~litsift.search.build.layout.BATCH_SIZE`
   rows; each page's passage texts are looked up in the cache (keys only) and dropped. What
   stays is the rowids of the misses, cut into blocks of ``block_rows``: 8 bytes per row to
   embed. The cache is the checkpoint: a job killed half-way is planned again from it, and
   only the rows not yet cached are embedded.
2. **Embed** (Ray actors): ``ray.data.from_items`` of the block descriptors (one Ray block
   each), ``map_batches`` over an :class:`ray.data.ActorPoolStrategy` pool sized to the
   cluster's CPUs. Each actor loads the ONNX file once (one ONNX Runtime thread), opens the
   store read-only, reads its block's rows by rowid, embeds their passages and returns
   ``(cache key, vector)`` rows: texts never travel back.
3. **Write** (driver): ``iter_batches`` yields the blocks as they land (Ray Data's streaming
   executor back-pressures the actors: the job's object store budget is a few output blocks
   per actor, :data:`QUEUED_PER_ACTOR`; one block is prefetched); each goes into the cache in
   one commit before the next is taken, and progress is reported. A kill loses at most the
   blocks in flight.

``address="local"`` starts Ray on this machine (one actor per core, or ``actors``) and stops it
at the end; any other address is given to ``ray.init`` (``"auto"``, ``"HOST:6379"`` or
``"ray://HOST:10001"`` for a cluster started with ``ray start --head``: its workers need
litsift, the ONNX file and the store at the same paths). An actor whose ONNX file differs from
the driver's (another sha256) refuses to run, so a cluster cannot mix vectors of two models.

``actor`` (default :class:`EmbedBlock`) is the class the actors run. Only a benchmark passes
another: ``benchmarks/ray_embed.py --stand-in-encoder`` gives a subclass whose vectors are a
hash of the text instead of the ONNX model's, to measure the driver (whose work does not depend
on what the actors compute) at sizes the real encoder cannot reach on a small machine.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import warnings
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from litsift.errors import ConfigError
from litsift.install import extra_hint
from litsift.search.build.layout import BATCH_SIZE
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.models_onnx.registry import ModelSpec
    from litsift.search.build.layout import Progress
    from litsift.store import Store

__all__ = ["EmbedBlock", "RayEmbedReport", "embed_with_ray", "plan_blocks"]

#: Passages per block: one actor call, one cache commit, one progress step.
RAY_BLOCK = 256
#: A job of fewer blocks than this per actor is cut into smaller ones (of at least MIN_BLOCK).
BLOCKS_PER_ACTOR = 4
MIN_BLOCK = 16
#: Blocks Ray Data may prefetch for the driver's consumer (besides the one being written).
PREFETCH = 1
#: Output blocks Ray Data may hold in the object store per actor, waiting for the driver.
QUEUED_PER_ACTOR = 2


@dataclass(frozen=True)
class RayEmbedReport:
    """What :func:`embed_with_ray` did: passages of the kind, those embedded by Ray now (the
    others were cached), actors, seconds of the Ray job (actor start-up and model load
    included), seconds to start or join Ray, blocks written, and the most blocks the driver
    held at once (received and not yet in the cache)."""

    kind: Kind
    passages: int
    embedded: int
    actors: int
    seconds: float
    start_seconds: float = 0.0
    blocks: int = 0
    max_held_blocks: int = 0

    @property
    def per_second(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        if not self.embedded:
            return f"all {self.passages:,} passage vectors already cached (Ray not needed)"
        return (
            f"{self.embedded:,} of {self.passages:,} passages embedded by Ray Data "
            f"({self.actors} actors, {self.blocks} blocks, {self.seconds:.1f} s after Ray's "
            f"start in {self.start_seconds:.1f} s: {self.per_second:.1f} passages/s)"
        )


class EmbedBlock:
    """A Ray actor's callable: the encoder and a read-only store opened once; a block of
    rowids in, ``(cache key, vector)`` rows out. The keys are those of the driver's encoder
    (``cache_key``, ``spec.passage_prefix``); what gives the vectors is ``self.encoder``, an
    :class:`~litsift.models_onnx.Encoder` here (a subclass may set another object with its
    ``cache_key``, ``spec``, ``dim`` and ``encode_passages``)."""

    def __init__(
        self, spec: ModelSpec, onnx_path: str, store_path: str, kind: str, cache_key: str
    ) -> None:
        from litsift.models_onnx.encoder import Encoder
        from litsift.store import Store

        self.encoder = Encoder(spec, Path(onnx_path), threads=1)
        if self.encoder.cache_key != cache_key:
            raise ConfigError(
                f"the ONNX file {onnx_path} on this Ray worker is not the driver's "
                "(another sha256): its vectors would not match",
                "give every worker the same models dir (LITSIFT_MODELS_DIR)",
            )
        self.store = Store(Path(store_path), readonly=True)
        self.kind = Kind(kind)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        from litsift.cache.embeddings import EmbeddingCache

        rowids = [int(r) for block in batch["rowids"] for r in block]
        records = self.store.get_by_rowids(self.kind, rowids)
        texts = [passage_text(r) for r in records.values()]
        vectors = self.encoder.encode_passages(texts)
        key, prefix = self.encoder.cache_key, self.encoder.spec.passage_prefix
        # keys as a (n, 16) uint8 tensor: a bytes column would pass through Arrow as C strings,
        # cut at their first NUL byte
        raw = b"".join(EmbeddingCache.key(key, prefix + t) for t in texts)
        keys = np.frombuffer(raw, dtype=np.uint8).reshape(len(texts), 16)
        return {"key": keys, "vector": vectors.reshape(len(texts), self.encoder.dim)}


def _token_auth_if_token() -> None:
    """Joining a cluster: send Ray's auth token when there is one. ``ray start --head``
    (Ray 2.60) turns token authentication on and saves the token in ~/.ray/auth_token, but a
    driver joining by address sends it only with ``RAY_AUTH_MODE=token`` (else it retries
    "InvalidAuthToken" for ever). An explicit ``RAY_AUTH_MODE`` is left alone."""
    if "RAY_AUTH_MODE" in os.environ:
        return
    token_file = Path(os.environ.get("RAY_AUTH_TOKEN_PATH", "~/.ray/auth_token")).expanduser()
    if os.environ.get("RAY_AUTH_TOKEN") or token_file.is_file():
        os.environ["RAY_AUTH_MODE"] = "token"


def _check_head(address: str, timeout_s: float = 10.0) -> None:
    """A ``HOST:PORT`` address must answer a TCP connection before Ray is asked to join it:
    ``ray.init`` retried a head that is not there for minutes, printing its own raw log lines
    ("Failed to connect to GCS at ..."). ``auto``, ``local`` and ``ray://`` addresses are
    Ray's to resolve.

    Raises:
        ConfigError: nothing accepts a connection at ``address`` within ``timeout_s`` seconds.
    """
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as err:
        why = err.strerror or ("no answer" if isinstance(err, TimeoutError) else str(err))
        raise ConfigError(
            f"no Ray head answers at {address} ({why})",
            "start one there (ray start --head --port PORT), check the address, or use --ray local",
        ) from None


def _init_ray(address: str, actors: int | None) -> tuple[int, bool]:
    """Start (or join) Ray. Returns (actors to run, whether Ray was started here).

    Raises:
        ConfigError: Ray is not installed, or cannot be started or reached at ``address``.
    """
    if address != "local":
        _check_head(address)
        _token_auth_if_token()  # before Ray is imported: it reads RAY_AUTH_MODE once
    try:
        import ray
    except ImportError as err:
        raise ConfigError(
            "--ray needs Ray, which is not installed",
            extra_hint("scale"),
        ) from err
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        kwargs["address"] = address  # "local": a new Ray, even where a cluster runs
        if address == "local":
            kwargs["num_cpus"] = actors or os.cpu_count() or 1
        try:
            ray.init(**kwargs)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise ConfigError(
                f"cannot start or reach Ray at {address!r}: {str(err).splitlines()[0][:200]}",
                "use --ray local, or the address of a running Ray head (ray start --head)",
            ) from err
        started = True
    cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
    return max(1, min(actors or cpus, cpus)), started


#: DeprecationWarnings Ray Data 2.60 raises from its own ``DataContext()`` defaults, fields
#: litsift never sets (ray-project/ray#65302, fixed after 2.60): silenced there only.
_DATA_CONTEXT_NOISE = "`(use_push_based_shuffle|use_polars|use_arrow_tensor_v2)` is deprecated"


def _data_context() -> Any:
    """Ray Data's current context, created without Ray's spurious deprecation warnings (any
    other warning, and every one raised by the job itself, passes)."""
    import ray.data

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", _DATA_CONTEXT_NOISE, DeprecationWarning)
        return ray.data.DataContext.get_current()


def plan_blocks(
    store: Store, encoder: Encoder, kind: Kind, block_rows: int
) -> tuple[int, list[npt.NDArray[np.int64]]]:
    """Step 1 of the module docstring: (passages of ``kind``, rowids of the rows whose vector
    is not cached, in blocks of at most ``block_rows``). Texts are dropped page by page;
    a text repeated within a page is embedded once."""
    has = getattr(encoder.passage_cache, "has", None)
    if has is None or not hasattr(encoder.passage_cache, "put_keyed"):
        raise ConfigError("--ray writes to the embedding cache, and this home has none")
    prefix = encoder.spec.passage_prefix
    total = 0
    pages: list[npt.NDArray[np.int64]] = []
    for page in store.rows_since(kind, 0, batch_size=BATCH_SIZE):
        total += len(page)
        texts = [prefix + passage_text(r) for r in page]
        first_of: dict[str, int] = {}
        for i, t in enumerate(texts):
            first_of.setdefault(t, i)
        found = has(encoder.cache_key, texts)
        miss = [page[i].rowid for i in sorted(first_of.values()) if not found[i]]
        if miss:
            pages.append(np.asarray(miss, dtype=np.int64))
    rowids = np.concatenate(pages) if pages else np.zeros(0, dtype=np.int64)
    blocks = [rowids[s : s + block_rows] for s in range(0, len(rowids), block_rows)]
    return total, blocks


def _blocks_out(
    blocks: list[npt.NDArray[np.int64]],
    encoder: Encoder,
    store: Store,
    kind: Kind,
    pool: int,
    actor: type[EmbedBlock],
) -> Generator[dict[str, Any], None, None]:
    """Step 2: the Ray Data job, its output blocks as they land (a generator: closing it
    stops the job)."""
    import ray.data

    context = _data_context()
    context.enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    items = [{"rowids": b} for b in blocks]
    ds = ray.data.from_items(items, override_num_blocks=len(items))
    out = ds.map_batches(
        actor,
        fn_constructor_kwargs={
            "spec": encoder.spec,
            "onnx_path": str(encoder.onnx_path),
            "store_path": str(store.path),
            "kind": kind.value,
            "cache_key": encoder.cache_key,
        },
        batch_size=1,  # one block descriptor per call
        compute=ray.data.ActorPoolStrategy(size=pool),
        num_cpus=1,
    )
    # Actors faster than the driver's cache writes would queue their output blocks in the
    # object store up to Ray Data's default budget (a share of the whole store), and the
    # driver, which maps the store, would grow with them. Limit it to a few blocks each.
    block_bytes = max(len(b) for b in blocks) * (encoder.dim * 4 + 16)
    limits = out.context.execution_options.resource_limits
    out.context.execution_options.resource_limits = limits.copy(
        object_store_memory=(QUEUED_PER_ACTOR * pool + PREFETCH + 1) * block_bytes
    )
    yield from out.iter_batches(batch_size=None, batch_format="numpy", prefetch_batches=PREFETCH)


def embed_with_ray(
    store: Store,
    encoder: Encoder,
    kind: Kind,
    address: str = "local",
    actors: int | None = None,
    progress: Progress | None = None,
    block_rows: int = RAY_BLOCK,
    actor: type[EmbedBlock] = EmbedBlock,
) -> RayEmbedReport:
    """Embed with Ray the passages of ``kind`` missing from ``encoder``'s embedding cache and
    put them there, block by block (see the module docstring). ``progress("ray", done,
    total)`` is called once before the job and after each block is in the cache; an exception
    it raises stops the job, the blocks written staying in the cache. ``actor``: the class the
    actors run (the module docstring; only benchmarks pass another).

    Raises:
        ConfigError: the encoder has no embedding cache, or Ray cannot be started / reached.
    """
    total, blocks = plan_blocks(store, encoder, kind, max(1, block_rows))
    todo = sum(len(b) for b in blocks)
    if progress is not None:
        progress("ray", 0, todo)
    if not todo:
        return RayEmbedReport(kind, total, 0, 0, 0.0)
    begin = time.perf_counter()
    pool, started_here = _init_ray(address, actors)
    started = time.perf_counter() - begin
    if len(blocks) < BLOCKS_PER_ACTOR * pool:  # a small job: smaller blocks, so every actor
        # gets work, the last blocks even out across actors and progress moves
        size = max(MIN_BLOCK, -(-todo // (BLOCKS_PER_ACTOR * pool)))
        flat = np.concatenate(blocks)
        blocks = [flat[s : s + size] for s in range(0, todo, size)]
    put_keyed = encoder.passage_cache.put_keyed  # type: ignore[union-attr]
    begin = time.perf_counter()
    done = written = held = max_held = 0
    stream = _blocks_out(blocks, encoder, store, kind, pool, actor)
    try:
        for batch in stream:
            held += 1
            max_held = max(max_held, held)
            keys = [k.tobytes() for k in np.asarray(batch["key"], dtype=np.uint8)]
            put_keyed(keys, np.asarray(batch["vector"], dtype=np.float32))
            done += len(keys)
            written += 1
            del batch, keys
            held -= 1
            if progress is not None:
                progress("ray", done, todo)
    finally:
        stream.close()
        if started_here:
            import ray

            ray.shutdown()
    seconds = time.perf_counter() - begin
    return RayEmbedReport(kind, total, done, pool, seconds, started, written, max_held)
