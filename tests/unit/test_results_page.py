"""benchmarks/results_page.py: run_eval's --json output turned into the results page's tables.

The input is built the way ``benchmarks/run_eval.py --json`` builds it: an :class:`EvalReport`
of the runner's dataclasses through ``run_eval.report_entry`` (``report_to_json`` + half and
machine), with the SciFact figures of README.md's table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litsift.eval.measures import MeasureValue, PairedTest
from litsift.eval.published import PublishedRow
from litsift.eval.runner import Comparison, EvalReport, SystemResult
from tests.bench import benchmark_module

results_page = benchmark_module("results_page")
run_eval = benchmark_module("run_eval")

#: README's SciFact table (fractions), as (nDCG@10 mean, std, R@100 mean, std).
SCIFACT = {
    "bm25": (0.699, 0.023, 0.914, 0.016),
    "dense": (0.647, 0.023, 0.923, 0.016),
    "hybrid": (0.726, 0.022, 0.956, 0.011),
    "bm25s": (0.679, 0.022, 0.913, 0.017),
}


def scifact_report(tmp_path: Path) -> EvalReport:
    results = tuple(
        SystemResult(
            system=system,
            query_set="test",
            values={
                "nDCG@10": MeasureValue(v[0], v[1], 300),
                "R@100": MeasureValue(v[2], v[3], 300),
            },
            run_file=tmp_path / f"{system}.run",
            elapsed_s=1.0,
        )
        for system, v in SCIFACT.items()
    )
    return EvalReport(
        benchmark="scifact",
        measures=("nDCG@10", "R@100"),
        labels={},
        query_sets=("test",),
        results=results,
        published=(
            PublishedRow("BM25 Anserini (BEIR)", "test", {"nDCG@10": 66.5, "R@100": None}, "x"),
        ),
        home=tmp_path,
        runs_dir=tmp_path / "runs",
        n_docs=5183,
        depth=1000,
        hybrid_fusion="interpolation",
        comparisons=(
            Comparison("test", "hybrid", "bm25", "nDCG@10", PairedTest(0.027, 0.013, 120, 80, 300)),
            Comparison(
                "test", "hybrid", "dense", "nDCG@10", PairedTest(0.079, 0.0002, 150, 60, 300)
            ),
        ),
    )


def test_tables_come_from_run_evals_json(tmp_path: Path) -> None:
    path = tmp_path / "eval.json"
    path.write_text(json.dumps({"scifact": run_eval.report_entry(scifact_report(tmp_path), None)}))
    md = results_page.render([json.loads(path.read_text())])
    assert "### scifact / test: 300 queries, 5,183 documents, depth 1000" in md
    assert "| system | nDCG@10 | R@100 |" in md
    assert "| litsift BM25 (tantivy) | 69.9 ± 2.3 | 91.4 ± 1.6 |" in md
    assert "| **litsift hybrid (interpolation)** | **72.6 ± 2.2** | **95.6 ± 1.1** |" in md
    assert "| bm25s (peer BM25) | 67.9 ± 2.2 | 91.3 ± 1.7 |" in md
    assert "| BM25 Anserini (BEIR) (published) | 66.5 | – |" in md
    assert "- hybrid − litsift BM25 (tantivy): nDCG@10 +2.7 (120/80, p 0.013)" in md
    assert "- hybrid − litsift dense (MiniLM): nDCG@10 +7.9 (150/60, p 0.0002)" in md
    assert run_eval.machine() in md

    heldout = run_eval.report_entry(scifact_report(tmp_path), "heldout")
    assert "### scifact / test, held-out half: 300" in results_page.render([{"s": heldout}])


def test_only_the_generated_section_of_the_page_is_replaced(tmp_path: Path) -> None:
    b, e = results_page.BEGIN, results_page.END
    page = f"# Results\n\n{b}\nold tables\n{e}\n\n## Log\n\nround 1\n"
    new = results_page.replace_section(page, "new tables\n")
    assert new == f"# Results\n\n{b}\nnew tables\n{e}\n\n## Log\n\nround 1\n"
    assert results_page.replace_section(new, "new tables") == new
    with pytest.raises(ValueError):
        results_page.replace_section("## Log\n", "x")

    # the real page has the markers, and the command writes between them only
    real = results_page.PAGE.read_text(encoding="utf-8")
    assert real.count(b) == 1 and real.count(e) == 1 and real.index(b) < real.index(e)
    data = tmp_path / "eval.json"
    data.write_text(json.dumps({"scifact": run_eval.report_entry(scifact_report(tmp_path), None)}))
    copy = tmp_path / "page.md"
    copy.write_text(real, encoding="utf-8")
    assert results_page.main([str(data), "--page", str(copy)]) == 0
    written = copy.read_text(encoding="utf-8")
    assert "| **litsift hybrid (interpolation)** | **72.6 ± 2.2**" in written
    assert written[written.index(e) :] == real[real.index(e) :]  # the log is untouched
    assert written[: written.index(b)] == real[: real.index(b)]
