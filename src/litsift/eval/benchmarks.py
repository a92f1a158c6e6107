"""Benchmarks: corpus rows, query sets, qrels and the protocol of each.

The loaders: :func:`litsift.eval.loaders.load_benchmark` by name, DataFinder in
:mod:`litsift.eval.loaders`, BEIR-layout sets (any BEIR or LitSearch set, SciFact, DORIS-MAE)
in :mod:`litsift.eval.beir`.

Every loader returns a :class:`Benchmark` whose corpus rows are in the store's input schema
(``litsift.store.ingest_records``), whose query and document ids are TREC-safe
(:func:`~litsift.eval.trec.trec_id`) and agree with its qrels, and whose measures are
ir-measures names. The protocols are those of ``../shared/docs/EVALUATION.md``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from litsift.errors import EvalError
from litsift.eval.published import PublishedRow
from litsift.eval.trec import Qrels
from litsift.types import Kind

#: Bump when a loader changes the corpus rows it produces (invalidates cached eval homes).
CORPUS_VERSION = 1
BENCHMARKS = ("datafinder", "scifact", "doris-mae-dev", "beir")
#: The halves of a benchmark's queries used for tuning without reporting tuned numbers as
#: unbiased (see :func:`query_half`).
HALVES = ("tune", "heldout")


@dataclass(frozen=True)
class EvalQuery:
    """One query of a benchmark.

    Attributes:
        qid: TREC-safe query id, the key of the benchmark's qrels.
        text: the text sent to ``service.search``.
        year: year cut-off: only documents with ``year <= year`` (or no year) are eligible;
            None means no cut-off.
    """

    qid: str
    text: str
    year: int | None = None


@dataclass(frozen=True)
class QuerySet:
    """A named list of queries run as one unit (DataFinder has two: query, keyphrase_query)."""

    name: str
    queries: tuple[EvalQuery, ...]


@dataclass(frozen=True)
class Benchmark:
    """A corpus, query sets, qrels and the protocol's measures.

    Attributes:
        name: e.g. ``"datafinder"``.
        kind: what the corpus is ingested as.
        corpus: returns the corpus rows (store input schema) each time it is called.
        corpus_files: the files the corpus is read from (their bytes key the eval home).
        query_sets: the query sets, each evaluated per system.
        qrels: ``{qid: {docid: relevance}}``, TREC-safe ids.
        measures: ir-measures names, e.g. ``("nDCG@10", "R@100")``.
        labels: display name of each measure (``{"AP": "MAP"}``); default the measure name.
        depth: hits retrieved per query (the run is cut there).
        published: reference rows from EVALUATION.md.
        notes: protocol details worth printing with the table.
        variant: how the corpus is derived from its files, when that changed without the files
            changing (part of :meth:`fingerprint`; empty for the original derivation).
        papers: for a dataset benchmark, paper rows ingested beside the corpus (not indexed):
            the source of the dataset popularity prior (:mod:`litsift.search.datasets.popularity`).
        papers_files: the files ``papers`` is read from (part of :meth:`fingerprint`).
    """

    name: str
    kind: Kind
    corpus: Callable[[], Iterable[dict[str, Any]]]
    corpus_files: tuple[Path, ...]
    query_sets: tuple[QuerySet, ...]
    qrels: Qrels
    measures: tuple[str, ...]
    depth: int
    labels: Mapping[str, str] = field(default_factory=dict)
    published: tuple[PublishedRow, ...] = ()
    notes: tuple[str, ...] = ()
    variant: str = ""
    papers: Callable[[], Iterable[dict[str, Any]]] | None = None
    papers_files: tuple[Path, ...] = ()

    def fingerprint(self) -> str:
        """16 hex digits of SHA-256 over the corpus files' bytes, :data:`CORPUS_VERSION` and
        :attr:`variant`."""
        h = hashlib.sha256(f"{self.name}\0{CORPUS_VERSION}\0".encode())
        if self.variant:
            h.update(f"{self.variant}\0".encode())
        for path in (*self.corpus_files, *self.papers_files):
            with path.open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        return h.hexdigest()[:16]

    def label(self, measure: str) -> str:
        return self.labels.get(measure, measure)

    def half(self, half: str | None) -> Benchmark:
        """The same benchmark with only the queries of one half (:func:`query_half`).

        Raises:
            EvalError: ``half`` is not ``"tune"``, ``"heldout"`` or None (all queries).
        """
        if half is None:
            return self
        if half not in HALVES:
            raise EvalError(f"unknown query half {half!r}", "use tune or heldout")
        sets = tuple(
            QuerySet(s.name, tuple(q for q in s.queries if query_half(q.qid) == half))
            for s in self.query_sets
        )
        return replace(self, query_sets=sets)

    def limited(self, limit: int | None) -> Benchmark:
        """The same benchmark with only the first ``limit`` queries of each query set."""
        if limit is None:
            return self
        sets = tuple(QuerySet(s.name, s.queries[: max(0, limit)]) for s in self.query_sets)
        return replace(self, query_sets=sets)


def query_half(qid: str) -> str:
    """The fixed half a query belongs to: ``"tune"`` when the SHA-256 of its UTF-8 query id
    is even (last hex digit), else ``"heldout"``.

    Stable across runs, machines and Python versions (no ``hash()`` salt). Ranking defaults
    are tuned on the ``tune`` half of DataFinder; ``heldout`` is reported as unbiased.
    """
    last = int(hashlib.sha256(qid.encode("utf-8")).hexdigest()[-1], 16)
    return "tune" if last % 2 == 0 else "heldout"


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a JSONL or JSONL.gz file, split on ``\\n`` only (U+2028 occurs inside strings).

    Raises:
        EvalError: the file is missing or a line is not a JSON object.
    """
    if not path.is_file():
        raise EvalError(f"file not found: {path}", "check the path (see ../shared/data/README.md)")
    with path.open("rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    raw = gzip.open(path).read() if gz else path.read_bytes()
    for line_no, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise EvalError(f"{path}:{line_no}: not JSON: {e.msg}", "fix or remove the line") from e
        if not isinstance(row, dict):
            raise EvalError(f"{path}:{line_no}: not a JSON object", "one object per line")
        yield row


def require_file(data_dir: Path, *parts: str) -> Path:
    path = data_dir.joinpath(*parts)
    if not path.is_file():
        raise EvalError(
            f"benchmark file not found: {path}",
            "pass --data pointing at shared/data (or set LITSIFT_EVAL_DATA)",
        )
    return path
