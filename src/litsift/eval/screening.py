"""``litsift eval screening``: simulated screening of labelled reviews, litsift vs ASReview.

Runs every (set, system, seed) of the protocol in ``shared/data/eval/screening/README.md``
(:mod:`litsift.review.simulate`), then reports per set the mean and standard deviation over
seeds, per system the mean and median over sets, and paired tests over sets of ``litsift``
against each other system.

``litsift`` is the order a review uses by default, run by the object the screening session runs
(:class:`litsift.review.learner.LearningOrder`): :data:`litsift.review.learner.DEFAULT_ORDER`
with bge-small's vectors where the ``[bge]`` extra is installed, else
:data:`~litsift.review.learner.HOME_ENCODER_ORDER` with the given encoder's
(:func:`litsift.review.learner.review_spec`, :func:`litsift.service.screening.screening_encoder`),
with the citation signal towards the included decisions
(:func:`litsift.review.columns.citation_columns`) when the set's records carry references
(``referenced_works``); ``litsift-text`` is the same order without citations.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from litsift.errors import EvalError
from litsift.eval.measures import paired_test
from litsift.eval.screening_table import STOP_RULES as STOP_RULES
from litsift.eval.screening_table import format_table as format_table
from litsift.graph.signal import SignalFeatures
from litsift.graph.snowball import set_graph
from litsift.review.columns import CITATION_MIN_INCLUDED, CITATION_WEIGHT
from litsift.review.data import ReviewSet, criteria_of_sets, find_sets, load_review_set
from litsift.review.learner import (
    DEFAULT_ORDER,
    ORDERS,
    LearningOrder,
    review_spec,
    tfidf_matrix,
)
from litsift.review.measures import CURVE_POINTS
from litsift.review.simulate import (
    ASREVIEW_HINT,
    RETRAIN_FRACTION,
    SimulationRun,
    asreview_python,
    run_once,
)

#: Systems besides the named orders of :data:`litsift.review.learner.ORDERS`: the app's default
#: (citations where the set has references), the same without citations, and ASReview.
LITSIFT = "litsift"
LITSIFT_TEXT = "litsift-text"
ASREVIEW = "asreview"
DEFAULT_SYSTEMS = (LITSIFT, ASREVIEW)
#: Reported measures; ATD is in records, the others are fractions.
MEASURES = ("WSS@95", "RRF@10", "ATD/M", "ATD")
#: Measures where a lower value is better (a "win" in a comparison is a lower value).
LOWER_IS_BETTER = frozenset({"ATD/M", "ATD"})

if TYPE_CHECKING:
    import numpy.typing as npt

    from litsift.eval.screening_judge import SetJudge
    from litsift.models_onnx import Encoder

ScreeningProgress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ScreeningReport:
    """Every run of one ``litsift eval screening``, with the settings that produced them."""

    sets: tuple[str, ...]
    systems: tuple[str, ...]
    seeds: int
    runs: tuple[SimulationRun, ...]
    n_records: dict[str, int]
    n_included: dict[str, int]
    notes: tuple[str, ...]
    elapsed_s: float
    #: ``{"version", "model", "python"}`` of the ASReview that ran (``--systems asreview``),
    #: else None
    asreview: dict[str, str] | None = None


def asreview_info(runs: Sequence[SimulationRun], python: str | None) -> dict[str, str] | None:
    """The version and model ASReview reported on its runs (its note ``asreview VERSION
    MODEL``), and the interpreter that ran it; None when no run was ASReview's."""
    said = next((r.notes[0] for r in runs if r.system == ASREVIEW and r.notes), "")
    parts = said.split(" ", 2)
    if len(parts) < 3 or parts[0] != ASREVIEW:
        return None
    return {"version": parts[1], "model": parts[2], "python": python or ""}


def cached_encoder(encoder: Encoder | None = None) -> Encoder:
    """``encoder`` (default: the default one, loaded) reading and filling the passage-vector
    cache every litsift home shares (:mod:`litsift.cache.embeddings`, as index builds and the
    screening screen use it): a set's texts are embedded once, not on every run."""
    from litsift.cache.embeddings import open_cache
    from litsift.paths import get_paths

    if encoder is None:
        from litsift.models_onnx import load_encoder

        encoder = load_encoder()
    file = get_paths(None).embeddings_file
    if encoder.passage_cache is None and file is not None:
        encoder.passage_cache = open_cache(file)
    return encoder


