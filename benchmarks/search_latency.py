"""Query latency of litsift's retrieval (papers and datasets), the CPU cost of aspect scoring and
the time to the first result of a cold ``litsift search``, with bm25s as the peer BM25.

By default on the DataFinder eval home (19.6K papers + 3.3K datasets, both indexed; built by
``litsift eval datafinder`` / ``benchmarks/run_eval.py datafinder`` on first use and reused
after, so a re-run takes minutes); ``--fresh`` instead ingests the paper sample into a temporary
home and builds its indexes first (~30 min of embedding on 2 cores), printing build seconds and
documents/s for tantivy, dense (int8 ONNX all-MiniLM-L6-v2 + hnswlib) and bm25s.

1. bm25s (``method="lucene"``, k1 1.2, b 0.75, PyStemmer English, English stopwords) indexes
   the same paper text (``record_fields`` joined): seconds and documents/s;
2. a mixed paper query set (titles and first sentences of abstracts drawn from the corpus,
   DataFinder keyphrase and full-sentence queries) is run once without and once with a year
   filter, for: hybrid (``KindSearcher.search`` with the default paper settings (min-max
   interpolation), and with RRF; query encoding included), ``service.search`` (hybrid + loading
   the k rows from SQLite), tantivy BM25 alone, dense alone (encoder + hnswlib), bm25s alone
   (tokenise + score + top-k0, year filter as ``weight_mask``). p50/p95 in ms;
3. dataset search: ``service.search`` with the default settings (hybrid + usage profiles +
   popularity prior + learned re-ranker) over DataFinder queries with their year bounds;
4. aspect scoring: process CPU time (``time.process_time``, all threads) of scoring a query's
   aspects on its top 50 hits with the records' sentences stored (``aspects_50_cpu_ms``) and
   cold, every sentence cut and embedded (``aspects_50_cold_cpu_ms``), median over a few
   queries;
5. cold start: wall time of a fresh ``litsift search QUERY`` subprocess on the home until it
   prints its first line (median of 3; papers, and ``--datasets``).

The last line printed is one JSON object: ``paper_p50_ms``, ``paper_p95_ms`` (hybrid, default,
unfiltered), ``dataset_p50_ms``, ``aspects_50_cpu_ms``, ``cold_search_s`` and more.

Usage::

    python benchmarks/search_latency.py [--fresh] [--limit N] [--queries-per-type 40]
        [--k0 100] [--k 10] [--json out.json] [--keep-home]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from litsift.eval.cli_support import default_data_dir
from litsift.eval.loaders import load_benchmark
from litsift.eval.runner import _years, eval_home, prepare_home
from litsift.paths import get_paths, shared_data_dir
from litsift.search.aspects.scoring import AspectScorer
from litsift.search.build.two_phase import build_in_two_phases
from litsift.search.retrieval.record_text import ALL_FIELD, record_fields
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query, YearRange

SHARED = shared_data_dir()
PAPERS_GZ = SHARED / "papers" / "ml-nlp-papers.jsonl.gz"
DATAFINDER = SHARED / "eval" / "datafinder" / "test_data.jsonl"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL(.gz) file, split on \\n only (U+2028 occurs inside strings)."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as f:
        return [json.loads(line) for line in f.read().split("\n") if line.strip()]


def make_queries(papers: list[dict[str, Any]], per_type: int, seed: int) -> list[tuple[str, str]]:
    """``(type, text)`` pairs: titles, abstract first sentences, DataFinder keyphrase/sentence."""
    rng = random.Random(seed)
    with_abstract = [p for p in papers if p.get("abstract")]
    titles = [("title", p["title"]) for p in rng.sample(papers, per_type)]
    sentences = [
        ("abstract sentence", p["abstract"].split(". ")[0])
        for p in rng.sample(with_abstract, per_type)
    ]
    df = rng.sample(read_jsonl(DATAFINDER), per_type)
    keyphrases = [("datafinder keyphrase", r["keyphrase_query"]) for r in df]
    full = [("datafinder sentence", r["query"]) for r in df]
    return titles + sentences + keyphrases + full


def year_ranges(n: int, seed: int) -> list[YearRange]:
    """A 3- to 6-year window per query, ending between 2014 and 2024, missing years excluded."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        end = rng.randint(2014, 2024)
        out.append(YearRange(end - rng.randint(2, 5), end, include_missing=False))
    return out


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000.0, q))


