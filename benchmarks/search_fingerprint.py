"""Fingerprints of litsift's benchmark searches, to show a refactor changed no result.

Runs ``litsift eval BENCHMARK --runs-dir DIR`` for each benchmark (bm25, dense, hybrid and the
bm25s peer over DataFinder, SciFact and DORIS-MAE dev; eval homes are cached and reused) and
prints the sha256 of every TREC run file. Run it on two commits and compare the lines, or give
``--against DIR`` (the runs directory of the other commit) to compare byte for byte.

Issue 41's re-layout: all 16 run files byte-identical between e1e3c82 (before) and the
layout, store and stages commits after it.

Usage::

    python benchmarks/search_fingerprint.py --runs-dir runs/fingerprint [--against DIR]
        [--benchmarks datafinder,scifact,doris-mae-dev]
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path


def fingerprints(runs_dir: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every ``*.trec`` under ``runs_dir``."""
    return {
        str(p.relative_to(runs_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(runs_dir.rglob("*.trec"))
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs-dir", type=Path, required=True)
    ap.add_argument("--against", type=Path, default=None)
    ap.add_argument("--benchmarks", default="datafinder,scifact,doris-mae-dev")
    args = ap.parse_args()
    for name in args.benchmarks.split(","):
        out = args.runs_dir / name
        cmd = [sys.executable, "-m", "litsift", "eval", name, "--runs-dir", str(out), "--json"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    ours = fingerprints(args.runs_dir)
    for rel, digest in ours.items():
        print(f"{digest}  {rel}")
    if args.against is None:
        return 0
    theirs = fingerprints(args.against)
    differ = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
    print(f"{len(ours) - len(differ)} of {len(ours | theirs)} run files identical")
    for rel in differ:
        print(f"  differs: {rel}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
