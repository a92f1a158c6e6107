"""``litsift refs show`` of a paper without stored citation edges says how to bring them in
(found in QA: "references (0)" and "cited by (0)" alone read as a paper that cites nothing).
Real store, real papers."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir

PAPERS = shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"


@pytest.mark.skipif(not PAPERS.is_file(), reason=f"{PAPERS} not here")
def test_refs_show_without_edges_names_fetch_and_import(tmp_path: Path) -> None:
    with gzip.open(PAPERS, "rt", encoding="utf-8") as f:
        lines = [next(f) for _ in range(3)]
    slice_file = tmp_path / "papers.jsonl"
    slice_file.write_text("".join(lines), encoding="utf-8")
    home = ["--home", str(tmp_path / "home")]
    runner = CliRunner()
    assert runner.invoke(main, [*home, "ingest", "papers", str(slice_file)]).exit_code == 0
    got = runner.invoke(main, [*home, "refs", "show", "acl2021:2021.acl-long.24"])
    assert got.exit_code == 0, got.output
    assert got.stdout.splitlines()[1:] == ["references (0):", "cited by (0):"]
    assert "no citation edges are stored for it" in got.stderr
    assert "litsift refs fetch acl2021:2021.acl-long.24" in got.stderr
    assert "litsift refs import FILE" in got.stderr
    # --json stays as it was: the lists, no note
    as_json = runner.invoke(main, [*home, "refs", "show", "acl2021:2021.acl-long.24", "--json"])
    assert as_json.exit_code == 0 and not as_json.stderr
