"""Loading a benchmark by name (:func:`load_benchmark`), and the DataFinder loader.

The protocols are those of ``../shared/docs/EVALUATION.md``; the records a loader returns are
:mod:`litsift.eval.benchmarks`'.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from litsift.errors import EvalError
from litsift.eval.beir import load_doris_mae_dev, load_scifact
from litsift.eval.benchmarks import (
    Benchmark,
    EvalQuery,
    QuerySet,
    read_jsonl,
    require_file,
)
from litsift.eval.published import PUBLISHED
from litsift.eval.trec import Qrels, read_qrels
from litsift.types import Kind

__all__ = ["DATAFINDER_FIELDS", "datafinder_query_key", "load_benchmark", "load_datafinder"]

DATAFINDER_FIELDS = ("query", "keyphrase_query")


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
        return load_scifact(data_dir)
    if name == "doris-mae-dev":
        return load_doris_mae_dev(data_dir)
    raise EvalError(
        f"unknown benchmark {name!r}",
        "use datafinder, scifact, doris-mae-dev, or beir --corpus ... --queries ... --qrels ...",
    )
