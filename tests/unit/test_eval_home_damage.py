"""An eval home is a derived part too (issue 34, item 3): a damaged index part of a cached
eval home is found (every checksum is verified before a run) and rebuilt before the run, so
a hybrid run is never measured on BM25 alone, nor does it fail."""

from __future__ import annotations

import random
from pathlib import Path

from litsift.eval.cli_support import run_benchmark
from litsift.search.build.index_pair import open_indexes
from litsift.search.build.layout import index_dir_for
from litsift.types import Kind
from tests.conftest import scifact_slice


def test_a_damaged_eval_home_is_repaired_before_the_run(tmp_path: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    corpus, queries, qrels = scifact_slice(tmp_path, n_queries=8, n_other=60)
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
