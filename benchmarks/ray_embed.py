"""The Ray Data embedding job (issue 42) measured: throughput per actor, driver memory, a kill.

Builds a home of ``--papers`` papers (the 19,639 real papers of the shared sample first, then
the synthetic records of ``benchmarks/scale.py``: recombined real text, ids ``synth:NNNNNNN``)
with its own, empty embedding cache, then runs ``embed_with_ray`` (``--ray local``: a Ray
started by the job with ``--actors`` CPUs, one actor each) in a **child driver process**, so
the driver's peak RSS (``ru_maxrss`` of that process alone; Ray's own processes are apart) is
the job's and nothing else's. With ``--kill-at F`` the parent kills the driver with SIGKILL
once a fraction ``F`` of the passages is in the cache, stops the Ray processes the driver had
started, and runs the driver again: the rerun must embed only what the cache lacks.

``--stand-in-encoder`` measures the **driver** at sizes the real encoder cannot reach here
(1M passages take ~6.5 h with int8 MiniLM on 2 cores): the actors run a subclass of
:class:`~litsift.search.engines.ray_embed.EmbedBlock` (``embed_with_ray(actor=...)``) whose
vectors are a **stand-in, not a model**: a unit float32 vector of the encoder's dimension drawn
from a generator seeded by a hash of the text. Everything else is the job as it runs in
production: the driver's plan, the Ray Data dataset, the actors reading their rows from the
store and computing the real cache keys, and the driver writing each block to the cache. The
driver's memory does not depend on what the actors compute, so its peak RSS is the job's; the
job's seconds and rows/s are not the encoder's (the output says ``"encoder": "stand-in ..."``).

``--home DIR`` keeps the built store in ``DIR/home`` and reuses it on the next run (building
1M papers takes minutes); every driver run still gets a new, empty cache (``DIR/cache``,
deleted first and after; its size is reported).

Usage::

    python benchmarks/ray_embed.py --papers 2000 --actors 1
    python benchmarks/ray_embed.py --papers 8000 --actors 2
    python benchmarks/ray_embed.py --papers 2000 --actors 2 --kill-at 0.5
    python benchmarks/ray_embed.py --papers 100000 --actors 2 --stand-in-encoder --home DIR
    python benchmarks/ray_embed.py --papers 1000000 --actors 2 --stand-in-encoder --home DIR

Prints one JSON line per driver run: papers, the encoder (real or stand-in), passages embedded,
actors, job seconds (actor start and model load included), passages/s and per actor, Ray start
seconds, blocks, the most blocks the driver held, the driver's peak RSS (MB), its RSS once the
plan was made and at the end (MB), the peak of each part of its RSS seen after a block (anon,
file, shmem: Ray's object store mapped into the driver), the cache's size (MB) and wall
seconds. Each progress line on stderr gives the driver's RSS parts then.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
STAND_IN = "stand-in (unit vectors seeded by a hash of the text; not a model)"


def build_home(root: Path, papers: int) -> None:
    """``root/home``: a store of ``papers`` papers (the sample's, then scale.py's synthetic
    ones), unless it is there already."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    home = root / "home"
    done = home / "ray-embed-papers"
    if done.exists():
        if int(done.read_text()) != papers:
            raise SystemExit(f"{home} holds {done.read_text()} papers, not {papers}")
        return
    sys.path.insert(0, str(HERE))
    from scale import Sample, write_corpus  # the generator of benchmarks/scale.py

    src = root / "papers.jsonl.gz"
    write_corpus(Sample(), papers, src)
    with LitsiftService(get_paths(home)) as svc:
        report = svc.ingest(Kind.PAPER, src)
        if not report.ok:
            raise SystemExit(f"ingest failed: {report}")
    src.unlink()
    done.write_text(str(papers))


class StandInEncoder:
    """**A stand-in, not a model**: the vector of a text is a unit float32 vector of ``dim``
    drawn from a generator seeded by the text's hash (deterministic, ~20 us a text). It has
    what :class:`EmbedBlock` uses of an encoder; its vectors go under the driver's cache key,
    into a throwaway cache."""

    def __init__(self, spec: Any, cache_key: str) -> None:
        self.spec, self.dim, self.cache_key = spec, int(spec.dim), cache_key

    def encode_passages(self, texts: list[str]) -> npt.NDArray[np.float32]:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8)
            v = np.random.default_rng(int.from_bytes(digest.digest(), "little"))
            vec = v.standard_normal(self.dim, dtype=np.float32)
            out[i] = vec / np.linalg.norm(vec)
        return out


