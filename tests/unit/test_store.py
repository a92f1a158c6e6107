"""Store: opening, migrations, refusal of unknown versions, and typed reads on real data."""

from __future__ import annotations

import gzip
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from litsift.errors import StoreError
from litsift.paths import shared_data_dir
from litsift.store import SCHEMA_VERSION, Store, ingest_jsonl
from litsift.types import Dataset, Kind, Paper

SHARED_DATA = shared_data_dir()
PAPERS_GZ = SHARED_DATA / "papers" / "ml-nlp-papers.jsonl.gz"
DATASETS_GZ = SHARED_DATA / "datasets" / "pwc-datasets.jsonl.gz"
N_SLICE = 2000


@pytest.fixture(scope="session")
def papers_slice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 2,000 lines of the real paper sample as a plain JSONL file."""
    out = tmp_path_factory.mktemp("papers") / "papers-2000.jsonl"
    with gzip.open(PAPERS_GZ, "rb") as src, out.open("wb") as dst:
        for _, line in zip(range(N_SLICE), src, strict=False):
            dst.write(line)
    return out


@pytest.fixture(scope="session")
def store_path(tmp_path_factory: pytest.TempPathFactory, papers_slice: Path) -> Path:
    """A store holding the 2,000-paper slice and all datasets; tests only read it."""
    path = tmp_path_factory.mktemp("store") / "litsift.sqlite"
    with Store(path) as store:
        assert ingest_jsonl(store, Kind.PAPER, papers_slice).ok
        assert ingest_jsonl(store, Kind.DATASET, DATASETS_GZ).ok
    return path


@pytest.fixture()
def store(store_path: Path) -> Iterator[Store]:
    with Store(store_path, readonly=True) as s:
        yield s


def test_new_store_is_migrated_in_wal_mode_with_all_tables(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dir" / "s.sqlite"
    with Store(path) as s:
        assert s.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert s.db.journal_mode == "wal"
        tables = set(s.db.table_names())
        for kind in Kind:
            assert s.count(kind) == 0
            assert s.max_revision(kind) == 0
            assert s.year_span(kind) == (None, None)
            assert s.year_by_rowid(kind).tolist() == [-1]
    assert {
        "papers",
        "datasets",
        "meta",
        "labels",
        "notes",
        "collections",
        "collection_items",
        "query_history",
        "citekeys",
    } <= tables
    with sqlite3.connect(path) as conn:
        indexed = {
            r[0]
            for r in conn.execute(
                "SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%(year)%'"
            )
        }
    assert indexed == {"papers", "datasets"}


def test_reopening_keeps_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as s:
        ingest_jsonl(s, Kind.DATASET, DATASETS_GZ)
        n = s.count(Kind.DATASET)
    with Store(path) as s:
        assert s.count(Kind.DATASET) == n > 0
        assert s.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_readonly_open_of_missing_store_raises(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as err:
        Store(tmp_path / "nope.sqlite", readonly=True)
    assert "no litsift store" in err.value.message
    assert err.value.hint
    assert not (tmp_path / "nope.sqlite").exists()


def test_readonly_store_cannot_be_written(store: Store) -> None:
    assert store.count(Kind.PAPER) == N_SLICE
    with pytest.raises(sqlite3.OperationalError):
        store._conn.execute("DELETE FROM papers")


@pytest.mark.parametrize("readonly", [False, True])
def test_future_schema_version_is_refused(tmp_path: Path, readonly: bool) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError) as err:
        Store(path, readonly=readonly)
    assert f"schema version {SCHEMA_VERSION + 1}" in err.value.message
    assert "upgrade litsift" in err.value.hint
    assert "\n" not in err.value.message


def test_unmigrated_store_is_refused_readonly(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(StoreError, match="schema version 0"):
        Store(path, readonly=True)
    with Store(path) as s:  # opening for writing migrates it
        assert s.count(Kind.PAPER) == 0


@pytest.mark.parametrize("readonly", [False, True])
def test_corrupt_file_raises_store_error(tmp_path: Path, readonly: bool) -> None:
    path = tmp_path / "s.sqlite"
    path.write_bytes(PAPERS_GZ.read_bytes()[:8192])  # real bytes, but not a database
    with pytest.raises(StoreError) as err:
        Store(path, readonly=readonly)
    # called damaged only because PRAGMA quick_check agrees; the hint keeps the file
    assert "is damaged (SQLite's quick_check: file is not a database)" in err.value.message
    assert "keep the file" in err.value.hint and "move" not in err.value.hint


def test_get_returns_typed_records(store: Store, papers_slice: Path) -> None:
    first = json.loads(papers_slice.read_bytes().split(b"\n")[0])
    paper = store.get(Kind.PAPER, first["id"])
    assert isinstance(paper, Paper)
    assert paper.rowid is not None
    assert (paper.title, paper.abstract, paper.year) == (
        first["title"],
        first["abstract"],
        first["year"],
    )
    assert paper.authors == tuple(first["authors"])
    assert (paper.problem, paper.method) == ("", "")
    dataset = store.get(Kind.DATASET, "MuMu")
    assert isinstance(dataset, Dataset)
    assert "MuMu" in dataset.variants
    assert store.get(Kind.PAPER, "no-such-id") is None
    assert store.get(Kind.DATASET, first["id"]) is None


def test_get_by_rowids_keeps_order_drops_missing_and_chunks(store: Store) -> None:
    all_rowids = [p.rowid for batch in store.rows_since(Kind.PAPER) for p in batch]
    assert len(all_rowids) == N_SLICE
    wanted = [10**9, *reversed(all_rowids), -5, all_rowids[0]]  # > 900 ids: several queries
    got = store.get_by_rowids(Kind.PAPER, wanted)
    assert list(got) == list(reversed(all_rowids))
    assert all(got[r].rowid == r for r in got)
    some = store.get_by_rowids(Kind.PAPER, [all_rowids[5], all_rowids[2]])
    assert list(some) == [all_rowids[5], all_rowids[2]]
    assert some[all_rowids[2]] == store.get(Kind.PAPER, some[all_rowids[2]].id)
    assert store.get_by_rowids(Kind.PAPER, []) == {}


def test_rows_since_pages_by_rowid(store: Store) -> None:
    batches = list(store.rows_since(Kind.DATASET, 0, batch_size=1000))
    assert [len(b) for b in batches] == [1000, 1000, 1000, 294]
    rowids = [d.rowid for b in batches for d in b]
    assert rowids == sorted(rowids)
    assert len(set(rowids)) == store.count(Kind.DATASET)
    top = store.max_revision(Kind.DATASET)
    assert list(store.rows_since(Kind.DATASET, top)) == []
    last_two = [d for b in store.rows_since(Kind.DATASET, top - 2) for d in b]
    assert len(last_two) == 2


def test_year_by_rowid_matches_records(store: Store) -> None:
    for kind in Kind:
        years = store.year_by_rowid(kind)
        records = [r for batch in store.rows_since(kind) for r in batch]
        assert years.dtype == np.int32
        assert len(years) == max(r.rowid or 0 for r in records) + 1
        expected = np.full(len(years), -1, dtype=np.int32)
        for r in records:
            expected[r.rowid] = -1 if r.year is None else r.year
        assert np.array_equal(years, expected)
        if kind is Kind.DATASET:
            assert (
                (years[[r.rowid for r in records]] == -1).sum()
                == sum(r.year is None for r in records)
                > 0
            )
        present = [r.year for r in records if r.year is not None]
        assert store.year_span(kind) == (min(present), max(present))
