"""Train the dataset re-ranker (``src/litsift/search/dataset_ranker.lgb.txt``) on DataFinder.

Usage (from the repository root, with ../shared/data beside it; the DataFinder eval home is
built on first use, as by ``litsift eval datafinder``)::

    python benchmarks/train_dataset_ranker.py            # train on the tune half, write the model
    python benchmarks/train_dataset_ranker.py --check    # 2-fold check, write nothing

What: every DataFinder test query of the *tune* half (:func:`litsift.eval.benchmarks.
query_half`; both ``query`` and ``keyphrase_query``) runs through ``service.search`` with the
re-ranker off, pool = the top :data:`POOL` fused candidates (``k = k0 = POOL``, as a search with
the re-ranker on retrieves them: ``search.dataset_ranker_pool``, 300 since round 13); each
candidate gets the features of :func:`litsift.search.datasets.ranker.dataset_features` (built by
``DatasetSearcher.features``, the same code the search path uses) and label 1
if the qrels call it relevant. A LightGBM ``LGBMRanker`` (objective ``lambdarank``,
:data:`PARAMS`, fixed seed, deterministic) is fit on the tune half and saved. The held-out
half is never used for fitting or for choosing :data:`PARAMS` (they were fixed before the
held-out half was scored); ``litsift eval datafinder`` reports both halves and the whole.

``--check`` also fits on the held-out half and scores the tune half (2-fold), printing R@5 /
RR@5 at depth 5 (ir-measures) for the fused pool and for the re-ranked pool on each fold.

``--cv`` chooses hyperparameters on the tune half alone: each setting of :data:`GRID` is fit
on four fifths of the tune queries and scored on the fifth (5 folds by query id, both query
types of a query in the same fold), and the settings are ranked by the mean of R@5 and RR@5
over the folds and both query types; nothing is written and the held-out half is not read.
Round 11 of docs/EVALUATION-RESULTS.md. ``--pool N`` sets the candidates per query (round 13
compared 100-600 with ``--cv --no-grid``; a model trained with another pool than the
configured ``search.dataset_ranker_pool`` should not be shipped).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import lightgbm  # noqa: F401 -- with its scikit-learn API, before any search loads it without
import numpy as np

from litsift.config import Config
from litsift.eval.benchmarks import query_half
from litsift.eval.cli_support import default_data_dir
from litsift.eval.loaders import load_benchmark
from litsift.eval.measures import per_query
from litsift.eval.runner import _dedupe, _years, eval_home, prepare_home
from litsift.eval.trec import trec_id
from litsift.search.datasets.popularity import count_mentions
from litsift.search.datasets.ranker import FEATURES, MODEL_PATH
from litsift.search.retrieval.fusion import Fused
from litsift.types import Kind, Paper, Query, YearRange
from litsift.types import SignalScore as Signal

#: fixed before the held-out half was scored (docs/EVALUATION-RESULTS.md, round 6)
PARAMS = {
    "objective": "lambdarank",
    "n_estimators": 200,
    "learning_rate": 0.03,
    "num_leaves": 7,
    "min_child_samples": 20,
    "random_state": 0,
    "deterministic": True,
    "force_row_wise": True,
    "n_jobs": 1,
    "verbose": -1,
}
#: the re-ranker's pool (``search.dataset_ranker_pool``; 100 until round 13)
POOL = Config().search.dataset_ranker_pool
#: distant supervision (``--distant``): one corpus paper in this many is a query paper
DISTANT_EVERY = 5
#: at most this many query papers
DISTANT_LIMIT = 2000
#: the settings ``--cv`` compares (each with the rest of :data:`PARAMS`)
GRID: list[dict[str, Any]] = [
    {"n_estimators": n, "learning_rate": lr, "num_leaves": leaves, "min_child_samples": mcs}
    for n in (100, 200, 400)
    for lr in (0.03, 0.1)
    for leaves in (3, 7, 15)
    for mcs in (20, 50)
]


def collect(
    data_dir: Path, halves: tuple[str, ...] = ("tune", "heldout"), depth: int = POOL
) -> list[dict]:
    """One entry per (query set, deduplicated query of ``halves``): features, labels, docids,
    half; each query's pool is its fused top ``depth`` (``k = k0 = depth``)."""
    bench = load_benchmark("datafinder", data_dir)
    base = Config()
    config = replace(base, search=replace(base.search, dataset_ranker=False))
    svc, _ = prepare_home(bench, eval_home(bench), config=config)
    out = []
    for qset in bench.query_sets:
        for q in _dedupe(qset.queries):
            if query_half(q.qid) not in halves:
                continue
            query = Query(q.text, Kind.DATASET, _years(q), depth, depth)
            res = svc.search(query)
            pool = [
                Fused(
                    int(h.record.rowid),  # type: ignore[attr-defined]
                    h.score,
                    h.rank,
                    {n: Signal(s.score, s.rank) for n, s in h.signals.items()},
                )
                for h in res.hits
            ]
            feats = svc.searcher(Kind.DATASET).features(query, pool)  # type: ignore[union-attr]
            rel = bench.qrels.get(q.qid, {})
            docids = [trec_id(h.docid) for h in res.hits]
            out.append(
                dict(
                    qset=qset.name,
                    qid=q.qid,
                    half=query_half(q.qid),
                    X=feats,
                    y=np.array([int(rel.get(d, 0) > 0) for d in docids]),
                    docids=docids,
                    qrels=rel,
                )
            )
        print(f"{qset.name}: {len(out)} queries so far", file=sys.stderr)
    return out


