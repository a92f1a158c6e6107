"""Aspect scoring without the precomputed sentence phase: quality on DORIS-MAE dev and cost.

Issue 32 asks for aspect scoring of the shown hits without a ~6 GB phase at 1M papers. Where a
hit's sentence vectors come from, four ways:

* ``float32``: the encoder's vectors as they are (reference; never stored);
* ``float16``: the store's layout before (the phase, ~6 KB a paper);
* ``int8``: one float32 scale per vector (``litsift.search.retrieval.vector_codec.pack_vectors``),
the
layout
  now, for the phase and for the on-demand cache alike;
* ``passage``: no sentence vectors at all: one vector per record, its bi-encoder passage (what
  the dense index already holds), plus the lexical part; its constants re-fitted on the same
  dev data (in-sample, so optimistic).

Quality, per variant (both measures the project reports for aspects on DORIS-MAE dev):

1. ``calibrate`` diagnostics (``benchmarks/aspect_calibration.py``): balanced accuracy of grade
   >= 1 (own best candidate vs others' best candidates), MAE of the best candidates'
   normalised score, share of pairs where the best candidate outscores another -- at the
   shipped constants and at the variant's grid optimum;
2. known-item MRR@10 / R@10 (``benchmarks/aspect_decomposition.py`` part 3): the 99 candidates
   + ``--papers`` papers ranked by dense similarity, the top 20 re-ordered by coverage of the
   automatic aspects at the shipped blend (0.5) and at 0 (coverage only).

The two-step scorer that ships (issue 32): a hit whose sentences are not stored is graded
at once from its passage vector (``AspectScorer.score(..., passage_vectors=...)``, the shipped
``PASSAGE_LAMBDA`` / ``PASSAGE_THRESHOLDS``: the "provisional" rows), then its sentences are
embedded and its grades are the ``int8`` ones (the "final" rows equal them:
``tests/unit/test_provisional_aspects.py``).

Cost (``int8``, a real ``sentences.sqlite`` in a temporary directory; CPU s of the process,
all threads): the phase's CPU per 1,000 records and bytes per record; per query, aspect scoring
of the top 10 / 50 hits cold (nothing stored: cut, embed, write to the cache: the cost of
never-seen hits before the two steps, and of the background step now), provisional (nothing
stored: passage vectors read from a real hnswlib ``dense.bin`` of the pool, as the service reads
them; what the TUI waits for now, in one call and ten hits a call as its worker makes them),
provisional without stored vectors (each hit's passage
embedded, the embedding cache off), warm (a new scorer over the cache file: what a new search
of shown hits costs) and in memory (the same scorer again).

Run: ``nice -n 5 python benchmarks/aspect_storage.py [--papers 400] [--cost-queries 3]``
(~5 min on 2 cores, most of it embedding ~4,000 sentences).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import ir_measures
import numpy as np
from aspect_calibration import calibrate, load_doris_mae  # benchmarks/
from aspect_decomposition import DEV, _papers  # benchmarks/
from ir_measures import RR, R

from litsift.models_onnx import load_encoder
from litsift.search.aspects.coverage import coverage_order
from litsift.search.aspects.decompose import decompose
from litsift.search.aspects.scoring import (
    CALIBRATED_LAMBDA,
    CALIBRATED_THRESHOLDS,
    PASSAGE_LAMBDA,
    PASSAGE_THRESHOLDS,
    AspectScorer,
)
from litsift.search.aspects.sentences import MAX_SENTENCES, SentenceStore, SentenceView, text_hash
from litsift.search.retrieval.dense import DenseIndex
from litsift.search.retrieval.record_text import passage_text
from litsift.search.retrieval.vector_codec import pack_vectors, round_vectors
from litsift.text.sentences import split_sentences
from litsift.types import Kind, Record

VARIANTS = ("float32", "float16", "int8", "passage")


class Views:
    """Stands in for a ``SentenceStore`` in ``AspectScorer``: given views, nothing written."""

    def __init__(self, views: dict[str, SentenceView]) -> None:
        self.views = views

    def get(self, kind: Kind, wanted: list[tuple[str, str]]) -> dict[str, SentenceView]:
        return {i: self.views[i] for i, _t in wanted if i in self.views}

    def put(self, kind: Kind, rows: object, pinned: bool = False) -> None:
        pass


def _views(pool: list[Record], enc) -> tuple[dict[str, dict[str, SentenceView]], float]:  # type: ignore[no-untyped-def]
    """Per variant, ``{doc id: view}``; and the CPU s of cutting + embedding the sentences."""
    texts = [passage_text(r) for r in pool]
    t = time.process_time()
    spans = [split_sentences(x)[:MAX_SENTENCES] for x in texts]
    sentences = [x[s:e] for x, sp in zip(texts, spans, strict=True) for s, e in sp]
    raw = np.asarray(enc.encode_passages(sentences), dtype=np.float32)
    cpu = time.process_time() - t
    passage = np.asarray(enc.encode_passages(texts), dtype=np.float32)
    rounding = {
        "float32": lambda v: v,
        "float16": lambda v: v.astype(np.float16).astype(np.float32),
        "int8": round_vectors,
    }
    out: dict[str, dict[str, SentenceView]] = {v: {} for v in VARIANTS}
    at = 0
    for j, (r, x, sp) in enumerate(zip(pool, texts, spans, strict=True)):
        arr = np.asarray(sp, dtype=np.int32).reshape(-1, 2)
        vecs = raw[at : at + len(sp)]
        at += len(sp)
        for name, fn in rounding.items():
            out[name][r.id] = SentenceView(x, arr, fn(vecs), text_hash(x))
        whole = np.asarray([[0, len(x)]], dtype=np.int32)
        out["passage"][r.id] = SentenceView(x, whole, passage[j : j + 1], text_hash(x))
    return out, cpu


def _measure(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> str:
    agg = ir_measures.calc_aggregate([RR @ 10, R @ 10], qrels, run)
    return " ".join(f"{k}={v:.3f}" for k, v in sorted(agg.items(), key=lambda kv: str(kv[0])))


def _run(order: list[Record]) -> dict[str, float]:
    return {r.id: float(len(order) - i) for i, r in enumerate(order)}


def quality(views: dict[str, dict[str, SentenceView]], pool: list[Record], enc, depth: int) -> None:  # type: ignore[no-untyped-def]
    queries, _cands = load_doris_mae(DEV)
    shipped = (CALIBRATED_LAMBDA, *CALIBRATED_THRESHOLDS)
    print("== quality on DORIS-MAE dev (40 queries)")
    print("variant  | constants | bal. acc | MAE best | best > other | lambda, (t1, t2)")
    fitted: dict[str, tuple[float, tuple[float, float]]] = {}
    for name in VARIANTS:
        for label, fixed in (("shipped", shipped), ("fitted", None)):
            cal = calibrate(DEV, enc, fixed=fixed, sentences=Views(views[name]))  # type: ignore[arg-type]
            if fixed is None:
                fitted[name] = (cal.lexical_weight, cal.thresholds)
            print(
                f"{name:8s} | {label:9s} | {cal.balanced_accuracy:.3f}    | {cal.mae_best:.3f}    "
                f"| {cal.pairwise_accuracy:.3f}        | {cal.lexical_weight}, {cal.thresholds}"
            )
    # the two-step scorer's first step as it ships: every candidate never seen (no sentences)
    cal = calibrate(DEV, enc, fixed=(PASSAGE_LAMBDA, *PASSAGE_THRESHOLDS), passage=True)
    print(
        f"two-step | provisional | {cal.balanced_accuracy:.3f}  | {cal.mae_best:.3f}    "
        f"| {cal.pairwise_accuracy:.3f}        | {cal.lexical_weight}, {cal.thresholds}"
    )
    print("two-step | final     | = int8 shipped (the same scorer, the sentences embedded)")
    q_emb = enc.encode_queries([q.query for q in queries])
    doc_emb = np.stack([views["passage"][r.id].vectors[0] for r in pool])
    qrels = {str(q.query_id): {q.best_candidate.id: 1} for q in queries}
    top: dict[str, list[Record]] = {}
    for q, qe in zip(queries, q_emb, strict=True):
        top[str(q.query_id)] = [pool[i] for i in np.argsort(-(doc_emb @ qe), kind="stable")]
    print(f"== known item: {len(pool)} abstracts, dense order, top {depth} by coverage")
    print(f"dense (whole query)            {_measure(qrels, {k: _run(v) for k, v in top.items()})}")
    aspects = {str(q.query_id): decompose(q.query) for q in queries}
    for name in VARIANTS:
        for label, (lam, th) in (
            ("shipped", (CALIBRATED_LAMBDA, CALIBRATED_THRESHOLDS)),
            ("fitted", fitted[name]),
        ):
            if label == "fitted" and (lam, th) == (CALIBRATED_LAMBDA, CALIBRATED_THRESHOLDS):
                continue
            scorer = AspectScorer(enc, th, lam, sentences=Views(views[name]))  # type: ignore[arg-type]
            covs = {qid: scorer.score(aspects[qid], order[:depth]) for qid, order in top.items()}
            for blend in (0.5, 0.0):
                run = {
                    qid: _run(coverage_order(order[:depth], covs[qid], blend) + order[depth:])
                    for qid, order in top.items()
                }
                print(f"{name:8s} {label:7s} blend {blend:.1f}  {_measure(qrels, run)}")
    by_id = {r.id: views["passage"][r.id].vectors[0] for r in pool}
    scorer = AspectScorer(enc)  # no sentences anywhere: every hit graded provisionally

    def passage_vectors(records: object) -> np.ndarray:
        return np.stack([by_id[r.id] for r in records])  # type: ignore[attr-defined]

    covs = {
        qid: scorer.score(aspects[qid], order[:depth], passage_vectors=passage_vectors)
        for qid, order in top.items()
    }
    assert all(c.provisional for cs in covs.values() for c in cs)
    for blend in (0.5, 0.0):
        run = {
            qid: _run(coverage_order(order[:depth], covs[qid], blend) + order[depth:])
            for qid, order in top.items()
        }
        print(f"two-step provisional blend {blend:.1f}  {_measure(qrels, run)}")


def cost(views: dict[str, SentenceView], pool: list[Record], enc, n_queries: int) -> None:  # type: ignore[no-untyped-def]
    queries, _cands = load_doris_mae(DEV)
    enc.passage_cache = None  # every sentence embedded: the cost of a hit never scored before
    q_emb = enc.encode_queries([q.query for q in queries[:n_queries]])
    print(f"== cost per query (int8 cache; {n_queries} DORIS-MAE queries; CPU ms, all threads)")
    passage_vecs = {r.id: views[r.id] for r in pool}
    rowid_of = {r.id: i for i, r in enumerate(pool)}
    rows: dict[tuple[int, str], list[float]] = {}
    dense_dir = tempfile.TemporaryDirectory()
    dense = DenseIndex.create(Path(dense_dir.name) / "dense.bin", enc.dim, len(pool))
    dense.add(np.arange(len(pool)), np.stack([passage_vecs[r.id].vectors[0] for r in pool]))
    dense.save()
    dense = DenseIndex.open(Path(dense_dir.name) / "dense.bin")  # read from the file, as served

    def stored(records: list[Record]) -> np.ndarray:
        _found, vecs = dense.vectors([rowid_of[r.id] for r in records])
        return vecs

    def embedded(records: list[Record]) -> np.ndarray:
        return np.asarray(enc.encode_passages([passage_text(r) for r in records]))

    for q, qe in zip(queries[:n_queries], q_emb, strict=True):
        aspects = decompose(q.query)
        sims = np.asarray([float(passage_vecs[r.id].vectors[0] @ qe) for r in pool])
        order = [pool[i] for i in np.argsort(-sims, kind="stable")]
        for n in (10, 50):
            hits = order[:n]
            with tempfile.TemporaryDirectory() as tmp:
                store = SentenceStore(Path(tmp) / "sentences.sqlite", enc.cache_key, enc.dim)
                t = time.process_time()
                now = AspectScorer(enc, sentences=store).score(
                    aspects, hits, passage_vectors=stored
                )
                rows.setdefault((n, "provisional"), []).append(time.process_time() - t)
                assert all(c.provisional for c in now) and store.count(Kind.PAPER) == 0
                t = time.process_time()
                scorer = AspectScorer(enc, sentences=store)
                for at in range(0, n, 10):  # as the TUI's worker calls it
                    scorer.score(aspects, hits[at : at + 10], passage_vectors=stored)
                rows.setdefault((n, "provisional, 10 hits a call"), []).append(
                    time.process_time() - t
                )
                t = time.process_time()
                AspectScorer(enc, sentences=store).score(aspects, hits, passage_vectors=embedded)
                rows.setdefault((n, "provisional, passages embedded"), []).append(
                    time.process_time() - t
                )
                t = time.process_time()
                first = AspectScorer(enc, sentences=store).score(aspects, hits)
                rows.setdefault((n, "cold"), []).append(time.process_time() - t)
                scorer = AspectScorer(enc, sentences=store)
                t = time.process_time()
                again = scorer.score(aspects, hits)
                rows.setdefault((n, "warm"), []).append(time.process_time() - t)
                t = time.process_time()
                scorer.score(aspects, hits)
                rows.setdefault((n, "memory"), []).append(time.process_time() - t)
                scorer = AspectScorer(enc, sentences=Views(views))  # type: ignore[arg-type]
                t = time.process_time()
                scorer.score(aspects, hits)
                rows.setdefault((n, "passage"), []).append(time.process_time() - t)
                store.close()
            assert again == first, "grades changed between the cold and the cached pass"
        print(f"   query {q.query_id}: {len(aspects)} aspects")
    for (n, how), secs in sorted(rows.items()):
        ms = 1000 * np.median(secs)
        print(
            f"   top {n:2d} {how:30s}: {ms:7.0f} ms (median; min {1000 * min(secs):.0f}, "
            f"max {1000 * max(secs):.0f})"
        )
    dense_dir.cleanup()


def storage(views: dict[str, SentenceView], enc, cpu_s: float) -> None:  # type: ignore[no-untyped-def]
    n = len(views)
    m = sum(len(v.spans) for v in views.values())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sentences.sqlite"
        store = SentenceStore(path, enc.cache_key, enc.dim)
        store.put(Kind.PAPER, list(views.items()), pinned=True)
        store.close()
        disk = sum(p.stat().st_size for p in Path(tmp).iterdir())
    row_int8 = sum(20 + 8 * len(v.spans) + len(pack_vectors(v.vectors)) for v in views.values())
    row_f16 = sum(20 + 8 * len(v.spans) + 2 * v.vectors.size for v in views.values())
    print(f"== storage: {n} records, {m} sentences ({m / n:.1f} per record)")
    print(
        f"   phase (cut + embed): {cpu_s:.1f} CPU s, {1000 * cpu_s / n:.0f} CPU s per 1,000 records"
    )
    print(f"   row bytes per record: int8 {row_int8 / n:,.0f}, float16 {row_f16 / n:,.0f}")
    print(f"   int8 file (SQLite, WAL checkpointed or not): {disk / n:,.0f} bytes per record")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=400, help="papers added to the pool")
    ap.add_argument("--depth", type=int, default=20, help="top-k re-ranked by coverage")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--cost-queries", type=int, default=3)
    args = ap.parse_args()
    enc = load_encoder()
    _queries, cands = load_doris_mae(DEV)
    pool: list[Record] = list(cands) + _papers(args.papers, args.seed)
    t = time.perf_counter()
    views, cpu_s = _views(pool, enc)
    print(f"embedded the pool's sentences and passages in {time.perf_counter() - t:.0f} s")
    storage(views["int8"], enc, cpu_s)
    quality(views, pool, enc, args.depth)
    cost(views["passage"], pool, enc, args.cost_queries)


if __name__ == "__main__":
    main()
