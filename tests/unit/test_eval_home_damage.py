"""An eval home is a derived part too (issue 34, item 3): a damaged index part of a cached
eval home is found (every checksum is verified before a run) and rebuilt before the run, so
a hybrid run is never measured on BM25 alone, nor does it fail."""

from __future__ import annotations

import json
import random
from pathlib import Path

from litsift.eval.benchmarks import read_jsonl
from litsift.eval.cli_support import run_benchmark
from litsift.eval.trec import read_qrels
from litsift.search.indexer import index_dir_for, open_indexes
from litsift.types import Kind
from tests.conftest import EVAL_DIR

SCIFACT = EVAL_DIR / "scifact"


def _slice(directory: Path, n_queries: int = 8, n_other: int = 60) -> tuple[Path, Path, Path]:
    qrels = read_qrels(SCIFACT / "qrels" / "test.tsv")
    qids = sorted(qrels, key=int)[:n_queries]
    relevant = {d for q in qids for d in qrels[q]}
    rows = list(read_jsonl(SCIFACT / "corpus.jsonl.gz"))
    others = [r for r in rows if r["_id"] not in relevant]
    keep = [r for r in rows if r["_id"] in relevant] + random.Random(0).sample(others, n_other)
    corpus = directory / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in keep))
    queries = directory / "queries.jsonl"
    queries.write_text("".join(json.dumps(r) + "\n" for r in read_jsonl(SCIFACT / "queries.jsonl")))
    qrels_path = directory / "qrels.tsv"
    qrels_path.write_text(
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t{s}\n" for q in qids for d, s in qrels[q].items())
    )
    return corpus, queries, qrels_path


def test_a_damaged_eval_home_is_repaired_before_the_run(tmp_path: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    corpus, queries, qrels = _slice(tmp_path)
    home = tmp_path / "home"

    def run(name: str):  # type: ignore[no-untyped-def]
        report = run_benchmark(
            "beir",
            corpus=corpus,
            queries=queries,
            qrels=qrels,
            measures="nDCG@10,R@100",
            systems="hybrid",
            home=home,
            runs_dir=tmp_path / name,
            encoder=encoder,
        )
        return report.result("test", "hybrid").values

    before = run("runs")
    dense = index_dir_for(home / "data" / "indexes", Kind.PAPER) / "dense.bin"
    assert dense.is_file()
    dense.write_bytes(random.Random(34).randbytes(dense.stat().st_size))  # same size
    assert run("runs2") == before
    open_indexes(home / "data" / "indexes", Kind.PAPER, encoder)  # repaired: opens whole
