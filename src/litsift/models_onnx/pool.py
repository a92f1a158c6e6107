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
something to embed. Inside a running Textual app ``sys.stderr`` is a capture object whose
``fileno()`` is -1, and multiprocessing's resource tracker (started by the pool's queues) passes
that to the child: ``ValueError: bad value(s) in fds_to_keep`` (issue 45). The tracker is
therefore started here with the log file as its standard error, and the workers write theirs to
the log file too, never over the app's screen. A pool that cannot start raises
:class:`PoolUnavailable`; the encoder then embeds in-process and says so.

A chunk's texts and vectors travel through files in a directory of the pool's; the pipes carry
only their paths. Every message is then a few hundred bytes, which a pipe writes atomically
(up to ``PIPE_BUF``, 4 KiB on Linux). Sent through the pipes, a chunk's 98 KB of vectors took
several writes, and a worker terminated between two of them (Ctrl+C aborts the pool) left half a
message that the executor's manager thread then waited on for ever, and the process hung at
exit (``benchmarks/pool_interrupt.py`` counts hangs and tracebacks over interrupted pools).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from litsift import logs
from litsift.models_onnx.registry import ModelSpec

FloatArray = npt.NDArray[np.float32]


class WorkerEncoder(Protocol):
    """What a worker holds: an encoder of ``spec`` loaded from its ONNX file and tokenizer
    (:class:`litsift.models_onnx.encoder.Encoder`; its class is passed to the workers, so this
    module does not import it)."""

    spec: ModelSpec
    onnx_path: Path
    tokenizer_path: Path

    def embed_prefixed(self, texts: list[str]) -> FloatArray:
        """``(len(texts), dim)`` vectors of already-prefixed passages."""
        ...


#: Texts per task sent to a worker: small enough to balance the load and report progress.
POOL_CHUNK = 64
#: Fewer texts than this are embedded in-process (a worker's start costs about a second).
POOL_MIN = 256
#: Seconds between two ``tick`` calls while a chunk is awaited (how soon a stop is heard).
TICK_S = 0.05
#: Seconds between a worker's checks that the process that started it still lives.
PARENT_POLL_S = 0.5
#: The environment variable that sets the worker count (``1`` turns the pool off).
WORKERS_ENV = "LITSIFT_EMBED_WORKERS"

_worker: WorkerEncoder | None = None


def embed_workers() -> int:
    """Worker processes for an index build's embedding: ``$LITSIFT_EMBED_WORKERS`` when it is a
    positive integer, else the number of cores (``os.cpu_count()``)."""
    raw = os.environ.get(WORKERS_ENV, "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return os.cpu_count() or 1


class PoolUnavailable(RuntimeError):
    """The worker processes could not be started (the message says why)."""


@contextlib.contextmanager
def _real_stderr(log: str | None) -> Iterator[None]:
    """While open, ``sys.stderr`` has a real file descriptor: the log file (or ``/dev/null``)
    when the current one has none (a Textual app's capture object answers ``fileno()`` with
    -1), else unchanged."""
    try:
        usable = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if usable:
        yield
        return
    saved = sys.stderr
    with open(log or os.devnull, "a", encoding="utf-8") as sink:
        sys.stderr = sink
        try:
            yield
        finally:
            sys.stderr = saved


def _start_tracker(log: str | None) -> None:
    """Start multiprocessing's resource tracker (once a process) with a usable standard error
    (the log file inside a TUI), before the pool's queues would start it with ``fileno() == -1``."""
    from multiprocessing import resource_tracker

    with _real_stderr(log):
        resource_tracker.ensure_running()


def _init(
    encoder_class: Callable[..., WorkerEncoder],
    spec: ModelSpec,
    onnx_path: str,
    tokenizer_path: str,
    log: str | None,
    parent: int,
    directory: str,
) -> None:
    global _worker
    names = _queue_semaphores()
    watch = threading.Thread(target=_exit_with, args=(parent, directory, names), daemon=True)
    watch.start()
    # Ctrl-C in a terminal reaches the whole process group: the caller decides to stop (and
    # terminates the workers); a worker dying of KeyboardInterrupt mid-chunk would break the pool
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if log is not None:  # a worker never writes over the caller's screen
        with contextlib.suppress(OSError):
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)
    _worker = encoder_class(spec, Path(onnx_path), Path(tokenizer_path), threads=1)


