"""Train the dataset re-ranker (``src/litsift/search/dataset_ranker.lgb.txt``) on DataFinder.

Usage (from the repository root, with ../shared/data beside it; the DataFinder eval home is
built on first use, as by ``litsift eval datafinder``)::

    python benchmarks/train_dataset_ranker.py            # train on the tune half, write the model
    python benchmarks/train_dataset_ranker.py --check    # 2-fold check, write nothing

What: every DataFinder test query of the *tune* half (:func:`litsift.eval.benchmarks.
query_half`; both ``query`` and ``keyphrase_query``) runs through ``service.search`` with the
re-ranker off, pool = the top 100 fused candidates (``k = k0 = 100``, the default ``k0``); each
candidate gets the features of :func:`litsift.search.datasets.ranker.dataset_features` (built by
``DatasetSearcher.features``, the same code the search path uses) and label 1
if the qrels call it relevant. A LightGBM ``LGBMRanker`` (objective ``lambdarank``,
:data:`PARAMS`, fixed seed, deterministic) is fit on the tune half and saved. The held-out
half is never used for fitting or for choosing :data:`PARAMS` (they were fixed before the
held-out half was scored); ``litsift eval datafinder`` reports both halves and the whole.

``--check`` also fits on the held-out half and scores the tune half (2-fold), printing R@5 /
RR@5 at depth 5 (ir-measures) for the fused pool and for the re-ranked pool on each fold.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import lightgbm  # noqa: F401 -- with its scikit-learn API, before any search loads it without
import numpy as np

from litsift.config import Config
from litsift.eval.benchmarks import load_benchmark, query_half
from litsift.eval.cli_support import default_data_dir
from litsift.eval.measures import per_query
from litsift.eval.runner import _dedupe, _years, eval_home, prepare_home
from litsift.eval.trec import trec_id
from litsift.search.datasets.ranker import FEATURES, MODEL_PATH
from litsift.search.fusion import Fused
from litsift.types import Kind, Query
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
POOL = 100


def collect(data_dir: Path) -> list[dict]:
    """One entry per (query set, deduplicated query): features, labels, docids, half."""
    bench = load_benchmark("datafinder", data_dir)
    base = Config()
    config = replace(base, search=replace(base.search, dataset_ranker=False))
    svc, _ = prepare_home(bench, eval_home(bench), config=config)
    out = []
    for qset in bench.query_sets:
        for q in _dedupe(qset.queries):
            query = Query(q.text, Kind.DATASET, _years(q), POOL, POOL)
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


def fit(entries: list[dict]) -> Any:
    import lightgbm as lgb

    entries = [e for e in entries if len(e["X"])]
    model = lgb.LGBMRanker(**PARAMS)
    model.fit(
        np.vstack([e["X"] for e in entries]),
        np.concatenate([e["y"] for e in entries]),
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="the ../shared/data directory")
    ap.add_argument("--check", action="store_true", help="2-fold check only; write nothing")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args()
    entries = collect(args.data or default_data_dir())
    folds = [("tune", "heldout"), ("heldout", "tune")] if args.check else [("tune", "heldout")]
    for train, test in folds:
        model = fit([e for e in entries if e["half"] == train])
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