def _first_sentence(abstract: str) -> str:
    for sent in re.split(r"(?<=[.!?])\s+", abstract.strip()):
        if len(sent.split()) >= 8:
            return sent
    return ""


def distant(data_dir: Path, every: int = DISTANT_EVERY, limit: int = DISTANT_LIMIT) -> list[dict]:
    """Distantly supervised training queries from the paper corpus (DataFinder's own recipe,
    paper section 3: a paper's text as the query, the datasets it names as the answers).

    The corpus papers (already without the 51 DataFinder test-query papers) are split by a
    hash of their id: one in ``every`` becomes a *query paper*, the others stay as the store's
    evidence (popularity, usage profiles, paper votes) in a home of its own, so no query paper
    can vote for its own answers. Each query paper whose title or abstract names a dataset
    (:func:`~litsift.search.datasets.popularity.count_mentions`, the matcher the store uses)
    gives up to two queries, year cut-off = its year: its title (``keyphrase_query``) and the
    first abstract sentence of 8+ words (``query``); a query that names one of its own
    answers is dropped (DataFinder's queries never name the dataset). Labels: the named
    datasets not newer than the paper. At most ``limit`` query papers, in hash order.
    """
    bench = load_benchmark("datafinder", data_dir)
    assert bench.papers is not None

    def is_query(row: dict) -> bool:
        digest = hashlib.sha256(f"distant:{row.get('id')}".encode()).hexdigest()
        return int(digest, 16) % every == 0

    rows = list(bench.papers())
    queries = [r for r in rows if is_query(r) and r.get("year")]
    evidence = [r for r in rows if not is_query(r)]
    home_bench = replace(
        bench, name="datafinder-distant", papers=lambda: iter(evidence), variant="distant-1"
    )
    base = Config()
    config = replace(base, search=replace(base.search, dataset_ranker=False))
    svc, _ = prepare_home(home_bench, eval_home(home_bench), config=config)
    datasets = [d for batch in svc.store.rows_since(Kind.DATASET) for d in batch]
    by_rowid = {int(d.rowid): d for d in datasets if d.rowid is not None}  # type: ignore[union-attr]

    def named(text: str) -> set[int]:
        counts = count_mentions(datasets, [Paper(id="q", title=text, rowid=0)])
        return set(counts.years)

    out: list[dict] = []
    papers = [
        Paper(
            id=str(r["id"]),
            title=str(r.get("title") or ""),
            abstract=str(r.get("abstract") or ""),
            year=int(r["year"]),
            rowid=i,
        )
        for i, r in enumerate(queries)
    ]
    mentions = count_mentions(datasets, papers)
    answers: dict[int, set[int]] = {}
    for ds, pids in mentions.papers.items():
        for pid in pids:
            answers.setdefault(int(pid), set()).add(int(ds))
    used = 0
    for paper in papers:
        assert paper.rowid is not None and paper.year is not None
        labels = {
            d
            for d in answers.get(paper.rowid, ())
            if by_rowid[d].year is None or int(by_rowid[d].year) <= paper.year  # type: ignore[operator]
        }
        if not labels:
            continue
        used += 1
        if used > limit:
            break
        for qset, text in (
            ("keyphrase_query", paper.title),
            ("query", _first_sentence(paper.abstract)),
        ):
            if not text or named(text) & labels:
                continue
            years = YearRange(None, paper.year, include_missing=True)
            query = Query(text, Kind.DATASET, years, POOL, POOL)
            res = svc.search(query)
            pool = [
                Fused(
                    int(h.record.rowid),
                    h.score,
                    h.rank,  # type: ignore[attr-defined]
                    {n: Signal(s.score, s.rank) for n, s in h.signals.items()},
                )
                for h in res.hits
            ]
            feats = svc.searcher(Kind.DATASET).features(query, pool)  # type: ignore[union-attr]
            rel = {trec_id(by_rowid[d].id): 1 for d in labels}
            docids = [trec_id(h.docid) for h in res.hits]
            out.append(
                dict(
                    qset=qset,
                    qid=f"distant:{paper.id}",
                    half="distant",
                    X=feats,
                    y=np.array([int(d in rel) for d in docids]),
                    docids=docids,
                    qrels=rel,
                )
            )
    print(f"distant: {len(out)} queries from {min(used, limit)} papers", file=sys.stderr)
    return out