def time_queries(
    run: Callable[[str, YearRange], object], queries: list[tuple[str, str]], ranges: list[YearRange]
) -> tuple[list[float], list[float]]:
    """Seconds per query, unfiltered and filtered (one warm-up pass of 5 queries first)."""
    for _, text in queries[:5]:
        run(text, YearRange())
    plain, filtered = [], []
    for (_, text), years in zip(queries, ranges, strict=True):
        t = time.perf_counter()
        run(text, YearRange())
        plain.append(time.perf_counter() - t)
        t = time.perf_counter()
        run(text, years)
        filtered.append(time.perf_counter() - t)
    return plain, filtered


class BM25sPeer:
    """bm25s over the same text, timed the way it is meant to be used."""

    def __init__(self, texts: list[str], years: list[int | None], k0: int) -> None:
        import bm25s
        import Stemmer

        self.bm25s, self.k0 = bm25s, k0
        self.stemmer = Stemmer.Stemmer("english")
        self.years = np.array([-1 if y is None else y for y in years], dtype=np.int32)
        t = time.perf_counter()
        tokens = bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        self.retriever.index(tokens, show_progress=False)
        self.index_seconds = time.perf_counter() - t

    def search(self, text: str, years: YearRange) -> list[tuple[int, float]]:
        tokens = self.bm25s.tokenize(
            [text], stopwords="en", stemmer=self.stemmer, return_ids=False, show_progress=False
        )[0]
        tokens = [t for t in tokens if t in self.retriever.vocab_dict]
        if not tokens:
            return []
        mask = None
        if not years.is_unbounded:
            y = self.years
            keep = (y >= (years.start or -1)) & (y <= (years.end or 10_000)) & (y >= 0)
            mask = keep.astype(np.float32)
        scores = self.retriever.get_scores(tokens, weight_mask=mask)
        top = np.argpartition(-scores, min(self.k0, len(scores) - 1))[: self.k0]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(i), float(scores[i])) for i in top if scores[i] > 0]


def fresh_home(papers: list[dict[str, Any]]) -> tuple[Path, LitsiftService, dict[str, float]]:
    """Ingest ``papers`` into a temporary home and build its paper indexes (``--fresh``)."""
    home = Path(tempfile.mkdtemp(prefix="litsift-bench-"))
    paths = get_paths(home).ensure()
    corpus = home / "papers.jsonl"
    corpus.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    svc = LitsiftService(paths)
    t = time.perf_counter()
    svc.ingest(Kind.PAPER, corpus)
    print(f"{svc.counts()[Kind.PAPER]:,} papers ingested in {time.perf_counter() - t:.1f} s")
    last = [0]

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "embed" and done - last[0] >= 2000:
            print(f"  embed {done:,}/{total:,}", flush=True)
            last[0] = done

    report = build_in_two_phases(
        svc.store, svc.encoder, Kind.PAPER, paths.index_dir, progress=progress
    )
    return home, svc, dict(report.stage_seconds)


