"""``litsift eval snowball``: citation snowballing and the citation signal on labelled reviews.

On each screening set that carries references (``referenced_works``; the four OpenAlex-built
sets of ``shared/data/eval/screening``), per seed:

* **snowball** -- from :data:`START` random included records, backward + forward rounds inside
  the set's records until a round finds no new included record
  (:func:`litsift.graph.snowball.snowball`): recall of the included records and the fraction
  of records screened;
* **screening** -- the learning order ``litsift`` (:data:`litsift.review.learner.DEFAULT_ORDER`)
  and the same order with the citation signal towards the included decisions as three extra
  features (``litsift+citations``; :class:`litsift.graph.signal.SignalFeatures`), from the same
  priors (:func:`litsift.review.simulate.draw_priors`): WSS@95 and RRF@10, compared paired over
  sets × seeds.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from litsift.errors import EvalError
from litsift.eval.measures import paired_test
from litsift.graph.signal import SignalFeatures
from litsift.graph.snowball import SnowballRun, set_graph, snowball
from litsift.review.columns import CITATION_MIN_INCLUDED, CITATION_WEIGHT
from litsift.review.data import ReviewSet, find_sets, load_review_set
from litsift.review.learner import (
    DEFAULT_ORDER,
    ORDERS,
    LearningOrder,
    review_spec,
    tfidf_matrix,
)
from litsift.review.simulate import SimulationRun, run_once

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder

#: Included records a snowball starts from.
START = 3
LITSIFT = "litsift"
WITH_CITATIONS = "litsift+citations"
SYSTEMS = (LITSIFT, WITH_CITATIONS)
#: Screening measures reported (fractions).
MEASURES = ("WSS@95", "RRF@10")
SNOWBALL_MEASURES = ("recall", "screened_frac", "rounds")

SnowballProgress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SetRun:
    """One set and seed: the snowball and each system's screening run."""

    review_set: str
    seed: int
    snowball: SnowballRun
    start_ids: tuple[str, ...]
    screening: dict[str, SimulationRun]


@dataclass(frozen=True)
class SnowballReport:
    """Every run of one ``litsift eval snowball``."""

    sets: tuple[str, ...]
    seeds: int
    order: str
    runs: tuple[SetRun, ...]
    set_info: dict[str, dict[str, int]]
    notes: tuple[str, ...]
    elapsed_s: float


def run_snowball(
    data_dir: Path,
    sets: Sequence[str] | None = None,
    seeds: int = 5,
    order: str = DEFAULT_ORDER,
    progress: SnowballProgress | None = None,
    encoder: Encoder | None = None,
) -> SnowballReport:
    """Snowball and screen each set that carries references with seeds ``0 … seeds-1``.

    Args:
        data_dir: the shared data dir or the screening sets' dir.
        sets: set names (file stems); default every set with references.
        seeds: runs per set.
        order: the learning order both screening systems use (a name of
            :data:`litsift.review.learner.ORDERS`).
        progress: ``progress(stage, done, total)`` per finished set and seed.
        encoder: an already-loaded encoder for the dense vectors (default
            :func:`litsift.models_onnx.load_encoder`).

    Raises:
        EvalError: unknown set or order, unreadable set, a named set without references, or
            no set with references.
    """
    if order not in ORDERS:
        raise EvalError(f"unknown learning order {order}", f"choose among {', '.join(ORDERS)}")
    start_time = time.perf_counter()
    notes: list[str] = []
    reviews: list[ReviewSet] = []
    for path in find_sets(data_dir, sets):
        review = load_review_set(path)
        notes += list(review.problems)
        if review.references:
            reviews.append(review)
        elif sets:
            raise EvalError(
                f"review set {review.name} carries no references (referenced_works)",
                "pick a set built from OpenAlex (Donners_2021, Meijboom_2021, Nelson_2002, "
                "Oud_2018)",
            )
    if not reviews:
        raise EvalError(
            f"no screening set with references under {data_dir}",
            "pass --data with the screening sets (gzip'd JSON Lines with referenced_works)",
        )
    runs: list[SetRun] = []
    info: dict[str, dict[str, int]] = {}
    total = len(reviews) * seeds
    for review in reviews:
        runs += _run_set(review, seeds, order, encoder, info, progress, len(runs), total)
    notes.append(
        f"snowball: {START} random included records per seed, backward + forward rounds inside "
        "the set until no new included record; recall and screened_frac count the start set"
    )
    notes.append(
        f"screening: order {order}; {WITH_CITATIONS} adds the citation signal towards the "
        f"included decisions (linked, coupling, co-citation; log1p, max-scaled, weight "
        f"{CITATION_WEIGHT}, once {CITATION_MIN_INCLUDED} records are included) as features "
        "recomputed at each fit; same priors per seed"
    )
    return SnowballReport(
        tuple(r.name for r in reviews),
        seeds,
        order,
        tuple(runs),
        info,
        tuple(notes),
        time.perf_counter() - start_time,
    )