def stand_in_actor() -> type:
    """The actors' class with :class:`StandInEncoder` in place of the ONNX encoder: the store
    read, the passage texts and the cache keys are :class:`EmbedBlock`'s own."""
    from litsift.search.engines.ray_embed import EmbedBlock
    from litsift.store import Store
    from litsift.types import Kind

    class StandInEmbedBlock(EmbedBlock):
        def __init__(
            self, spec: Any, onnx_path: str, store_path: str, kind: str, cache_key: str
        ) -> None:
            self.encoder = StandInEncoder(spec, cache_key)  # type: ignore[assignment]
            self.store = Store(Path(store_path), readonly=True)
            self.kind = Kind(kind)

    return StandInEmbedBlock


def rss_parts_mb() -> dict[str, float]:
    """This process's resident set now (MB): ``VmRSS`` and its parts, ``RssAnon`` (its own
    heap), ``RssFile`` (mapped files) and ``RssShmem`` (shared memory: Ray's object store)."""
    out: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
            out[name] = int(value.split()[0]) / 1024
    return out


def driver(actors: int, stand_in: bool) -> None:
    """The child: one Ray job on the home of ``$LITSIFT_HOME``; a JSON line on stdout."""
    from litsift.paths import get_paths
    from litsift.search.engines.ray_embed import EmbedBlock, embed_with_ray
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    start = time.perf_counter()
    seen: dict[str, Any] = {}
    peak: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        parts = rss_parts_mb()
        if not seen:  # the first call: the plan is made, Ray not started yet
            seen["plan"] = parts["VmRSS"]
            seen["plan_s"] = time.perf_counter() - start
        for name, mb in parts.items():
            peak[name] = max(peak.get(name, 0.0), mb)
        print(f"{stage}: {done}/{total} {json.dumps(parts)}", file=sys.stderr, flush=True)

    with LitsiftService(get_paths()) as svc:
        report = embed_with_ray(
            svc.store,
            svc.encoder,
            Kind.PAPER,
            "local",
            actors=actors,
            progress=progress,
            actor=stand_in_actor() if stand_in else EmbedBlock,
        )
    end = rss_parts_mb()["VmRSS"]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "encoder": STAND_IN if stand_in else "the service's encoder (ONNX)",
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
                "driver_rss_after_plan_mb": round(seen.get("plan", 0)),
                "driver_rss_end_mb": round(end),
                "driver_peak_parts_mb": {k: round(v) for k, v in peak.items()},
                "open_and_plan_s": round(seen.get("plan_s", 0), 1),
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
            found = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            tables = [t for (t,) in found]
            # ``passages``; ``vectors`` in a file an earlier litsift made (litsift.cache.embeddings)
            return sum(
                int(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0])
                for t in ("passages", "vectors")
                if t in tables
            )
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


def run_driver(
    env: dict[str, str], actors: int, kill_at: int | None, stand_in: bool = False
) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--driver", "--actors", str(actors)]
    cmd += ["--stand-in-encoder"] if stand_in else []
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


def cache_mb(cache_dir: Path) -> float:
    """The embedding cache's files (the SQLite file and its WAL), MB."""
    files = cache_dir.glob("embeddings.sqlite*") if cache_dir.exists() else []
    return round(sum(f.stat().st_size for f in files) / 2**20, 1)


def measure(root: Path, args: argparse.Namespace) -> None:
    cache = root / "cache"
    env = {"LITSIFT_HOME": str(root / "home"), "LITSIFT_EMBED_CACHE_DIR": str(cache)}
    os.environ.update(env)
    build_home(root, args.papers)
    shutil.rmtree(cache, ignore_errors=True)  # a new, empty cache for every measurement
    kill = None if args.kill_at is None else int(args.kill_at * args.papers)
    first = run_driver(env, args.actors, kill, args.stand_in_encoder)
    first["cache_mb"] = cache_mb(cache)
    print(json.dumps({"papers": args.papers, **first}), flush=True)
    if kill is not None:
        again = run_driver(env, args.actors, None, args.stand_in_encoder)
        print(json.dumps({"rerun": {**again, "cache_mb": cache_mb(cache)}}), flush=True)
    shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--actors", type=int, default=1)
    ap.add_argument("--kill-at", type=float, default=None, help="fraction cached at SIGKILL")
    ap.add_argument(
        "--stand-in-encoder",
        action="store_true",
        help="actors give hash-seeded unit vectors, not the model's (measures the driver)",
    )
    ap.add_argument("--home", type=Path, default=None, help="keep (and reuse) the store here")
    ap.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.driver:
        driver(args.actors, args.stand_in_encoder)
        return
    sys.path.insert(0, str(SRC))
    if args.home is not None:
        args.home.mkdir(parents=True, exist_ok=True)
        measure(args.home.resolve(), args)
        return
    with tempfile.TemporaryDirectory(prefix="ray-embed-") as tmp:
        measure(Path(tmp), args)


if __name__ == "__main__":
    main()
