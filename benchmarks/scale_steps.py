"""The measured steps of ``benchmarks/scale.py``, each run in its own process.

``python benchmarks/scale_steps.py STEP HOME [ARGS]`` runs one step on the litsift home ``HOME``
with the project's real code paths and prints one JSON line (seconds, counts, the process's
peak RSS in MB). The parent (:mod:`scale`) reads the line and the child's rusage.

Steps:
    bm25        ``LitsiftService.build_index(kind, dense=False)`` for papers and datasets
    standins    fill the embedding cache (``LITSIFT_EMBED_CACHE_DIR``) with a vector for every
                stored record's passage text: its real all-MiniLM vector where the shared test
                cache (``LITSIFT_TEST_EMBED_CACHE``, ``/work/embed-cache``) has it, else a
                stand-in (a real sample vector + Gaussian noise, renormalised), so the dense
                build measures the hnswlib structure without hours of embedding. Without that
                cache (or with none of the store's texts in it) the step embeds the first
                ``LITSIFT_SCALE_SEED_VECTORS`` (256) papers itself and draws from those
    dense       ``LitsiftService.build_index(kind)`` (BM25 up to date, then dense from the cache)
    search      service search latency: papers hybrid with and without a year filter, datasets
    tui         the TUI (``create_app`` + Textual Pilot) from service open to the first painted
                results of one query (wall s and this process's CPU s), and to the first
                painted hybrid results when BM25 painted first while the dense graph loaded
    encoder     ``Encoder.encode_passages`` passages/s on real sample text, the cache off
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from litsift.paths import get_paths, shared_data_dir
from litsift.types import Kind, Query, YearRange

DATA = shared_data_dir()
PAPERS_GZ = DATA / "papers" / "ml-nlp-papers.jsonl.gz"
DATAFINDER = DATA / "eval" / "datafinder" / "test_data.jsonl"
REAL_CACHE = Path(os.environ.get("LITSIFT_TEST_EMBED_CACHE", "/work/embed-cache"))
#: Papers embedded here for real vectors when REAL_CACHE is missing or has none of the store's
#: texts: the stand-ins are drawn from them (``LITSIFT_SCALE_SEED_VECTORS``).
SEED = int(os.environ.get("LITSIFT_SCALE_SEED_VECTORS", "256"))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def service(home: str) -> Any:
    from litsift.service.facade import LitsiftService

    return LitsiftService(get_paths(home))


def queries(n: int) -> tuple[list[str], list[str]]:
    """DataFinder test queries: ``n`` full-sentence queries and ``n`` keyphrase queries."""
    full, keys = [], []
    with open(DATAFINDER, encoding="utf-8", newline="\n") as f:
        for line in f:
            row = json.loads(line)
            full.append(row["query"])
            keys.append(row["keyphrase_query"])
            if len(full) == n:
                break
    return full, keys


def step_bm25(home: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with service(home) as svc:
        for kind in (Kind.PAPER, Kind.DATASET):
            t = time.perf_counter()
            svc.build_index(kind, dense=False)
            out[f"{kind.value}_s"] = time.perf_counter() - t
    return out


def seed_vectors(svc: Any, n: int) -> dict[str, np.ndarray]:
    """Real vectors of the first ``n`` stored papers' passages, embedded now with the real
    encoder (~10 s for 256 on 2 cores), so the step needs no cache made elsewhere."""
    from litsift.search.retrieval.record_text import passage_text

    texts: list[str] = []
    for batch in svc.store.rows_since(Kind.PAPER, 0, batch_size=max(1, n)):
        texts = list(dict.fromkeys(passage_text(r) for r in batch))
        break
    if not texts:
        return {}
    print(f"standins: embedding {len(texts)} real passages to draw from", file=sys.stderr)
    return dict(zip(texts, svc.encoder.encode_passages(texts), strict=True))


def step_standins(home: str) -> dict[str, Any]:
    from litsift.cache.embeddings import EmbeddingCache
    from litsift.search.retrieval.record_text import passage_text

    t0 = time.perf_counter()
    with service(home) as svc:
        enc = svc.encoder
        real = EmbeddingCache(REAL_CACHE / "embeddings.sqlite") if REAL_CACHE.exists() else None
        target = svc.paths.embeddings_file
        assert target is not None and target != (REAL_CACHE / "embeddings.sqlite").resolve()
        cache = EmbeddingCache(target)
        rng = np.random.default_rng(0)
        pool: list[np.ndarray] = []
        found_real = standins = 0
        seeded: dict[str, np.ndarray] | None = None if real is None else {}
        for kind in (Kind.PAPER, Kind.DATASET):
            for batch in svc.store.rows_since(kind, 0, batch_size=2000):
                texts = [passage_text(r) for r in batch]
                vecs = np.zeros((len(texts), enc.dim), dtype=np.float32)
                have = np.zeros(len(texts), dtype=bool)
                if real is not None:
                    vecs, have = real.get(enc.cache_key, texts, enc.dim)
                if seeded is None or (not pool and not have.any() and not seeded):
                    seeded = seed_vectors(svc, SEED)  # no shared cache, or none of its texts
                    pool.extend(seeded.values())
                for i, t in enumerate(texts):
                    if not have[i] and t in seeded:
                        vecs[i], have[i] = seeded[t], True
                found_real += int(have.sum())
                if have.any() and len(pool) < 50_000:
                    pool.extend(vecs[have])
                missing = np.flatnonzero(~have)
                if len(missing):
                    if not pool:
                        raise SystemExit("no real vector found to make stand-ins from")
                    base = np.stack([pool[i] for i in rng.integers(0, len(pool), len(missing))])
                    noisy = base + rng.normal(0, 0.04, base.shape).astype(np.float32)
                    noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
                    vecs[missing] = noisy
                    standins += len(missing)
                cache.put(enc.cache_key, texts, vecs)
        cache.close()
    return {"real": found_real, "standins": standins, "s": time.perf_counter() - t0}


def step_dense(home: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with service(home) as svc:
        for kind in (Kind.PAPER, Kind.DATASET):
            t = time.perf_counter()
            report = svc.build_index(kind)
            out[f"{kind.value}_s"] = time.perf_counter() - t
            out[f"{kind.value}_stages"] = {k: round(v, 2) for k, v in report.stage_seconds.items()}
    return out


def pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(values), q)), 2)


def step_search(home: str, n: int = 40) -> dict[str, Any]:
    full, keys = queries(n)
    out: dict[str, Any] = {}
    t = time.perf_counter()
    with service(home) as svc:
        svc.search(Query(full[-1], Kind.PAPER))  # warm: opens indexes and the encoder
        out["open_s"] = round(time.perf_counter() - t, 2)
        runs = {
            "papers": [Query(q, Kind.PAPER) for q in full],
            "papers_years": [Query(q, Kind.PAPER, years=YearRange(2018, 2020)) for q in full],
            "datasets": [Query(q, Kind.DATASET) for q in keys],
        }
        for name, qs in runs.items():
            times = []
            for q in qs:
                t1 = time.perf_counter()
                res = svc.search(q)
                times.append(1000 * (time.perf_counter() - t1))
            out[name] = {"p50_ms": pct(times, 50), "p95_ms": pct(times, 95), "mode": _mode(res)}
    out["rss_mb"] = round(rss_mb())
    return out


def _mode(res: Any) -> str:
    return "+".join(res.signals_used) + (f" ({res.partial})" if res.partial else "")


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def step_tui(home: str) -> dict[str, Any]:
    t0, cpu0 = time.perf_counter(), cpu_s()
    from textual.screen import Screen
    from textual.widgets import Input

    from litsift.tui.app import create_app
    from litsift.tui.screens.search import SearchScreen

    full, _ = queries(1)
    text = full[0]
    painted: dict[str, float] = {}
    show, frame = SearchScreen._show, Screen._compositor_refresh
    shown: list[bool] = []

    hybrid: list[bool] = []

    def _show(screen: SearchScreen, result: Any, annotations: Any) -> None:
        show(screen, result, annotations)
        if result.query.text == text and result.hits:
            shown.append(True)
            if "dense" in result.signals_used:
                hybrid.append(True)

    def _frame(screen: Screen[Any]) -> None:
        frame(screen)
        if shown:
            if "first" not in painted:
                painted["first"] = time.perf_counter()
                painted["first_cpu"] = cpu_s()
        if hybrid:
            painted.setdefault("hybrid", time.perf_counter())

    SearchScreen._show = _show  # type: ignore[method-assign]
    Screen._compositor_refresh = _frame  # type: ignore[method-assign]
    svc = service(home)

    async def run() -> dict[str, float]:
        app = create_app(svc)
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            opened = time.perf_counter()
            bar = app.query_one("#query", Input)
            bar.focus()
            bar.value = text
            t1 = time.perf_counter()
            await pilot.press("enter")
            for _ in range(60000):
                if "first" in painted:
                    break
                await pilot.pause(0.005)
            # BM25 may paint first while the dense graph loads: then the hybrid repaint
            for _ in range(12000):
                if "hybrid" in painted or not app.busy:
                    break
                await pilot.pause(0.005)
            out = {
                "open_s": opened - t0,
                "first_paint_s": painted["first"] - t0,
                "first_paint_cpu_s": painted["first_cpu"] - cpu0,
                "enter_to_paint_s": painted["first"] - t1,
            }
            if "hybrid" in painted:
                out["hybrid_paint_s"] = painted["hybrid"] - t0
            return out

    out = asyncio.run(run())
    svc.close()
    return {**{k: round(v, 3) for k, v in out.items()}, "rss_mb": round(rss_mb())}


def step_encoder(home: str, n: int = 120) -> dict[str, Any]:
    os.environ["LITSIFT_EMBED_CACHE_DIR"] = "off"
    from litsift.models_onnx import load_encoder
    from litsift.search.retrieval.record_text import passage_text
    from litsift.store.records import normalize, row_to_record

    rows = []
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        for i, line in enumerate(f):
            if i % 97 == 0:  # spread over venues and years
                rows.append(json.loads(line))
            if len(rows) == n:
                break
    texts = [
        passage_text(row_to_record(Kind.PAPER, (i + 1, *normalize(Kind.PAPER, r), "", "")))
        for i, r in enumerate(rows)
    ]
    enc = load_encoder()
    enc.passage_cache = None
    enc.encode_passages(texts[:4])
    t = time.perf_counter()
    enc.encode_passages(texts)
    s = time.perf_counter() - t
    return {"passages": len(texts), "per_s": round(len(texts) / s, 1)}


STEPS = {
    "bm25": step_bm25,
    "standins": step_standins,
    "dense": step_dense,
    "search": step_search,
    "tui": step_tui,
    "encoder": step_encoder,
}

if __name__ == "__main__":
    step, home = sys.argv[1], sys.argv[2]
    result = STEPS[step](home)
    result.setdefault("rss_mb", round(rss_mb()))
    print("STEP " + json.dumps(result), flush=True)
