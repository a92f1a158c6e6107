"""Passages per second of index-build embedding on this machine, lever by lever (issue 32).

Everything is measured on one fixed slice of real passages (``title. abstract`` of the shared
paper sample, as :func:`litsift.search.retrieval.record_text.passage_text` builds them) in one run,
so the rows
compare. Prints, in order:

1. the slice's token-length distribution (how many passages exceed 128 / 192 / 256 tokens);
2. ``--layouts``: processes x ONNX Runtime threads (1 x 1, 1 x cores as ``litsift index``
   ran before it used worker processes, the same with ``session.intra_op.allow_spinning``, and
   ``cores`` workers x 1 thread: the :meth:`Encoder.worker_pool` an index build opens);
3. ``--levers``: one process, one thread, per lever: ORT graph optimisation level, int8
   variants built from the export's fp32 file (``reduce_range``; the fp32 graph fused by
   ``onnxruntime.transformers.optimizer`` before quantisation: QAttention, SkipLayerNorm,
   BiasGelu), fp32, length-sorted batches of 4 / 16 (their vectors depend on the batch under
   dynamic int8), and a smaller ``max_length`` (192, 128). Each row gives the mean / min cosine
   of its vectors to today's int8 vectors;
4. ``--eval L``: the three benchmarks (DataFinder, SciFact, DORIS-MAE dev) with the default
   encoder at ``max_length`` L, in fresh homes under ``--eval-dir`` (the passage cache is keyed
   by max length, so the corpora are embedded again: ~25K passages). Compare with
   ``benchmarks/run_eval.py`` (today's default) on the same machine.

Usage::

    python benchmarks/embed_rate.py [--n 2000] [--layouts] [--levers] [--json FILE]
    python benchmarks/embed_rate.py --eval 128 [--eval-dir DIR]

Every figure says the CPU model; int8 kernels differ between CPUs (VNNI, AMX).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from litsift.models_onnx import Encoder, load_encoder
from litsift.models_onnx.registry import get_spec
from litsift.paths import shared_data_dir

Row = dict[str, Any]


def cpu_model() -> str:
    """``"Intel(R) Xeon(R) Processor, 2 cores"``-like: what every figure was measured on."""
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} cores"


def read_passages(n: int, stride: int = 1) -> list[str]:
    """Every ``stride``-th of the first ``n * stride`` non-empty passages of the paper sample,
    built as :func:`litsift.search.retrieval.record_text.passage_text` builds a paper's."""
    out: list[str] = []
    path = shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            row = json.loads(line)
            title = str(row.get("title") or "").strip()
            abstract = str(row.get("abstract") or "").strip()
            if title and abstract:
                sep = " " if title.endswith((".", "?", "!")) else ". "
                text = f"{title}{sep}{abstract}"
            else:
                text = title or abstract
            if text and i % stride == 0:
                out.append(text)
            if len(out) == n:
                break
    return out


def encoder_with(
    onnx: Path,
    tokenizer: Path,
    threads: int,
    max_length: int | None = None,
    spinning: bool = False,
    level: ort.GraphOptimizationLevel | None = None,
) -> Encoder:
    """An :class:`Encoder` of the default spec on ``onnx`` with other session settings."""
    spec = get_spec()
    if max_length is not None:
        spec = replace(spec, max_length=max_length)
    encoder = Encoder(spec, onnx, tokenizer, threads=threads)
    if spinning or level is not None:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.graph_optimization_level = (
            level if level is not None else ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        )
        options.add_session_config_entry(
            "session.intra_op.allow_spinning", "1" if spinning else "0"
        )
        encoder._session = ort.InferenceSession(
            str(onnx), sess_options=options, providers=["CPUExecutionProvider"]
        )
    return encoder


def rate(embed: Callable[[], np.ndarray], n: int) -> tuple[float, np.ndarray]:
    """Passages/s of one timed call of ``embed`` (which embeds ``n`` passages)."""
    start = time.perf_counter()
    vectors = embed()
    return n / (time.perf_counter() - start), vectors


