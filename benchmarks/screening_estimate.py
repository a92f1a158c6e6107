"""The "includes left" estimate of the screening screen against the truth, in simulation.

Usage (from the repository root, with ../shared/data beside it)::

    python benchmarks/screening_estimate.py --seeds 3 --json estimate.json

Per set of ``shared/data/eval/screening`` and seed (0 … seeds-1): the app's default order
(``litsift`` of ``litsift eval screening``: TF-IDF + dense 0.2, the citation signal on sets with
references) screens the records from the seed's priors; after 10 %, 25 % and 50 % of the
records are screened, each estimator guesses the includes left among the rest:

* ``platt`` -- the model retrained on those decisions, its decision values Platt-scaled and
  summed over the pool (:func:`litsift.review.session.platt_estimate`; what the screen showed);
* ``poisson-exp`` / ``poisson-hyp`` -- :func:`litsift.review.estimate.rate_curve_estimate` on
  the labels in screening order (Sneyd & Stevenson 2019, EMNLP), exponential / hyperbolic rate.

It prints per estimator and checkpoint the mean absolute error (records) over sets x seeds, the
mean signed error (bias) and the mean over sets of the error relative to the set's includes;
per set the same at 25 %. It asserts nothing.

Measured 2026-11-26 (2-core machine, 12 sets x seeds 0-2, 13 min), MAE / bias in records after
10 / 25 / 50 % screened: platt 283.5 / +283.5, 87.2 / +87.2, 13.1 / +13.1; poisson-exp
84.6 / +75.2, 7.0 / +0.6, 2.2 / -0.5; poisson-hyp 120.3 / +119.3, 33.7 / +33.7, 13.3 / +13.2.
The screen shows poisson-exp. At 10 % it is bimodal: where the includes have not thinned out yet
the fit finds no decay and extrapolates a flat rate (Donners seed 0: 111 for a truth of 2).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from litsift.graph.signal import SignalFeatures
from litsift.graph.snowball import set_graph
from litsift.paths import shared_data_dir
from litsift.review.data import find_sets, load_review_set
from litsift.review.estimate import rate_curve_estimate
from litsift.review.learner import DEFAULT_ORDER, ORDERS, LearningOrder
from litsift.review.session import platt_estimate
from litsift.review.simulate import draw_priors, learning_order

CHECKPOINTS = (0.05, 0.10, 0.25, 0.50)
ESTIMATORS = ("platt", "poisson-exp", "poisson-hyp")


def one_set(name: str, data: Path, seeds: int) -> list[dict[str, Any]]:
    """Every (seed, checkpoint, estimator) row of one set."""
    from litsift.models_onnx import load_encoder
    from litsift.service.screening import order_encoder

    review = load_review_set(find_sets(data, [name])[0])
    dense = order_encoder(ORDERS[DEFAULT_ORDER], load_encoder()).encode_passages(review.texts)
    features = None
    if review.references:
        features = SignalFeatures(
            set_graph(review.openalex_ids, review.references), list(range(review.labels.size))
        )
    in_file_order = LearningOrder.build(ORDERS[DEFAULT_ORDER], review.texts, dense, features)
    rows: list[dict[str, Any]] = []
    for seed in range(seeds):
        p = draw_priors(review.labels, seed)
        y = review.labels[p.perm].astype(np.int64)
        order = in_file_order.permuted(p.perm)
        priors = [p.included, p.excluded]
        screened, _ = learning_order(order, y, (p.included, p.excluded))
        rest = [r for r in range(y.size) if r not in set(screened) and r not in priors]
        full = [*screened, *rest]  # after the last include, the rest in pool order (all 0)
        seq = y[np.asarray(full, dtype=np.int64)]
        m = seq.size
        for frac in CHECKPOINTS:
            k = math.floor(frac * m)
            labelled = np.asarray(priors + full[:k], dtype=np.int64)
            pool = np.asarray(full[k:], dtype=np.int64)
            truth = float(seq[k:].sum())
            scores = order.fit(labelled, y[labelled]).scores(np.concatenate([labelled, pool]))
            est = {
                "platt": platt_estimate(
                    scores[: labelled.size], y[labelled], scores[labelled.size :]
                ),
                "poisson-exp": rate_curve_estimate(seq[:k], m - k, "exponential"),
                "poisson-hyp": rate_curve_estimate(seq[:k], m - k, "hyperbolic"),
            }
            rows += _rows(name, seed, frac, est, truth, int(review.labels.sum()))
    return rows


def _rows(
    name: str, seed: int, at: float, est: dict[str, float], truth: float, included: int
) -> list[dict[str, Any]]:
    """One row per estimator of one (set, seed, checkpoint)."""
    return [
        {"set": name, "seed": seed, "at": at, "estimator": e, "estimate": v, "truth": truth,
         "included": included}
        for e, v in est.items()
    ]  # fmt: skip


def from_runs(file: Path, system: str) -> list[dict[str, Any]]:
    """Rows of the rate-curve estimators on the screening sequences a
    ``benchmarks/screening_nested.py`` run stored (``--runs``: per run the include positions
    and the records after the priors), for its ``system``; no simulation.

    ``poisson-exp`` is the maximum-likelihood fit; ``poisson-prior`` averages the decay over a
    log-normal prior fitted, for each review, on the whole sequences of the *other* reviews
    (:func:`litsift.review.estimate.fit_decay_prior`, leave one review out).
    """
    from litsift.review.estimate import fit_decay_prior

    runs = [json.loads(line) for line in file.read_text().splitlines() if line.strip()]
    runs = [r for r in runs if r["system"] == system and "hits" in r]
    if not runs:
        sys.exit(f"no run of {system} with include positions in {file}")
    seqs: dict[str, list[np.ndarray]] = {}
    for r in runs:
        seq = np.zeros(r["records"], dtype=np.int64)
        seq[r["hits"]] = 1
        seqs.setdefault(r["set"], []).append(seq)
    rows: list[dict[str, Any]] = []
    for name, own in seqs.items():
        prior = fit_decay_prior([q for other, qs in seqs.items() if other != name for q in qs])
        for seed, seq in enumerate(own):
            m = seq.size
            for frac in CHECKPOINTS:
                k = math.floor(frac * m)
                est = {
                    "poisson-exp": rate_curve_estimate(seq[:k], m - k),
                    "poisson-prior": rate_curve_estimate(seq[:k], m - k, prior=prior),
                }
                truth = float(seq[k:].sum())
                rows += _rows(name, seed, frac, est, truth, int(seq.sum()) + 1)
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """``{estimator: {"@10" …: {"mae", "bias", "rel_mae"}}}`` over sets x seeds."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for e in dict.fromkeys(r["estimator"] for r in rows):
        for frac in CHECKPOINTS:
            sel = [r for r in rows if r["estimator"] == e and r["at"] == frac]
            err = np.asarray([r["estimate"] - r["truth"] for r in sel])
            rel = np.asarray([abs(r["estimate"] - r["truth"]) / r["included"] for r in sel])
            out.setdefault(e, {})[f"@{round(100 * frac)}"] = {
                "mae": float(np.abs(err).mean()),
                "bias": float(err.mean()),
                "rel_mae": float(rel.mean()),
                "n": len(sel),
            }
    return out


