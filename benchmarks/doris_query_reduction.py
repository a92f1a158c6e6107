"""DORIS-MAE dev: BM25 on the N highest-idf terms of each paragraph-long query (issue 19, round 11).

Long queries give BM25 many weak terms; a known remedy for verbose queries is to keep the most
discriminative ones. Here each query's distinct terms (``bm25_query_text`` with the default
``stop+request`` handling) are ranked by BM25's idf over the eval home's papers and the top N
kept; BM25 then runs through ``service.search`` (tantivy, the default index) on that text, and
the hybrid fuses it with the unchanged dense run of ``encoder_choice.py`` (min-max
interpolation 0.5 / 0.5, the BM25 floor of ``fusion.interpolate``). MRR@10 (ir-measures) and
the paired randomization test against the full query. Prints; needs the MiniLM DORIS-MAE home
and run of ``benchmarks/encoder_choice.py``.

Usage: ``python benchmarks/doris_query_reduction.py``
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter, defaultdict

import ir_measures
import numpy as np

from litsift.eval.cli_support import default_data_dir
from litsift.eval.loaders import load_benchmark
from litsift.eval.measures import paired_test
from litsift.paths import get_paths
from litsift.search.retrieval.fusion import interpolate
from litsift.search.retrieval.query import bm25_query_text
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query

TERMS = (None, 40, 25, 15)


def main() -> None:
    root = get_paths().cache_dir / "eval-models"
    home = root / "all-MiniLM-L6-v2" / "doris-mae-dev"
    bench = load_benchmark("doris-mae-dev", default_data_dir())
    queries = bench.query_sets[0].queries
    qrels = [ir_measures.Qrel(q, d, int(v)) for q, ds in bench.qrels.items() for d, v in ds.items()]
    with sqlite3.connect(home / "data" / "litsift.sqlite") as conn:
        rows = conn.execute("SELECT title, abstract FROM papers").fetchall()
    df: Counter[str] = Counter()
    for title, abstract in rows:
        df.update(set(bm25_query_text(f"{title} {abstract}", "stop").split()))
    n_docs = len(rows)

    def idf(term: str) -> float:
        d = df.get(term, 0)
        return math.log((n_docs - d + 0.5) / (d + 0.5) + 1)

    def reduced(text: str, n: int) -> str:
        terms = list(dict.fromkeys(bm25_query_text(text, "stop+request").split()))
        return " ".join(sorted(terms, key=lambda t: -idf(t))[:n])

    dense: dict[str, list[tuple[str, float]]] = defaultdict(list)
    run_file = root / "runs" / "all-MiniLM-L6-v2" / "doris-mae-dev" / "dev.dense.trec"
    for line in run_file.read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        dense[qid].append((doc, float(score)))
    rr10 = ir_measures.parse_measure("RR@10")

    def measure(runs: dict[str, list[tuple[object, float]]]) -> np.ndarray:
        run = [ir_measures.ScoredDoc(q, str(d), s) for q, hits in runs.items() for d, s in hits]
        per = {r.query_id: r.value for r in ir_measures.iter_calc([rr10], qrels, run)}
        return np.array([per.get(q.qid, 0.0) for q in queries])

    results: dict[int | None, tuple[np.ndarray, np.ndarray]] = {}
    with LitsiftService(get_paths(home)) as svc:
        for n in TERMS:
            bm25, hybrid = {}, {}
            for q in queries:
                text = q.text if n is None else reduced(q.text, n)
                hits = svc.search(Query(text, Kind.PAPER, k=100, k0=100, fusion="bm25")).hits
                bm25[q.qid] = [(h.docid, h.score) for h in hits]
                floor = {"bm25": 0.0} if len(hits) < 100 else None
                fused = interpolate(
                    {"bm25": bm25[q.qid], "dense": dense[q.qid]},
                    {"bm25": 0.5, "dense": 0.5},
                    exhaustive=floor,
                )
                hybrid[q.qid] = [(f.docid, f.score) for f in fused[:100]]
            results[n] = (measure(bm25), measure(hybrid))
            line = f"terms {n or 'all':>4}: BM25 {100 * results[n][0].mean():5.1f}  hybrid "
            line += f"{100 * results[n][1].mean():5.1f}"
            if n is not None:
                tb = paired_test(results[n][0], results[None][0])
                th = paired_test(results[n][1], results[None][1])
                line += (
                    f"   BM25 {100 * tb.diff:+.1f} ({tb.wins}/{tb.losses}, p {tb.p_value:.3f})"
                    f"  hybrid {100 * th.diff:+.1f} ({th.wins}/{th.losses}, p {th.p_value:.3f})"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
