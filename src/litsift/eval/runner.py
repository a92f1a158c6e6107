"""Run a benchmark: its own litsift home, every query through ``LitsiftService.search``, TREC
run files per system, ir-measures measures with bootstrap deviations.

Systems: ``bm25`` (fusion ``"bm25"``), ``dense`` (fusion ``"dense"``), ``hybrid`` (the
configured default fusion) -- all through the very ``service.search`` the TUI calls -- and
``bm25s``, the peer BM25 of :mod:`litsift.eval.peer` on the same records and fields.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.errors import EvalError
from litsift.eval.benchmarks import Benchmark, EvalQuery, QuerySet
from litsift.eval.measures import MeasureValue, PairedTest, paired_test, per_query, summarise
from litsift.eval.published import PublishedRow
from litsift.eval.trec import read_run, trec_id, write_run
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query, YearRange

if TYPE_CHECKING:
    from litsift.config import Config
    from litsift.models_onnx import Encoder

#: ``aspects``: the default hybrid, then its top ``search.coverage_pool`` hits re-ordered by
#: offline aspect coverage (:meth:`LitsiftService.coverage_order`, the TUI's ``o``).
SYSTEMS = ("bm25", "dense", "hybrid", "bm25s", "aspects")
#: systems run unless asked for (``aspects`` encodes every candidate's sentences: slower).
DEFAULT_SYSTEMS = ("bm25", "dense", "hybrid", "bm25s")
_FUSION: Mapping[str, str | None] = {
    "bm25": "bm25",
    "dense": "dense",
    "hybrid": None,
    "aspects": None,
}
MARKER_FILE = "eval-corpus.json"

#: progress(stage, done, total); stages: "ingest", "index", "<query set>/<system>".
EvalProgress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SystemResult:
    """One system on one query set.

    Attributes:
        system: ``bm25``, ``dense``, ``hybrid`` or ``bm25s``.
        query_set: e.g. ``"query"`` or ``"test"``.
        values: ``{measure: MeasureValue}`` (fractions in [0, 1]).
        run_file: the TREC run the values were computed from.
        elapsed_s: wall time of all its queries, seconds.
        per_query: ``{measure: (n,) float64}`` per-query values in query-set order (the
            paired tests of :attr:`EvalReport.comparisons` use them).
    """

    system: str
    query_set: str
    values: Mapping[str, MeasureValue]
    run_file: Path
    elapsed_s: float
    per_query: Mapping[str, npt.NDArray[np.float64]] = field(default_factory=dict, repr=False)
    #: seconds of each query's search, in query order (latency percentiles).
    query_seconds: tuple[float, ...] = field(default_factory=tuple, repr=False)


#: the system the others are compared with (paired randomization test).
BASELINE_OF_COMPARISONS = "hybrid"


@dataclass(frozen=True)
class Comparison:
    """The default hybrid against one other system on one query set and measure.

    Attributes:
        query_set: the query set.
        system: the hybrid (``BASELINE_OF_COMPARISONS``).
        other: the system it is compared with.
        measure: the ir-measures name.
        test: mean difference ``system - other``, wins, losses and the paired randomization
            test's p-value (:func:`litsift.eval.measures.paired_test`).
    """

    query_set: str
    system: str
    other: str
    measure: str
    test: PairedTest


@dataclass(frozen=True)
class EvalReport:
    """Everything one ``litsift eval`` printed, for tables and JSON."""

    benchmark: str
    measures: tuple[str, ...]
    labels: Mapping[str, str]
    query_sets: tuple[str, ...]
    results: tuple[SystemResult, ...]
    published: tuple[PublishedRow, ...]
    home: Path
    runs_dir: Path
    n_docs: int
    depth: int
    hybrid_fusion: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    comparisons: tuple[Comparison, ...] = field(default_factory=tuple)

    def result(self, query_set: str, system: str) -> SystemResult | None:
        return next(
            (r for r in self.results if r.query_set == query_set and r.system == system), None
        )


#: part of an eval home's name: bumped when a store change needs homes built from scratch.
#: Additive schema migrations (v4: research questions) are applied when a home is opened, so
#: they keep it (it was the schema version, 3, until v4).
EVAL_HOME_GENERATION = 3


def eval_home(benchmark: Benchmark, base: Path | None = None) -> Path:
    """The litsift home a benchmark is ingested into, reused while its corpus is unchanged.

    Args:
        benchmark: keys the directory by name, corpus fingerprint and
            :data:`EVAL_HOME_GENERATION`.
        base: parent directory; default ``<cache dir>/eval`` of the current litsift paths.

    Returns:
        ``base / "<name>-<fingerprint>-s<generation>"``.
    """
    root = base if base is not None else get_paths().cache_dir / "eval"
    return root / f"{benchmark.name}-{benchmark.fingerprint()}-s{EVAL_HOME_GENERATION}"


def _check_systems(systems: Sequence[str]) -> list[str]:
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or not systems:
        raise EvalError(
            f"unknown system(s): {', '.join(unknown) or '(none)'}",
            f"use a comma-separated subset of {','.join(SYSTEMS)}",
        )
    return list(dict.fromkeys(systems))


def prepare_home(
    benchmark: Benchmark,
    home: Path,
    encoder: Encoder | None = None,
    config: Config | None = None,
    progress: EvalProgress | None = None,
) -> tuple[LitsiftService, list[str]]:
    """Open (and on first use fill) a benchmark's home: ingest its corpus, build its indexes.

    A marker file records the corpus fingerprint after a complete ingest + index build; when it
    matches, nothing is ingested again (an index left behind by an interrupted build is
    completed by the incremental build, and a stale index part -- a new BM25 layout, another
    encoder -- is rebuilt alone by ``build_index``).

    Returns:
        The service over ``home`` and notes about rejected corpus rows.

    Raises:
        EvalError: two corpus ids are equal once made TREC-safe (``"a b"`` vs ``"a_b"``).
    """
    svc = LitsiftService(get_paths(home), config=config, encoder=encoder)
    marker = home / MARKER_FILE
    fingerprint = benchmark.fingerprint()
    notes: list[str] = []
    done = json.loads(marker.read_text()) if marker.is_file() else {}
    if done.get("fingerprint") != fingerprint:
        cb = None
        if progress is not None:
            p = progress

            def cb(n: int, total: int | None) -> None:
                p("ingest", n, total or 0)

        report = svc.ingest_records(
            benchmark.kind, benchmark.corpus(), Path(benchmark.name), progress=cb
        )
        if report.bad:
            notes.append(f"{len(report.bad)} corpus rows rejected by the store: {report.summary()}")
        if benchmark.papers is not None and benchmark.kind is Kind.DATASET:
            # papers for the dataset popularity prior: stored, never indexed
            papers = svc.ingest_records(
                Kind.PAPER, benchmark.papers(), Path(f"{benchmark.name}-papers")
            )
            if papers.bad:
                notes.append(f"{len(papers.bad)} paper rows rejected: {papers.summary()}")
        seen: dict[str, str] = {}
        for batch in svc.rows_since(benchmark.kind, 0):
            for rec in batch:
                tid = trec_id(rec.id)
                if tid in seen and seen[tid] != rec.id:
                    raise EvalError(
                        f"corpus ids {seen[tid]!r} and {rec.id!r} are the same in a TREC file",
                        "make ids differ in more than whitespace vs underscores",
                    )
                seen[tid] = rec.id
        done = {"fingerprint": fingerprint, "bad": len(report.bad), "notes": notes}
    if benchmark.papers is not None and _out_of_date(svc, Kind.PAPER):
        # the dataset usage profiles need the papers' embeddings (litsift.search.popularity)
        def paper_cb(stage: str, n: int, total: int) -> None:
            if progress is not None:
                progress(f"papers:{stage}", n, total)

        svc.build_index(Kind.PAPER, progress=paper_cb)
    if _out_of_date(svc, benchmark.kind):

        def index_cb(stage: str, n: int, total: int) -> None:
            if progress is not None:
                progress(f"index:{stage}", n, total)

        svc.build_index(benchmark.kind, progress=index_cb)
    if benchmark.kind is Kind.DATASET:
        # the re-ranker's max_sent feature reads the stored sentences (as `litsift index`
        # builds them); resumable, and a no-op once every dataset has its sentences
        def sentence_cb(stage: str, n: int, total: int) -> None:
            if progress is not None:
                progress(f"index:{stage}", n, total)

        svc.build_sentences(Kind.DATASET, progress=sentence_cb)
    if svc.config.engine.kind == "milvus":
        # the same rows (and vectors, from the embedding cache) in the engine's collections;
        # incremental: a no-op once pushed. Dataset evidence reads the papers' collection.
        kinds = [Kind.PAPER, benchmark.kind] if benchmark.papers is not None else [benchmark.kind]
        for kind in dict.fromkeys(kinds):

            def push_cb(stage: str, n: int, total: int, kind: Kind = kind) -> None:
                if progress is not None:
                    progress(f"milvus:{kind.table}", n, total)

            svc.push_index(kind, progress=push_cb)
    marker.write_text(json.dumps(done))
    return svc, list(done.get("notes", []))


def _out_of_date(svc: LitsiftService, kind: Kind) -> bool:
    """True when the store has rows the index of ``kind`` lacks, or a part of that index is
    stale (another encoder, an older part version, an unreadable manifest) or damaged (every
    file's checksum is verified first: a damaged part would otherwise be searched around, and
    a hybrid run measured as BM25 alone): ``build_index`` brings it up to date, rebuilding
    only the stale or damaged part."""
    if svc.check_index(kind):
        return True
    return svc.index_mismatch(kind) is not None or svc.needs_index(kind)


def _years(q: EvalQuery) -> YearRange:
    return YearRange() if q.year is None else YearRange(None, q.year, include_missing=True)


def _dedupe(queries: Sequence[EvalQuery]) -> list[EvalQuery]:
    return list({q.qid: q for q in reversed(queries)}.values())[::-1]


def run_queries(
    svc: LitsiftService,
    benchmark: Benchmark,
    qset: QuerySet,
    system: str,
    peer: object | None = None,
    progress: EvalProgress | None = None,
    seconds: list[float] | None = None,
) -> dict[str, list[tuple[str, float]]]:
    """Retrieve ``benchmark.depth`` hits for every query of ``qset`` with one system
    (``seconds``, if given, gets each query's wall time).

    Returns:
        ``{qid: [(trec docid, score), ...]}`` best first.
    """
    from litsift.eval.peer import PeerBM25

    run: dict[str, list[tuple[str, float]]] = {}
    queries = _dedupe(qset.queries)
    for i, q in enumerate(queries, start=1):
        t0 = time.perf_counter()
        if system == "bm25s":
            assert isinstance(peer, PeerBM25)
            run[q.qid] = peer.search(q.text, _years(q), benchmark.depth)
        elif system == "aspects":
            run[q.qid] = _coverage_run(svc, benchmark, q)
        else:
            query = Query(q.text, benchmark.kind, _years(q), benchmark.depth, None, _FUSION[system])
            hits = svc.search(query).hits
            run[q.qid] = [(trec_id(h.docid), h.score) for h in hits]
        if seconds is not None:
            seconds.append(time.perf_counter() - t0)
        if progress is not None:
            progress(f"{qset.name}/{system}", i, len(queries))
    return run


def _coverage_run(
    svc: LitsiftService, benchmark: Benchmark, q: EvalQuery
) -> list[tuple[str, float]]:
    """The hybrid run with its top ``coverage_pool`` hits in aspect-coverage order (offline
    decomposition, :meth:`LitsiftService.score_aspects`); scores are ``depth - position``."""
    s = svc.config.search
    pool = s.coverage_pool
    query = Query(q.text, benchmark.kind, _years(q), max(benchmark.depth, pool))
    hits = list(svc.search(query).hits)
    head = hits[:pool]
    aspects = svc.decompose(q.text)
    if aspects and head:
        head = svc.coverage_order(head, svc.score_aspects(aspects, head), s.coverage_blend)
    ordered = (head + hits[pool:])[: benchmark.depth]
    return [(trec_id(h.docid), float(len(ordered) - i)) for i, h in enumerate(ordered)]


def compare_systems(
    results: Sequence[SystemResult], measures: Sequence[str]
) -> tuple[Comparison, ...]:
    """The hybrid against every other system of each query set, on every measure.

    Args:
        results: per-query values of each system (same queries within a query set).
        measures: ir-measures names, in report order.

    Returns:
        One :class:`Comparison` per (query set, other system, measure); empty when no hybrid
        ran.
    """
    out = []
    for base in (r for r in results if r.system == BASELINE_OF_COMPARISONS):
        for other in results:
            if other.query_set != base.query_set or other.system == base.system:
                continue
            for m in measures:
                if m in base.per_query and m in other.per_query:
                    test = paired_test(base.per_query[m], other.per_query[m])
                    out.append(Comparison(base.query_set, base.system, other.system, m, test))
    return tuple(out)


def run_eval(
    benchmark: Benchmark,
    systems: Sequence[str] = DEFAULT_SYSTEMS,
    home: Path | None = None,
    runs_dir: Path | None = None,
    encoder: Encoder | None = None,
    config: Config | None = None,
    progress: EvalProgress | None = None,
) -> EvalReport:
    """Evaluate ``systems`` on every query set of ``benchmark``.

    Args:
        benchmark: from :mod:`litsift.eval.benchmarks` (already limited if wanted).
        systems: subset of :data:`SYSTEMS`.
        home: the litsift home to use; default :func:`eval_home` (never the user's home).
        runs_dir: where run files go; default ``./runs/<benchmark>``. Files are
            ``<query set>.<system>.trec``.
        encoder: an already-loaded encoder (default: the service loads the configured one).
        config: settings for the eval service (default: the eval home's, i.e. the defaults).
        progress: optional callback.

    Returns:
        The report; measures are computed from the run files as written.

    Raises:
        EvalError: unknown system, no query to evaluate, bm25s missing for the peer.
        IndexMismatchError, ModelNotBuiltError: from the service.
    """
    chosen = _check_systems(systems)
    home = home if home is not None else eval_home(benchmark)
    runs_dir = runs_dir if runs_dir is not None else Path.cwd() / "runs" / benchmark.name
    svc, notes = prepare_home(benchmark, home, encoder, config, progress)
    try:
        peer = None
        if "bm25s" in chosen:
            from litsift.eval.peer import PeerBM25

            peer = PeerBM25(svc.rows_since(benchmark.kind, 0), benchmark.kind)
            notes.append(f"bm25s peer: k1 1.2, b 0.75, lucene idf, stemmer {peer.stemmer}")
        results = []
        for qset in benchmark.query_sets:
            qids = [q.qid for q in _dedupe(qset.queries)]
            for system in chosen:
                t0 = time.perf_counter()
                spent: list[float] = []
                run = run_queries(svc, benchmark, qset, system, peer, progress, spent)
                elapsed = time.perf_counter() - t0
                path = write_run(runs_dir / f"{qset.name}.{system}.trec", run, f"litsift-{system}")
                pq = per_query(benchmark.measures, benchmark.qrels, read_run(path), qids)
                values = summarise(pq, qids)
                results.append(
                    SystemResult(system, qset.name, values, path, elapsed, pq, tuple(spent))
                )
        return EvalReport(
            benchmark=benchmark.name,
            measures=benchmark.measures,
            labels=dict(benchmark.labels),
            query_sets=tuple(s.name for s in benchmark.query_sets),
            results=tuple(results),
            published=benchmark.published,
            home=home,
            runs_dir=runs_dir,
            n_docs=svc.counts()[benchmark.kind],
            depth=benchmark.depth,
            hybrid_fusion=svc.config.search.fusion,
            notes=(*benchmark.notes, *notes, f"engine: {svc.config.engine.kind}"),
            comparisons=compare_systems(results, benchmark.measures),
        )
    finally:
        svc.close()
