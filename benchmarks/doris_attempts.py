"""DORIS-MAE dev known-item search: the paper-ranking variants tried in round 7.

Prints (not a pass/fail test), for each variant, MRR@10 and R@10 on all 40 dev queries and on
the fixed tune / held-out halves (``litsift.eval.benchmarks.query_half``), and the two-sided p
of a paired randomization test (``litsift.eval.measures.paired_test``) of its per-query RR@10
against the default hybrid and against dense only. Measures come from ir-measures.

The candidates are what ``service.search`` would see, made exact: BM25 top ``k0`` from the eval
home's tantivy index (the default query handling), dense cosine against every stored vector
(a brute-force scan instead of hnswlib, so the variants differ only in what they change).
Variants:

* the default interpolation (min-max, BM25 weight 0.5, k0 100) and its neighbours: BM25 weight
  0.4 / 0.6, z-score normalisation, k0 500 / 1000, RRF (k 60);
* ``--long-passages``: abstracts over 256 tokens re-embedded with up to 512 tokens (MiniLM
  has 512 positions; sentence-transformers cuts at 256), alone and averaged with the 256-token
  vector (about 10 min on a 2-core AMD EPYC: 4,374 abstracts);
* ``--late-interaction``: the default's top 30 re-scored by BERTScore-style MaxSim over MiniLM's
  token vectors with corpus IDF weights (Zhang et al. 2020, "BERTScore", ICLR, eq. 1-4; recall,
  precision, F1), min-max interpolated 0.5 with the hybrid (about 4 min: 1,200 abstracts).

This tunes on DORIS-MAE, so no number here is unbiased; docs/EVALUATION-RESULTS.md round 7.
Run: ``python benchmarks/doris_attempts.py [--long-passages] [--late-interaction]``.
"""

from __future__ import annotations

import argparse
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from litsift.config import SearchSettings
from litsift.eval.benchmarks import query_half
from litsift.eval.loaders import load_benchmark
from litsift.eval.measures import paired_test, per_query
from litsift.eval.runner import eval_home, prepare_home
from litsift.eval.trec import Run as TrecRun
from litsift.eval.trec import trec_id
from litsift.models_onnx.encoder import Encoder
from litsift.paths import shared_data_dir
from litsift.search.retrieval.fusion import Fused, interpolate, rrf, single
from litsift.search.retrieval.query import bm25_query_text
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Kind, YearRange

DATA = shared_data_dir()
MEASURES = ("RR@10", "R@10")
#: BERT's special tokens in the MiniLM vocabulary ([PAD], [UNK], [CLS], [SEP], [MASK]).
SPECIAL_IDS = frozenset({0, 100, 101, 102, 103})
LATE_POOL = 30
#: the defaults the variants move away from (papers: min-max interpolation)
K0 = SearchSettings().k0
W_BM25 = SearchSettings().bm25_weight

Scores = npt.NDArray[np.float32]


def top_run(scores: Scores, labels: npt.NDArray[np.int64], k0: int) -> list[tuple[int, float]]:
    """The ``k0`` best ``(rowid, score)`` of a full score vector, best first."""
    idx = np.argsort(-scores, kind="stable")[:k0]
    return [(int(labels[i]), float(scores[i])) for i in idx]


def as_trec(fused: Sequence[Fused], ids: dict[int, str], depth: int = 100) -> dict[str, float]:
    return {trec_id(ids[int(f.docid)]): float(depth - i) for i, f in enumerate(fused[:depth])}


def token_vectors(
    encoder: Encoder, texts: Sequence[str]
) -> list[tuple[npt.NDArray[np.int64], Scores]]:
    """Contextual token vectors before pooling, for late interaction (BERTScore's MaxSim).

    One ONNX run per text through the encoder's public session and tokenizer
    (:attr:`Encoder.session`, :attr:`Encoder.tokenizer`), so no padding enters a text's
    vectors; their mean, L2-normalised, is the text's passage vector. No prefix is added.

    Args:
        encoder: the bi-encoder (mean pooling: all-MiniLM-L6-v2).
        texts: texts, each truncated to ``encoder.max_length`` tokens.

    Returns:
        Per text: its ``(n,)`` token ids (special tokens included) and the ``(n, dim)`` float32
        last hidden states, not normalised.
    """
    session = encoder.session
    inputs = {i.name for i in session.get_inputs()}
    output = session.get_outputs()[0].name
    out = []
    for text in texts:
        enc = encoder.tokenizer.encode(text)
        feed = {
            "input_ids": np.asarray([enc.ids], dtype=np.int64),
            "attention_mask": np.asarray([enc.attention_mask], dtype=np.int64),
            "token_type_ids": np.asarray([enc.type_ids], dtype=np.int64),
        }
        hidden = session.run([output], {k: v for k, v in feed.items() if k in inputs})[0]
        out.append((np.asarray(enc.ids, dtype=np.int64), np.asarray(hidden[0], dtype=np.float32)))
    return out


