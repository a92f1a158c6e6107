"""Loaders of BEIR-layout benchmarks: any BEIR or LitSearch set, SciFact, DORIS-MAE dev.

Each returns a :class:`~litsift.eval.benchmarks.Benchmark` (see that module for the contract).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from litsift.errors import EvalError
from litsift.eval.benchmarks import (
    Benchmark,
    EvalQuery,
    QuerySet,
    read_jsonl,
    require_file,
)
from litsift.eval.published import PUBLISHED
from litsift.eval.trec import Qrels, read_qrels, trec_id
from litsift.types import Kind

_DORIS_PREFIX = "Best Candidate: "


def beir_corpus_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A BEIR (``_id``/``title``/``text``) or LitSearch (``corpusid``/``title``/``abstract``)
    corpus row as a store paper row.

    The store requires a title; a row without one gets its id as title (ids carry no query
    words, so the document competes on its text alone).

    Raises:
        EvalError: the row has no id.
    """
    doc_id = next((row[k] for k in ("_id", "corpusid", "id") if row.get(k) is not None), None)
    if doc_id is None:
        raise EvalError("corpus row without _id/corpusid/id", "every corpus row needs an id")
    title = str(row.get("title") or "").strip() or str(doc_id)
    text = row.get("text") if row.get("text") is not None else row.get("abstract")
    out: dict[str, Any] = {"id": str(doc_id), "title": title, "abstract": str(text or "")}
    if row.get("year") is not None:
        out["year"] = row["year"]
    return out


def load_beir(
    corpus: Path,
    queries: Path,
    qrels: Path | None = None,
    measures: Iterable[str] = ("nDCG@10", "R@100", "RR@10"),
    name: str = "beir",
    depth: int | None = None,
) -> Benchmark:
    """Any benchmark in BEIR layout, or in LitSearch's layout.

    BEIR: corpus rows ``_id``, ``title``, ``text`` (optional ``year``); query rows ``_id``,
    ``text`` (optional ``year``: a year cut-off as in DataFinder); qrels TSV
    ``query-id corpus-id score`` (or TREC qrels). Only queries with a relevant document are
    evaluated. LitSearch: query rows with ``query`` and ``corpusids`` (the qrels; a query's id
    is its 0-based row number unless it has ``_id``/``id``), corpus rows ``corpusid``,
    ``title``, ``abstract``; ``qrels`` may then be omitted.

    Args:
        corpus: JSONL or JSONL.gz.
        queries: JSONL.
        qrels: qrels file; required unless the queries carry ``corpusids``.
        measures: ir-measures names.
        name: benchmark name (keys the eval home and the run directory).
        depth: hits per query; default the largest cutoff among ``measures`` (at least 100).

    Raises:
        EvalError: a file is missing, no qrels are given, or no query has a relevant document.
    """
    from litsift.eval.measures import parse_measures

    parsed = parse_measures(measures)
    judged: Qrels = read_qrels(qrels) if qrels is not None else {}
    rows = list(read_jsonl(queries))
    out: list[EvalQuery] = []
    for i, r in enumerate(rows):
        qid = trec_id(str(r.get("_id", r.get("id", i))))
        if "corpusids" in r:
            judged.setdefault(qid, {}).update({trec_id(str(d)): 1 for d in r["corpusids"]})
        text = str(r.get("text") or r.get("query") or "")
        year = r.get("year")
        out.append(EvalQuery(qid, text, int(year) if year is not None else None))
    if not judged:
        raise EvalError(f"no qrels for {queries}", "pass --qrels QRELS.tsv")
    kept = tuple(q for q in out if any(v > 0 for v in judged.get(q.qid, {}).values()))
    if not kept:
        raise EvalError(
            f"no query of {queries} has a relevant document in the qrels",
            "check that the qrels' query ids are the queries' _id values",
        )
    cutoffs = [int(m.params["cutoff"]) for m in parsed if m.params.get("cutoff")]
    return Benchmark(
        name=name,
        kind=Kind.PAPER,
        corpus=lambda: (beir_corpus_row(r) for r in read_jsonl(corpus)),
        corpus_files=(corpus,),
        query_sets=(QuerySet("test", kept),),
        qrels=judged,
        measures=tuple(str(m) for m in parsed),
        depth=depth or max([100, *cutoffs]),
        published=PUBLISHED.get(name, ()),
        notes=("documents are title + text; a missing title is replaced by the id",),
    )