def _exit_with(parent: int, directory: str, semaphores: list[str]) -> None:
    """End this worker once ``parent`` (the process that started the pool) is gone, removing
    the pool's ``directory`` of chunk files and the queues' ``semaphores`` (names) that the
    parent could not.

    A parent killed outright (``kill -9``, the OOM killer) cannot terminate its workers, and
    they wait on the call queue for ever: its write end is open in every worker, so no end of
    file ever comes. They then held 170 MB each, the resource tracker, and the caller's stdout
    and stderr (a shell pipe or a CI step waiting for them never ended). A re-parented worker
    sees another ``getppid()``.
    """
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    shutil.rmtree(directory, ignore_errors=True)
    _release(semaphores)
    os._exit(1)


def _queue_semaphores() -> list[str]:
    """The names of the POSIX semaphores of the pool's queues as this worker received them
    (the call queue's and the result queue's locks: five), found among the arguments of its
    ``concurrent.futures`` worker function; [] where a Python lays them out otherwise.

    Under ``spawn`` the parent registers each with multiprocessing's resource tracker and
    unlinks it when it ends. A parent killed outright cannot; the tracker, which the workers
    share and so outlives it, then unlinked them once the last worker had gone, and warned
    "There appear to be 5 leaked semaphore objects to clean up at shutdown" on the caller's
    stderr (:func:`_release` does the parent's part instead)."""
    from multiprocessing import current_process
    from multiprocessing.synchronize import SemLock

    names: list[str] = []
    for arg in getattr(current_process(), "_args", ()):
        for value in getattr(arg, "__dict__", {}).values():
            name = getattr(getattr(value, "_semlock", None), "name", None)
            if isinstance(value, SemLock) and isinstance(name, str):
                names.append(name)
    return names


def _release(names: list[str]) -> None:
    """Unlink the semaphores ``names`` of a dead parent and take them off the resource
    tracker's list, as the parent does when it ends. Each name is unlinked by one worker (the
    others' ``sem_unlink`` fails: it is gone), and only that one tells the tracker, which
    reports a name it is told twice with a traceback."""
    try:
        from _multiprocessing import sem_unlink  # what multiprocessing itself unlinks with
        from multiprocessing import resource_tracker
    except ImportError:  # no named semaphores here: nothing was registered
        return
    for name in names:
        try:
            sem_unlink(name)
        except OSError:  # another worker's, or never made
            continue
        with contextlib.suppress(Exception):
            resource_tracker.unregister(name, "semaphore")


def _embed(texts_path: str, vectors_path: str) -> str:
    """Embed the JSON list of texts at ``texts_path``; the ``.npy`` vectors are at the returned
    ``vectors_path`` (written whole, then renamed into place)."""
    if _worker is None:  # pragma: no cover - the initializer always runs first
        raise RuntimeError("embedding worker used before its encoder was loaded")
    with open(texts_path, encoding="utf-8") as f:
        texts = json.load(f)
    vectors = _worker.embed_prefixed(texts)
    partial = f"{vectors_path}.part"
    with open(partial, "wb") as f:
        np.save(f, np.asarray(vectors, dtype=np.float32))
    os.replace(partial, vectors_path)
    return vectors_path