def bertscore(
    q: tuple[npt.NDArray[np.int64], Scores], d: tuple[npt.NDArray[np.int64], Scores], idf: Scores
) -> tuple[float, float, float]:
    """IDF-weighted BERTScore (recall, precision, F1) of document ``d`` against query ``q``.

    Recall: each query token's best cosine over the document's tokens, IDF-weighted mean;
    precision: the same from the document's side; F1 their harmonic mean (Zhang et al. 2020).
    Special tokens are left out.
    """
    (qi, qh), (di, dh) = q, d
    qm = np.array([i not in SPECIAL_IDS for i in qi])
    dm = np.array([i not in SPECIAL_IDS for i in di])
    qv = qh[qm] / np.linalg.norm(qh[qm], axis=1, keepdims=True)
    dv = dh[dm] / np.linalg.norm(dh[dm], axis=1, keepdims=True)
    sim = qv @ dv.T
    wq, wd = idf[qi[qm]], idf[di[dm]]
    r = float((sim.max(axis=1) * wq).sum() / wq.sum())
    p = float((sim.max(axis=0) * wd).sum() / wd.sum())
    return r, p, (2 * r * p / (r + p) if r + p > 0 else 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=DATA)
    ap.add_argument("--long-passages", action="store_true")
    ap.add_argument("--late-interaction", action="store_true")
    args = ap.parse_args()

    bench = load_benchmark("doris-mae-dev", args.data_dir)
    svc, _ = prepare_home(bench, eval_home(bench))
    enc = svc.encoder
    papers = svc.searcher(Kind.PAPER)
    bm25, dense = papers.bm25, papers.dense
    labels = dense.labels()
    _, vecs = dense.vectors(labels)
    with sqlite3.connect(svc.paths.store_file) as con:
        ids = {int(r): str(i) for r, i in con.execute("SELECT rowid, id FROM papers")}
    queries = list(bench.query_sets[0].queries)
    qids = [q.qid for q in queries]
    t0 = time.perf_counter()
    # one query per ONNX run, as service.search does: int8 dynamic quantisation scales
    # activations per batch, so a query embedded among others gets a slightly different vector
    qvecs = np.concatenate([enc.encode_queries([q.text]) for q in queries])
    bm_runs = [
        bm25.search(bm25_query_text(q.text, svc.config.search.bm25_query), 1000, YearRange())
        for q in queries
    ]
    print(f"{len(queries)} queries, {len(labels):,} papers ({time.perf_counter() - t0:.0f} s)")

    def hybrid_runs(
        dense_scores: Sequence[Scores],
        k0: int = K0,
        w: float = W_BM25,
        fuse: str = "minmax",
    ) -> list[list[Fused]]:
        out = []
        for bm, ds in zip(bm_runs, dense_scores, strict=True):
            runs = {"bm25": bm[:k0], "dense": top_run(ds, labels, k0)}
            if fuse == "rrf":
                out.append(rrf(runs, k=60))
            else:
                out.append(interpolate(runs, {"bm25": w, "dense": 1 - w}, norm=fuse))
        return out

    dense_scores = [vecs @ q for q in qvecs]
    systems: dict[str, list[list[Fused]]] = {}
    systems["bm25"] = [single("bm25", r) for r in bm_runs]
    systems["dense"] = [single("dense", top_run(ds, labels, K0)) for ds in dense_scores]
    systems["hybrid (default)"] = hybrid_runs(dense_scores)
    systems["hybrid, BM25 weight 0.4"] = hybrid_runs(dense_scores, w=0.4)
    systems["hybrid, BM25 weight 0.6"] = hybrid_runs(dense_scores, w=0.6)
    systems["hybrid, z-score"] = hybrid_runs(dense_scores, fuse="zscore")
    systems["hybrid, k0 500"] = hybrid_runs(dense_scores, k0=500)
    systems["hybrid, k0 1000"] = hybrid_runs(dense_scores, k0=1000)
    systems["RRF k 60"] = hybrid_runs(dense_scores, fuse="rrf")

    if args.long_passages:
        t0 = time.perf_counter()
        recs = svc.store.get_by_rowids(Kind.PAPER, [int(r) for r in labels])
        texts = [passage_text(recs[int(r)]) for r in labels]
        long = np.array([i for i, t in enumerate(texts) if enc.token_count(t) > enc.max_length])
        enc512 = Encoder(replace(enc.spec, max_length=512), enc.onnx_path)
        v512 = enc512.encode_passages([texts[i] for i in long])
        only = vecs.copy()
        only[long] = v512
        mean = vecs.copy()
        both = vecs[long] + v512
        mean[long] = both / np.linalg.norm(both, axis=1, keepdims=True)
        took = time.perf_counter() - t0
        print(f"{len(long):,} abstracts over 256 tokens re-embedded ({took:.0f} s)")
        for name, m in (("512-token passages", only), ("mean of 256 + 512", mean)):
            ds = [m @ q for q in qvecs]
            systems[f"dense, {name}"] = [single("dense", top_run(x, labels, K0)) for x in ds]
            systems[f"hybrid, {name}"] = hybrid_runs(ds)

    if args.late_interaction:
        t0 = time.perf_counter()
        with sqlite3.connect(svc.paths.store_file) as con:
            abstracts = [a for (a,) in con.execute("SELECT abstract FROM papers")]
        tokenizer = Tokenizer.from_file(str(enc.onnx_path.parent / "tokenizer.json"))
        tokenizer.no_truncation()
        tokenizer.no_padding()
        df = np.zeros(tokenizer.get_vocab_size(), dtype=np.int64)
        for e in tokenizer.encode_batch(abstracts):
            df[np.unique(e.ids)] += 1
        idf = np.log((len(abstracts) + 1) / (df + 1)).astype(np.float32)
        scored = []
        for q, fused in zip(queries, systems["hybrid (default)"], strict=True):
            pool = list(fused[:LATE_POOL])
            recs = svc.store.get_by_rowids(Kind.PAPER, [int(f.docid) for f in pool])
            qt = token_vectors(enc, [q.text])[0]
            dts = token_vectors(enc, [passage_text(recs[int(f.docid)]) for f in pool])
            scored.append((pool, np.array([bertscore(qt, dt, idf) for dt in dts])))
        print(f"late interaction over the top {LATE_POOL} ({time.perf_counter() - t0:.0f} s)")
        for col, name in enumerate(("recall", "precision", "F1")):
            runs = []
            for pool, sc in scored:
                runs.append(
                    interpolate(
                        {
                            "hybrid": [(f.docid, f.score) for f in pool],
                            "bertscore": [
                                (f.docid, float(s)) for f, s in zip(pool, sc[:, col], strict=True)
                            ],
                        },
                        {"hybrid": 0.5, "bertscore": 0.5},
                    )
                )
            systems[f"hybrid top {LATE_POOL} + BERTScore {name} (0.5)"] = runs

    values: dict[str, dict[str, npt.NDArray[np.float64]]] = {}
    for name, per_q in systems.items():
        run: TrecRun = {qid: as_trec(f, ids) for qid, f in zip(qids, per_q, strict=True)}
        values[name] = per_query(MEASURES, bench.qrels, run, qids)
    halves = {h: np.array([query_half(q) == h for q in qids]) for h in ("tune", "heldout")}
    head = (
        f"{'system':52} {'MRR@10 all / tune / held-out':>30} {'R@10':>6} "
        f"{'p vs hybrid':>12} {'p vs dense':>11}"
    )
    print(head + "\n" + "-" * len(head))
    for name, v in values.items():
        rr = v["RR@10"]
        parts = " / ".join(
            f"{100 * x:4.1f}"
            for x in (rr.mean(), rr[halves["tune"]].mean(), rr[halves["heldout"]].mean())
        )
        p_h = paired_test(rr, values["hybrid (default)"]["RR@10"]).p_value
        p_d = paired_test(rr, values["dense"]["RR@10"]).p_value
        print(f"{name:52} {parts:>30} {100 * v['R@10'].mean():6.1f} {p_h:12.2g} {p_d:11.2g}")
    print(
        "\npercentages; p: two-sided paired randomization test of per-query RR@10 "
        f"(10,000 sign flips); {int(halves['tune'].sum())} tune / "
        f"{int(halves['heldout'].sum())} held-out queries"
    )
    svc.close()


if __name__ == "__main__":
    main()
