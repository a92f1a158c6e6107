"""Sentence-level dense scores for papers: an abstract's best sentence next to its whole vector.

Round 12 of docs/EVALUATION-RESULTS.md (issue 19). A SciFact claim is usually supported by one
sentence of an abstract, and a DORIS-MAE query's aspects by different sentences of it, while
the dense index holds one vector per abstract (its 256 first word pieces, mean-pooled). This
script scores every paper of a benchmark's eval home by its sentences, using the sentence
vectors litsift already stores for aspect scoring (:mod:`litsift.search.aspects.sentences`; built
here
through ``service.build_sentences`` when missing: ~50K sentences for SciFact, ~150K for
DORIS-MAE), exactly (brute force, no hnswlib), and prints for each dense variant, alone and as
the dense side of the default hybrid (min-max interpolation, BM25 weight 0.5, k0 100):

* ``whole``: cosine of the query and the abstract's vector (the default);
* ``max-sent``: the best cosine of the query and one sentence of the abstract (MaxP at sentence
  granularity; Dai & Callan 2019, "Deeper Text Understanding for IR with Contextual Neural
  Language Modeling", SIGIR, the max-passage score);
* ``whole + max-sent (l)``: ``(1 - l) * whole + l * max-sent``;
* ``sent x sent``: for queries of several sentences, the mean over the query's sentences of
  each one's best sentence of the abstract (ColBERT's MaxSim with sentences for tokens;
  Khattab & Zaharia 2020, SIGIR, eq. 1), alone and mixed with ``whole``.

Measures come from ir-measures (SciFact nDCG@10 / R@100, DORIS-MAE RR@10 / R@10) on all
queries and on the fixed tune / held-out halves of ``litsift.eval.benchmarks.query_half``
(choose on tune, read held-out), with the two-sided p of a paired randomization test
(``litsift.eval.measures.paired_test``) of the headline measure against the default hybrid and
against dense only.

Run: ``python benchmarks/sentence_maxsim.py scifact`` (or ``doris-mae-dev``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).parent))
from doris_attempts import as_trec, top_run  # the same exact-scan helpers as round 7

from litsift.config import SearchSettings
from litsift.eval.benchmarks import query_half
from litsift.eval.loaders import load_benchmark
from litsift.eval.measures import paired_test, per_query
from litsift.eval.runner import eval_home, prepare_home
from litsift.eval.trec import Run as TrecRun
from litsift.paths import shared_data_dir
from litsift.search.aspects.sentence_phase import build_sentences
from litsift.search.retrieval.fusion import Fused, interpolate, single
from litsift.search.retrieval.query import bm25_query_text
from litsift.search.retrieval.record_text import passage_text
from litsift.text.sentences import split_sentences
from litsift.types import Kind, YearRange

DATA = shared_data_dir()
MEASURES = {"scifact": ("nDCG@10", "R@100"), "doris-mae-dev": ("RR@10", "R@10")}
K0 = SearchSettings().k0
W_BM25 = SearchSettings().bm25_weight
LAMBDAS = (0.3, 0.5, 0.7)

Scores = npt.NDArray[np.float32]


def per_doc_max(sims: npt.NDArray[np.float32], starts: npt.NDArray[np.int64]) -> Scores:
    """Max of ``sims`` (``(..., n_sentences)``) within each document's sentence block.

    ``starts`` are the first sentence of each document (every document has one or more).
    """
    return np.maximum.reduceat(sims, starts, axis=-1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmark", choices=sorted(MEASURES))
    ap.add_argument(
        "--bm25-weights",
        default=str(W_BM25),
        help="comma-separated BM25 weights of the hybrid (default: the shipped one)",
    )
    args = ap.parse_args()
    weights = [float(w) for w in args.bm25_weights.split(",")]
    measures = MEASURES[args.benchmark]
    head_measure = measures[0]

    bench = load_benchmark(args.benchmark, DATA)
    svc, _ = prepare_home(bench, eval_home(bench))
    enc = svc.encoder
    t0 = time.perf_counter()
    sentences = svc.sentence_store
    assert sentences is not None, "the eval home cannot hold a sentence store"
    # every paper's sentences, pinned (the phase that search.sentence_phase = "all" runs)
    embedded, total = build_sentences(svc.store, enc, Kind.PAPER, sentences)
    print(
        f"sentences: {embedded:,} of {total:,} papers cut and embedded now "
        f"({time.perf_counter() - t0:.0f} s)"
    )

    papers = svc.searcher(Kind.PAPER)
    bm25, dense = papers.bm25, papers.dense
    labels = dense.labels()
    _, vecs = dense.vectors(labels)
    recs = svc.store.get_by_rowids(Kind.PAPER, [int(r) for r in labels])
    ids = {int(r): recs[int(r)].id for r in labels}
    wanted = [(recs[int(r)].id, passage_text(recs[int(r)])) for r in labels]
    views = sentences.get(Kind.PAPER, wanted)
    blocks, starts, at = [], [], 0
    for (doc_id, _), whole in zip(wanted, vecs, strict=True):
        view = views.get(doc_id)
        block = view.vectors if view is not None and len(view.vectors) else whole[None, :]
        starts.append(at)
        blocks.append(block)
        at += len(block)
    sent = np.concatenate(blocks).astype(np.float32)
    starts_arr = np.asarray(starts, dtype=np.int64)
    missing = sum(1 for d, _ in wanted if d not in views)
    print(f"{len(labels):,} papers, {len(sent):,} sentence vectors ({missing} papers without)")

    queries = list(bench.query_sets[0].queries)
    qids = [q.qid for q in queries]
    qvecs = np.concatenate([enc.encode_queries([q.text]) for q in queries])
    bm_runs = [
        bm25.search(bm25_query_text(q.text, svc.config.search.bm25_query), K0, YearRange())
        for q in queries
    ]
    whole = [vecs @ q for q in qvecs]
    max_sent = [per_doc_max(sent @ q, starts_arr) for q in qvecs]
    multi = [len(split_sentences(q.text)) > 1 for q in queries]
    sent_x_sent: list[Scores] = []
    if sum(multi) >= len(queries) // 2:  # paragraph queries (DORIS-MAE), not claims
        for q, w in zip(queries, whole, strict=True):
            parts = [q.text[s:e] for s, e in split_sentences(q.text)]
            if len(parts) < 2:
                sent_x_sent.append(w)
                continue
            qs = np.concatenate([enc.encode_queries([p]) for p in parts])
            sent_x_sent.append(per_doc_max(qs @ sent.T, starts_arr).mean(axis=0))
    print(
        f"{len(queries)} queries ({sum(multi)} of several sentences), "
        f"{time.perf_counter() - t0:.0f} s so far"
    )

    dense_variants: dict[str, list[Scores]] = {"whole": whole, "max-sent": max_sent}
    for lam in LAMBDAS:
        dense_variants[f"whole + max-sent ({lam})"] = [
            (1 - lam) * w + lam * m for w, m in zip(whole, max_sent, strict=True)
        ]
    if sent_x_sent:
        dense_variants["sent x sent"] = sent_x_sent
        for lam in LAMBDAS:
            dense_variants[f"whole + sent x sent ({lam})"] = [
                (1 - lam) * w + lam * s for w, s in zip(whole, sent_x_sent, strict=True)
            ]

    systems: dict[str, list[list[Fused]]] = {"bm25": [single("bm25", r) for r in bm_runs]}
    # what a search can afford: the first stage's candidates (BM25 top k0 and whole-vector
    # top k0) re-scored with their stored sentences, not every paper of the corpus
    position = {int(r): i for i, r in enumerate(labels)}
    for lam in LAMBDAS:
        name = f"rescored whole + max-sent ({lam})"
        dense_runs, hybrid_runs = [], {w: [] for w in weights}
        for bm, w_scores, m_scores in zip(bm_runs, whole, max_sent, strict=True):
            first = top_run(w_scores, labels, K0)
            cand = {int(d) for d, _ in bm} | {d for d, _ in first}
            mixed = sorted(
                (
                    (d, float((1 - lam) * w_scores[position[d]] + lam * m_scores[position[d]]))
                    for d in cand
                ),
                key=lambda x: -x[1],
            )
            dense_runs.append(
                single(
                    "dense",
                    sorted(
                        (
                            (
                                d,
                                float(
                                    (1 - lam) * w_scores[position[d]] + lam * m_scores[position[d]]
                                ),
                            )
                            for d, _ in first
                        ),
                        key=lambda x: -x[1],
                    ),
                )
            )
            for w in weights:
                hybrid_runs[w].append(
                    interpolate({"bm25": bm, "dense": mixed}, {"bm25": w, "dense": 1 - w})
                )
        systems[f"dense {name}"] = dense_runs
        for w in weights:
            label = f"hybrid, {name}" + ("" if w == W_BM25 else f", BM25 {w}")
            systems[label] = hybrid_runs[w]
    for name, scores in dense_variants.items():
        systems[f"dense {name}"] = [single("dense", top_run(s, labels, K0)) for s in scores]
        for w in weights:
            label = f"hybrid, dense {name}" + ("" if w == W_BM25 else f", BM25 {w}")
            systems[label] = [
                interpolate(
                    {"bm25": bm, "dense": top_run(s, labels, K0)},
                    {"bm25": w, "dense": 1 - w},
                )
                for bm, s in zip(bm_runs, scores, strict=True)
            ]

    values = {}
    for name, per_q in systems.items():
        run: TrecRun = {qid: as_trec(f, ids) for qid, f in zip(qids, per_q, strict=True)}
        values[name] = per_query(measures, bench.qrels, run, qids)
    halves = {h: np.array([query_half(q) == h for q in qids]) for h in ("tune", "heldout")}
    base_h, base_d = values["hybrid, dense whole"], values["dense whole"]
    head = (
        f"{'system':40} {head_measure + ' all / tune / held-out':>32} {measures[1]:>7} "
        f"{'vs hybrid (w/l, p)':>22} {'vs dense (w/l, p)':>22}"
    )
    print(head + "\n" + "-" * len(head), flush=True)

    def versus(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> str:
        d = a - b
        return f"{int((d > 0).sum())}/{int((d < 0).sum())}, p {paired_test(a, b).p_value:.2g}"

    for name, v in values.items():
        m = v[head_measure]
        parts = " / ".join(
            f"{100 * x:4.1f}"
            for x in (m.mean(), m[halves["tune"]].mean(), m[halves["heldout"]].mean())
        )
        print(
            f"{name:40} {parts:>32} {100 * v[measures[1]].mean():7.1f} "
            f"{versus(m, base_h[head_measure]):>22} {versus(m, base_d[head_measure]):>22}"
        )
    print(
        f"\npercentages; p: two-sided paired randomization test of per-query {head_measure} "
        f"(10,000 sign flips); {int(halves['tune'].sum())} tune / "
        f"{int(halves['heldout'].sum())} held-out queries; exact dense scores"
    )
    svc.close()


if __name__ == "__main__":
    main()
