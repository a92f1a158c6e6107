"""Rows ingested while a build runs (issue 34, item 5): the build that started before the
ingest also puts them in BM25 before it finishes, or its report says precisely how many
rows are behind.

The ingest happens between the build's phases, through a second connection to the store
file (what another litsift process does), from the build's own progress hook."""

from __future__ import annotations

import json
from pathlib import Path

from litsift.paths import get_paths
from litsift.search.build.index_pair import open_indexes
from litsift.service.facade import LitsiftService
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind, YearRange
from tests.conftest import DATASETS_GZ, read_jsonl_gz

KIND = Kind.DATASET
FIRST, LATER = 40, 25


def _rows(tmp_path: Path) -> tuple[Path, Path, list[dict]]:
    rows = read_jsonl_gz(DATASETS_GZ)[: FIRST + LATER]
    first, later = tmp_path / "first.jsonl", tmp_path / "later.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows[:FIRST]), encoding="utf-8")
    later.write_text("".join(json.dumps(r) + "\n" for r in rows[FIRST:]), encoding="utf-8")
    return first, later, rows[FIRST:]


def test_rows_ingested_during_the_dense_phase_are_in_bm25_when_the_build_ends(
    tmp_path: Path, encoder
) -> None:  # type: ignore[no-untyped-def]
    first, later, late_rows = _rows(tmp_path)
    paths = get_paths(tmp_path / "home")
    ingested: list[int] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "embed" and not ingested:  # BM25 published; now another process ingests
            other = Store(paths.store_file)
            ingested.append(ingest_jsonl(other, KIND, later).added)
            other.close()

    with LitsiftService(paths, encoder=encoder) as svc:
        assert svc.ingest(KIND, first).ok
        report = svc.build_index(KIND, progress=progress)
        assert ingested == [LATER]
        assert svc.store.count(KIND) == FIRST + LATER
        # both parts cover every row, and the report says nothing is behind
        assert report.manifest.count == FIRST + LATER, report.summary()
        assert report.manifest.part_count("dense") == FIRST + LATER
        assert report.behind == 0 and "not indexed yet" not in report.summary()
        assert not svc.needs_index(KIND)
        bm25, dense, _ = open_indexes(paths.index_dir, KIND, encoder)
        assert bm25.count() == FIRST + LATER and dense is not None
        # a late row is found by BM25 by its description
        late = svc.store.get(KIND, str(late_rows[0]["id"]))
        assert late is not None and late.rowid is not None
        found = [rowid for rowid, _ in bm25.search(late.description, 5, YearRange())]
        assert late.rowid in found


def test_when_the_store_keeps_moving_the_report_says_what_is_behind(
    tmp_path: Path, encoder
) -> None:  # type: ignore[no-untyped-def]
    from litsift.search.build.index_pair import merge_reports
    from litsift.search.build.two_phase import build_bm25, build_dense, catch_up

    first, later, _ = _rows(tmp_path)
    home = tmp_path / "home"
    store = Store(home / "store.sqlite")
    root = home / "indexes"
    ingest_jsonl(store, KIND, first)
    bm25 = build_bm25(store, encoder, KIND, root)
    ingest_jsonl(store, KIND, later)  # after the BM25 phase read the store
    report = merge_reports(bm25, build_dense(store, encoder, KIND, root))
    assert report.manifest.count == FIRST
    behind = catch_up(store, encoder, KIND, root, report, rounds=0)
    assert behind.behind == LATER
    assert f"{LATER:,} rows changed during the build are not indexed yet" in behind.summary()
    caught = catch_up(store, encoder, KIND, root, report)
    assert caught.behind == 0 and caught.manifest.count == FIRST + LATER
    assert caught.indexed >= report.indexed + LATER
    store.close()
