"""Why bge-small loses to MiniLM on DataFinder and DORIS-MAE: three probes (issue 19, round 11).

Run after ``benchmarks/encoder_choice.py`` (it builds the per-model eval homes and runs under
``<cache>/eval-models/``). Prints, not a pass/fail test:

1. **Encoder alone on DataFinder** (tune half, both query types): every dataset passage
   (:func:`litsift.search.retrieval.record_text.passage_text`) and query embedded by each model,
   exact cosine,
   the year cut-off, R@5 and MRR@5 -- no BM25, PRF, usage run, prior or re-ranker, so a gap
   here is the encoder's. Also the mean and standard deviation of the query-dataset cosines
   (bge's are compressed around 0.6).
2. **DORIS-MAE dev dense with and without the query instruction**: the stored vectors of each
   model's eval home, exact cosine, queries embedded with the model's ``query_prefix`` and
   without it; MRR@10 and the paired randomization test against the first model.
3. **Three-way fusion** of the runs ``encoder_choice.py`` wrote (depth 100): BM25 + MiniLM dense
   + bge dense, min-max interpolation at several weights and RRF, on SciFact (nDCG@10) and
   DORIS-MAE dev (RR@10), each against the default hybrid (BM25 0.5 + MiniLM 0.5), paired.

Usage::

    python benchmarks/encoder_probe.py [--models all-MiniLM-L6-v2,bge-small-en-v1.5-int8]
"""

from __future__ import annotations

import argparse
import sqlite3
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
import numpy.typing as npt

from litsift.eval.benchmarks import Benchmark, EvalQuery, query_half
from litsift.eval.cli_support import default_data_dir
from litsift.eval.loaders import load_benchmark
from litsift.eval.measures import paired_test
from litsift.models_onnx import load_encoder
from litsift.paths import get_paths
from litsift.search.retrieval.dense import DenseIndex
from litsift.search.retrieval.fusion import interpolate, rrf
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Dataset

Scores = npt.NDArray[np.float64]


def corpus_datasets(bench: Benchmark) -> list[Dataset]:
    """DataFinder's dataset rows as records, ``rowid`` = position in the corpus."""
    return [
        Dataset(
            id=str(r["id"]),
            variants=tuple(r.get("variants") or ()),
            description=str(r.get("description") or ""),
            intro_paper_title=str(r.get("intro_paper_title") or ""),
            year=r.get("year"),
            rowid=i,
        )
        for i, r in enumerate(bench.corpus())
    ]


def datafinder_at_5(
    sims: npt.NDArray[np.floating[Any]],
    queries: Sequence[EvalQuery],
    ids: Sequence[str],
    years: npt.NDArray[np.integer[Any]],
    qrels: Mapping[str, Mapping[str, int]],
) -> tuple[list[float], list[float]]:
    """Per-query R@5 and RR@5 of exact-cosine rankings under DataFinder's year cut-off.

    Args:
        sims: ``(queries, datasets)`` cosines.
        queries: the queries (their ``year`` is the cut-off).
        ids: ``(datasets,)`` TREC-safe dataset ids.
        years: ``(datasets,)`` years, -1 for none (always eligible).
        qrels: ``{qid: {docid: relevance}}``.
    """
    r5, rr = [], []
    for i, q in enumerate(queries):
        s = np.array(sims[i], dtype=np.float64)
        if q.year is not None:
            s[years > q.year] = -np.inf
        top = np.argsort(-s)[:5]
        rel = {d for d, v in qrels[q.qid].items() if v > 0}
        hits = [ids[j] in rel for j in top]
        r5.append(sum(hits) / len(rel))
        rr.append(next((1 / (k + 1) for k, h in enumerate(hits) if h), 0.0))
    return r5, rr


def datafinder_probe(data: Path, models: list[str]) -> None:
    bench = load_benchmark("datafinder", data)
    recs = corpus_datasets(bench)
    ids = [r.id.replace(" ", "_") for r in recs]
    years = np.array([-1 if r.year is None else int(r.year) for r in recs])
    texts = [passage_text(r) for r in recs]
    print("1. DataFinder tune half, encoder alone (exact cosine, year cut-off), R@5 / MRR@5")
    for model in models:
        enc = load_encoder(model)
        docs = np.asarray(enc.encode_passages(texts))
        for qset in bench.query_sets:
            qs = [q for q in qset.queries if query_half(q.qid) == "tune"]
            sims = np.asarray(enc.encode_queries([q.text for q in qs])) @ docs.T
            r5, rr = datafinder_at_5(sims, qs, ids, years, bench.qrels)
            print(
                f"  {model:26s} {qset.name:16s} R@5 {100 * np.mean(r5):5.1f}  MRR "
                f"{100 * np.mean(rr):5.1f}  cosine mean {sims.mean():.3f} sd {sims.std():.3f}"
            )