class EmbedPool:
    """Worker processes, each holding the same encoder with one ONNX thread.

    Args:
        encoder: The in-process encoder whose ONNX file and tokenizer the workers load.
        workers: Process count (>= 2).

    Raises:
        PoolUnavailable: the processes cannot be started here (the cause is chained).
    """

    def __init__(self, encoder: WorkerEncoder, workers: int) -> None:
        self.workers = workers
        log = logs.current()
        log_name = str(log) if log is not None else None
        self._dir: str | None = None
        try:
            self._dir = tempfile.mkdtemp(prefix="litsift-embed-pool-")
            _start_tracker(log_name)
            with _real_stderr(log_name):
                self._executor: ProcessPoolExecutor | None = ProcessPoolExecutor(
                    max_workers=workers,
                    mp_context=get_context("spawn"),
                    initializer=_init,
                    initargs=(
                        type(encoder),
                        encoder.spec,
                        str(encoder.onnx_path),
                        str(encoder.tokenizer_path),
                        log_name,
                        os.getpid(),
                        self._dir,
                    ),
                )
        except (OSError, ValueError, RuntimeError, ImportError) as err:
            self._remove_dir()
            raise PoolUnavailable(f"{type(err).__name__}: {err}") from err

    #: why the pool stopped working, once it did
    broken: str | None = None

    @property
    def usable(self) -> bool:
        """False once a worker died (the caller then embeds in-process)."""
        return self._executor is not None

    def encode(
        self,
        texts: list[str],
        progress: Callable[[int, int], None] | None,
        on_part: Callable[[int, FloatArray], None] | None = None,
        tick: Callable[[], None] | None = None,
    ) -> FloatArray | None:
        """``(len(texts), dim)`` vectors of already-prefixed passages in input order, or None
        when the pool broke (a worker was killed: out of memory, a signal); the caller then
        embeds in-process, so a build never fails for the pool's sake.

        Args:
            texts: Prefixed passages.
            progress: ``progress(done, len(texts))`` after each chunk of :data:`POOL_CHUNK`.
            on_part: ``on_part(offset, vectors)`` as each chunk arrives, in order (the caller
                caches it at once, so an interrupt loses at most the chunks in flight); when
                None is returned, the chunks passed to it are all that was embedded.
            tick: Called every :data:`TICK_S` while a chunk is awaited; what it raises (a
                closing app's cancellation) stops the workers at once and propagates.
        """
        if self._executor is None:
            return None
        chunks = [texts[i : i + POOL_CHUNK] for i in range(0, len(texts), POOL_CHUNK)]
        parts: list[FloatArray] = []
        done = 0
        try:
            futures = [self._executor.submit(_embed, *self._write(chunk)) for chunk in chunks]
            for future in futures:
                while True:  # the caller hears from us every TICK_S: it may stop the build
                    try:
                        part = self._read(future.result(timeout=TICK_S))
                        break
                    except FuturesTimeout:
                        if tick is not None:
                            tick()
                if on_part is not None:
                    on_part(done, part)
                parts.append(part)
                done += len(part)
                if progress is not None:
                    progress(done, len(texts))
        except (BrokenProcessPool, OSError, ValueError) as err:
            # a worker was killed, or could not be spawned (fds, limits): in-process instead
            logs.get("pool").warning("embedding workers stopped: %r; embedding in-process", err)
            self.broken = f"{type(err).__name__}: {err}"
            self.close()
            return None
        except BaseException:  # Ctrl-C, a closing app: stop now, not after the queued chunks
            self.close(abort=True)
            raise
        return np.vstack(parts)

    def _write(self, chunk: list[str]) -> tuple[str, str]:
        """Write ``chunk`` for a worker; returns ``(texts path, vectors path)``.

        Raises:
            OSError: the pool's directory cannot be written (the caller embeds in-process).
        """
        if self._dir is None:
            raise OSError("the embedding pool's directory is gone")
        base = os.path.join(self._dir, uuid.uuid4().hex)
        with open(f"{base}.json", "w", encoding="utf-8") as f:
            json.dump(chunk, f, ensure_ascii=False)
        return f"{base}.json", f"{base}.npy"

    @staticmethod
    def _read(vectors_path: str) -> FloatArray:
        """The vectors a worker wrote; both files of the chunk are removed."""
        vectors = np.load(vectors_path)
        for path in (vectors_path, vectors_path[: -len(".npy")] + ".json"):
            with contextlib.suppress(OSError):
                os.unlink(path)
        return np.asarray(vectors, dtype=np.float32)

    def _remove_dir(self) -> None:
        directory, self._dir = self._dir, None
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)

    def close(self, abort: bool = False) -> None:
        """Stop the workers: pending chunks are cancelled; with ``abort`` the running ones too
        (the processes are terminated instead of awaited), so an interrupt returns at once."""
        executor, self._executor = self._executor, None
        if executor is None:
            self._remove_dir()
            return
        try:
            self._stop(executor, abort)
        finally:
            self._remove_dir()

    @staticmethod
    def _stop(executor: ProcessPoolExecutor, abort: bool) -> None:
        if not abort:
            executor.shutdown(wait=True, cancel_futures=True)
            return
        terminate = getattr(executor, "terminate_workers", None)  # Python >= 3.14
        if callable(terminate):
            terminate()
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        manager = getattr(executor, "_executor_manager_thread", None)
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(timeout=1.0)
        # The executor's manager thread sees the workers gone and closes its wake-up pipe. Were
        # the interpreter to exit meanwhile (Ctrl+C in `litsift index`), CPython 3.11's exit
        # hook (concurrent.futures.process._python_exit) would write to that pipe as it closes:
        # "OSError: [Errno 9] Bad file descriptor" with a traceback on the user's terminal.
        # Waiting for the thread (a fraction of a second once the workers are gone) closes the race.
        if manager is not None:
            with contextlib.suppress(Exception):
                manager.join(timeout=1.0)