def _run_set(
    review: ReviewSet,
    seeds: int,
    order: str,
    encoder: Encoder | None,
    info: dict[str, dict[str, int]],
    progress: SnowballProgress | None,
    done: int,
    total: int,
) -> list[SetRun]:
    g = set_graph(review.openalex_ids, review.references)
    n = int(review.labels.size)
    internal = sum(1 for u, v in g.edges if isinstance(v, int))
    info[review.name] = {
        "records": n,
        "included": int(review.labels.sum()),
        "references": sum(len(r) for r in review.references),
        "edges_inside": internal,
    }
    spec = ORDERS[order]
    dense = None
    if spec.needs_dense:
        from litsift.eval.screening import cached_encoder
        from litsift.service.screening import order_encoder, screening_encoder

        home = cached_encoder(encoder)
        if order == DEFAULT_ORDER:  # as the app: its encoder where installed, else the home's
            spec = review_spec(screening_encoder(home).spec.model_id)
        dense = order_encoder(spec, home).encode_passages(review.texts)
    tfidf = tfidf_matrix(review.texts, spec.stem) if "tfidf" in spec.features else None
    text_only = LearningOrder.from_blocks(spec, tfidf, dense)
    with_citations = text_only.with_citations(SignalFeatures(g, list(range(n))))
    included = np.flatnonzero(review.labels)
    out = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        start = sorted(int(i) for i in rng.choice(included, min(START, included.size), False))
        ball = snowball(g, review.labels, start)
        screening = {
            LITSIFT: run_once(review, LITSIFT, seed, text_only),
            WITH_CITATIONS: run_once(review, WITH_CITATIONS, seed, with_citations),
        }
        ids = tuple(review.record_ids[i] for i in start)
        out.append(SetRun(review.name, seed, ball, ids, screening))
        if progress is not None:
            progress("snowball", done + len(out), total)
    return out


