"""Index build rate and query latency of litsift's retrieval, with bm25s as the peer BM25.

On the paper sample (../shared/data/papers/ml-nlp-papers.jsonl.gz, 19,639 papers) in a
temporary LITSIFT_HOME:

1. ingest into the SQLite store, then build the indexes with ``build_index``: BM25 (tantivy)
   and dense (int8 ONNX all-MiniLM-L6-v2 + hnswlib) seconds and documents/s, separately;
2. bm25s (``method="lucene"``, k1 1.2, b 0.75, PyStemmer English, English stopwords) indexes
   the same text (``record_fields`` joined): seconds and documents/s;
3. a mixed query set (paper titles and first sentences of abstracts drawn from the corpus,
   DataFinder keyphrase and full-sentence queries from ../shared/data/eval/datafinder) is run
   once without and once with a year filter, for: hybrid (``KindSearcher.search`` with the
   default paper settings of ``SearchSettings`` (min-max interpolation), and with RRF; query
   encoding included), tantivy BM25 alone, dense alone (encoder + hnswlib), bm25s alone
   (tokenise + score + top-k0, year filter as ``weight_mask``). Latencies are p50/p95 in ms.

Usage::

    python benchmarks/search_latency.py [--limit N] [--queries-per-type 40] [--k0 100] [--k 10]
        [--json out.json] [--keep-home]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from litsift.config import SearchSettings
from litsift.models_onnx import load_encoder
from litsift.paths import get_paths
from litsift.search.indexer import build_index, open_indexes
from litsift.search.searcher import KindSearcher, Ranking
from litsift.search.text import ALL_FIELD, record_fields
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind, Query, YearRange

SHARED = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data").resolve()
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--limit", type=int, default=0, help="index only the first N papers")
    ap.add_argument("--queries-per-type", type=int, default=40)
    ap.add_argument("--k0", type=int, default=100)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--json", type=Path, help="also write the numbers to this file")
    ap.add_argument("--keep-home", action="store_true", help="keep the temporary LITSIFT_HOME")
    args = ap.parse_args()

    papers = read_jsonl(PAPERS_GZ)
    if args.limit:
        papers = papers[: args.limit]
    home = Path(tempfile.mkdtemp(prefix="litsift-bench-"))
    paths = get_paths(home).ensure()
    corpus = home / "papers.jsonl"
    corpus.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    store = Store(paths.store_file)
    t = time.perf_counter()
    ingest_jsonl(store, Kind.PAPER, corpus)
    ingest_s = time.perf_counter() - t
    n = store.count(Kind.PAPER)
    encoder = load_encoder()

    last: dict[str, tuple[int, int]] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "embed" and done - last.get(stage, (0, 0))[0] >= 2000:
            print(f"  embed {done:,}/{total:,}", flush=True)
            last[stage] = (done, total)

    print(f"{n:,} papers ingested in {ingest_s:.1f} s; building indexes ...", flush=True)
    report = build_index(store, encoder, Kind.PAPER, paths.index_dir, progress=progress)
    st = report.stage_seconds
    records = [r for batch in store.rows_since(Kind.PAPER, 0) for r in batch]
    texts = [record_fields(r)[ALL_FIELD] for r in records]  # the text our BM25 scores
    peer = BM25sPeer(texts, [r.year for r in records], args.k0)

    bm25, dense, _ = open_indexes(paths.index_dir, Kind.PAPER, encoder)
    ybr = store.year_by_rowid(Kind.PAPER)
    queries = make_queries(papers, args.queries_per_type, args.seed)
    ranges = year_ranges(len(queries), args.seed)

    s = SearchSettings()  # the defaults service.search uses for papers

    searcher = KindSearcher(Kind.PAPER, bm25, dense, ybr, encoder, Ranking.for_kind(s, Kind.PAPER))

    def system(fusion: str) -> Callable[[str, YearRange], object]:
        return lambda text, years: searcher.search(
            Query(text, Kind.PAPER, years, args.k, args.k0, fusion)
        )

    systems: dict[str, Callable[[str, YearRange], object]] = {
        f"hybrid ({s.fusion}, default)": system(s.fusion),
        "hybrid (rrf)": system("rrf"),
        "tantivy bm25": lambda text, years: bm25.search(text, args.k0, years),
        "dense (encode+hnsw)": system("dense"),
        "bm25s": peer.search,
    }
    latency = {name: time_queries(run, queries, ranges) for name, run in systems.items()}

    bm25_s = st.get("bm25", 0.0)
    dense_s = st.get("embed", 0.0) + st.get("hnsw", 0.0)
    print(f"\nindex build over {n:,} papers ({len(queries)} queries, k0={args.k0}, k={args.k})")
    print(f"  {'tantivy bm25':24s} {bm25_s:8.1f} s  {n / max(bm25_s, 1e-9):10,.0f} docs/s")
    print(f"  {'bm25s':24s} {peer.index_seconds:8.1f} s  {n / peer.index_seconds:10,.0f} docs/s")
    print(f"  {'dense: embed + hnsw':24s} {dense_s:8.1f} s  {n / max(dense_s, 1e-9):10,.0f} docs/s")
    print(f"  {'  of which hnswlib':24s} {st.get('hnsw', 0.0):8.1f} s")
    print(f"\n{'query latency, ms':34s}  p50 all   p95 all   p50 year-filtered   p95 year-filtered")
    for name, (plain, filt) in latency.items():
        print(
            f"  {name:32s} {pct(plain, 50):8.2f}  {pct(plain, 95):8.2f}"
            f"  {pct(filt, 50):18.2f}  {pct(filt, 95):18.2f}"
        )
    tan, peer_lat = latency["tantivy bm25"], latency["bm25s"]
    ratio_q = statistics.median(peer_lat[0]) / statistics.median(tan[0])
    ratio_qf = statistics.median(peer_lat[1]) / statistics.median(tan[1])
    print("\nratios (bm25s / tantivy): ", end="")
    print(
        f"index time {peer.index_seconds / max(bm25_s, 1e-9):.2f}x, "
        f"median query {ratio_q:.2f}x, median filtered query {ratio_qf:.2f}x"
    )
    if args.json:
        out = {
            "n_docs": n,
            "n_queries": len(queries),
            "k0": args.k0,
            "index_seconds": {
                "tantivy_bm25": bm25_s,
                "bm25s": peer.index_seconds,
                "embed": st.get("embed", 0.0),
                "hnsw": st.get("hnsw", 0.0),
            },
            "latency_ms": {
                name: {
                    "p50": pct(p, 50),
                    "p95": pct(p, 95),
                    "p50_filtered": pct(f, 50),
                    "p95_filtered": pct(f, 95),
                }
                for name, (p, f) in latency.items()
            },
        }
        args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")
    store.close()
    if args.keep_home:
        print(f"\nLITSIFT_HOME kept at {home}")
    else:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
