"""Run every full benchmark with its paper's protocol and print the tables.

Usage (from the repository root, with ../shared/data beside it)::

    python benchmarks/run_eval.py                      # datafinder, scifact, doris-mae-dev
    python benchmarks/run_eval.py scifact --json out.json

Each benchmark is ingested once into its own litsift home under the cache dir (reused while
its corpus is unchanged); TREC runs go to ``runs/<benchmark>/``. This is the command behind the
tables of docs/EVALUATION.md; it prints numbers and asserts nothing. The
``--json`` file (``{benchmark: report}``, see :func:`report_entry`) is what
``benchmarks/results_page.py`` turns into the tables of docs/EVALUATION-RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from litsift.eval.cli_support import format_table, report_to_json, run_benchmark
from litsift.eval.runner import EvalReport

FULL = ("datafinder", "scifact", "doris-mae-dev")


def machine() -> str:
    """The CPU model and core count, e.g. ``"AMD EPYC 7B13, 2 cores"`` (int8 scores depend on
    the CPU's kernels, so every result says where it was measured)."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def report_entry(report: EvalReport, half: str | None) -> dict[str, Any]:
    """One value of the ``--json`` file: :func:`report_to_json` plus ``half`` (``None``,
    ``"tune"`` or ``"heldout"``) and ``machine`` (:func:`machine`)."""
    return {**report_to_json(report), "half": half, "machine": machine()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmarks", nargs="*", help=f"any of {', '.join(FULL)} (default: all)")
    ap.add_argument("--data-dir", type=Path, default=None, help="shared/data directory")
    ap.add_argument("--runs-dir", type=Path, default=Path("runs"), help="parent of run dirs")
    ap.add_argument("--systems", default="bm25,dense,hybrid,bm25s")
    ap.add_argument("--json", type=Path, default=None, help="also write all reports here")
    ap.add_argument(
        "--half",
        choices=["tune", "heldout"],
        default=None,
        help="only one fixed half of the queries (litsift.eval.benchmarks.query_half)",
    )
    args = ap.parse_args(argv)
    out = {}
    for name in args.benchmarks or FULL:
        t0 = time.perf_counter()

        def progress(stage: str, done: int, total: int, name: str = name) -> None:
            if total and done == total:
                print(f"  [{name}] {stage}: {done}/{total}", file=sys.stderr, flush=True)

        report = run_benchmark(
            name,
            data_dir=args.data_dir,
            systems=args.systems,
            runs_dir=args.runs_dir / (name if args.half is None else f"{name}-{args.half}"),
            half=args.half,
            progress=progress,
        )
        print(format_table(report))
        print(f"({name}: {time.perf_counter() - t0:.0f} s wall, home {report.home})\n", flush=True)
        out[name] = report_entry(report, args.half)
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