#: What the report says of the criteria given (``--criteria``).
CRITERIA_NOTE = "orders with a criteria column fit on it; asreview and the others do not"


def all_systems() -> list[str]:
    """Names ``--systems`` accepts."""
    return [LITSIFT, LITSIFT_TEXT, ASREVIEW, *ORDERS]


def _check_systems(systems: Sequence[str] | None) -> tuple[list[str], bool]:
    chosen = list(systems) if systems else list(DEFAULT_SYSTEMS)
    unknown = [s for s in chosen if s not in all_systems()]
    if unknown:
        raise EvalError(
            f"unknown screening system(s): {', '.join(unknown)}",
            f"choose among {', '.join(all_systems())}",
        )
    return chosen, bool(systems)


def run_screening(
    data_dir: Path,
    sets: Sequence[str] | None = None,
    seeds: int = 5,
    systems: Sequence[str] | None = None,
    progress: ScreeningProgress | None = None,
    encoder: Encoder | None = None,
    criteria: Mapping[str, str] | None = None,
    judge: tuple[str, SetJudge] | None = None,
) -> ScreeningReport:
    """Simulate each system on each set with seeds ``0 … seeds-1``.

    Args:
        data_dir: the shared data dir or the screening sets' dir.
        sets: set names (file stems); default all, smallest first.
        seeds: runs per set and system.
        systems: among :func:`all_systems`; default ``litsift`` and ``asreview`` (asreview is
            skipped with a note when not installed and not asked for by name).
        progress: ``progress(stage, done, total)`` per finished run.
        encoder: an already-loaded encoder for the dense vectors (default
            :func:`litsift.models_onnx.load_encoder`; the passage cache applies).
        criteria: ``{set name: its review question}`` (``review new --criteria``), read
            by orders with a criteria column (``OrderSpec.criteria_weight``), not ASReview.
        judge: ``(model, judge)``: on each set with criteria, the judge's verdicts on every
            record (:class:`litsift.eval.screening_judge.LLMSetJudge`) are read by the
            ``litsift`` system's LLM-verdict column (``OrderSpec.judge_weight``).

    Raises:
        EvalError: unknown set or system, unreadable set, asreview asked for but missing,
            criteria for a set the data dir does not have.
    """
    start = time.perf_counter()
    chosen, explicit = _check_systems(systems)
    notes: list[str] = []
    python = asreview_python()
    if ASREVIEW in chosen and python is None:
        if explicit:
            raise EvalError(
                "system asreview needs the asreview package",
                ASREVIEW_HINT,
            )
        chosen.remove(ASREVIEW)
        notes.append(f"asreview not installed: system skipped ({ASREVIEW_HINT})")
    paths = find_sets(data_dir, sets)
    criteria = criteria_of_sets(criteria or {}, data_dir, paths)
    runs: list[SimulationRun] = []
    counts: dict[str, int] = {}
    included: dict[str, int] = {}
    total = len(paths) * len(chosen) * seeds
    with_refs: list[str] = []
    app_orders: set[str] = set()  # the order litsift ran (the default's encoder installed?)
    for path in paths:
        review = load_review_set(path)
        notes += list(review.problems)
        if review.references:
            with_refs.append(review.name)
        counts[review.name] = int(review.labels.size)
        included[review.name] = int(review.labels.sum())
        text = criteria.get(review.name, "")
        where = (progress, len(runs), total)
        verdicts = judge[1](review, text) if judge and text and LITSIFT in chosen else None
        runs += _run_set(review, chosen, seeds, python, *where, encoder, app_orders, text, verdicts)
    if judge is not None:
        notes.append(
            f"litsift reads the verdicts of {judge[0]} on every record of the sets with "
            "criteria (review judge's prompt; LLM-verdict column)"
        )
    if criteria:
        names = ", ".join(sorted(criteria))
        notes.append(f"review criteria given for {len(criteria)} set(s) ({names}): {CRITERIA_NOTE}")
    app = " / ".join(sorted(app_orders)) or DEFAULT_ORDER
    notes.append(
        f"litsift = {app} + the citation signal (weight {CITATION_WEIGHT}, from "
        f"{CITATION_MIN_INCLUDED} includes) on sets with references "
        f"({', '.join(with_refs) or 'none here'}); {LITSIFT_TEXT} = {app} alone; "
        "retrain after each include and when the labelled set grew "
        f"by {RETRAIN_FRACTION:.0%}; batch size 1; priors: 1 included + 1 excluded per seed"
    )
    return ScreeningReport(
        tuple(counts),
        tuple(chosen),
        seeds,
        tuple(runs),
        counts,
        included,
        tuple(notes),
        time.perf_counter() - start,
        asreview_info(runs, python),
    )


