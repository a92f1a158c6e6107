"""Sweep ranking settings offline on the tune half of DataFinder and on SciFact.

Usage (from the repository root, with ../shared/data beside it; the benchmarks' eval homes are
built on first use by ``litsift eval`` / ``benchmarks/run_eval.py`` and reused here)::

    python benchmarks/tuning.py                 # every experiment, DataFinder tune half + SciFact
    python benchmarks/tuning.py --half heldout  # the same table on the held-out half
    python benchmarks/tuning.py --only fusion   # one group of experiments

How: every query of a benchmark is run once per *retriever variant* (a BM25 query mode, a
dense representation) to depth :data:`DEPTH` with the year filter, and cached under
``/tmp/litsift-tuning`` (delete it after changing ``search/retrieval/record_text.py``: the cache key
is the
setting, not the indexed text); fusion settings are then applied offline with the pure functions of
:mod:`litsift.search.retrieval.fusion` and measured with ir-measures (:mod:`litsift.eval.measures`).
Dense runs are exact (brute-force cosine over the index's stored vectors, or over vectors of
an alternative passage text embedded once and cached), so they match the hnswlib search up to
its approximation. The *final* numbers come from ``benchmarks/run_eval.py`` (``service.search``).

The DataFinder split is :func:`litsift.eval.benchmarks.query_half`: a query is in the
*tune* half when the SHA-256 of its query id (the qrels key) is even, else *held-out*.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from litsift.eval.benchmarks import Benchmark, EvalQuery
from litsift.eval.cli_support import default_data_dir
from litsift.eval.loaders import load_benchmark
from litsift.eval.measures import per_query
from litsift.eval.runner import eval_home, prepare_home
from litsift.search.retrieval import fusion
from litsift.search.retrieval.bm25 import BM25Index
from litsift.search.retrieval.filters import allowed_mask
from litsift.search.retrieval.query import bm25_query_text
from litsift.search.retrieval.record_text import passage_text
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Record, YearRange

CACHE = Path("/tmp/litsift-tuning")
DEPTH = 200
Run = dict[str, list[tuple[str, float]]]


def _years(q: EvalQuery) -> YearRange:
    return YearRange() if q.year is None else YearRange(None, q.year, include_missing=True)


@dataclass
class Context:
    """One benchmark opened for offline experiments."""

    bench: Benchmark
    svc: LitsiftService
    records: dict[int, Record]
    ybr: np.ndarray
    vec_rowids: np.ndarray
    vecs: np.ndarray

    @classmethod
    def open(cls, name: str) -> Context:
        bench = load_benchmark(name, default_data_dir())
        svc, _ = prepare_home(bench, eval_home(bench))
        records = {int(r.rowid): r for b in svc.store.rows_since(bench.kind) for r in b if r.rowid}
        searcher = svc.searcher(bench.kind)
        kind_searcher = getattr(searcher, "datasets", searcher)  # datasets: their own indexes
        labels, vecs = kind_searcher.vectors(kind_searcher.dense.labels())
        return cls(bench, svc, records, kind_searcher.year_by_rowid, labels, vecs)

    def key(self, *parts: object) -> Path:
        CACHE.mkdir(parents=True, exist_ok=True)
        h = hashlib.sha256(repr((self.bench.name, self.bench.fingerprint(), parts)).encode())
        return CACHE / f"{self.bench.name}-{h.hexdigest()[:16]}.pkl"

    def cached(self, parts: tuple[object, ...], make: Callable[[], Any]) -> Any:
        path = self.key(*parts)
        if path.is_file():
            return pickle.loads(path.read_bytes())
        value = make()
        path.write_bytes(pickle.dumps(value))
        return value

    def queries(self, qset: str) -> list[EvalQuery]:
        s = next(s for s in self.bench.query_sets if s.name == qset)
        return list({q.qid: q for q in s.queries}.values())

    def docid(self, rowid: int) -> str:
        from litsift.eval.trec import trec_id

        return trec_id(self.records[rowid].id)

    # -- retrievers -----------------------------------------------------------------------
    _fresh: BM25Index | None = None

    def fresh_bm25(self) -> BM25Index:
        """A BM25 index of the current schema (with ``ALL_FIELD``) built in a temp dir."""
        if self._fresh is None:
            import shutil
            import tempfile

            tmp = Path(tempfile.mkdtemp(prefix="litsift-tuning-bm25-"))
            idx = BM25Index.create(tmp / "bm25", self.bench.kind)
            idx.add(self.records.values())
            idx.close()
            self._fresh = idx
            import atexit

            atexit.register(shutil.rmtree, tmp, True)
        return self._fresh

    def bm25_run(self, qset: str, mode: str, boosts: Mapping[str, float] | None = None) -> Run:
        bm25 = self.fresh_bm25()
        boost_key = tuple(sorted((boosts or bm25.boosts).items()))

        def make() -> Run:
            saved = dict(bm25.boosts)
            if boosts is not None:
                bm25.boosts = dict(boosts)
            try:
                return {
                    q.qid: [
                        (self.docid(r), s)
                        for r, s in bm25.search(bm25_query_text(q.text, mode), DEPTH, _years(q))
                    ]
                    for q in self.queries(qset)
                }
            finally:
                bm25.boosts = saved

        return self.cached(("bm25v2", qset, mode, boost_key), make)  # type: ignore[no-any-return]

    def bm25s_run(self, qset: str) -> Run:
        def make() -> Run:
            from litsift.eval.peer import PeerBM25

            peer = PeerBM25(self.svc.store, self.bench.kind)
            return {q.qid: peer.search(q.text, _years(q), DEPTH) for q in self.queries(qset)}

        return self.cached(("bm25s", qset), make)  # type: ignore[no-any-return]

    def passage_vectors(self, variant: str) -> tuple[np.ndarray, np.ndarray]:
        """``(rowids, vectors)`` of a passage-text variant (``"index"``: the built index)."""
        if variant == "index":
            return self.vec_rowids, self.vecs

        def make() -> tuple[np.ndarray, np.ndarray]:
            rowids = np.array(sorted(self.records), dtype=np.int64)
            fn = PASSAGES[variant]
            texts = [fn(self.records[int(r)]) for r in rowids]
            t0 = time.perf_counter()
            v = self.svc.encoder.encode_passages(texts)
            print(
                f"  embedded {len(texts)} passages ({variant}) in {time.perf_counter() - t0:.0f} s",
                file=sys.stderr,
            )
            return rowids, np.asarray(v, dtype=np.float32)

        return self.cached(("passages", variant), make)  # type: ignore[no-any-return]

    def query_vectors(self, qset: str, mode: str = "raw") -> dict[str, np.ndarray]:
        def make() -> dict[str, np.ndarray]:
            qs = self.queries(qset)
            texts = [dense_query_text(q.text, mode) for q in qs]
            v = self.svc.encoder.encode_queries(texts)
            return {q.qid: np.asarray(v[i], dtype=np.float32) for i, q in enumerate(qs)}

        return self.cached(("qvec", qset, mode), make)  # type: ignore[no-any-return]

    def dense_run(
        self,
        qset: str,
        variant: str = "index",
        qmode: str = "raw",
        prf: tuple[int, float] = (0, 0.0),
    ) -> Run:
        def make() -> Run:
            rowids, vecs = self.passage_vectors(variant)
            qv = self.query_vectors(qset, qmode)
            out: Run = {}
            for q in self.queries(qset):
                mask = allowed_mask(self.ybr, _years(q), size=int(rowids.max()) + 1)[rowids]
                qvec = qv[q.qid]
                sims = vecs @ qvec
                sims = np.where(mask, sims, -np.inf)
                if prf[0] > 0:  # Rocchio with the top prf[0] vectors
                    top = np.argsort(-sims)[: prf[0]]
                    qvec = qvec + prf[1] * vecs[top].mean(axis=0)
                    qvec = qvec / np.linalg.norm(qvec)
                    sims = np.where(mask, vecs @ qvec, -np.inf)
                order = np.lexsort((rowids, -sims))[:DEPTH]
                out[q.qid] = [
                    (self.docid(int(rowids[i])), float(sims[i])) for i in order if sims[i] > -np.inf
                ]
            return out

        return self.cached(("dense", qset, variant, qmode, prf), make)  # type: ignore[no-any-return]

    # -- measuring ------------------------------------------------------------------------
    def measure(self, run: Run, qids: Sequence[str]) -> dict[str, float]:
        d = self.bench.depth
        cut = {q: {doc: s for doc, s in run.get(q, [])[:d]} for q in qids}
        vals = per_query(self.bench.measures, self.bench.qrels, cut, list(qids))
        return {m: 100 * float(v.mean()) for m, v in vals.items()}


# ------------------------------------------------------------------------ representations
def _compose(rec: Any, max_words: int, intro: bool = True, aliases: bool = True) -> str:
    """A dataset passage built from its cleaned description (variants of ``passage_text``)."""
    from litsift.search.retrieval.record_text import clean_description

    head = rec.id.strip()
    al = [v.strip() for v in rec.variants if v.strip() and v.strip() != head]
    if aliases and al:
        head = f"{head} ({', '.join(al[:5])})"
    desc = " ".join(clean_description(rec.description).split()[:max_words])
    parts = [f"{head}: {desc}" if desc else head]
    if intro and rec.intro_paper_title.strip():
        parts.append(f"[{rec.intro_paper_title.strip()}]")
    return " ".join(parts)


PASSAGES: dict[str, Callable[[Record], str]] = {
    "current": passage_text,
    "clean": lambda r: _compose(r, 10_000),
    "clean-noalias": lambda r: _compose(r, 10_000, aliases=False),
    "clean-nointro": lambda r: _compose(r, 10_000, intro=False),
    "clean-60w": lambda r: _compose(r, 60),
}


def dense_query_text(text: str, mode: str) -> str:
    return text if mode == "raw" else bm25_query_text(text, mode)


# ------------------------------------------------------------------------ fusion helpers
def fuse(runs: Mapping[str, Run], method: str, **kw: Any) -> Run:
    out: Run = {}
    qids = set().union(*runs.values())
    for q in qids:
        per = {name: r.get(q, []) for name, r in runs.items()}
        if method == "rrf":
            fused = fusion.rrf(per, k=kw.get("k", 60), weights=kw.get("weights"))
        else:
            fused = fusion.interpolate(per, kw["weights"], norm=kw.get("norm", "minmax"))
        out[q] = [(str(f.docid), f.score) for f in fused]
    return out


def cut(run: Run, k0: int) -> Run:
    return {q: hits[:k0] for q, hits in run.items()}


def row(label: str, cells: Iterable[float]) -> str:
    return f"{label:<58}" + "".join(f"{c:7.1f}" for c in cells)


BOOSTS: dict[str, dict[Kind, dict[str, float]]] = {
    "default": {
        Kind.DATASET: {"name": 2.0, "aliases": 1.5, "description": 1.0, "intro_paper_title": 1.0},
        Kind.PAPER: {"title": 2.0, "abstract": 1.0, "authors": 1.0, "venue": 0.5},
    },
    "flat": {
        Kind.DATASET: {"name": 1.0, "aliases": 1.0, "description": 1.0, "intro_paper_title": 1.0},
        Kind.PAPER: {"title": 1.0, "abstract": 1.0, "authors": 1.0, "venue": 1.0},
    },
    "text-heavy": {
        Kind.DATASET: {"name": 0.5, "aliases": 0.0, "description": 1.0, "intro_paper_title": 0.5},
        Kind.PAPER: {"title": 1.0, "abstract": 1.0, "authors": 0.0, "venue": 0.0},
    },
    "all": {Kind.DATASET: {"all": 1.0}, Kind.PAPER: {"all": 1.0}},
    "all+name0.3": {
        Kind.DATASET: {"all": 1.0, "name": 0.3},
        Kind.PAPER: {"all": 1.0, "title": 0.3},
    },
    "all+desc0.5": {
        Kind.DATASET: {"all": 1.0, "description": 0.5},
        Kind.PAPER: {"all": 1.0, "abstract": 0.5},
    },
    "desc-only": {
        Kind.DATASET: {"name": 0.0, "aliases": 0.0, "description": 1.0, "intro_paper_title": 0.0},
        Kind.PAPER: {"title": 0.5, "abstract": 1.0, "authors": 0.0, "venue": 0.0},
    },
}


class Table:
    """Prints one row per setting: measures per query set of the chosen half."""

    def __init__(
        self,
        ctx: Context,
        qsets: Sequence[str],
        qids: Mapping[str, Sequence[str]],
        measures: Sequence[str],
    ) -> None:
        self.ctx, self.qsets, self.qids, self.measures = ctx, qsets, qids, measures
        head = "".join(f"{(qs[:3] + ' ' + m)[:7]:>7}" for qs in qsets for m in measures)
        print(f"{'setting':<58}{head}", flush=True)

    def add(self, label: str, runs: Mapping[str, Run]) -> list[float]:
        cells: list[float] = []
        for qs in self.qsets:
            vals = self.ctx.measure(runs[qs], self.qids[qs])
            cells += [vals[m] for m in self.measures]
        print(row(label, cells), flush=True)
        return cells


def experiments(ctx: Context, half: str, only: str | None) -> None:
    from litsift.eval.benchmarks import query_half

    qsets = [s.name for s in ctx.bench.query_sets]
    qids = {
        qs: [q.qid for q in ctx.queries(qs) if half == "all" or query_half(q.qid) == half]
        for qs in qsets
    }
    if ctx.bench.name != "datafinder":
        qids = {qs: [q.qid for q in ctx.queries(qs)] for qs in qsets}
    measures = {"datafinder": ["R@5", "RR"], "scifact": ["nDCG@10", "R@100"]}.get(
        ctx.bench.name, ["RR@10", "R@10", "R@100"]
    )
    n = {qs: len(v) for qs, v in qids.items()}
    print(f"\n== {ctx.bench.name} ({half if ctx.bench.name == 'datafinder' else 'all'}: {n})")
    t = Table(ctx, qsets, qids, measures)
    kind = ctx.bench.kind
    if only in (None, "bm25"):
        t.add("bm25s peer (1 field, stopwords both sides)", {q: ctx.bm25s_run(q) for q in qsets})
        for bname in BOOSTS:
            for mode in ("raw", "stop", "stop+request"):
                t.add(
                    f"bm25 boosts={bname} query={mode}",
                    {q: ctx.bm25_run(q, mode, BOOSTS[bname][kind]) for q in qsets},
                )
    bm25_mode = "stop+request"
    bm25 = {q: ctx.bm25_run(q, bm25_mode, BOOSTS["all+name0.3"][kind]) for q in qsets}
    if only in (None, "dense"):
        variants = ["index"] + (list(PASSAGES)[1:] if kind is Kind.DATASET else [])
        for v in variants:
            t.add(f"dense passage={v}", {q: ctx.dense_run(q, v) for q in qsets})
        for prf in ((3, 0.5), (5, 0.3), (3, 1.0)):
            t.add(
                f"dense passage=index prf={prf}",
                {q: ctx.dense_run(q, "index", prf=prf) for q in qsets},
            )
    for prf in ((0, 0.0), (3, 0.5)):
        dense = {q: ctx.dense_run(q, "index", prf=prf) for q in qsets}
        if only in (None, "fusion"):
            t.add(f"[ref] bm25 query={bm25_mode}", bm25)
            t.add(f"[ref] dense passage=index prf={prf}", dense)
            for k0 in (100,):
                for rk in (60, 10):
                    for w in (0.5, 0.3, 0.2, 0.1):
                        runs = {
                            q: fuse(
                                {"bm25": cut(bm25[q], k0), "dense": cut(dense[q], k0)},
                                "rrf",
                                k=rk,
                                weights={"bm25": w, "dense": 1 - w},
                            )
                            for q in qsets
                        }
                        t.add(f"rrf k={rk} w_bm25={w} k0={k0} prf={prf}", runs)
                for w in (0.5, 0.3, 0.2, 0.1):
                    for norm in ("minmax",):
                        runs = {
                            q: fuse(
                                {"bm25": cut(bm25[q], k0), "dense": cut(dense[q], k0)},
                                "interpolation",
                                weights={"bm25": w, "dense": 1 - w},
                                norm=norm,
                            )
                            for q in qsets
                        }
                        t.add(f"interp {norm} w_bm25={w} k0={k0} prf={prf}", runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmarks", nargs="*", default=["datafinder", "scifact"])
    ap.add_argument("--half", default="tune", choices=["tune", "heldout", "all"])
    ap.add_argument("--only", default=None, choices=["bm25", "dense", "fusion"])
    args = ap.parse_args(argv)
    for name in args.benchmarks:
        ctx = Context.open(name)
        try:
            experiments(ctx, args.half, args.only)
        finally:
            ctx.svc.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