def load_scifact(data_dir: Path) -> Benchmark:
    """SciFact, BEIR test split: 5,183 abstracts, the 300 claims of ``qrels/test.tsv``.

    Measures nDCG@10 and Recall@100 (BEIR's standard pair, EVALUATION.md §2).
    """
    root = data_dir / "eval" / "scifact"
    return load_beir(
        require_file(root, "corpus.jsonl.gz"),
        require_file(root, "queries.jsonl"),
        require_file(root, "qrels", "test.tsv"),
        measures=("nDCG@10", "R@100"),
        name="scifact",
        depth=100,
    )


# -------------------------------------------------------------------------------- DORIS-MAE
def _norm_text(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def load_doris_mae_dev(data_dir: Path, abstracts_only: bool = True) -> Benchmark:
    """DORIS-MAE dev queries as known-item search (EVALUATION.md §3).

    Corpus: the 19,639 papers of ``papers/ml-nlp-papers.jsonl.gz`` + the 99 best-candidate
    abstracts of ``doris-mae/candidates.jsonl``. A candidate has no title; the store requires
    one, so its id (``doris-mae:<n>``) is the title, which carries no query words; the
    ``"Best Candidate: "`` label the release puts before every abstract is removed. With
    ``abstracts_only`` (default) the corpus papers get the same treatment (id as title,
    abstract kept), so every document is an abstract as in DORIS-MAE's own candidate pools and
    a distractor cannot win on a title the known item was never given. Qrels: each
    dev query's ``best_candidate_id`` (relevance 1), plus any corpus paper whose abstract is
    the same text (one candidate is also an ICLR 2018 paper of the sample). Measures MRR@10,
    Recall@10, Recall@100.
    """
    papers_path = require_file(data_dir, "papers", "ml-nlp-papers.jsonl.gz")
    cand_path = require_file(data_dir, "eval", "doris-mae", "candidates.jsonl")
    queries_path = require_file(data_dir, "eval", "doris-mae", "queries-dev.jsonl")

    def candidates() -> list[dict[str, Any]]:
        return [
            {"id": c["id"], "title": c["id"], "abstract": c["abstract"].removeprefix(_DORIS_PREFIX)}
            for c in read_jsonl(cand_path)
        ]

    def corpus() -> Iterator[dict[str, Any]]:
        for p in read_jsonl(papers_path):
            yield {**p, "title": str(p.get("id", ""))} if abstracts_only else p
        yield from candidates()

    by_text: dict[str, list[str]] = {}
    for c in candidates():
        by_text.setdefault(_norm_text(c["abstract"]), []).append(c["id"])
    for p in read_jsonl(papers_path):
        key = _norm_text(str(p.get("abstract") or ""))
        if key and key in by_text:
            by_text[key].append(str(p["id"]))
    cand_ids = {c["id"]: c for c in candidates()}
    qrels: Qrels = {}
    queries = []
    for r in read_jsonl(queries_path):
        cid = f"doris-mae:{r['best_candidate_id']}"
        if cid not in cand_ids:
            continue
        same = by_text.get(_norm_text(cand_ids[cid]["abstract"]), [cid])
        qid = trec_id(str(r["query_id"]))
        qrels[qid] = {trec_id(d): 1 for d in same}
        queries.append(EvalQuery(qid, str(r["query"])))
    return Benchmark(
        name="doris-mae-dev",
        kind=Kind.PAPER,
        corpus=corpus,
        corpus_files=(papers_path, cand_path),
        query_sets=(QuerySet("dev", tuple(queries)),),
        qrels=qrels,
        measures=("RR@10", "R@10", "R@100"),
        labels={"RR@10": "MRR@10"},
        depth=100,
        published=PUBLISHED["doris-mae-dev"],
        notes=(
            "known-item search: the relevant document is the query's best candidate",
            "candidates have no title (their id stands in); "
            + (
                "nor do corpus papers (abstracts only, as DORIS-MAE's pools)"
                if abstracts_only
                else "corpus papers have real titles"
            ),
        ),
        variant="abstracts-only" if abstracts_only else "",
    )