def main() -> None:
    """Run the sets one after the other, print the summary (and write the JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--sets", default=None, help="comma list (default: all)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--from-runs", type=Path, default=None, help="screening_nested.py --runs")
    ap.add_argument("--system", default=DEFAULT_ORDER, help="with --from-runs: whose runs")
    args = ap.parse_args()
    data = args.data or shared_data_dir()
    names = [
        p.name.removesuffix(".jsonl.gz")
        for p in find_sets(data, args.sets and args.sets.split(","))
    ]
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if args.from_runs:
        rows = [r for r in from_runs(args.from_runs, args.system) if r["set"] in names]
        names = [n for n in names if any(r["set"] == n for r in rows)]
    for name in [] if args.from_runs else names:
        rows += one_set(name, data, args.seeds)
        print(f"{name}: done after {time.perf_counter() - start:.0f} s", file=sys.stderr)
    summary = summarise(rows)
    estimators = list(summary)
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1), "utf-8")
    print(
        f"{'estimator':<12} " + " ".join(f"{'MAE/bias ' + c:>22}" for c in summary[estimators[0]])
    )
    for e, row in summary.items():
        cells = " ".join(f"{v['mae']:9.1f} / {v['bias']:+9.1f}  " for v in row.values())
        print(f"{e:<12} {cells}")
    for name in names:
        cells = []
        for e in estimators:
            sel = [r for r in rows if r["set"] == name and r["estimator"] == e and r["at"] == 0.25]
            cells.append(f"{e} {np.mean([abs(r['estimate'] - r['truth']) for r in sel]):7.1f}")
        truth = np.mean([r["truth"] for r in rows if r["set"] == name and r["at"] == 0.25])
        print(f"{name:<36} truth@25 {truth:6.1f}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