def fit(entries: list[dict], params: dict[str, Any] | None = None) -> Any:
    import lightgbm as lgb

    entries = [e for e in entries if len(e["X"])]
    model = lgb.LGBMRanker(**{**PARAMS, **(params or {})})
    model.fit(
        np.vstack([e["X"] for e in entries]),
        np.concatenate([e["y"] for e in entries]),
        sample_weight=np.concatenate([np.full(len(e["X"]), e.get("weight", 1.0)) for e in entries]),
        group=[len(e["X"]) for e in entries],
        feature_name=list(FEATURES),
    )
    return model


def measure(entries: list[dict], scores: list[np.ndarray]) -> dict[str, float]:
    """Mean R@5 and RR@5 (ir-measures) of the runs given by ``scores``, depth 5."""
    qrels = {f"{e['qset']}:{e['qid']}": e["qrels"] for e in entries}
    run = {}
    for e, s in zip(entries, scores, strict=True):
        order = np.lexsort((np.arange(len(s)), -s))[:5]
        run[f"{e['qset']}:{e['qid']}"] = {e["docids"][i]: float(5 - r) for r, i in enumerate(order)}
    qids = [q for q, judged in qrels.items() if judged]
    pq = per_query(["R@5", "RR@5"], qrels, run, qids)
    return {str(m): 100 * float(np.mean(v)) for m, v in pq.items()}


def cross_validate(
    entries: list[dict], extra: list[dict] | None = None, folds: int = 5, grid: bool = True
) -> None:
    """Rank :data:`GRID` by 5-fold cross-validation on the tune half (see the module doc)."""
    import hashlib

    tune = [e for e in entries if e["half"] == "tune"]

    def fold(qid: str) -> int:
        return int(hashlib.sha256(f"cv:{qid}".encode()).hexdigest(), 16) % folds

    results = []
    for params in [{}, *(GRID if grid else [])]:
        per: dict[str, list[float]] = {}
        for k in range(folds):
            model = fit([e for e in tune if fold(e["qid"]) != k] + (extra or []), params)
            for qset in ("query", "keyphrase_query"):
                ev = [e for e in tune if fold(e["qid"]) == k and e["qset"] == qset]
                m = measure(ev, [model.booster_.predict(e["X"]) for e in ev])
                for name, v in m.items():
                    per.setdefault(f"{qset} {name}", []).append(v * len(ev))
                per.setdefault(f"{qset} n", []).append(len(ev))
        row = {
            key: sum(vals) / sum(per[f"{key.split()[0]} n"])
            for key, vals in per.items()
            if not key.endswith(" n")
        }
        mean = sum(row.values()) / len(row)
        results.append((mean, params, row))
        label = "PARAMS (shipped)" if not params else str(params)
        print(f"{mean:5.1f}  " + "  ".join(f"{k} {v:.1f}" for k, v in row.items()) + f"  {label}")
    best = max(results, key=lambda t: t[0])
    print(f"best: {best[1] or 'PARAMS'} (mean {best[0]:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="the ../shared/data directory")
    ap.add_argument("--check", action="store_true", help="2-fold check only; write nothing")
    ap.add_argument("--cv", action="store_true", help="choose settings by CV on the tune half")
    ap.add_argument(
        "--distant", action="store_true", help="add distantly supervised queries (see distant())"
    )
    ap.add_argument("--distant-every", type=int, default=DISTANT_EVERY)
    ap.add_argument("--distant-weight", type=float, default=1.0, help="weight of their rows")
    ap.add_argument("--no-grid", action="store_true", help="--cv: the shipped PARAMS only")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument(
        "--pool", type=int, default=POOL, help="candidates per query (k = k0); round 13 compares"
    )
    args = ap.parse_args()
    halves = ("tune",) if args.cv else ("tune", "heldout")
    entries = collect(args.data or default_data_dir(), halves, args.pool)
    extra = distant(args.data or default_data_dir(), args.distant_every) if args.distant else []
    for e in extra:
        e["weight"] = args.distant_weight
    if args.cv:
        cross_validate(entries, extra, grid=not args.no_grid)
        return
    folds = [("tune", "heldout"), ("heldout", "tune")] if args.check else [("tune", "heldout")]
    for train, test in folds:
        model = fit([e for e in entries if e["half"] == train] + extra)
        for qset in ("query", "keyphrase_query"):
            ev = [e for e in entries if e["half"] == test and e["qset"] == qset]
            base = measure(ev, [-np.arange(len(e["X"]), dtype=float) for e in ev])
            ranked = measure(ev, [model.booster_.predict(e["X"]) for e in ev])
            print(
                f"fit {train:7s} score {test:7s} {qset:16s} n={len(ev):3d}  fused "
                f"R@5 {base['R@5']:.1f} RR@5 {base['RR@5']:.1f}  re-ranked "
                f"R@5 {ranked['R@5']:.1f} RR@5 {ranked['RR@5']:.1f}"
            )
        if not args.check and train == "tune":
            model.booster_.save_model(str(args.out))
            print(f"wrote {args.out}", file=sys.stderr)
            gain = model.booster_.feature_importance("gain")
            for name, g in sorted(zip(FEATURES, gain, strict=True), key=lambda t: -t[1]):
                print(f"  {name:18s} gain {g:9.1f}")


if __name__ == "__main__":
    main()
