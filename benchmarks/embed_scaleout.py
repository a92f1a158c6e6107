"""Passages per second of the embedding job spread over worker processes, vs the local encoder.

The scale-out embedding job (issue 33: Ray Data actors; issue 32: 1M papers) runs one encoder per
worker. This script measures what that buys on the machine it runs on, with no Ray involved:
``multiprocessing`` workers, each holding its own :class:`~litsift.models_onnx.encoder.Encoder`
(``threads`` ONNX Runtime threads) and embedding chunks of passages at litsift's batch size of 1,
against the **local encoder** — one process with ``os.cpu_count()`` ONNX threads, which is what
``litsift index`` runs. It also checks that every worker layout gives vectors **identical** to the
local encoder's (batch 1 makes a vector a function of its text alone), so a corpus embedded by
many workers can be searched with queries embedded locally.

Passages are title + abstract of the shared paper sample (``--texts``: a ``.jsonl.gz`` with
``title`` and ``abstract``). The ONNX model is the built default encoder (``--model-dir``: a folder
with ``model_int8.onnx`` and ``tokenizer.json``; default: litsift's model cache).

Usage::

    python benchmarks/embed_scaleout.py [--n 2000] [--workers 1,2] [--threads 1] [--runs 1]
        [--model-dir DIR] [--texts FILE] [--json]

Prints, per layout: passages/s (median over ``--runs``), the ratio to the local encoder measured
in the same run, the projected hours for 1M passages, and whether the vectors are identical.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing as mp
import os
import statistics
import time
from pathlib import Path

import numpy as np

from litsift.models_onnx.encoder import Encoder
from litsift.models_onnx.registry import DEFAULT_MODEL, get_spec

CHUNK = 64
_worker: Encoder | None = None


def default_model_dir() -> Path:
    """The built default encoder's folder in litsift's model cache."""
    from litsift.models_onnx.export import onnx_path_for
    from litsift.paths import get_paths

    return onnx_path_for(get_spec(DEFAULT_MODEL), get_paths().models_dir).parent


def default_texts() -> Path:
    from litsift.paths import shared_data_dir

    return shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"


def read_passages(path: Path, n: int) -> list[str]:
    """The first ``n`` non-empty ``title + ' ' + abstract`` passages of a ``.jsonl.gz``."""
    out: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            text = f"{row.get('title', '')} {row.get('abstract', '')}".strip()
            if text:
                out.append(text)
            if len(out) == n:
                break
    return out


def _load(model_dir: Path, threads: int) -> Encoder:
    return Encoder(get_spec(DEFAULT_MODEL), model_dir / "model_int8.onnx", threads=threads)


def _init(model_dir: str, threads: int) -> None:
    global _worker
    _worker = _load(Path(model_dir), threads)


def _embed(chunk: list[str]) -> np.ndarray:
    assert _worker is not None
    return _worker.encode_passages(chunk)


def run_pool(
    texts: list[str], model_dir: Path, workers: int, threads: int, runs: int
) -> tuple[float, np.ndarray]:
    """Median passages/s of ``workers`` processes x ``threads`` ONNX threads, and the vectors."""
    chunks = [texts[i : i + CHUNK] for i in range(0, len(texts), CHUNK)]
    ctx = mp.get_context("fork")
    with ctx.Pool(workers, initializer=_init, initargs=(str(model_dir), threads)) as pool:
        pool.map(_embed, chunks[: max(workers, 1)])  # warm-up: every worker's session
        seconds, vectors = [], np.empty((0,))
        for _ in range(runs):
            start = time.perf_counter()
            vectors = np.vstack(pool.map(_embed, chunks, chunksize=1))
            seconds.append(time.perf_counter() - start)
    return len(texts) / statistics.median(seconds), vectors


def run_local(texts: list[str], model_dir: Path, runs: int) -> tuple[float, np.ndarray]:
    """Median passages/s of the local encoder: one process, ``os.cpu_count()`` ONNX threads."""
    encoder = _load(model_dir, os.cpu_count() or 1)
    encoder.encode_passages(texts[:CHUNK])
    seconds, vectors = [], np.empty((0,))
    for _ in range(runs):
        start = time.perf_counter()
        vectors = encoder.encode_passages(texts)
        seconds.append(time.perf_counter() - start)
    return len(texts) / statistics.median(seconds), vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="passages embedded per run")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--threads", type=int, default=1, help="ONNX threads per worker")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--texts", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    model_dir = args.model_dir or default_model_dir()
    texts = read_passages(args.texts or default_texts(), args.n)
    cores = os.cpu_count() or 1

    local_rate, reference = run_local(texts, model_dir, args.runs)
    rows = [
        {
            "layout": f"local encoder (1 process x {cores} threads)",
            "workers": 1,
            "threads": cores,
            "passages_per_s": local_rate,
            "ratio": 1.0,
            "identical": True,
        }
    ]
    for workers in [int(w) for w in args.workers.split(",") if w]:
        rate, vectors = run_pool(texts, model_dir, workers, args.threads, args.runs)
        rows.append(
            {
                "layout": f"{workers} workers x {args.threads} threads",
                "workers": workers,
                "threads": args.threads,
                "passages_per_s": rate,
                "ratio": rate / local_rate,
                "identical": bool(np.array_equal(vectors, reference)),
            }
        )
    for row in rows:
        row["hours_per_1m"] = 1e6 / row["passages_per_s"] / 3600
    if args.json:
        print(json.dumps({"cores": cores, "passages": len(texts), "rows": rows}, indent=2))
        return
    print(f"{len(texts)} passages (title + abstract), {cores} cores, batch 1, int8 ONNX")
    print(f"{'layout':<42} {'passages/s':>10} {'x local':>8} {'h per 1M':>9} identical")
    for row in rows:
        print(
            f"{row['layout']:<42} {row['passages_per_s']:>10.1f} {row['ratio']:>8.2f} "
            f"{row['hours_per_1m']:>9.1f} {'yes' if row['identical'] else 'NO'}"
        )


if __name__ == "__main__":
    main()
