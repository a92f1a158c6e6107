"""Nested cross-validation of the screening order over the 12 shared reviews, with ASReview.

Issue 44, item 1: the default learning order was chosen on the same 12 reviews it is reported
on. Here every candidate order (:data:`CANDIDATES`, each an
:class:`litsift.review.learner.OrderSpec` the app can run) and ASReview's default model are
simulated on every review of ``shared/data/eval/screening`` with seeds ``0 … S-1`` (the
protocol of :mod:`litsift.review.simulate`: the same shuffles and priors for every system).
Then, for each review in turn, the candidate with the best mean selection score over the
*other* 11 reviews is chosen, and its figures on the held-out review are reported beside the
in-sample ones (the candidate chosen on all 12) and ASReview's. The selection score is the
mean of WSS@95 and RRF@10 (both are the goal's measures).

Usage (from the repository root, ../shared/data beside it; ASReview in its own venv)::

    LITSIFT_ASREVIEW_PYTHON=/path/to/venv-asreview/bin/python \\
        python benchmarks/screening_nested.py --seeds 5 --jobs 2 \\
        --runs nested-runs.jsonl --json nested.json --markdown nested.md \\
        [--encoders bge-small-en-v1.5-int8] [--criteria benchmarks/screening_criteria.json]

With ``--encoders``, :data:`ENCODER_CANDIDATES` also run with each named encoder's vectors
(the dense block and the nearest include), as candidates ``MODEL:candidate`` of the same
selection; each review's texts are embedded once per encoder through the embedding cache.
Every finished (system, review, seed) is appended to ``--runs`` at once, so an interrupted
run resumes where it stopped. Orders that differ only in the citation weight share their runs
on reviews without references (the signal is off there), and orders that differ only in the
criteria weight on reviews without criteria. With ``--criteria`` (each review's question,
as a reviewer gives it to ``review new --criteria``), the label-spreading candidates also run
with the criteria column (:data:`CRITERIA_WEIGHTS`); ASReview reads no criteria.
It prints tables and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from litsift.eval.measures import paired_test
from litsift.paths import shared_data_dir
from litsift.review.data import ReviewSet, find_sets, load_review_set
from litsift.review.learner import DEFAULT_ORDER, ORDERS, LearningOrder, OrderSpec

ASREVIEW = "asreview"
MEASURES = ("WSS@95", "RRF@10", "ATD/M")


def _spec(name: str, features: str, **kw: Any) -> OrderSpec:
    return OrderSpec(name, features, **kw)


#: The candidate orders: features, classifier, regularisation, balance and citation weight.
CANDIDATES: dict[str, OrderSpec] = {
    s.name: s
    for s in (
        _spec("tfidf", "tfidf", citation_weight=0.0),
        _spec("tfidf+cit", "tfidf", citation_weight=0.3),
        _spec("td0.2", "tfidf+dense", dense_weight=0.2, citation_weight=0.0),
        _spec("td0.2+cit", "tfidf+dense", dense_weight=0.2, citation_weight=0.3),
        _spec("td0.2+cit1", "tfidf+dense", dense_weight=0.2, citation_weight=1.0),
        _spec("td0.5+cit", "tfidf+dense", dense_weight=0.5, citation_weight=0.3),
        _spec("td1.0+cit", "tfidf+dense", dense_weight=1.0, citation_weight=0.3),
        _spec("td0.5-C1+cit", "tfidf+dense", dense_weight=0.5, c=1.0, citation_weight=0.3),
        _spec(
            "td0.5-lr+cit",
            "tfidf+dense",
            dense_weight=0.5,
            c=1.0,
            classifier="logreg",
            citation_weight=0.3,
        ),
        _spec("td0.2-r2+cit", "tfidf+dense", dense_weight=0.2, ratio=2.0, citation_weight=0.3),
        _spec("td0.5-C0.3+cit", "tfidf+dense", dense_weight=0.5, c=0.3, citation_weight=0.3),
        _spec("td1.0-C1+cit", "tfidf+dense", dense_weight=1.0, c=1.0, citation_weight=0.3),
        _spec("dense-C1+cit", "dense", c=1.0, citation_weight=0.3),
        _spec(
            "td0.2-r2+cit+nn0.3",
            "tfidf+dense",
            dense_weight=0.2,
            ratio=2.0,
            citation_weight=0.3,
            neighbour_weight=0.3,
        ),
        _spec(
            "td0.2-r2+cit+nn1",
            "tfidf+dense",
            dense_weight=0.2,
            ratio=2.0,
            citation_weight=0.3,
            neighbour_weight=1.0,
        ),
        _spec("tfidf+cit+nn1", "tfidf", citation_weight=0.3, neighbour_weight=1.0),
        _spec(
            "td0.5-r2+cit+nn0.3",
            "tfidf+dense",
            dense_weight=0.5,
            ratio=2.0,
            citation_weight=0.3,
            neighbour_weight=0.3,
        ),
        _spec(
            "td0.5+cit+nn0.3",
            "tfidf+dense",
            dense_weight=0.5,
            citation_weight=0.3,
            neighbour_weight=0.3,
        ),
        _spec(
            "td0.5-C0.3+cit+nn0.3",
            "tfidf+dense",
            dense_weight=0.5,
            c=0.3,
            citation_weight=0.3,
            neighbour_weight=0.3,
        ),
        _spec(
            "td0.7+cit+nn0.3",
            "tfidf+dense",
            dense_weight=0.7,
            citation_weight=0.3,
            neighbour_weight=0.3,
        ),
        _spec(
            "td1.0-r2+cit+nn0.3",
            "tfidf+dense",
            dense_weight=1.0,
            ratio=2.0,
            citation_weight=0.3,
            neighbour_weight=0.3,
        ),
        _spec(
            "td0.2-r2+cit+nn0.3+lp0.3",
            "tfidf+dense",
            dense_weight=0.2,
            ratio=2.0,
            citation_weight=0.3,
            neighbour_weight=0.3,
            spread_weight=0.3,
        ),
    )
}
#: The candidates also run with each other encoder of ``--encoders`` (their dense block and
#: nearest include from that encoder's vectors), named ``MODEL:candidate``.
ENCODER_CANDIDATES = (
    "td0.2-r2+cit+nn0.3",
    "td0.5-r2+cit+nn0.3",
    "td1.0-r2+cit+nn0.3",
    "td0.5+cit",
    "td0.5-C0.3+cit",
    "td0.5+cit+nn0.3",
    "td0.5-C0.3+cit+nn0.3",
    "td0.7+cit+nn0.3",
)
#: Candidates run only with the encoders of ``--encoders`` (``MODEL:candidate``): the
#: label-spreading column (:func:`litsift.review.learner.spread_column`) beside the bge order.
ENCODER_ONLY_CANDIDATES: tuple[OrderSpec, ...] = tuple(
    _spec(
        f"td0.7+cit+nn0.3+lp{w}",
        "tfidf+dense",
        dense_weight=0.7,
        citation_weight=0.3,
        neighbour_weight=0.3,
        spread_weight=w,
    )
    for w in (0.15, 0.3)
)
#: With ``--criteria``: the label-spreading candidates again with the criteria column
#: (:func:`litsift.review.columns.criteria_column`) at these weights, ``...+critW``.
CRITERIA_WEIGHTS = (0.25, 0.5)
#: The encoder of each candidate that is not the default one (filled by ``--encoders``).
ENCODER_OF: dict[str, str] = {}
#: ``{set: criteria text}`` (``--criteria``), read by candidates with a criteria column.
CRITERIA: dict[str, str] = {}


def add_criteria_candidates() -> None:
    """Each label-spreading candidate (``...+lpW``, of the default encoder and of each
    ``--encoders`` one) again with the criteria column at each of :data:`CRITERIA_WEIGHTS`
    (``...+lpW+critV``)."""
    for cand in [c for c in CANDIDATES if "+lp" in c and "+crit" not in c]:
        for w in CRITERIA_WEIGHTS:
            name = f"{cand}+crit{w}"
            CANDIDATES[name] = replace(CANDIDATES[cand], name=name, criteria_weight=w)
            if cand in ENCODER_OF:
                ENCODER_OF[name] = ENCODER_OF[cand]


def add_encoder_candidates(model_id: str) -> None:
    """:data:`ENCODER_CANDIDATES` again, with ``model_id``'s vectors, and
    :data:`ENCODER_ONLY_CANDIDATES`."""
    specs = [CANDIDATES[name] for name in ENCODER_CANDIDATES] + list(ENCODER_ONLY_CANDIDATES)
    for spec in specs:
        CANDIDATES[f"{model_id}:{spec.name}"] = replace(spec, name=f"{model_id}:{spec.name}")
        ENCODER_OF[f"{model_id}:{spec.name}"] = model_id


def _key_on(spec: OrderSpec, review: ReviewSet, encoder: str | None) -> str | None:
    """What a spec computes on ``review`` when another spec may compute the same: without
    references the citation weight does not count, without criteria the criteria weight;
    None when nothing is dropped (the spec's runs are its own)."""
    drop: dict[str, Any] = {}
    if not review.references:
        drop["citation_weight"] = 0.0
    if not CRITERIA.get(review.name, "").strip():
        drop["criteria_weight"] = 0.0
    if not drop:
        return None
    d = asdict(replace(spec, name="", **drop))
    return json.dumps({**d, "encoder": encoder}, sort_keys=True)


def _run_unit(
    path: str,
    system: str,
    spec: OrderSpec | None,
    seeds: Sequence[int],
    python: str | None,
    encoder: str | None = None,
    criteria: str = "",
) -> list[dict[str, Any]]:
    """Simulate ``system`` on one review for ``seeds`` (one process-pool task); ``encoder``:
    the model id whose vectors the order reads (None: the default encoder); ``criteria``:
    the review's criteria text (read when the spec has a criteria column)."""
    from litsift.eval.screening import cached_encoder
    from litsift.graph.signal import SignalFeatures
    from litsift.graph.snowball import set_graph
    from litsift.models_onnx import load_encoder
    from litsift.review.learner import tfidf_matrix
    from litsift.review.simulate import run_once

    review = load_review_set(Path(path))
    order = None
    if spec is not None:
        tfidf = tfidf_matrix(review.texts, spec.stem) if "tfidf" in spec.features else None
        model = None if encoder is None else load_encoder(encoder)
        home = cached_encoder(model)
        dense = home.encode_passages(review.texts) if spec.needs_dense else None
        query = None
        if spec.criteria_weight and criteria.strip() and dense is not None:
            query = home.encode_queries([criteria])[0]
        signal = None
        if review.references and spec.citation_weight != 0:
            signal = SignalFeatures(
                set_graph(review.openalex_ids, review.references), list(range(review.labels.size))
            )
        order = LearningOrder.from_blocks(spec, tfidf, dense, signal, query)
    out = []
    for seed in seeds:
        run = run_once(review, system, seed, order, python)
        out.append(
            {
                "system": system,
                "set": review.name,
                "seed": seed,
                **{m: float(run.measures[m]) for m in MEASURES},
                "seconds": run.elapsed_s,
                # positions of the includes in screening order, of "records" after the priors
                # (what an includes-left estimator or a stopping rule reads)
                "hits": np.flatnonzero(run.sequence).tolist(),
                "records": int(run.sequence.size),
                "notes": list(run.notes),
            }
        )
    return out


def _load_runs(file: Path | None) -> list[dict[str, Any]]:
    if file is None or not file.exists():
        return []
    return [json.loads(line) for line in file.read_text().splitlines() if line.strip()]


def _plan(
    reviews: Sequence[ReviewSet],
    paths: dict[str, Path],
    seeds: int,
    done: set[tuple[str, str, int]],
    with_asreview: bool,
) -> tuple[list[tuple[str, str, OrderSpec | None, list[int]]], dict[tuple[str, str], str]]:
    """Units to run, largest review first, and the alias of each (candidate, review) whose
    runs are another candidate's (same text key on a review without references)."""
    units: list[tuple[str, str, OrderSpec | None, list[int]]] = []  # path, system, spec, seeds
    alias: dict[tuple[str, str], str] = {}
    for review in sorted(reviews, key=lambda r: -r.labels.size):
        name = review.name
        first_of_key: dict[str, str] = {}
        for cand, spec in CANDIDATES.items():
            key = _key_on(spec, review, ENCODER_OF.get(cand))
            if key is not None:
                if key in first_of_key:
                    alias[(cand, name)] = first_of_key[key]
                    continue
                first_of_key[key] = cand
            todo = [s for s in range(seeds) if (cand, name, s) not in done]
            if todo:
                units.append((str(paths[name]), cand, spec, todo))
        if with_asreview:
            for s in range(seeds):
                if (ASREVIEW, name, s) not in done:
                    units.append((str(paths[name]), ASREVIEW, None, [s]))
    return units, alias


def _table(
    runs: Iterable[dict[str, Any]], alias: dict[tuple[str, str], str], sets: Sequence[str]
) -> dict[str, dict[str, dict[str, float]]]:
    """``{system: {set: {measure: mean over seeds}}}``, aliases filled in."""
    acc: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in runs:
        acc.setdefault((r["system"], r["set"]), []).append(r)
    out: dict[str, dict[str, dict[str, float]]] = {}
    systems = [*CANDIDATES, ASREVIEW]
    for system in systems:
        for s in sets:
            rows = acc.get((alias.get((system, s), system), s), [])
            if rows:
                out.setdefault(system, {})[s] = {
                    **{m: float(np.mean([r[m] for r in rows])) for m in MEASURES},
                    "n": float(len(rows)),
                }
    return out


def _score(row: dict[str, float]) -> float:
    return (row["WSS@95"] + row["RRF@10"]) / 2


def nested(table: dict[str, dict[str, dict[str, float]]], sets: Sequence[str]) -> dict[str, Any]:
    """Leave-one-review-out selection: per held-out review the candidate with the best mean
    :func:`_score` on the others, its held-out figures, the in-sample choice's and ASReview's."""
    cands = [c for c in CANDIDATES if c in table and len(table[c]) == len(sets)]

    def best(on: Sequence[str]) -> str:
        return max(
            cands, key=lambda c: (np.mean([_score(table[c][s]) for s in on]), c == DEFAULT_ORDER)
        )

    in_sample = best(sets)
    rows = []
    for s in sets:
        chosen = best([o for o in sets if o != s])
        rows.append(
            {
                "set": s,
                "chosen": chosen,
                "held_out": {m: table[chosen][s][m] for m in MEASURES},
                "in_sample": {m: table[in_sample][s][m] for m in MEASURES},
                "asreview": {m: table[ASREVIEW][s][m] for m in MEASURES}
                if ASREVIEW in table
                else None,
            }
        )
    tests = {}
    if ASREVIEW in table:
        for which in ("held_out", "in_sample"):
            for m in MEASURES:
                sign = -1.0 if m == "ATD/M" else 1.0
                a = np.asarray([sign * r[which][m] for r in rows])
                b = np.asarray([sign * r["asreview"][m] for r in rows])
                t = paired_test(a, b)
                tests[f"{which}.{m}"] = {
                    "diff": sign * t.diff,
                    "p_value": t.p_value,
                    "wins": t.wins,
                    "losses": t.losses,
                    "n": t.n,
                }
    return {"in_sample_choice": in_sample, "rows": rows, "tests": tests}


def candidates_vs_asreview(
    table: dict[str, dict[str, dict[str, float]]], sets: Sequence[str]
) -> list[dict[str, Any]]:
    """Each candidate's mean over the reviews (in sample) and its paired test against ASReview."""
    out = []
    for c in CANDIDATES:
        if c not in table or len(table[c]) != len(sets):
            continue
        row: dict[str, Any] = {"system": c}
        for m in MEASURES:
            a = np.asarray([table[c][s][m] for s in sets])
            row[m] = float(a.mean())
            row[f"{m}.median"] = float(statistics.median(a))
            if ASREVIEW in table and len(table[ASREVIEW]) == len(sets):
                b = np.asarray([table[ASREVIEW][s][m] for s in sets])
                sign = -1.0 if m == "ATD/M" else 1.0
                t = paired_test(sign * a, sign * b)
                row[f"{m}.vs_asreview"] = {
                    "diff": sign * t.diff,
                    "p_value": t.p_value,
                    "wins": t.wins,
                    "losses": t.losses,
                }
        out.append(row)
    return out


def markdown(result: dict[str, Any], n_records: dict[str, tuple[int, int]]) -> str:
    """The held-out table (per review and mean) and the candidates' in-sample table."""
    nest = result["nested"]
    pct = lambda v: f"{100 * v:.1f}"  # noqa: E731
    lines = [
        f"In-sample choice (all 12 reviews): **{nest['in_sample_choice']}**. Seeds: "
        f"{result['seeds']}; ASReview {result.get('asreview_version', '?')} in the same run.",
        "",
        "| review | records / incl. | chosen on the other 11 | WSS@95 held out / in sample / "
        "ASReview | RRF@10 held out / in sample / ASReview |",
        "|---|---|---|---|---|",
    ]
    for r in nest["rows"]:
        n, k = n_records[r["set"]]
        a = r["asreview"] or {m: float("nan") for m in MEASURES}
        lines.append(
            f"| {r['set']} | {n} / {k} | {r['chosen']} | {pct(r['held_out']['WSS@95'])} / "
            f"{pct(r['in_sample']['WSS@95'])} / {pct(a['WSS@95'])} | "
            f"{pct(r['held_out']['RRF@10'])} / {pct(r['in_sample']['RRF@10'])} / "
            f"{pct(a['RRF@10'])} |"
        )
    mean = {
        w: {m: float(np.mean([r[w][m] for r in nest["rows"] if r[w]])) for m in MEASURES}
        for w in ("held_out", "in_sample", "asreview")
    }
    lines.append(
        f"| **mean** | | | **{pct(mean['held_out']['WSS@95'])}** / "
        f"{pct(mean['in_sample']['WSS@95'])} / {pct(mean['asreview']['WSS@95'])} | "
        f"**{pct(mean['held_out']['RRF@10'])}** / {pct(mean['in_sample']['RRF@10'])} / "
        f"{pct(mean['asreview']['RRF@10'])} |"
    )
    lines.append("")
    for key, t in nest["tests"].items():
        lines.append(
            f"- {key} vs ASReview: {100 * t['diff']:+.1f} points, p {t['p_value']:.3f} "
            f"({t['wins']} better / {t['losses']} worse of {t['n']})"
        )
    lines += [
        "",
        "| candidate | WSS@95 mean (median) | vs ASReview (p, better/worse) | RRF@10 mean (median) "
        "| vs ASReview (p, better/worse) |",
        "|---|---|---|---|---|",
    ]
    for c in result["candidates"]:
        cells = []
        for m in ("WSS@95", "RRF@10"):
            cells.append(f"{pct(c[m])} ({pct(c[m + '.median'])})")
            v = c.get(f"{m}.vs_asreview")
            cells.append(
                f"{100 * v['diff']:+.1f} (p {v['p_value']:.3f}, {v['wins']}/{v['losses']})"
                if v
                else "-"
            )
        lines.append(f"| {c['system']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments, run what is missing, print and write the tables."""
    from litsift.review.simulate import asreview_python

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", type=Path, default=Path("screening-nested-runs.jsonl"))
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--markdown", type=Path, default=None)
    ap.add_argument("--no-asreview", action="store_true")
    ap.add_argument("--sets", default=None, help="comma list (default: all 12)")
    ap.add_argument(
        "--encoders",
        default="",
        help="comma list of other encoders' model ids (e.g. bge-small-en-v1.5-int8, the "
        "[bge] extra): ENCODER_CANDIDATES run again with their vectors",
    )
    ap.add_argument(
        "--criteria",
        type=Path,
        default=None,
        help="a JSON file {SET: criteria} (benchmarks/screening_criteria.json): the "
        "label-spreading candidates also run with the criteria column",
    )
    args = ap.parse_args()
    for model_id in filter(None, args.encoders.split(",")):
        add_encoder_candidates(model_id)
    if args.criteria is not None:
        from litsift.review.data import load_criteria

        CRITERIA.update(load_criteria(args.criteria))
        add_criteria_candidates()
    data = args.data or shared_data_dir()
    names = args.sets.split(",") if args.sets else None
    paths = {p.name.removesuffix(".jsonl.gz"): p for p in find_sets(data, names)}
    reviews = [load_review_set(p) for p in paths.values()]
    python = None if args.no_asreview else asreview_python()
    if python is None and not args.no_asreview:
        sys.exit("no asreview: set LITSIFT_ASREVIEW_PYTHON (or pass --no-asreview)")
    runs = _load_runs(args.runs)
    done = {(r["system"], r["set"], r["seed"]) for r in runs}
    units, alias = _plan(reviews, paths, args.seeds, done, python is not None)
    print(f"{len(units)} units to run, {len(done)} runs already in {args.runs}", file=sys.stderr)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool, args.runs.open("a") as sink:
        futures = [
            pool.submit(
                _run_unit,
                p,
                system,
                spec,
                seeds,
                python,
                ENCODER_OF.get(system),
                CRITERIA.get(Path(p).name.removesuffix(".jsonl.gz"), ""),
            )
            for p, system, spec, seeds in units
        ]
        for i, fut in enumerate(as_completed(futures), 1):
            for r in fut.result():
                sink.write(json.dumps(r) + "\n")
                runs.append(r)
            sink.flush()
            print(
                f"{i}/{len(units)} units after {time.perf_counter() - start:.0f} s", file=sys.stderr
            )
    sets = [r.name for r in reviews]
    runs = [r for r in runs if r["seed"] < args.seeds]
    table = _table(runs, alias, sets)
    version = next((r["notes"][0] for r in runs if r["system"] == ASREVIEW and r["notes"]), "")
    result = {
        "seeds": args.seeds,
        "asreview_version": version,
        "candidates": candidates_vs_asreview(table, sets),
        "nested": nested(table, sets),
        "table": table,
        "specs": {c: {**asdict(s), "encoder": ENCODER_OF.get(c)} for c, s in CANDIDATES.items()},
        "default_order": asdict(ORDERS[DEFAULT_ORDER]),
    }
    n_records = {r.name: (int(r.labels.size), int(r.labels.sum())) for r in reviews}
    md = markdown(result, n_records)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(md + "\n", encoding="utf-8")
    print(md)


if __name__ == "__main__":
    main()
