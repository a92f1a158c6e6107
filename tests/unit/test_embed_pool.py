"""Embedding over worker processes (litsift.models_onnx.pool): the same vectors as in-process,
with and without the passage cache, and an in-process fallback when a worker dies."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from litsift.cache.embeddings import EmbeddingCache
from litsift.models_onnx.encoder import Encoder
from litsift.models_onnx.pool import POOL_MIN, EmbedPool, embed_workers

from ..conftest import PAPERS_GZ, read_jsonl_gz


@pytest.fixture(scope="module")
def titles() -> list[str]:
    """POOL_MIN + 4 real titles (short: the test stays cheap), in file order."""
    rows = read_jsonl_gz(PAPERS_GZ)
    return [r["title"] for r in rows[: POOL_MIN + 4]]


def fresh(encoder: Encoder) -> Encoder:
    """A second encoder on the same files, without the session's vector cache."""
    return Encoder(encoder.spec, encoder.onnx_path, encoder.tokenizer_path)


def test_pool_gives_the_in_process_vectors_and_fills_the_cache(
    encoder: Encoder, titles: list[str], tmp_path: Path
) -> None:
    enc = fresh(encoder)
    alone = enc.encode_passages(titles)
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    seen: list[int] = []
    with enc.worker_pool(2):
        assert enc._pool is not None and enc._pool.usable
        pooled = enc.encode_passages(titles, progress=lambda d, _t: seen.append(d))
        enc.passage_cache = cache  # the build's path: cache asked first, fresh vectors put
        cached_run = enc.encode_passages(titles[::-1])
    assert enc._pool is None
    assert np.array_equal(alone, pooled)
    assert seen[-1] == len(titles) and seen == sorted(seen)
    assert np.array_equal(cached_run, alone[::-1])
    stored, found = cache.get(enc.cache_key, [enc.spec.passage_prefix + t for t in titles], enc.dim)
    assert found.all() and np.array_equal(stored, alone)


def test_a_killed_worker_falls_back_in_process(encoder: Encoder, titles: list[str]) -> None:
    enc = fresh(encoder)
    expected = enc.encode_passages(titles)
    with enc.worker_pool(2):
        pool = enc._pool
        assert isinstance(pool, EmbedPool)
        enc.encode_passages(titles)  # the workers are up
        assert pool._executor is not None
        for pid in list(pool._executor._processes):
            os.kill(pid, signal.SIGKILL)
        again = enc.encode_passages(titles)
        assert not pool.usable  # broken: closed, and the batch was embedded in-process
    assert np.array_equal(again, expected)


def test_chunks_cross_the_pipes_as_paths_and_an_abort_leaves_nothing(
    encoder: Encoder, titles: list[str]
) -> None:
    """Texts and vectors go through the pool's directory, so every pipe message is small
    enough for one atomic write (a worker terminated mid-write of 98 KB of vectors left half a
    message, and the process hung at exit); the directory goes with the pool, aborted or not."""
    import pickle
    from concurrent.futures import Future

    from litsift.models_onnx import pool as pool_module

    enc = fresh(encoder)
    expected = enc.encode_passages(titles)
    sent: list[bytes] = []
    with enc.worker_pool(2):
        pool = enc._pool
        assert isinstance(pool, EmbedPool) and pool._executor is not None
        directory = Path(str(pool._dir))
        real_submit = pool._executor.submit

        def submit(fn, *args):  # type: ignore[no-untyped-def]
            sent.append(pickle.dumps((fn, args)))
            future: Future = real_submit(fn, *args)
            future.add_done_callback(lambda f: sent.append(pickle.dumps(f.result())))
            return future

        pool._executor.submit = submit  # type: ignore[method-assign]
        assert np.array_equal(enc.encode_passages(titles), expected)
        assert directory.is_dir() and not any(directory.iterdir())  # each chunk's files removed
    assert not directory.exists()
    assert len(sent) == 2 * -(-len(titles) // pool_module.POOL_CHUNK)
    assert max(len(m) for m in sent) < 4096  # PIPE_BUF on Linux: written whole or not at all

    class Stop(Exception):
        pass

    with enc.worker_pool(2):
        pool = enc._pool
        assert isinstance(pool, EmbedPool)
        directory = Path(str(pool._dir))
        with pytest.raises(Stop):
            pool.encode([enc.spec.passage_prefix + t for t in titles], None, tick=_raise(Stop))
        assert not pool.usable and not directory.exists()


def _raise(exc: type[Exception]):  # type: ignore[no-untyped-def]
    def tick() -> None:
        raise exc

    return tick


def test_worker_count_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITSIFT_EMBED_WORKERS", "3")
    assert embed_workers() == 3
    monkeypatch.setenv("LITSIFT_EMBED_WORKERS", "zero")
    assert embed_workers() == (os.cpu_count() or 1)
    monkeypatch.setenv("LITSIFT_EMBED_WORKERS", "1")
    enc_pool_off = embed_workers()
    assert enc_pool_off == 1


# A fresh interpreter (the resource tracker starts once a process) embeds POOL_MIN + 4 real
# titles through the pool under the conditions of the script's argument, and prints what it saw.
_CHILD = r"""
import json, sys
from pathlib import Path
import numpy as np
from litsift.models_onnx.encoder import Encoder
from litsift.models_onnx.registry import get_spec

onnx, tokenizer, titles_file, mode = sys.argv[1:5]
titles = json.loads(Path(titles_file).read_text())
enc = Encoder(get_spec("all-MiniLM-L6-v2"), Path(onnx), Path(tokenizer))
alone = enc.encode_passages(titles)

class Captured:  # what a running Textual app puts in sys.stderr: fileno() is -1
    def write(self, text): return len(text)
    def flush(self): pass
    def fileno(self): return -1

if mode == "textual":
    sys.stderr = Captured()
elif mode == "no-spawn":  # new processes cannot be started at all
    import multiprocessing
    multiprocessing.set_executable("/nonexistent/python")
with enc.worker_pool(2):
    started = enc._pool is not None
    pooled = enc.encode_passages(titles)
print(json.dumps({"started": started, "same": bool(np.array_equal(alone, pooled)),
                  "note": enc.pool_note}))
"""


@pytest.mark.parametrize("mode", ["textual", "no-spawn"])
def test_the_pool_starts_inside_a_textual_app_and_falls_back_when_it_cannot(
    encoder: Encoder, titles: list[str], tmp_path: Path, mode: str
) -> None:
    """Inside a Textual app sys.stderr.fileno() is -1, which multiprocessing's resource tracker
    passed on to the child ("bad value(s) in fds_to_keep": the TUI never turned hybrid). The pool
    starts there now; where no process can be spawned, the build embeds in-process and says so."""
    import json
    import subprocess
    import sys

    titles_file = tmp_path / "titles.json"
    titles_file.write_text(json.dumps(titles))
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            str(encoder.onnx_path),
            str(encoder.tokenizer_path),
            str(titles_file),
            mode,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["same"]  # the same vectors either way
    if mode == "textual":
        assert seen["started"] and seen["note"] is None
    else:
        assert seen["note"] is not None and seen["note"].startswith("one process")
