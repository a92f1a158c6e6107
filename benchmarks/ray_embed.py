"""The Ray Data embedding job (issue 42) measured: throughput per actor, driver memory, a kill.

Builds a home of the first ``--papers`` real papers of the shared sample with its own, empty
embedding cache, then runs ``embed_with_ray`` (``--ray local``: a Ray started by the job with
``--actors`` CPUs, one actor each) in a **child driver process**, so the driver's peak RSS
(``ru_maxrss`` of that process alone; Ray's own processes are apart) is the job's and nothing
else's. With ``--kill-at F`` the parent kills the driver with SIGKILL once a fraction ``F`` of
the passages is in the cache, stops the Ray processes the driver had started, and runs the
driver again: the rerun must embed only what the cache lacks.

Usage::

    python benchmarks/ray_embed.py --papers 2000 --actors 1 [--json]
    python benchmarks/ray_embed.py --papers 8000 --actors 2
    python benchmarks/ray_embed.py --papers 2000 --actors 2 --kill-at 0.5

Prints one JSON line per driver run: papers, passages embedded, actors, job seconds (actor
start and model load included), passages/s and per actor, Ray start seconds, blocks, the most
blocks the driver held, the driver's peak RSS (MB) and wall seconds.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
DATA = Path(os.environ.get("LITSIFT_DATA", HERE.parent.parent / "shared" / "data"))
PAPERS_GZ = DATA / "papers" / "ml-nlp-papers.jsonl.gz"


def build_home(root: Path, papers: int) -> dict[str, str]:
    """A home of the first ``papers`` sample papers and an empty cache; its environment."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    src = root / "papers.jsonl"
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f, src.open("w") as out:
        for i, line in enumerate(f):
            if i == papers:
                break
            out.write(line)
    env = {"LITSIFT_HOME": str(root / "home"), "LITSIFT_EMBED_CACHE_DIR": str(root / "cache")}
    os.environ.update(env)
    with LitsiftService(get_paths(root / "home")) as svc:
        report = svc.ingest(Kind.PAPER, src)
        if not report.ok:
            raise SystemExit(f"ingest failed: {report}")
    src.unlink()
    return env


def driver(actors: int) -> None:
    """The child: one Ray job on the home of ``$LITSIFT_HOME``; a JSON line on stdout."""
    from litsift.paths import get_paths
    from litsift.search.engines.ray_embed import embed_with_ray
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    start = time.perf_counter()
    with LitsiftService(get_paths()) as svc:
        report = embed_with_ray(
            svc.store,
            svc.encoder,
            Kind.PAPER,
            "local",
            actors=actors,
            progress=lambda s, d, t: print(f"{s}: {d}/{t}", file=sys.stderr, flush=True),
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "passages": report.passages,
                "embedded": report.embedded,
                "actors": report.actors,
                "job_s": round(report.seconds, 1),
                "per_s": round(report.per_second, 1),
                "per_s_per_actor": round(report.per_second / max(1, report.actors), 1),
                "ray_start_s": round(report.start_seconds, 1),
                "blocks": report.blocks,
                "max_held_blocks": report.max_held_blocks,
                "driver_peak_rss_mb": round(rss),
                "wall_s": round(time.perf_counter() - start, 1),
            }
        ),
        flush=True,
    )


def cached(cache_dir: Path) -> int:
    path = cache_dir / "embeddings.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
    except sqlite3.Error:
        return 0


def descendants(pid: int) -> list[int]:
    """Processes whose parent chain leads to ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out.extend(kids)
        frontier.extend(kids)
    return out


def run_driver(env: dict[str, str], actors: int, kill_at: int | None) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--driver", "--actors", str(actors)]
    full = {**os.environ, **env, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen(cmd, env=full, stdout=subprocess.PIPE, text=True)
    if kill_at is None:
        out, _ = proc.communicate()
        return json.loads(out.strip().splitlines()[-1])
    cache_dir = Path(env["LITSIFT_EMBED_CACHE_DIR"])
    while proc.poll() is None and cached(cache_dir) < kill_at:
        time.sleep(0.2)
    ray_procs = descendants(proc.pid)  # the Ray processes this driver started
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    at_kill = cached(cache_dir)
    time.sleep(2)
    left = [p for p in ray_procs if Path(f"/proc/{p}").exists()]
    for p in left:  # Ray's own processes, started by the killed driver: by pid, one by one
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return {"killed_at_cached": at_kill, "ray_processes_left_after_kill": len(left)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--actors", type=int, default=1)
    ap.add_argument("--kill-at", type=float, default=None, help="fraction cached at SIGKILL")
    ap.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.driver:
        driver(args.actors)
        return
    sys.path.insert(0, str(SRC))
    with tempfile.TemporaryDirectory(prefix="ray-embed-") as tmp:
        env = build_home(Path(tmp), args.papers)
        kill = None if args.kill_at is None else int(args.kill_at * args.papers)
        first = run_driver(env, args.actors, kill)
        print(json.dumps({"papers": args.papers, **first}), flush=True)
        if kill is not None:
            print(json.dumps({"rerun": run_driver(env, args.actors, None)}), flush=True)


if __name__ == "__main__":
    main()