def doris_probe(data: Path, models: list[str], root: Path) -> None:
    bench = load_benchmark("doris-mae-dev", data)
    qs = bench.query_sets[0].queries
    print("2. DORIS-MAE dev dense (stored vectors, exact cosine), MRR@10")
    out: dict[str, Scores] = {}
    for model in models:
        home = root / model.replace("/", "--") / "doris-mae-dev" / "data"
        index = DenseIndex.open(home / "indexes" / "paper" / "dense.bin")
        labels = index.labels()
        _, docs = index.vectors(labels)
        with sqlite3.connect(home / "litsift.sqlite") as conn:
            doc_id = dict(conn.execute("SELECT rowid, id FROM papers"))
        ids = [doc_id[int(r)] for r in labels]
        enc = load_encoder(model)
        prefixes = [enc.spec.query_prefix] + ([""] if enc.spec.query_prefix else [])
        for prefix in prefixes:
            enc.spec = replace(enc.spec, query_prefix=prefix)
            sims = np.asarray(enc.encode_queries([q.text for q in qs])) @ docs.T
            rr = []
            for i, q in enumerate(qs):
                rel = {d for d, v in bench.qrels[q.qid].items() if v > 0}
                top = np.argsort(-sims[i])[:10]
                rr.append(next((1 / (k + 1) for k, j in enumerate(top) if ids[j] in rel), 0.0))
            key = f"{model} ({'instruction' if prefix else 'no prefix'})"
            out[key] = np.array(rr)
            line = f"  {key:42s} MRR@10 {100 * np.mean(rr):5.1f}"
            first = next(iter(out))
            if key != first:
                t = paired_test(out[key], out[first])
                line += (
                    f"   vs {first}: {100 * t.diff:+.1f} ({t.wins}/{t.losses}, p {t.p_value:.3f})"
                )
            print(line)


def _load_run(path: Path) -> dict[str, list[tuple[str, float]]]:
    runs: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        runs[qid].append((doc, float(score)))
    return runs


def _fused(
    triple: dict[str, dict[str, list[tuple[str, float]]]],
    qids: list[str],
    qrels: list[ir_measures.Qrel],
    measure: object,
    weights: dict[str, float],
    method: str,
) -> Scores:
    """Per-query ``measure`` of the fusion of the three runs (``qids`` order)."""
    run = []
    for q in qids:
        runs = {name: r.get(q, []) for name, r in triple.items()}
        if method == "rrf":
            fused = rrf({k: v for k, v in runs.items() if weights.get(k)})
        else:
            fused = interpolate(runs, weights)
        run += [ir_measures.ScoredDoc(q, str(f.docid), f.score) for f in fused[:100]]
    per = {r.query_id: r.value for r in ir_measures.iter_calc([measure], qrels, run)}
    return np.array([per.get(q, 0.0) for q in qids])


def fusion_probe(data: Path, models: list[str], root: Path) -> None:
    print("3. three-way fusion of the encoder_choice.py runs (depth 100), paired vs the default")
    mini, bge = models[0], models[1]
    for name, split, measure in (("scifact", "test", "nDCG@10"), ("doris-mae-dev", "dev", "RR@10")):
        runs_dir = root / "runs"
        bm = _load_run(runs_dir / mini / name / f"{split}.bm25.trec")
        dm = _load_run(runs_dir / mini / name / f"{split}.dense.trec")
        db = _load_run(runs_dir / bge / name / f"{split}.dense.trec")
        bench = load_benchmark(name, data)
        qrels = [
            ir_measures.Qrel(q, d, int(v))
            for q, docs in bench.qrels.items()
            for d, v in docs.items()
        ]
        m = ir_measures.parse_measure(measure)
        qids = sorted(set(bm) | set(dm))
        triple = {"bm25": bm, "minilm": dm, "bge": db}
        args = (triple, qids, qrels, m)

        base = _fused(*args, {"bm25": 0.5, "minilm": 0.5}, "interpolate")
        print(f"  {name}: default hybrid (BM25 0.5 + MiniLM 0.5) {measure} {100 * base.mean():.1f}")
        variants: list[tuple[dict[str, float], str]] = [
            ({"bm25": 0.5, "bge": 0.5}, "interpolate"),
            ({"bm25": 0.4, "minilm": 0.3, "bge": 0.3}, "interpolate"),
            ({"bm25": 0.34, "minilm": 0.33, "bge": 0.33}, "interpolate"),
            ({"bm25": 0.5, "minilm": 0.25, "bge": 0.25}, "interpolate"),
            ({"minilm": 0.5, "bge": 0.5}, "interpolate"),
            ({"bm25": 1, "minilm": 1, "bge": 1}, "rrf"),
        ]
        for weights, method in variants:
            s = _fused(*args, weights, method)
            t = paired_test(s, base)
            label = method + " " + ", ".join(f"{k} {v:g}" for k, v in weights.items())
            print(
                f"    {label:44s} {100 * s.mean():5.1f}  {100 * t.diff:+.1f} "
                f"({t.wins}/{t.losses}, p {t.p_value:.3f})"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="all-MiniLM-L6-v2,bge-small-en-v1.5-int8")
    ap.add_argument("--data", type=Path, default=None)
    args = ap.parse_args()
    models = args.models.split(",")
    data = args.data or default_data_dir()
    root = get_paths().cache_dir / "eval-models"
    datafinder_probe(data, models)
    doris_probe(data, models, root)
    fusion_probe(data, models, root)


if __name__ == "__main__":
    main()
