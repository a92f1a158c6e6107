"""`litsift search` right after `litsift ingest` builds the BM25 part first (seconds) and says so,
instead of answering "no paper index" (issue 29, item 6); rows ingested later are indexed by the
next search before it runs."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from tests.conftest import PAPERS_GZ, read_jsonl_gz


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_search_after_ingest_builds_bm25_first_then_catches_up(tmp_path: Path) -> None:
    rows = read_jsonl_gz(PAPERS_GZ)[:60]
    home = str(tmp_path / "home")
    runner = CliRunner()
    first = runner.invoke(
        main, ["--home", home, "ingest", "papers", str(_write(tmp_path / "a.jsonl", rows[:50]))]
    )
    assert first.exit_code == 0, first.output
    title = rows[7]["title"]
    out = runner.invoke(main, ["--home", home, "search", title, "--json", "-k", "3"])
    assert out.exit_code == 0, out.output
    assert "no BM25 index of 50 rows; building BM25 first" in out.stderr
    assert "BM25 ready" in out.stderr and "litsift index" in out.stderr
    hits = json.loads(out.stdout)["hits"]
    assert hits[0]["id"] == str(rows[7]["id"])
    # again: nothing to build, no note about building
    again = runner.invoke(main, ["--home", home, "search", title, "--json", "-k", "3"])
    assert again.exit_code == 0 and "building" not in again.stderr
    # ten more rows: the BM25 part is behind; the search brings it up to date first
    more = runner.invoke(
        main, ["--home", home, "ingest", "papers", str(_write(tmp_path / "b.jsonl", rows[50:]))]
    )
    assert more.exit_code == 0, more.output
    late = rows[55]["title"]
    out = runner.invoke(main, ["--home", home, "search", late, "--json", "-k", "3"])
    assert out.exit_code == 0, out.output
    assert "the BM25 index covers 50 of 60 rows; building BM25 first" in out.stderr
    assert json.loads(out.stdout)["hits"][0]["id"] == str(rows[55]["id"])


def test_the_printed_table_counts_its_hits_in_words(tmp_path: Path) -> None:
    """The table title says "1 hit" for one hit (it said "1 hits"), "3 hits" for three."""
    rows = read_jsonl_gz(PAPERS_GZ)[:30]
    home = str(tmp_path / "home")
    runner = CliRunner()
    ingest = runner.invoke(
        main, ["--home", home, "ingest", "papers", str(_write(tmp_path / "a.jsonl", rows))]
    )
    assert ingest.exit_code == 0, ingest.output
    one = runner.invoke(main, ["--home", home, "search", rows[3]["title"], "-k", "1"])
    assert one.exit_code == 0, one.output
    assert one.stdout.startswith("1 hit · "), one.stdout[:80]
    three = runner.invoke(main, ["--home", home, "search", rows[3]["title"], "-k", "3"])
    assert three.stdout.startswith("3 hits · "), three.stdout[:80]


def test_an_empty_query_is_an_error_with_a_hint(tmp_path: Path) -> None:
    """`litsift search ""` printed "0 hits" and exited 0; now it says the query is empty."""
    runner = CliRunner()
    for text in ("", "   "):
        out = runner.invoke(main, ["--home", str(tmp_path / "home"), "search", text])
        assert out.exit_code == 1, out.output
        assert "the query is empty" in out.output and 'litsift search "QUERY"' in out.output


def test_a_dataset_search_with_no_dataset_says_so_before_building_the_papers_bm25(
    tmp_path: Path,
) -> None:
    """It built the papers' BM25 index first (seconds to minutes on a large library), then
    said there was no dataset to search."""
    home = str(tmp_path / "home")
    rows = read_jsonl_gz(PAPERS_GZ)[:50]
    runner = CliRunner()
    ingest = ["--home", home, "ingest", "papers", str(_write(tmp_path / "a.jsonl", rows))]
    assert runner.invoke(main, ingest).exit_code == 0
    out = runner.invoke(main, ["--home", home, "search", "question answering", "--datasets"])
    assert out.exit_code == 1
    assert out.stderr.splitlines() == [
        "error: no datasets in the store yet",
        "  hint: litsift ingest datasets PATH (any format `litsift formats` lists), "
        "then litsift index",
    ]


def test_index_with_nothing_in_the_store_says_how_to_add_some(tmp_path: Path) -> None:
    """`litsift index` on an empty store said "papers: nothing to index" and no more, where
    every other empty-store message says how to ingest."""
    out = CliRunner().invoke(main, ["--home", str(tmp_path / "home"), "index"])
    assert out.exit_code == 0, out.output
    for table in ("papers", "datasets"):
        assert (
            f"{table}: nothing to index: ingest some first: litsift ingest {table} PATH "
            "(`litsift formats` lists what it reads)"
        ) in out.stdout.splitlines(), out.output
