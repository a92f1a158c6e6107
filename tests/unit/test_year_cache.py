"""The year column kept beside the indexes (issue 32): a search process reads it instead of
scanning the store (~1.4 s at 1M papers), and any change of the store's papers makes it stale."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from litsift.search.retrieval.years import cache_paths, year_by_rowid
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_year_column_is_read_from_the_cache_until_the_store_changes(
    tmp_path: Path, paper_slice_rows: list[dict[str, Any]]
) -> None:
    rows = [dict(r) for r in paper_slice_rows[:30]]
    index_root = tmp_path / "indexes"
    index_root.mkdir()
    with Store(tmp_path / "store.sqlite") as store:
        assert ingest_jsonl(store, Kind.PAPER, _write(tmp_path / "a.jsonl", rows)).ok
        first = year_by_rowid(store, Kind.PAPER, index_root)
        assert np.array_equal(first, store.year_by_rowid(Kind.PAPER))
        assert all(p.is_file() for p in cache_paths(index_root, Kind.PAPER))

        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        again = year_by_rowid(store, Kind.PAPER, index_root)
        store._conn.set_trace_callback(None)
        assert np.array_equal(again, first) and again.dtype == np.int32
        assert statements and not any("year" in s.lower() for s in statements), statements

        # a changed year (an upsert takes a new revision) and a new paper: read again
        rows[3]["year"] = 1901
        new = {**rows[0], "id": "new-paper-1", "title": "A paper added later", "year": 1902}
        assert ingest_jsonl(store, Kind.PAPER, _write(tmp_path / "b.jsonl", [rows[3], new])).ok
        changed = year_by_rowid(store, Kind.PAPER, index_root)
        assert np.array_equal(changed, store.year_by_rowid(Kind.PAPER))
        assert 1901 in changed and 1902 in changed and 1901 not in first


def test_a_damaged_year_cache_is_rebuilt_from_the_store(
    tmp_path: Path, paper_slice_rows: list[dict[str, Any]]
) -> None:
    index_root = tmp_path / "indexes"
    index_root.mkdir()
    with Store(tmp_path / "store.sqlite") as store:
        src = _write(tmp_path / "a.jsonl", paper_slice_rows[:10])
        assert ingest_jsonl(store, Kind.PAPER, src).ok
        year_by_rowid(store, Kind.PAPER, index_root)
        data, _ = cache_paths(index_root, Kind.PAPER)
        data.write_bytes(b"\x93NUMPY garbage" * 3)
        years = year_by_rowid(store, Kind.PAPER, index_root)
        assert np.array_equal(years, store.year_by_rowid(Kind.PAPER))
        assert np.array_equal(np.load(data), years)  # written again