def _run_set(
    review: ReviewSet,
    systems: Sequence[str],
    seeds: int,
    python: str | None,
    progress: ScreeningProgress | None,
    done: int,
    total: int,
    encoder: Encoder | None,
    app_orders: set[str],
    criteria: str = "",
    verdicts: npt.NDArray[np.float64] | None = None,
) -> list[SimulationRun]:
    from litsift.service.screening import order_encoder, screening_encoder

    mine = {LITSIFT, LITSIFT_TEXT} & set(systems)
    named = [s for s in systems if s not in (LITSIFT, LITSIFT_TEXT, ASREVIEW)]
    home = None  # the encoder is loaded only when an order reads vectors
    if mine or any(ORDERS[s].needs_dense for s in named):
        home = cached_encoder(encoder)
    specs = {s: ORDERS[s] for s in named}
    if mine and home is not None:
        # litsift's order is the app's: the default order's encoder where it is installed
        app = review_spec(screening_encoder(home).spec.model_id)
        app_orders.add(app.name)
        specs.update({s: app for s in mine})
    texts = review.texts
    tfidf = {  # per stemming choice, built once for every order that reads it
        stem: tfidf_matrix(texts, stem)
        for stem in {o.stem for o in specs.values() if "tfidf" in o.features}
    }
    vectors: dict[str, npt.NDArray[np.float32]] = {}  # per model id
    queries: dict[str, npt.NDArray[np.float32]] = {}  # the criteria, per model id
    for o in specs.values():
        if o.needs_dense and home is not None:
            model = order_encoder(o, home)
            if model.spec.model_id not in vectors:
                vectors[model.spec.model_id] = model.encode_passages(texts)
            if criteria.strip() and o.criteria_weight and model.spec.model_id not in queries:
                queries[model.spec.model_id] = model.encode_queries([criteria])[0]
    citations = None
    if LITSIFT in systems and review.references:
        citations = SignalFeatures(
            set_graph(review.openalex_ids, review.references), list(range(review.labels.size))
        )
    out = []
    for system in systems:
        spec = specs.get(system)
        order = None
        if spec is not None:
            signal = citations if system == LITSIFT else None
            model_id = (spec.encoder or home.spec.model_id) if home else None
            dense = vectors.get(model_id) if model_id else None
            query = queries.get(model_id) if model_id else None
            block = tfidf.get(spec.stem)
            order = LearningOrder.from_blocks(spec, block, dense, signal, query)
            if system == LITSIFT:
                order = order.with_verdicts(verdicts)
        for seed in range(seeds):
            out.append(run_once(review, system, seed, order, python))
            if progress is not None:
                progress("screening", done + len(out), total)
    return out