def _stat(values: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(values, dtype=np.float64)
    return {
        "mean": float(arr.mean()),
        "std": float(arr.std(ddof=1)) if arr.size > 1 else 0.0,
        "n": int(arr.size),
    }


def _values(run: SetRun) -> dict[str, dict[str, float]]:
    ball = run.snowball
    out: dict[str, dict[str, float]] = {
        "snowball": {
            "recall": ball.recall,
            "screened_frac": ball.screened_frac,
            "rounds": float(ball.rounds),
        }
    }
    for system, sim in run.screening.items():
        out[system] = {m: sim.measures[m] for m in MEASURES}
        # the learner's recall after reading as many records as the snowball did
        read = max(0, len(run.start_ids) + ball.screened - 2)
        seq = sim.sequence
        found = int(seq[:read].sum()) + 1  # + the included prior
        out[system]["recall@snowball"] = found / (int(seq.sum()) + 1)
    return out


def report_to_json(report: SnowballReport) -> dict[str, Any]:
    """The report as one JSON-able object.

    Shape: ``{"benchmark": "snowball", "unit": "fraction", "sets": {set: {"records",
    "included", "references", "edges_inside"}}, "seeds", "start", "order", "results": {set:
    {"snowball": {"recall", "screened_frac", "rounds"}, "litsift" | "litsift+citations":
    {"WSS@95", "RRF@10", "recall@snowball"}}} each {"mean", "std", "n"} over seeds, "summary":
    {group: {measure: {"mean", "median"}}} over sets, "runs": [{"set", "seed", "start",
    group: {measure: value}}], "comparisons": [{"system", "other", "measure", "diff",
    "p_value", "wins", "losses", "n"}] (``litsift+citations`` vs ``litsift`` paired over sets ×
    seeds), "notes", "elapsed_s"}``. ``recall@snowball``: the learner's recall after screening
    as many records as that seed's snowball read.
    """
    per_run = [(r, _values(r)) for r in report.runs]
    groups = ("snowball", *SYSTEMS)
    results: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for name in report.sets:
        rows = [v for r, v in per_run if r.review_set == name]
        results[name] = {
            g: {m: _stat([row[g][m] for row in rows]) for m in rows[0][g]} for g in groups
        }
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for g in groups:
        for m in results[report.sets[0]][g]:
            vals = [results[s][g][m]["mean"] for s in report.sets]
            summary.setdefault(g, {})[m] = {
                "mean": float(np.mean(vals)),
                "median": float(statistics.median(vals)),
            }
    comparisons = []
    for m in (*MEASURES, "recall@snowball"):
        a = np.asarray([v[WITH_CITATIONS][m] for _, v in per_run])
        b = np.asarray([v[LITSIFT][m] for _, v in per_run])
        t = paired_test(a, b)
        comparisons.append(
            {
                "system": WITH_CITATIONS,
                "other": LITSIFT,
                "measure": m,
                "better": "higher",
                "paired_over": "sets x seeds",
                "diff": t.diff,
                "p_value": t.p_value,
                "wins": t.wins,
                "losses": t.losses,
                "n": t.n,
            }
        )
    return {
        "benchmark": "snowball",
        "unit": "fraction",
        "sets": report.set_info,
        "seeds": report.seeds,
        "start": START,
        "order": report.order,
        "results": results,
        "summary": summary,
        "runs": [
            {"set": r.review_set, "seed": r.seed, "start": list(r.start_ids), **v}
            for r, v in per_run
        ],
        "comparisons": comparisons,
        "notes": list(report.notes),
        "elapsed_s": report.elapsed_s,
    }


def format_table(data: dict[str, Any]) -> str:
    """Plain-text table of :func:`report_to_json`'s object: per set the snowball's recall and
    screened fraction and each system's WSS@95 / RRF@10 (percent, mean ± std over seeds), the
    mean over sets, then the paired comparisons."""
    head = (
        f"{'set':<16} {'records':>7} {'incl':>5} {'snowball recall':>16} {'screened':>13} "
        f"{'WSS@95':>13} {'+citations':>13} {'RRF@10':>13} {'+citations':>13}"
    )
    lines = [head, "-" * len(head)]

    def pct(v: dict[str, float]) -> str:
        return f"{100 * v['mean']:5.1f} ± {100 * v['std']:4.1f}"

    for s, row in data["results"].items():
        info = data["sets"][s]
        lines.append(
            f"{s:<16} {info['records']:>7} {info['included']:>5} "
            f"{pct(row['snowball']['recall']):>16} {pct(row['snowball']['screened_frac']):>13} "
            f"{pct(row[LITSIFT]['WSS@95']):>13} {pct(row[WITH_CITATIONS]['WSS@95']):>13} "
            f"{pct(row[LITSIFT]['RRF@10']):>13} {pct(row[WITH_CITATIONS]['RRF@10']):>13}"
        )
    sm = data["summary"]
    lines.append(
        f"{'mean over sets':<30} {100 * sm['snowball']['recall']['mean']:16.1f} "
        f"{100 * sm['snowball']['screened_frac']['mean']:13.1f} "
        f"{100 * sm[LITSIFT]['WSS@95']['mean']:13.1f} "
        f"{100 * sm[WITH_CITATIONS]['WSS@95']['mean']:13.1f} "
        f"{100 * sm[LITSIFT]['RRF@10']['mean']:13.1f} "
        f"{100 * sm[WITH_CITATIONS]['RRF@10']['mean']:13.1f}"
    )
    for c in data["comparisons"]:
        lines.append(
            f"{c['system']} vs {c['other']} {c['measure']}: diff {c['diff']:+.4f}, "
            f"p = {c['p_value']:.4f} ({c['wins']} wins, {c['losses']} losses of {c['n']} "
            f"set x seed pairs)"
        )
    lines += [f"note: {n}" for n in data["notes"]]
    return "\n".join(lines)
