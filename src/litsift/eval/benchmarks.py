"""Benchmarks: corpus rows, query sets, qrels and the protocol of each; the DataFinder loader.

BEIR-layout loaders (any BEIR or LitSearch set, SciFact, DORIS-MAE) are in
:mod:`litsift.eval.beir`.

Every loader returns a :class:`Benchmark` whose corpus rows are in the store's input schema
(``litsift.store.ingest_records``), whose query and document ids are TREC-safe
(:func:`~litsift.eval.trec.trec_id`) and agree with its qrels, and whose measures are
ir-measures names. The protocols are those of ``../shared/docs/EVALUATION.md``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from litsift.errors import EvalError
from litsift.eval.published import PUBLISHED, PublishedRow
from litsift.eval.trec import Qrels, read_qrels
from litsift.types import Kind

#: Bump when a loader changes the corpus rows it produces (invalidates cached eval homes).
CORPUS_VERSION = 1
BENCHMARKS = ("datafinder", "scifact", "doris-mae-dev", "beir")
#: The halves of a benchmark's queries used for tuning without reporting tuned numbers as
#: unbiased (see :func:`query_half`).
HALVES = ("tune", "heldout")
DATAFINDER_FIELDS = ("query", "keyphrase_query")


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
            "pass --data-dir pointing at shared/data (see ../shared/data/README.md)",
        )
    return path


# -------------------------------------------------------------------------------- DataFinder
def datafinder_query_key(text: str) -> str:
    """DataFinder's query id: the full-sentence query with spaces replaced by ``_``.

    The released qrels went through a CSV round trip (quotes doubled, runs of whitespace
    collapsed, ends stripped), so both sides are normalised: CSV quotes removed, ``_`` and all
    whitespace (incl. U+00A0, newlines) collapsed to one ``_``, ends stripped. Under this key
    387 of the 406 test rows find their qrels; the other 19 have no relevant dataset at all
    (``documents == []``), and 5 of the 392 qrels queries match no test row.
    """
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = text[1:-1].replace('""', '"')
    return "_".join(text.replace("_", " ").split())


def _datafinder_corpus(path: Path) -> list[dict[str, Any]]:
    # 33 ids occur twice with different years; DataFinder ranks records, the store keeps one
    # row per id, so keep the copy that is eligible for the most queries (missing year first,
    # then the earliest year): an id is then eligible whenever one of its copies was.
    best: dict[str, dict[str, Any]] = {}
    for row in read_jsonl(path):
        prev = best.get(str(row.get("id")))
        if prev is None or _year_order(row) < _year_order(prev):
            best[str(row.get("id"))] = row
    return list(best.values())


def _words(text: object) -> str:
    return " ".join(re.findall(r"\w+", str(text or "").lower()))


def _datafinder_papers(path: Path, query_abstracts: set[str]) -> Iterator[dict[str, Any]]:
    # The popularity prior counts mentions in the paper corpus; drop the papers DataFinder's
    # test queries were written from (51 of the 19.6K, matched on the abstract's words), so
    # no query's own paper votes for its answer.
    for row in read_jsonl(path):
        if _words(row.get("abstract")) not in query_abstracts:
            yield row


def _year_order(row: Mapping[str, Any]) -> int:
    year = row.get("year")
    return -1 if not isinstance(year, int) else year


def load_datafinder(data_dir: Path, query_field: str = "both") -> Benchmark:
    """DataFinder (Viswanathan et al., ACL 2023) test set over the 3,327 PwC dataset records.

    Protocol (EVALUATION.md §1): rank only datasets with ``year(d) <= year(q)`` (no year →
    eligible), cut runs at depth 5, measure P@5, R@5, MAP (``AP`` of the depth-5 run) and MRR
    (``RR``). Only rows whose query has qrels are evaluated (387; see
    :func:`datafinder_query_key`). Both variants of a row share its qrels.

    Args:
        data_dir: ``shared/data``.
        query_field: ``"query"``, ``"keyphrase_query"`` or ``"both"``.

    Raises:
        EvalError: a file is missing or ``query_field`` is unknown.
    """
    fields = DATAFINDER_FIELDS if query_field == "both" else (query_field,)
    if any(f not in DATAFINDER_FIELDS for f in fields):
        raise EvalError(
            f"unknown DataFinder query field {query_field!r}", "use query, keyphrase_query or both"
        )
    corpus_path = require_file(data_dir, "datasets", "pwc-datasets.jsonl.gz")
    papers_path = require_file(data_dir, "papers", "ml-nlp-papers.jsonl.gz")
    rows = list(read_jsonl(require_file(data_dir, "eval", "datafinder", "test_data.jsonl")))
    query_abstracts = {_words(r.get("abstract")) for r in rows if r.get("abstract")}
    raw = read_qrels(require_file(data_dir, "eval", "datafinder", "test_dataset_collection.qrels"))
    qrels: Qrels = {}
    for qid, docs in raw.items():
        qrels.setdefault(datafinder_query_key(qid), {}).update(docs)
    sets = []
    for name in fields:
        queries = tuple(
            EvalQuery(key, str(r[name]), int(r["year"]) if r.get("year") is not None else None)
            for r in rows
            if (key := datafinder_query_key(str(r["query"]))) in qrels
        )
        sets.append(QuerySet(name, queries))
    return Benchmark(
        name="datafinder",
        kind=Kind.DATASET,
        corpus=lambda: _datafinder_corpus(corpus_path),
        corpus_files=(corpus_path,),
        papers=lambda: _datafinder_papers(papers_path, query_abstracts),
        papers_files=(papers_path,),
        query_sets=tuple(sets),
        qrels=qrels,
        measures=("P@5", "R@5", "AP", "RR"),
        labels={"AP": "MAP", "RR": "MRR"},
        depth=5,
        published=PUBLISHED["datafinder"],
        notes=(
            "runs cut at depth 5; MAP and MRR are therefore @5 (DataFinder's trec_eval setup)",
            "year cut-off year(d) <= year(q); datasets without a year stay eligible",
            "3,294 unique dataset ids (33 duplicate records: the copy with the earliest year "
            "is kept); 34 of 313 judged dataset ids are not in the corpus",
            "the popularity prior counts mentions in the 19.6K papers minus the 51 the test "
            "queries were written from, published up to the query's year",
        ),
    )


def load_benchmark(name: str, data_dir: Path, query_field: str = "both") -> Benchmark:
    """A named benchmark over ``data_dir`` (``shared/data``).

    Raises:
        EvalError: unknown name (``beir`` needs :func:`load_beir` with its files).
    """
    if name == "datafinder":
        return load_datafinder(data_dir, query_field)
    if name == "scifact":
        from litsift.eval.beir import load_scifact

        return load_scifact(data_dir)
    if name == "doris-mae-dev":
        from litsift.eval.beir import load_doris_mae_dev

        return load_doris_mae_dev(data_dir)
    raise EvalError(
        f"unknown benchmark {name!r}",
        "use datafinder, scifact, doris-mae-dev, or beir --corpus ... --queries ... --qrels ...",
    )
