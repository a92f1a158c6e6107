"""How every cost grows with the number of papers (issue 32): build a home of N papers, measure.

The home holds the 19,639 sample papers of ../shared/data/papers (real records) and, past them,
**synthetic** records that recombine real text: a title made of the first half of one sample
title and the second half of another, an abstract of real sentences drawn from the whole sample
(as many as a randomly drawn sample abstract has), the year and venue of randomly drawn sample
papers, **synthetic authors** (as many as a randomly drawn sample paper has, each a real given
name and a real family name drawn apart from the sample's authors: the family names keep their
sample frequencies, Wang 2.6 % of first authors, but an author list is not one of the sample's
19.6K lists repeated ~50x at 1M), and a unique id ``synth:NNNNNNN``. Lengths and years thus
follow the sample's distributions. The 3,327 Papers-with-Code datasets are ingested too (the
datasets tab).

Dense vectors: embedding N passages at the ~40 passages/s measured here would take hours past
~100K, so every stored passage gets its real vector when the shared test cache
(``LITSIFT_TEST_EMBED_CACHE``, default /work/embed-cache) has it and otherwise a **stand-in**
(a real sample vector + Gaussian noise, renormalised) written to this home's own embedding cache;
``litsift``'s dense build then reads them as cache hits, so ``dense_build_s`` measures the
hnswlib structure and the publication path, not the encoder. The encoder's own rate on real text
is measured separately (``encoder_per_s``) and the output says how many vectors were stand-ins.

Every quantity runs the project's own code in a child process (peak RSS from ``os.wait4``):
``litsift ingest``; ``build_index(dense=False)`` (BM25); ``build_index`` (dense); service search
(40 DataFinder full-sentence queries on papers, with and without ``--years 2018:2020``, 40
keyphrase queries on datasets); ``litsift search`` cold (a new process); the TUI (Pilot) from
process start to the first painted results; 10K new papers ingested + BM25 (searchable) and +
dense (hybrid); ``litsift dedup --dry-run``; ``litsift ingest`` of a 10K-record CSL-JSON file
(2K of them already stored, identity matching) into the N store, after a 1-record import that
derives the identity keys of every stored paper (``identity_keys_s``: what the first import into
a store built by JSONL ingests pays once, in proportion to N).

Usage::

    python benchmarks/scale.py --papers 100000 [--json] [--home DIR] [--skip dense,tui]
    python benchmarks/scale.py --papers 300000 --home DIR --skip bm25,dedup,import  # store only

Prints a markdown table (and with ``--json`` one JSON line: ``papers``, ``ingest_per_s``,
``bm25_build_s``, ``dense_build_s``, ``disk_mb``, ``rss_search_mb``, ``rss_build_mb``,
``query_p50_ms``, ``query_p95_ms``, ``year_query_p50_ms``, ``cold_search_s``,
``tui_first_paint_s``, ``add_10k_bm25_s``, ``dedup_dry_run_s``, ``identity_keys_s``,
``import_10k_s`` and more).
A step that fails or passes ``--timeout`` is null, with the reason under ``notes``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
DATA = Path(os.environ.get("LITSIFT_DATA", HERE.parent.parent / "shared" / "data"))
PAPERS_GZ = DATA / "papers" / "ml-nlp-papers.jsonl.gz"
DATASETS_GZ = DATA / "datasets" / "pwc-datasets.jsonl.gz"
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


class Sample:
    """The sample papers and the parts synthetic records are drawn from."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        seen: set[str] = set()
        with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
            for line in f:
                row = json.loads(line)
                if row["id"] not in seen:
                    seen.add(row["id"])
                    self.rows.append(row)
        self.sentences: list[str] = []
        self.counts: list[int] = []
        #: the given and family names of every sample author (``"Given Family"`` split at the
        #: last space), drawn apart for synthetic authors
        self.given: list[str] = []
        self.family: list[str] = []
        for row in self.rows:
            for name in row.get("authors") or []:
                given, _, family = str(name).strip().rpartition(" ")
                if family:
                    self.family.append(family)
                    if given:
                        self.given.append(given)
        for row in self.rows:
            parts = [s for s in _SENTENCE.split(row.get("abstract") or "") if s.strip()]
            self.sentences.extend(parts)
            self.counts.append(len(parts))

    def authors(self, rng: np.random.Generator, k: int) -> list[str]:
        """``k`` synthetic authors: a real given name + a real family name, drawn apart."""
        given = rng.integers(0, len(self.given), k)
        family = rng.integers(0, len(self.family), k)
        return [f"{self.given[g]} {self.family[f]}" for g, f in zip(given, family, strict=True)]

    def synthetic(self, rng: np.random.Generator, doc_id: str) -> dict[str, Any]:
        n = len(self.rows)
        a, b, c, d = (self.rows[i] for i in rng.integers(0, n, 4))
        ta, tb = a["title"].split(), b["title"].split()
        title = " ".join(ta[: max(1, len(ta) // 2)] + tb[len(tb) // 2 :])
        k = self.counts[int(rng.integers(0, n))]
        picks = rng.integers(0, len(self.sentences), k)
        return {
            "id": doc_id,
            "title": title,
            "abstract": " ".join(self.sentences[i] for i in picks),
            "authors": self.authors(rng, len(c.get("authors") or [])),
            "year": d.get("year"),
            "venue": d.get("venue"),
            "synthetic": True,
        }


def write_corpus(sample: Sample, n: int, path: Path) -> int:
    """The N-paper JSONL(.gz): the sample first, then synthetic records; returns how many are
    synthetic."""
    rng = np.random.default_rng(32)
    real = min(n, len(sample.rows))
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as f:
        for row in sample.rows[:real]:
            f.write(json.dumps(row) + "\n")
        for i in range(n - real):
            f.write(json.dumps(sample.synthetic(rng, f"synth:{i:07d}")) + "\n")
    return n - real


def write_additions(sample: Sample, path: Path, n: int = 10_000) -> None:
    rng = np.random.default_rng(10_000)
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as f:
        for i in range(n):
            f.write(json.dumps(sample.synthetic(rng, f"add:{i:06d}")) + "\n")


def _csl_person(name: str) -> dict[str, str]:
    given, _, family = name.rpartition(" ")
    return {"family": family, "given": given} if given else {"family": family}


def write_import(sample: Sample, path: Path, n: int = 10_000, known: int = 2_000) -> None:
    """A CSL-JSON export of ``n`` records: ``known`` are sample papers already in the store
    (same title, authors, year), the rest new synthetic ones."""
    rng = np.random.default_rng(20_000)
    items = []
    for i in range(n):
        rec = sample.rows[int(rng.integers(0, len(sample.rows)))] if i < known else None
        rec = rec or sample.synthetic(rng, "")
        item: dict[str, Any] = {
            "id": f"item{i}",
            "type": "paper-conference",
            "title": rec["title"],
            "abstract": rec.get("abstract") or "",
            "author": [_csl_person(a) for a in rec.get("authors") or []],
        }
        if rec.get("year"):
            item["issued"] = {"date-parts": [[int(rec["year"])]]}
        items.append(item)
    path.write_text(json.dumps(items), encoding="utf-8")


class Runner:
    """Runs a child process with the project's code; keeps its wall time and peak RSS."""

    def __init__(self, home: Path, timeout: float) -> None:
        self.home = home
        self.timeout = timeout
        self.notes: dict[str, str] = {}
        self.cpu: dict[str, float] = {}
        self.env = {
            **os.environ,
            "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            "LITSIFT_EMBED_CACHE_DIR": str(home / "standin-cache"),
        }

    def run(self, name: str, argv: list[str]) -> tuple[float, float, str] | None:
        """``(seconds, peak RSS MB, stdout)`` or None (failed or timed out; noted)."""
        t = time.perf_counter()
        proc = subprocess.Popen(
            argv, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            out, err = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            self.notes[name] = f"timed out after {self.timeout:.0f} s"
            return None
        usage = getattr(proc, "rusage", None)  # set by _patch_wait
        seconds = time.perf_counter() - t
        rss = usage.ru_maxrss / 1024 if usage is not None else float("nan")
        print(f"{name}: {seconds:.1f} s, peak RSS {rss:.0f} MB", file=sys.stderr, flush=True)
        if usage is not None:  # CPU seconds: the figure that the machine's other load spares
            self.cpu[name] = round(self.cpu.get(name, 0.0) + usage.ru_utime + usage.ru_stime, 1)
        if proc.returncode:
            self.notes[name] = f"exit {proc.returncode}: {err.strip().splitlines()[-1:]}"
            return None
        return seconds, rss, out

    def cli(self, name: str, *args: str) -> tuple[float, float, str] | None:
        return self.run(
            name, [sys.executable, "-m", "litsift.cli.root", "--home", str(self.home), *args]
        )

    def step(
        self, name: str, *args: str, label: str = ""
    ) -> tuple[float, float, dict[str, Any]] | None:
        argv = [sys.executable, str(HERE / "scale_steps.py"), name, str(self.home), *args]
        done = self.run(label or name, argv)
        if done is None:
            return None
        line = next(x for x in done[2].splitlines() if x.startswith("STEP "))
        return done[0], done[1], json.loads(line[5:])


def _patch_wait() -> None:
    """Make ``subprocess.Popen`` reap children with ``os.wait4`` and keep their rusage on
    ``proc.rusage`` (the peak RSS of that child alone, not of every child so far)."""
    original = subprocess.Popen._try_wait  # type: ignore[attr-defined]

    def _try_wait(self: subprocess.Popen[str], wait_flags: int) -> tuple[int, int]:
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return original(self, wait_flags)
        if pid:
            self.rusage = usage  # type: ignore[attr-defined]
        return pid, status

    subprocess.Popen._try_wait = _try_wait  # type: ignore[attr-defined]


def du_mb(path: Path, skip: tuple[str, ...] = ()) -> float:
    total = 0
    for p in path.rglob("*"):
        if p.is_file() and not any(part in skip for part in p.relative_to(path).parts):
            total += p.stat().st_size
    return total / 1e6


def measure(
    n: int, home: Path, timeout: float, skip: set[str], snapshot: bool = False
) -> dict[str, Any]:
    sample = Sample()
    inputs = home / "scale-inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    r = Runner(home, timeout)
    res: dict[str, Any] = {"papers": n}
    t = time.perf_counter()
    res["synthetic_papers"] = write_corpus(sample, n, inputs / "papers.jsonl.gz")
    res["generate_s"] = round(time.perf_counter() - t, 1)
    write_additions(sample, inputs / "add.jsonl.gz")
    write_import(sample, inputs / "import.json")
    write_import(sample, inputs / "keys.json", n=1, known=1)
    builds: list[float] = []

    done = r.cli("ingest", "ingest", "papers", str(inputs / "papers.jsonl.gz"), "--quiet")
    if done:
        res["ingest_s"] = round(done[0], 1)
        res["ingest_per_s"] = round(n / done[0])
        builds.append(done[1])
    r.cli("ingest_datasets", "ingest", "datasets", str(DATASETS_GZ), "--quiet")
    if "bm25" in skip:  # the store alone: nothing below that needs an index
        skip |= {"encoder", "dense", "search", "cold_search", "tui", "add"}
    step = None if "bm25" in skip else r.step("bm25")
    if step:
        res["bm25_build_s"] = round(step[2]["paper_s"], 1)
        builds.append(step[1])
    if "encoder" not in skip and (step := r.step("encoder")):
        res["encoder_per_s"] = step[2]["per_s"]
    if "dense" not in skip:
        step = r.step("standins")
        if step:
            res["dense_real_vectors"] = step[2]["real"]
            res["dense_standin_vectors"] = step[2]["standins"]
            res["standins_s"] = round(step[0], 1)
        step = r.step("dense")
        if step:
            res["dense_build_s"] = round(step[2]["paper_s"], 1)
            res["dense_stages_s"] = step[2]["paper_stages"]
            builds.append(step[1])
    res["disk_mb"] = round(du_mb(home, ("scale-inputs", "standin-cache")))
    if builds:
        res["rss_build_mb"] = round(max(builds))
    if "search" not in skip and (step := r.step("search")):
        s = step[2]
        res["rss_search_mb"] = round(step[1])
        res["query_p50_ms"], res["query_p95_ms"] = s["papers"]["p50_ms"], s["papers"]["p95_ms"]
        res["year_query_p50_ms"] = s["papers_years"]["p50_ms"]
        res["year_query_p95_ms"] = s["papers_years"]["p95_ms"]
        res["dataset_query_p50_ms"] = s["datasets"]["p50_ms"]
        res["query_signals"] = s["papers"]["mode"]
        res["search_open_s"] = s["open_s"]
    query = "contrastive pretraining of sentence embeddings for retrieval"
    if "cold_search" not in skip and (done := r.cli("cold_search", "search", query, "--json")):
        res["cold_search_s"] = round(done[0], 2)
    if "tui" not in skip and (step := r.step("tui")):
        res["tui_first_paint_s"] = step[2]["first_paint_s"]
        res["tui_open_s"] = step[2]["open_s"]
        res["tui_first_paint_cpu_s"] = step[2]["first_paint_cpu_s"]
        if "hybrid_paint_s" in step[2]:
            res["tui_hybrid_paint_s"] = step[2]["hybrid_paint_s"]
    if "dedup" not in skip and (done := r.cli("dedup", "dedup", "--dry-run", "--json")):
        res["dedup_dry_run_s"] = round(done[0], 1)
        res["dedup_groups"] = len(json.loads(done[2]).get("groups", []))
    if snapshot:  # the N home before the steps below change it (to time a step again)
        shutil.copytree(home / "data", home / "snapshot-data")
    add = inputs / "add.jsonl.gz"
    if "add" not in skip and (done := r.cli("add_ingest", "ingest", "papers", str(add), "--quiet")):
        bm25 = r.step("bm25", label="add_bm25")
        if bm25:
            res["add_10k_bm25_s"] = round(done[0] + bm25[0], 1)
            res["add_10k_ingest_s"] = round(done[0], 1)  # the rest: the BM25 step's process
            res["add_10k_bm25_build_s"] = round(bm25[2]["paper_s"], 1)
            dense = None
            if "dense" not in skip and r.step("standins", label="add_standins"):
                dense = r.step("dense", label="add_dense")
            if dense:
                res["add_10k_hybrid_s"] = round(res["add_10k_bm25_s"] + dense[0], 1)
    if "import" not in skip:
        # the first import into a store built by JSONL ingests derives the identity keys of
        # every stored paper (once, in committed chunks): timed apart, with a 1-record import
        keys = r.cli("identity_keys", "ingest", "papers", str(inputs / "keys.json"), "--json")
        if keys:
            res["identity_keys_s"] = round(keys[0], 1)
        done = r.cli("import", "ingest", "papers", str(inputs / "import.json"), "--json")
        if done:
            res["import_10k_s"] = round(done[0], 1)
            report = json.loads(done[2])
            res["import_10k_counts"] = {
                k: v for k, v in report.get("counts", report).items() if isinstance(v, int)
            }
            res["rss_import_mb"] = round(done[1])
    res["cpu_s"] = r.cpu
    res["notes"] = r.notes
    return res


LABELS = [
    ("papers", "papers (synthetic past 19,639)"),
    ("ingest_per_s", "ingest records/s"),
    ("bm25_build_s", "BM25 build s"),
    ("encoder_per_s", "encoder passages/s (real text)"),
    ("dense_build_s", "dense build s"),
    ("disk_mb", "store + indexes MB"),
    ("rss_build_mb", "peak RSS of a build MB"),
    ("rss_search_mb", "search process RSS MB"),
    ("query_p50_ms", "papers query p50 ms"),
    ("query_p95_ms", "papers query p95 ms"),
    ("year_query_p50_ms", "papers + year filter p50 ms"),
    ("year_query_p95_ms", "papers + year filter p95 ms"),
    ("dataset_query_p50_ms", "datasets query p50 ms"),
    ("cold_search_s", "cold `litsift search` s"),
    ("tui_first_paint_s", "TUI start to first painted results s"),
    ("tui_first_paint_cpu_s", "TUI start to first painted results CPU s"),
    ("tui_hybrid_paint_s", "TUI start to first painted hybrid results s"),
    ("add_10k_bm25_s", "+10K papers until BM25-searchable s"),
    ("add_10k_hybrid_s", "+10K papers until hybrid s"),
    ("dedup_dry_run_s", "`litsift dedup --dry-run` s"),
    ("identity_keys_s", "identity keys of the N stored papers (first import) s"),
    ("import_10k_s", "import 10K CSL-JSON records s"),
    ("rss_import_mb", "import peak RSS MB"),
]


def table(res: dict[str, Any]) -> str:
    lines = ["| quantity | value |", "|---|---:|"]
    for key, label in LABELS:
        value = res.get(key)
        if key == "dense_build_s" and "dense_real_vectors" in res:
            label += (
                f" ({res['dense_real_vectors']:,} real vectors, "
                f"{res.get('dense_standin_vectors', 0):,} stand-ins)"
            )
        lines.append(f"| {label} | {'—' if value is None else value} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--papers", type=int, required=True)
    ap.add_argument("--json", action="store_true", help="also print one JSON line")
    ap.add_argument("--home", type=Path, default=None, help="build here (kept); default a temp dir")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per step")
    ap.add_argument(
        "--snapshot",
        action="store_true",
        help="keep a copy of the N home's data before the +10K and import steps (with --home)",
    )
    ap.add_argument(
        "--skip",
        default="",
        help="comma list of: encoder,dense,search,cold_search,tui,dedup,add,import; bm25 skips "
        "every index build and what needs one (the store alone)",
    )
    args = ap.parse_args()
    _patch_wait()
    home = args.home or Path(tempfile.mkdtemp(prefix="litsift-scale-"))
    if home.exists() and any(home.iterdir()):
        sys.exit(f"{home}: not empty; give a new --home")
    try:
        skip = set(filter(None, args.skip.split(",")))
        res = measure(args.papers, home, args.timeout, skip, args.snapshot and bool(args.home))
    finally:
        if args.home is None:
            shutil.rmtree(home, ignore_errors=True)
    print(table(res))
    if res.get("synthetic_papers"):
        print(
            f"\n{res['synthetic_papers']:,} of {args.papers:,} papers are synthetic "
            "(titles, abstracts and authors recombined from the sample's)."
        )
    if res.get("dense_standin_vectors"):
        print(f"{res['dense_standin_vectors']:,} dense vectors are stand-ins (real + noise).")
    elif res.get("dense_real_vectors"):
        print(f"All {res['dense_real_vectors']:,} dense vectors are real (embedding cache).")
    print("CPU seconds per step (user + sys of its process): " + json.dumps(res["cpu_s"]))
    for name, why in res["notes"].items():
        print(f"note: {name}: {why}")
    if args.json:
        print(json.dumps(res))


if __name__ == "__main__":
    main()
