"""Full screening table: every review set of ``shared/data/eval/screening``, several seeds,
litsift's orders and the real ASReview (ELAS u4) on the same seeded priors.

Usage (from the repository root, with ../shared/data beside it)::

    LITSIFT_ASREVIEW_PYTHON=../venv-asreview/bin/python \\
        python benchmarks/screening_eval.py --seeds 3 --jobs 4 --json screening.json

Sets run in parallel processes (``--jobs``), largest first; each process runs
:func:`litsift.eval.screening.run_screening` on its set, and the reports are merged into the
table ``litsift eval screening`` prints (per set mean ± std over seeds, seconds per run; mean
over sets; stopping rules; paired tests over sets). It prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from litsift.eval.screening import (
    ScreeningReport,
    format_table,
    merge_reports,
    report_to_json,
    run_screening,
)
from litsift.paths import shared_data_dir
from litsift.review.data import find_sets

SYSTEMS = "litsift,asreview,tfidf-svm,dense-svm,tfidf+dense-0.5"


def _one(data: Path, name: str, seeds: int, systems: list[str]) -> ScreeningReport:
    return run_screening(data, [name], seeds, systems)


def main() -> None:
    """Parse the arguments, run the sets, print the table (and write the JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--sets", default=None, help="comma list (default: all)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--systems", default=SYSTEMS)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    data = args.data or shared_data_dir()
    names = args.sets.split(",") if args.sets else None
    paths = find_sets(data, names)
    ordered = [p.name.removesuffix(".jsonl.gz") for p in paths]
    systems = args.systems.split(",")
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {n: pool.submit(_one, data, n, args.seeds, systems) for n in reversed(ordered)}
        reports = {}
        for n in reversed(ordered):
            reports[n] = futures[n].result()
            print(f"{n}: done after {time.perf_counter() - start:.0f} s", file=sys.stderr)
    merged = merge_reports([reports[n] for n in ordered], time.perf_counter() - start)
    out = report_to_json(merged)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(format_table(out))
    print(f"wall time {merged.elapsed_s:.0f} s, {args.jobs} processes", file=sys.stderr)


if __name__ == "__main__":
    main()