def cold_search(home: Path, args: list[str]) -> float:
    """Seconds from starting ``litsift search ARGS`` on ``home`` to its first printed line."""
    exe = Path(sys.executable).with_name("litsift")
    env = {**os.environ, "LITSIFT_HOME": str(home)}
    t = time.perf_counter()
    with subprocess.Popen(
        [str(exe), "search", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as proc:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        seconds = time.perf_counter() - t
        proc.communicate()
    if proc.returncode != 0 or not first:
        raise RuntimeError(f"litsift search {args} failed with exit code {proc.returncode}")
    return seconds


def aspects_cpu_ms(svc: LitsiftService, texts: list[str]) -> tuple[list[float], list[float]]:
    """CPU ms (all threads) of scoring the aspects of each text on its top 50 hits, twice with a
    fresh :class:`AspectScorer` (nothing in memory): cold -- no stored sentences, no vector
    cache, every sentence cut and embedded, as before sentences were stored -- and then with the
    sentences stored (the cold pass stored exactly what ``build_sentences`` stores).

    Returns:
        ``(stored, cold)`` lists of ms, the first text being a warm-up.
    """
    enc = svc.encoder
    stored: list[float] = []
    cold: list[float] = []
    for i, text in enumerate(texts):
        records = [h.record for h in svc.search(Query(text, Kind.PAPER, k=50)).hits]
        aspects = svc.decompose(text)
        saved, enc.passage_cache = enc.passage_cache, None
        try:
            t = time.process_time()
            first = AspectScorer(enc, sentences=svc.sentence_store).score(aspects, records)
            c = 1000 * (time.process_time() - t)
        finally:
            enc.passage_cache = saved
        t = time.process_time()
        again = AspectScorer(enc, sentences=svc.sentence_store).score(aspects, records)
        s = 1000 * (time.process_time() - t)
        if again != first:
            raise AssertionError("stored sentences changed the grades")
        if i > 0:
            cold.append(c)
            stored.append(s)
    return stored, cold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--fresh", action="store_true", help="ingest and index into a new home")
    ap.add_argument("--limit", type=int, default=0, help="with --fresh: the first N papers")
    ap.add_argument("--queries-per-type", type=int, default=40)
    ap.add_argument("--dataset-queries", type=int, default=100, help="per DataFinder query type")
    ap.add_argument("--aspect-queries", type=int, default=5)
    ap.add_argument("--k0", type=int, default=100)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json", type=Path, help="also write the numbers to this file")
    ap.add_argument("--keep-home", action="store_true", help="with --fresh: keep the home")
    args = ap.parse_args()

    papers = read_jsonl(PAPERS_GZ)
    bench = load_benchmark("datafinder", default_data_dir())
    st: dict[str, float] = {}
    if args.fresh:
        home, svc, st = fresh_home(papers[: args.limit] if args.limit else papers)
    else:
        home = eval_home(bench)
        print(f"DataFinder eval home {home} (built on first use) ...", flush=True)
        svc, _ = prepare_home(bench, home)
    store = svc.store
    n = store.count(Kind.PAPER)
    records = [r for batch in store.rows_since(Kind.PAPER, 0) for r in batch]
    texts = [record_fields(r)[ALL_FIELD] for r in records]  # the text our BM25 scores
    peer = BM25sPeer(texts, [r.year for r in records], args.k0)

    searcher = svc.searchers.of_kind(Kind.PAPER)
    bm25 = searcher.bm25
    queries = make_queries(papers, args.queries_per_type, args.seed)
    ranges = year_ranges(len(queries), args.seed)
    s = svc.config.search

    def system(fusion: str) -> Callable[[str, YearRange], object]:
        return lambda text, years: searcher.search(
            Query(text, Kind.PAPER, years, args.k, args.k0, fusion)
        )

    default = f"hybrid ({s.fusion}, default)"
    systems: dict[str, Callable[[str, YearRange], object]] = {
        default: system(s.fusion),
        "hybrid (rrf)": system("rrf"),
        "service.search (+ rows)": lambda text, years: svc.search(
            Query(text, Kind.PAPER, years, args.k, args.k0)
        ),
        "tantivy bm25": lambda text, years: bm25.search(text, args.k0, years),
        "dense (encode+hnsw)": system("dense"),
        "bm25s": peer.search,
    }
    latency = {name: time_queries(run, queries, ranges) for name, run in systems.items()}

    ds_queries = [q for qs in bench.query_sets for q in qs.queries[: args.dataset_queries]]
    dataset_s: list[float] = []
    if svc.counts()[Kind.DATASET]:
        for timed in (False, True):
            for q in ds_queries:
                t = time.perf_counter()
                svc.search(Query(q.text, Kind.DATASET, _years(q), args.k, args.k0))
                if timed:
                    dataset_s.append(time.perf_counter() - t)
    aspects, aspects_cold = aspects_cpu_ms(svc, [q for _, q in queries[: args.aspect_queries + 1]])
    svc.close()
    cold = [cold_search(home, [queries[i][1], "-k", "10"]) for i in range(3)]
    cold_ds = (
        [cold_search(home, ["--datasets", ds_queries[i].text]) for i in range(3)]
        if dataset_s
        else [float("nan")]
    )

    if st:
        bm25_s = st.get("bm25", 0.0)
        dense_s = st.get("embed", 0.0) + st.get("hnsw", 0.0)
        print(f"\nindex build over {n:,} papers")
        print(f"  {'tantivy bm25':24s} {bm25_s:8.1f} s  {n / max(bm25_s, 1e-9):10,.0f} docs/s")
        rate = n / max(dense_s, 1e-9)
        print(f"  {'dense: embed + hnsw':24s} {dense_s:8.1f} s  {rate:10,.0f} docs/s")
        print(f"  {'  of which hnswlib':24s} {st.get('hnsw', 0.0):8.1f} s")
    print(f"\nbm25s index over {n:,} papers: {peer.index_seconds:.1f} s")
    print(f"\n{len(queries)} paper queries, k0={args.k0}, k={args.k}")
    print(f"{'query latency, ms':34s}  p50 all   p95 all   p50 year-filtered   p95 year-filtered")
    for name, (plain, filt) in latency.items():
        print(
            f"  {name:32s} {pct(plain, 50):8.2f}  {pct(plain, 95):8.2f}"
            f"  {pct(filt, 50):18.2f}  {pct(filt, 95):18.2f}"
        )
    tan, peer_lat = latency["tantivy bm25"], latency["bm25s"]
    floor = statistics.median(peer_lat[0])
    print(
        f"\nratios: bm25s / tantivy median query {floor / statistics.median(tan[0]):.2f}x, "
        f"filtered {statistics.median(peer_lat[1]) / statistics.median(tan[1]):.2f}x; "
        f"hybrid / bm25s median {statistics.median(latency[default][0]) / floor:.1f}x"
    )
    if dataset_s:
        print(
            f"\ndataset search ({len(ds_queries)} DataFinder queries with their year bounds, "
            f"default settings): p50 {pct(dataset_s, 50):.2f} ms, p95 {pct(dataset_s, 95):.2f} ms"
        )
    a_stored, a_cold = statistics.median(aspects), statistics.median(aspects_cold)
    print(
        f"aspect scoring, top 50 hits: {a_stored:,.0f} ms CPU with the sentences stored, "
        f"{a_cold:,.0f} ms cold (median of {len(aspects)} queries; ratio {a_cold / a_stored:.0f}x)"
    )
    print(
        f"cold `litsift search` to first line: papers {statistics.median(cold):.2f} s, "
        f"--datasets {statistics.median(cold_ds):.2f} s (median of 3)"
    )
    plain = latency[default][0]
    out = {
        "paper_p50_ms": round(pct(plain, 50), 2),
        "paper_p95_ms": round(pct(plain, 95), 2),
        "paper_filtered_p50_ms": round(pct(latency[default][1], 50), 2),
        "paper_service_p50_ms": round(pct(latency["service.search (+ rows)"][0], 50), 2),
        "bm25s_p50_ms": round(pct(peer_lat[0], 50), 3),
        "dataset_p50_ms": round(pct(dataset_s, 50), 2) if dataset_s else None,
        "dataset_p95_ms": round(pct(dataset_s, 95), 2) if dataset_s else None,
        "aspects_50_cpu_ms": round(statistics.median(aspects)),
        "aspects_50_cold_cpu_ms": round(statistics.median(aspects_cold)),
        "cold_search_s": round(statistics.median(cold), 2),
        "cold_dataset_search_s": round(statistics.median(cold_ds), 2),
        "n_papers": n,
        "n_queries": len(queries),
    }
    if args.json:
        args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")
    if args.fresh and not args.keep_home:
        shutil.rmtree(home, ignore_errors=True)
    elif args.fresh:
        print(f"\nLITSIFT_HOME kept at {home}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
