"""What ``litsift eval`` calls: run a named benchmark, format its table, turn it into JSON.

Plain functions and plain text (no click, no rich), so the CLI, ``benchmarks/run_eval.py`` and
the tests share one code path.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from litsift.errors import EvalError
from litsift.eval.beir import load_beir
from litsift.eval.loaders import load_benchmark
from litsift.eval.runner import DEFAULT_SYSTEMS, EvalProgress, EvalReport, run_eval
from litsift.paths import shared_data_dir

if TYPE_CHECKING:
    from litsift.config import Config
    from litsift.models_onnx import Encoder

#: The benchmarks' data directory when none is given: :func:`litsift.paths.shared_data_dir`.
default_data_dir = shared_data_dir


def split_list(text: str | Sequence[str] | None) -> list[str] | None:
    """``"a,b"`` → ``["a", "b"]``; a list is returned as is; None stays None."""
    if text is None:
        return None
    if isinstance(text, str):
        return [p.strip() for p in text.split(",") if p.strip()]
    return list(text)


def run_benchmark(
    name: str,
    *,
    data_dir: Path | None = None,
    corpus: Path | None = None,
    queries: Path | None = None,
    qrels: Path | None = None,
    measures: str | Sequence[str] | None = None,
    systems: str | Sequence[str] | None = None,
    limit: int | None = None,
    query_field: str = "both",
    half: str | None = None,
    home: Path | None = None,
    runs_dir: Path | None = None,
    encoder: Encoder | None = None,
    config: Config | None = None,
    progress: EvalProgress | None = None,
    engine: str | None = None,
) -> EvalReport:
    """Run ``litsift eval NAME``.

    Args:
        name: ``datafinder``, ``scifact``, ``doris-mae-dev``, or ``beir``/``trec`` (generic:
            needs ``corpus`` and ``queries``, and ``qrels`` unless the queries are LitSearch
            rows with ``corpusids``).
        data_dir: ``shared/data`` for the named benchmarks; default
            :func:`litsift.paths.shared_data_dir`.
        corpus, queries, qrels: files of the generic loader.
        measures: generic loader only: ir-measures names, ``"nDCG@10,R@100,RR@10"`` by default.
        systems: subset of ``bm25,dense,hybrid,bm25s`` (default all).
        limit: evaluate only the first ``limit`` queries of each query set.
        query_field: DataFinder only: ``query``, ``keyphrase_query`` or ``both``.
        half: ``"tune"`` or ``"heldout"``: only that fixed half of the queries
            (:func:`litsift.eval.benchmarks.query_half`); None: all.
        home: litsift home of the benchmark; default a per-corpus dir under the cache dir.
        runs_dir: where TREC runs go; default ``./runs/<benchmark>``.
        encoder: an already-loaded encoder (tests share one).
        config: search settings (default: litsift's defaults, not the user's config).
        progress: ``progress(stage, done, total)``.
        engine: ``"local"`` or ``"milvus"`` (a Milvus Lite file in the benchmark's home, or
            ``config.engine.uri``); default ``config.engine.kind``.

    Returns:
        The report (see :func:`format_table`, :func:`report_to_json`).

    Raises:
        EvalError: unknown benchmark, system or measure; missing files; nothing to evaluate.
    """
    if name in ("beir", "trec"):
        if corpus is None or queries is None:
            raise EvalError(
                f"litsift eval {name} needs --corpus and --queries",
                "e.g. litsift eval beir --corpus corpus.jsonl --queries queries.jsonl "
                "--qrels qrels/test.tsv",
            )
        bench = load_beir(
            Path(corpus),
            Path(queries),
            Path(qrels) if qrels is not None else None,
            measures=split_list(measures) or ("nDCG@10", "R@100", "RR@10"),
            name=name,
        )
    else:
        if measures is not None:
            raise EvalError(
                f"--measures is fixed by the {name} protocol", "drop --measures (beir only)"
            )
        bench = load_benchmark(name, Path(data_dir) if data_dir else shared_data_dir(), query_field)
    if limit is not None and limit < 1:
        raise EvalError("--limit must be at least 1", "e.g. --limit 20")
    if engine is not None:
        from dataclasses import replace

        from litsift.config import Config

        base = config if config is not None else Config()
        config = replace(base, engine=replace(base.engine, kind=engine))
    return run_eval(
        bench.half(half).limited(limit),
        systems=split_list(systems) or DEFAULT_SYSTEMS,
        home=home,
        runs_dir=runs_dir,
        encoder=encoder,
        config=config,
        progress=progress,
    )


_SYSTEM_NAMES = {
    "bm25": "litsift BM25 (tantivy)",
    "dense": "litsift dense (MiniLM)",
    "hybrid": "litsift hybrid ({fusion})",
    "bm25s": "bm25s (peer BM25)",
    "aspects": "litsift hybrid + aspect coverage",
}


def system_label(system: str, fusion: str) -> str:
    return _SYSTEM_NAMES.get(system, system).format(fusion=fusion)


def format_table(report: EvalReport) -> str:
    """A plain-text table per query set: our systems (mean ± bootstrap std, percentages), then
    the published rows, then the run files and protocol notes."""
    labels = [report.labels.get(m, m) for m in report.measures]
    lines: list[str] = []
    for qset in report.query_sets:
        ours = [r for r in report.results if r.query_set == qset]
        pub = [p for p in report.published if p.query_set == qset]
        n = ours[0].values[report.measures[0]].n if ours else 0
        rows: list[list[str]] = []
        for r in ours:
            cells = [
                f"{100 * r.values[m].mean:5.1f} ± {100 * r.values[m].std:4.1f}"
                for m in report.measures
            ]
            rows.append([system_label(r.system, report.hybrid_fusion), *cells])
        pub_rows = [
            [f"{p.system} [published]"]
            + [("-" if p.values.get(m) is None else f"{p.values[m]:5.1f}") for m in report.measures]
            for p in pub
        ]
        width = max(len(c[0]) for c in [["system"], *rows, *pub_rows])
        col = max(13, *(len(label) for label in labels))
        head = (
            f"{report.benchmark} / {qset}: {n} queries, {report.n_docs:,} documents, "
            f"depth {report.depth}"
        )
        lines += [head, f"{'system':<{width}}  " + "  ".join(f"{h:>{col}}" for h in labels)]
        lines.append("-" * len(lines[-1]))
        for row in rows + pub_rows:
            lines.append(f"{row[0]:<{width}}  " + "  ".join(f"{c:>{col}}" for c in row[1:]))
        lines += _comparison_lines(report, qset)
        lines.append("")
    lines.append("percentages; ± is the bootstrap standard deviation over queries (1000 resamples)")
    if report.comparisons:
        lines.append(
            "hybrid − X: mean per-query difference in points, wins/losses over queries and the "
            "two-sided p of a paired randomization test (10,000 sign flips)"
        )
    lines.append(f"runs: {report.runs_dir}")
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines)


def _comparison_lines(report: EvalReport, qset: str) -> list[str]:
    """``hybrid − dense  MRR@10 +1.4 (9/7, p 0.62)  ...`` for each other system of ``qset``."""
    by_pair: dict[tuple[str, str], list[str]] = {}
    for c in report.comparisons:
        if c.query_set != qset:
            continue
        t = c.test
        by_pair.setdefault((c.system, c.other), []).append(
            f"{report.labels.get(c.measure, c.measure)} {100 * t.diff:+.1f} "
            f"({t.wins}/{t.losses}, p {t.p_value:.2g})"
        )
    return [f"{sys} − {other}: " + "; ".join(cells) for (sys, other), cells in by_pair.items()]


def report_to_json(report: EvalReport) -> dict[str, Any]:
    """Every system's measures as one JSON-able object.

    Shape: ``{"benchmark", "home", "runs_dir", "n_docs", "depth", "hybrid_fusion", "measures",
    "unit": "fraction", "results": {query_set: {system: {measure: {"mean", "std", "n"}}}},
    "run_files": {query_set: {system: path}}, "elapsed_s": {...}, "published": [{"system",
    "query_set", "values_percent", "source"}], "notes", "comparisons": [{"query_set", "system",
    "other", "measure", "diff", "p_value", "wins", "losses", "n"}]}``. Our values (and
    ``diff``) are fractions in [0, 1]; published values are percentages as printed in the papers.
    """
    results: dict[str, dict[str, Any]] = {}
    run_files: dict[str, dict[str, str]] = {}
    elapsed: dict[str, dict[str, float]] = {}
    latency: dict[str, dict[str, dict[str, float]]] = {}
    for r in report.results:
        results.setdefault(r.query_set, {})[r.system] = {
            m: {"mean": v.mean, "std": v.std, "n": v.n} for m, v in r.values.items()
        }
        run_files.setdefault(r.query_set, {})[r.system] = str(r.run_file)
        elapsed.setdefault(r.query_set, {})[r.system] = r.elapsed_s
        if r.query_seconds:
            ms = 1000 * np.asarray(r.query_seconds)
            latency.setdefault(r.query_set, {})[r.system] = {
                "p50": float(np.percentile(ms, 50)),
                "p95": float(np.percentile(ms, 95)),
            }
    return {
        "benchmark": report.benchmark,
        "home": str(report.home),
        "runs_dir": str(report.runs_dir),
        "n_docs": report.n_docs,
        "depth": report.depth,
        "hybrid_fusion": report.hybrid_fusion,
        "measures": list(report.measures),
        "labels": dict(report.labels),
        "unit": "fraction",
        "results": results,
        "run_files": run_files,
        "elapsed_s": elapsed,
        "latency_ms": latency,
        "published": [
            {
                "system": p.system,
                "query_set": p.query_set,
                "values_percent": dict(p.values),
                "source": p.source,
            }
            for p in report.published
        ],
        "notes": list(report.notes),
        "comparisons": [
            {
                "query_set": c.query_set,
                "system": c.system,
                "other": c.other,
                "measure": c.measure,
                "diff": c.test.diff,
                "p_value": c.test.p_value,
                "wins": c.test.wins,
                "losses": c.test.losses,
                "n": c.test.n,
            }
            for c in report.comparisons
        ],
    }
