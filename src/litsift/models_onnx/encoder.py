"""The query-time bi-encoder: ONNX Runtime + tokenizers + numpy, nothing heavier.

Texts are tokenised with the model's ``tokenizer.json`` (truncated to the spec's
``max_length``, padded to the longest text of each batch), run through the ONNX graph, pooled
(mean over the attention mask, or the CLS vector) and L2-normalised, as sentence-transformers
does for the same models. Passages are sorted by token length before batching so a batch
carries little padding; the output keeps the input order.

torch, transformers and optimum are never imported here; a missing ONNX file is built through
:func:`litsift.models_onnx.export.build_onnx`, which imports them lazily.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Encoding, Tokenizer

from litsift import logs
from litsift.errors import ModelError
from litsift.models_onnx.pool import (
    POOL_MIN,
    EmbedPool,
    PoolUnavailable,
    embed_workers,
)
from litsift.models_onnx.registry import ModelSpec

FloatArray = npt.NDArray[np.float32]

# Texts tokenised at once in encode_passages; each window is length-sorted and batched. Bounds
# the memory held in tokenizers' Encoding objects for a million-passage corpus.
SORT_WINDOW = 4096
QUERY_BATCH = 64
#: Passages are embedded one per ONNX run. int8 dynamic quantisation computes activation
#: scales over the whole input tensor, so in a batch a passage's vector depends on the other
#: passages (and their padding); alone, it is a function of its text only -- the same vector
#: in an incremental ingest, a rebuild or any subset (issue 15, item 2). Measured on this
#: 2-core CPU, 400 abstracts: 42.1 passages/s at batch 1 vs 38.1 at batch 32 (no padding to
#: compute), benchmarks/encoder_throughput.py --batch-size. On an Intel Xeon with AMX (issue
#: 32), one thread, length-sorted batches: 47.3 / 43.9 / 30.1 passages/s at 1 / 4 / 16, so a
#: token budget per batch would not pay either (benchmarks/embed_rate.py --levers).
PASSAGE_BATCH = 1
#: Passages embedded between two writes to the passage cache.
CACHE_CHUNK = 64


class EmbeddingCancelled(Exception):
    """An embedding call stopped because its thread's ``cancelled()`` became true
    (:meth:`Encoder.cancellable`): e.g. the app is closing, or a newer search superseded it."""


_local = threading.local()


class VectorCache(Protocol):
    """What :class:`Encoder` needs of a passage-vector cache
    (:class:`litsift.cache.embeddings.EmbeddingCache`)."""

    def get(
        self, encoder_key: str, texts: Sequence[str], dim: int
    ) -> tuple[FloatArray, npt.NDArray[np.bool_]]: ...

    def put(self, encoder_key: str, texts: Sequence[str], vectors: FloatArray) -> None: ...


class Encoder:
    """A loaded bi-encoder. Thread-safe for concurrent ``encode_*`` calls (ORT sessions are).

    Attributes:
        spec: The registry entry.
        model_id: ``spec.model_id``.
        dim: Output size (384 for MiniLM).
        max_length: Tokens kept per text, special tokens included.
        onnx_path: The ONNX file loaded.
        onnx_sha256: Hex sha256 of that file's bytes (index manifests record it).
        passage_cache: where :meth:`encode_passages` looks vectors up before embedding
            (None: no cache); set by the service to the shared embedding cache.
    """

    passage_cache: VectorCache | None = None

    def __init__(
        self,
        spec: ModelSpec,
        onnx_path: Path,
        tokenizer_path: Path | None = None,
        threads: int | None = None,
    ) -> None:
        """Load the ONNX graph and the tokenizer.

        Args:
            spec: The model's registry entry (prefixes, pooling, max length, dim).
            onnx_path: The ``.onnx`` file.
            tokenizer_path: ``tokenizer.json``; default: next to ``onnx_path``.
            threads: ONNX Runtime intra-op threads; default ``os.cpu_count()``.

        Raises:
            ModelError: a file is missing, unreadable or not a valid model/tokenizer, or the
                graph's output size differs from ``spec.dim``.
        """
        self.spec = spec
        self.model_id = spec.model_id
        self.dim = spec.dim
        self.max_length = spec.max_length
        self.onnx_path = onnx_path
        tokenizer_path = tokenizer_path or onnx_path.parent / "tokenizer.json"
        self.tokenizer_path = tokenizer_path
        #: worker processes that embed large batches while :meth:`worker_pool` is open
        self._pool: EmbedPool | None = None
        self._pool_note: str | None = None
        hint = f"rebuild it: litsift models build --model {spec.model_id} --force"
        try:
            data = onnx_path.read_bytes()
        except OSError as err:
            raise ModelError(f"cannot read {onnx_path}: {err.strerror}", hint=hint) from err
        self.onnx_sha256 = hashlib.sha256(data).hexdigest()
        #: the last single query and its vector (a vector depends on its text alone)
        self._last_query: tuple[str, FloatArray] | None = None
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Idle ORT workers must not busy-wait after a run: a search's next stages (hnswlib,
        # LightGBM's OpenMP threads) need those cores (dataset search p50 16 -> 11 ms on 2 cores).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = ort.InferenceSession(
                data, sess_options=options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
            self._counter = Tokenizer.from_file(str(tokenizer_path))
        except Exception as err:  # ORT raises its own (non-exported) exception types
            raise ModelError(
                f"cannot load the encoder {spec.model_id} from {onnx_path.parent}: "
                f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}",
                hint=hint,
            ) from err
        self._input_names = {i.name for i in self._session.get_inputs()}
        output = self._session.get_outputs()[0]
        self._output_name = output.name
        if isinstance(output.shape[-1], int) and output.shape[-1] != spec.dim:
            raise ModelError(
                f"{onnx_path} gives {output.shape[-1]}-d vectors, {spec.model_id} should "
                f"give {spec.dim}",
                hint=hint,
            )
        # tokenizer.json of all-MiniLM-L6-v2 fixes truncation and padding at 128 tokens: keep
        # max_length tokens and pad ourselves, per batch, to the batch's longest text.
        padding = self._tokenizer.padding or {}
        self._pad_id = int(padding.get("pad_id", 0))
        self._pad_type_id = int(padding.get("pad_type_id", 0))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(spec.max_length)
        self._counter.no_padding()
        self._counter.no_truncation()

    def __repr__(self) -> str:
        return f"Encoder({self.model_id!r}, {self.onnx_path.name}, sha256={self.onnx_sha256[:12]})"

    def encode_queries(self, texts: Sequence[str]) -> FloatArray:
        """Embed queries (``spec.query_prefix`` is put before each).

        Args:
            texts: Query texts.

        Returns:
            ``(len(texts), dim)`` float32; rows L2-normalised when ``spec.normalize``.
        """
        prefix = self.spec.query_prefix
        if len(texts) == 1:  # one search asks twice (papers, then passages): one ONNX run
            last = self._last_query
            if last is not None and last[0] == texts[0]:
                return last[1].copy()
            out = self._encode([prefix + texts[0]], QUERY_BATCH, None)
            self._last_query = (texts[0], out.copy())  # one tuple store: safe across threads
            return out
        return self._encode([prefix + t for t in texts], QUERY_BATCH, None)

    @property
    def cache_key(self) -> str:
        """What a cached passage vector of this encoder is keyed by besides its text: the ONNX
        file's sha256, the maximum length, the passage prefix and the one-passage-per-run rule."""
        return f"{self.onnx_sha256}|{self.max_length}|{self.spec.passage_prefix}|b{PASSAGE_BATCH}"

    def encode_passages(
        self,
        texts: Sequence[str],
        batch_size: int = PASSAGE_BATCH,
        progress: Callable[[int, int], None] | None = None,
    ) -> FloatArray:
        """Embed passages (``spec.passage_prefix`` is put before each).

        With the default ``batch_size`` (:data:`PASSAGE_BATCH`) a vector is a function of its
        text alone, and :attr:`passage_cache` (when set) is asked first: only the texts it
        lacks are embedded, and their vectors are added to it.

        Args:
            texts: Passage texts (e.g. title + abstract).
            batch_size: Passages per ONNX run (length-sorted batches; > 1 only for research
                code: vectors then depend on the batch, and the cache is not used).
            progress: Called as ``progress(done, total)`` as passages are done (cached ones
                count at once).

        Returns:
            ``(len(texts), dim)`` float32 in input order; rows L2-normalised when
            ``spec.normalize``.
        """
        prefix = self.spec.passage_prefix
        full = [prefix + t for t in texts]
        cache = self.passage_cache if batch_size == PASSAGE_BATCH else None
        if cache is None or not full:
            return self._encode(full, batch_size, progress)
        out, found = cache.get(self.cache_key, full, self.dim)
        missing = np.flatnonzero(~found)
        hits = len(full) - len(missing)
        if progress is not None and hits:
            progress(hits, len(full))
        done = hits
        pool = self._pool
        if pool is not None and len(missing) >= POOL_MIN:
            # worker processes: each chunk is cached as it arrives, so an interrupted build
            # keeps all but the chunks in flight and the next one embeds only the rest
            todo_all = [full[i] for i in missing]
            kept = 0

            def on_part(offset: int, vectors: FloatArray) -> None:
                nonlocal done, kept
                out[missing[offset : offset + len(vectors)]] = vectors
                cache.put(self.cache_key, todo_all[offset : offset + len(vectors)], vectors)
                kept = offset + len(vectors)
                done += len(vectors)
                if progress is not None:
                    progress(done, len(full))

            def tick() -> None:
                if progress is not None:
                    progress(done, len(full))

            pooled = pool.encode(todo_all, None, on_part, tick)
            missing = missing[kept:] if pooled is None else missing[:0]

        def each(_d: int, _t: int) -> None:  # what the caller raises stops the build now
            if progress is not None:
                progress(done, len(full))  # the count moves once a chunk is cached

        for start in range(0, len(missing), CACHE_CHUNK):
            idx = missing[start : start + CACHE_CHUNK]
            todo = [full[i] for i in idx]
            fresh = self._encode(todo, batch_size, each, pooled=False)
            out[idx] = fresh
            cache.put(self.cache_key, todo, fresh)
            done += len(idx)
            if progress is not None:
                progress(done, len(full))
        return out

    @property
    def session(self) -> ort.InferenceSession:
        """The ONNX Runtime session (for research code, e.g. token vectors before pooling).

        Inputs ``input_ids``, ``attention_mask`` and (if the graph has it) ``token_type_ids``,
        each ``(b, seq)`` int64; its first output is the ``(b, seq, dim)`` float32 last hidden
        states, before pooling and normalisation.
        """
        return self._session

    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer as the encoder uses it: truncates to :attr:`max_length` tokens
        (special tokens included), no padding. Shared with the encoder: do not reconfigure."""
        return self._tokenizer

    def token_count(self, text: str) -> int:
        """Tokens in ``text`` as the tokenizer splits it, special tokens included, untruncated.

        Compare with :attr:`max_length` to see whether a text is cut.
        """
        return len(self._counter.encode(text).ids)

    @contextlib.contextmanager
    def worker_pool(self, workers: int | None = None) -> Iterator[None]:
        """While open, :meth:`encode_passages` spreads batches of >= ``POOL_MIN`` passages over
        worker processes (:mod:`litsift.models_onnx.pool`): same vectors, about 1.5x faster on
        2 cores and 4.9x on 16. Index builds open it; workers start only when needed.

        Args:
            workers: Process count; default :func:`~litsift.models_onnx.pool.embed_workers`
                (``$LITSIFT_EMBED_WORKERS`` or the core count). Below 2 nothing changes.
        """
        count = workers if workers is not None else embed_workers()
        if count < 2 or self._pool is not None:
            yield
            return
        self._pool_note = None
        try:
            pool = EmbedPool(self, count)
        except PoolUnavailable as err:  # embed in-process: slower, never not at all
            logs.get("encoder").warning("embedding worker processes unavailable: %s", err)
            self._pool_note = f"one process: worker processes could not start ({err})"
            yield
            return
        self._pool = pool
        try:
            yield
        finally:
            self._pool = None
            if pool.broken is not None:
                self._pool_note = f"one process: the worker processes stopped ({pool.broken})"
            pool.close()

    @property
    def pool_note(self) -> str | None:
        """Why index builds embed in this process although workers were asked for (the pool
        could not start, or its workers died, during this build or the last), for the status
        line; None while they work."""
        pool = self._pool
        if pool is not None and pool.broken is not None:
            return f"one process: the worker processes stopped ({pool.broken})"
        return self._pool_note

    @contextlib.contextmanager
    def cancellable(self, cancelled: Callable[[], bool]) -> Iterator[None]:
        """While open, this thread's embedding calls check ``cancelled()`` before each ONNX
        run and raise :class:`EmbeddingCancelled` once it is true (other threads, e.g.
        searches, are not affected), so work a closing app no longer needs stops within one
        text instead of finishing its batch.

        Raises (inside the block): EmbeddingCancelled.
        """
        outer = getattr(_local, "cancelled", None)
        _local.cancelled = cancelled
        try:
            yield
        finally:
            _local.cancelled = outer

    def embed_prefixed(self, texts: list[str]) -> FloatArray:
        """``(len(texts), dim)`` vectors of texts that already carry their prefix, in-process at
        the passage batch size (what a pool worker runs)."""
        return self._encode(texts, PASSAGE_BATCH, None, pooled=False)

    def _encode(
        self,
        texts: list[str],
        batch_size: int,
        progress: Callable[[int, int], None] | None,
        pooled: bool = True,
    ) -> FloatArray:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        pool = self._pool
        if pooled and pool is not None and batch_size == PASSAGE_BATCH and len(texts) >= POOL_MIN:
            vectors = pool.encode(texts, progress)
            if vectors is not None:
                return vectors
        total = len(texts)
        out = np.empty((total, self.dim), dtype=np.float32)
        done = 0
        for start in range(0, total, SORT_WINDOW):
            window = texts[start : start + SORT_WINDOW]
            encodings = (
                [self._tokenizer.encode(window[0])]
                if len(window) == 1
                else self._tokenizer.encode_batch(window)
            )
            lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64)
            order = np.argsort(-lengths, kind="stable")
            for b in range(0, len(order), batch_size):
                cancelled = getattr(_local, "cancelled", None)
                if cancelled is not None and cancelled():
                    raise EmbeddingCancelled("embedding stopped: no longer needed")
                idx = order[b : b + batch_size]
                out[start + idx] = self._run([encodings[i] for i in idx])
                done += len(idx)
                if progress is not None:
                    progress(done, total)
        return out

    def _hidden(self, encodings: list[Encoding]) -> tuple[FloatArray, npt.NDArray[np.int64]]:
        """Pad a batch and infer: ``(b, seq, dim)`` hidden states and the ``(b, seq)`` mask."""
        n = len(encodings)
        seq = max(len(e.ids) for e in encodings)
        input_ids = np.full((n, seq), self._pad_id, dtype=np.int64)
        type_ids = np.full((n, seq), self._pad_type_id, dtype=np.int64)
        mask = np.zeros((n, seq), dtype=np.int64)
        for row, e in enumerate(encodings):
            k = len(e.ids)
            input_ids[row, :k] = e.ids
            type_ids[row, :k] = e.type_ids
            mask[row, :k] = e.attention_mask
        feed = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": type_ids}
        feed = {k: v for k, v in feed.items() if k in self._input_names}
        hidden = np.asarray(self._session.run([self._output_name], feed)[0], dtype=np.float32)
        return hidden, mask

    def _run(self, encodings: list[Encoding]) -> FloatArray:
        """One ONNX run over a batch: pad, infer ``(b, seq, dim)``, pool, normalise."""
        hidden, mask = self._hidden(encodings)
        if self.spec.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            # Mean pooling over real tokens (sentence-transformers' Pooling, mean mode).
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        if self.spec.normalize:
            # As torch.nn.functional.normalize: x / max(||x||_2, 1e-12).
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.maximum(norms, 1e-12)
        return pooled.astype(np.float32, copy=False)