def _stat(values: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(values, dtype=np.float64)
    return {"mean": float(arr.mean()), "std": float(arr.std(ddof=1)) if arr.size > 1 else 0.0}


def per_set_means(report: ScreeningReport) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """``{set: {system: {measure: {"mean", "std", "n"}}}}`` over seeds; measures are
    :data:`MEASURES`, ``stop.RULE.recall``, ``stop.RULE.screened``, ``stop.RULE.fired`` and
    ``seconds``."""
    out: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for name in report.sets:
        for system in report.systems:
            runs = [r for r in report.runs if r.review_set == name and r.system == system]
            if not runs:
                continue
            row = {m: _stat([r.measures[m] for r in runs]) for m in MEASURES}
            for i, rule in enumerate(STOP_RULES):
                row[f"stop.{rule}.recall"] = _stat([r.stops[i].recall for r in runs])
                row[f"stop.{rule}.screened"] = _stat([r.stops[i].screened for r in runs])
                row[f"stop.{rule}.fired"] = _stat([float(r.stops[i].fired) for r in runs])
            row["seconds"] = _stat([r.elapsed_s for r in runs])
            for v in row.values():
                v["n"] = len(runs)
            out.setdefault(name, {})[system] = row
    return out


def report_to_json(report: ScreeningReport) -> dict[str, Any]:
    """The report as one JSON-able object.

    Shape: ``{"benchmark": "screening", "unit": "fraction", "measures", "sets": {set:
    {"records", "included"}}, "systems", "seeds", "results": {set: {system: {measure: {"mean",
    "std", "n"}}}}, "summary": {system: {measure: {"mean", "median"}}}, "curves": {set:
    {system: [recall at each of "curve_points"]}}, "priors": {set: {seed: [included id,
    excluded id]}}, "comparisons": [{"system", "other", "measure", "diff", "p_value", "wins",
    "losses", "n"}], "asreview": {"version", "model", "python"} or null, "notes",
    "elapsed_s"}``. Comparisons pair the per-set means of
    ``litsift`` (or the first system) with each other system's over sets (``diff`` = litsift −
    other; lower is better for ATD).
    """
    results = per_set_means(report)
    keys = sorted({k for sets in results.values() for row in sets.values() for k in row})
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for system in report.systems:
        for k in keys:
            vals = [results[s][system][k]["mean"] for s in results if system in results[s]]
            if vals:
                summary.setdefault(system, {})[k] = {
                    "mean": float(np.mean(vals)),
                    "median": float(statistics.median(vals)),
                }
    curves = {
        s: {
            system: np.mean(
                [r.curve for r in report.runs if r.review_set == s and r.system == system], axis=0
            ).tolist()
            for system in report.systems
        }
        for s in report.sets
    }
    priors: dict[str, dict[str, list[str]]] = {}
    for r in report.runs:
        priors.setdefault(r.review_set, {})[str(r.seed)] = list(r.prior_ids)
    base = LITSIFT if LITSIFT in report.systems else report.systems[0]
    comparisons = []
    for other in report.systems:
        if other == base:
            continue
        for m in MEASURES:
            a = np.asarray([results[s][base][m]["mean"] for s in report.sets])
            b = np.asarray([results[s][other][m]["mean"] for s in report.sets])
            sign = -1.0 if m in LOWER_IS_BETTER else 1.0
            t = paired_test(sign * a, sign * b)
            comparisons.append(
                {
                    "system": base,
                    "other": other,
                    "measure": m,
                    "better": "lower" if m in LOWER_IS_BETTER else "higher",
                    "diff": sign * t.diff,
                    "p_value": t.p_value,
                    "wins": t.wins,
                    "losses": t.losses,
                    "n": t.n,
                }
            )
    return {
        "benchmark": "screening",
        "unit": "fraction",
        "measures": list(MEASURES),
        "sets": {
            s: {"records": report.n_records[s], "included": report.n_included[s]}
            for s in report.sets
        },
        "systems": list(report.systems),
        "seeds": report.seeds,
        "results": results,
        "summary": summary,
        "curve_points": list(CURVE_POINTS),
        "curves": curves,
        "priors": priors,
        "comparisons": comparisons,
        "asreview": report.asreview,
        "notes": list(report.notes),
        "elapsed_s": report.elapsed_s,
    }


def merge_reports(reports: Sequence[ScreeningReport], elapsed_s: float) -> ScreeningReport:
    """One report from reports of disjoint sets run with the same systems and seeds (the
    benchmark runs sets in parallel processes).

    Raises:
        EvalError: the reports differ in systems or seeds.
    """
    if not reports:
        raise EvalError("no screening reports to merge", "run at least one set")
    first = reports[0]
    if any(r.systems != first.systems or r.seeds != first.seeds for r in reports):
        raise EvalError("screening reports differ in systems or seeds", "run them alike")
    notes: list[str] = []
    for r in reports:
        notes += [n for n in r.notes if n not in notes]
    return ScreeningReport(
        tuple(s for r in reports for s in r.sets),
        first.systems,
        first.seeds,
        tuple(run for r in reports for run in r.runs),
        {k: v for r in reports for k, v in r.n_records.items()},
        {k: v for r in reports for k, v in r.n_included.items()},
        tuple(notes),
        elapsed_s,
        next((r.asreview for r in reports if r.asreview), None),
    )