def cosines(vectors: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    dots = np.sum(vectors * reference, axis=1)
    return float(dots.mean()), float(dots.min())


def length_table(encoder: Encoder, texts: list[str]) -> Row:
    lengths = np.array([encoder.token_count(encoder.spec.passage_prefix + t) for t in texts])
    row: Row = {
        "passages": len(texts),
        "mean_tokens": float(lengths.mean()),
        "median_tokens": float(np.median(lengths)),
        "p90_tokens": float(np.percentile(lengths, 90)),
        "max_tokens": int(lengths.max()),
    }
    for cut in (128, 192, 256):
        row[f"over_{cut}"] = int((lengths > cut).sum())
        row[f"mean_kept_at_{cut}"] = float(np.minimum(lengths, cut).mean())
    return row


@contextlib.contextmanager
def pooled(encoder: Encoder, workers: int, warm: list[str]) -> Iterator[None]:
    with encoder.worker_pool(workers):
        encoder.encode_passages(warm)  # starts the workers and their sessions
        yield


def layouts(onnx: Path, tokenizer: Path, texts: list[str]) -> list[Row]:
    cores = os.cpu_count() or 1
    rows: list[Row] = []
    reference: np.ndarray | None = None
    warm = texts[:20]
    for name, threads, spinning in (
        ("1 process x 1 thread", 1, False),
        (f"1 process x {cores} threads", cores, False),
        (f"1 process x {cores} threads, spinning", cores, True),
    ):
        enc = encoder_with(onnx, tokenizer, threads, spinning=spinning)
        enc.encode_passages(warm)
        per_s, vectors = rate(lambda enc=enc: enc.encode_passages(texts), len(texts))
        reference = vectors if reference is None else reference
        rows.append({"layout": name, "passages_per_s": per_s, **same(vectors, reference)})
    for max_length in (256, 192, 128):
        enc = encoder_with(onnx, tokenizer, cores, max_length=max_length)
        with pooled(enc, cores, texts[: max(256, 2 * cores * 64)]):
            per_s, vectors = rate(lambda enc=enc: enc.encode_passages(texts), len(texts))
        assert reference is not None
        rows.append(
            {
                "layout": f"{cores} workers x 1 thread, max_length {max_length}",
                "passages_per_s": per_s,
                **same(vectors, reference),
            }
        )
    for row in rows:
        row["hours_per_1m"] = 1e6 / row["passages_per_s"] / 3600
    return rows


def same(vectors: np.ndarray, reference: np.ndarray) -> Row:
    mean, low = cosines(vectors, reference)
    return {"identical": bool(np.array_equal(vectors, reference)), "cos_mean": mean, "cos_min": low}


def build_variants(fp32: Path, out: Path) -> dict[str, Path]:
    """int8 variants of the export's fp32 graph: ``reduce_range`` and fused-then-quantised."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    spec = get_spec()
    variants = {
        "int8 reduce_range": out / "rr_int8.onnx",
        "int8 fused graph": out / "fused_int8.onnx",
    }
    quantize_dynamic(
        fp32,
        variants["int8 reduce_range"],
        per_channel=True,
        reduce_range=True,
        weight_type=QuantType.QInt8,
    )
    fused = optimize_model(
        str(fp32), model_type="bert", num_heads=12, hidden_size=spec.dim, opt_level=1
    )
    fused.save_model_to_file(str(out / "fused_fp32.onnx"))
    quantize_dynamic(
        out / "fused_fp32.onnx",
        variants["int8 fused graph"],
        per_channel=True,
        weight_type=QuantType.QInt8,
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    return variants


def levers(onnx: Path, tokenizer: Path, texts: list[str], scratch: Path) -> list[Row]:
    fp32 = onnx.with_name("model_fp32.onnx")
    base = encoder_with(onnx, tokenizer, 1)
    base.encode_passages(texts[:20])
    base_rate, reference = rate(lambda: base.encode_passages(texts), len(texts))
    rows: list[Row] = [{"lever": "today: int8, 1 thread", "passages_per_s": base_rate}]
    cases: list[tuple[str, Callable[[], Encoder], int]] = [
        (
            "graph optimisation basic",
            lambda: encoder_with(
                onnx, tokenizer, 1, level=ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            ),
            1,
        ),
        (
            "graph optimisation extended",
            lambda: encoder_with(
                onnx, tokenizer, 1, level=ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
            ),
            1,
        ),
    ]
    if fp32.is_file():
        for name, path in build_variants(fp32, scratch).items():
            cases.append((name, lambda path=path: encoder_with(path, tokenizer, 1), 1))
        cases.append(("fp32", lambda: encoder_with(fp32, tokenizer, 1), 1))
    cases += [
        ("batches of 4, length-sorted", lambda: encoder_with(onnx, tokenizer, 1), 4),
        ("batches of 16, length-sorted", lambda: encoder_with(onnx, tokenizer, 1), 16),
        ("max_length 192", lambda: encoder_with(onnx, tokenizer, 1, max_length=192), 1),
        ("max_length 128", lambda: encoder_with(onnx, tokenizer, 1, max_length=128), 1),
    ]
    for name, make, batch in cases:
        enc = make()
        enc.encode_passages(texts[:20], batch_size=batch)
        per_s, vectors = rate(
            lambda enc=enc, batch=batch: enc.encode_passages(texts, batch_size=batch), len(texts)
        )
        mean, low = cosines(vectors, reference)
        rows.append(
            {
                "lever": name,
                "passages_per_s": per_s,
                "ratio": per_s / base_rate,
                "cos_mean": mean,
                "cos_min": low,
            }
        )
    return rows


def run_eval_at(max_length: int, eval_dir: Path) -> dict[str, Any]:
    """The three benchmarks with the default encoder cut at ``max_length`` tokens."""
    from litsift.eval.cli_support import format_table, report_to_json, run_benchmark

    default = load_encoder()
    encoder = Encoder(
        replace(default.spec, max_length=max_length), default.onnx_path, default.tokenizer_path
    )
    out: dict[str, Any] = {}
    for name in ("datafinder", "scifact", "doris-mae-dev"):
        t0 = time.perf_counter()
        report = run_benchmark(
            name,
            systems="bm25,dense,hybrid",
            home=eval_dir / f"{name}-max{max_length}",
            runs_dir=eval_dir / "runs" / f"{name}-max{max_length}",
            encoder=encoder,
        )
        print(format_table(report))
        print(f"({name}, max_length {max_length}: {time.perf_counter() - t0:.0f} s)", flush=True)
        out[name] = report_to_json(report)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="passages in the slice")
    ap.add_argument("--stride", type=int, default=1, help="take every k-th passage")
    ap.add_argument("--layouts", action="store_true", help="processes x threads, max lengths")
    ap.add_argument("--levers", action="store_true", help="one-thread levers")
    ap.add_argument("--eval", type=int, default=None, metavar="MAX_LENGTH")
    ap.add_argument("--eval-dir", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    print(cpu_model(), file=sys.stderr)
    result: dict[str, Any] = {"cpu": cpu_model()}
    if args.eval is not None:
        eval_dir = args.eval_dir or Path(tempfile.mkdtemp(prefix="litsift-embed-eval-"))
        result["eval"] = {str(args.eval): run_eval_at(args.eval, eval_dir)}
    else:
        encoder = load_encoder()
        texts = read_passages(args.n, args.stride)
        result["lengths"] = length_table(encoder, texts)
        print(json.dumps(result["lengths"]), flush=True)
        tokenizer = encoder.tokenizer_path
        if args.layouts:
            result["layouts"] = layouts(encoder.onnx_path, tokenizer, texts)
            for row in result["layouts"]:
                print(
                    f"{row['layout']:<44} {row['passages_per_s']:7.1f} passages/s "
                    f"{row['hours_per_1m']:5.2f} h/1M  identical {row['identical']}  "
                    f"cos {row['cos_mean']:.4f} (min {row['cos_min']:.4f})",
                    flush=True,
                )
        if args.levers:
            with tempfile.TemporaryDirectory(prefix="litsift-embed-levers-") as scratch:
                result["levers"] = levers(encoder.onnx_path, tokenizer, texts, Path(scratch))
            for row in result["levers"]:
                print(
                    f"{row['lever']:<32} {row['passages_per_s']:7.1f} passages/s "
                    f"x{row.get('ratio', 1.0):.2f}  cos {row.get('cos_mean', 1.0):.4f} "
                    f"(min {row.get('cos_min', 1.0):.4f})",
                    flush=True,
                )
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
