"""DenseIndex: real hnswlib graphs, year filters checked against an exact numpy scan.

Vectors are random (seeded) but the years are the real years of the 3,327 Papers with Code
datasets (881 of them missing), so the filter sees the real year distribution.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from litsift.search.retrieval.dense import DenseIndex
from litsift.search.retrieval.filters import YEAR_MISSING, allowed_mask
from litsift.types import YearRange
from tests.conftest import DATASETS_GZ, read_jsonl_gz

DIM = 32


@pytest.fixture(scope="session")
def year_by_rowid() -> npt.NDArray[np.int32]:
    rows = read_jsonl_gz(DATASETS_GZ)
    out = np.full(len(rows) + 1, YEAR_MISSING, dtype=np.int32)
    for i, r in enumerate(rows):
        if r.get("year") is not None:
            out[i + 1] = int(r["year"])
    return out


@pytest.fixture(scope="session")
def vectors(year_by_rowid: npt.NDArray[np.int32]) -> npt.NDArray[np.float32]:
    rng = np.random.default_rng(7)
    v = rng.standard_normal((len(year_by_rowid) - 1, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture(scope="session")
def rowids(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
    return np.arange(1, len(vectors) + 1, dtype=np.int64)


@pytest.fixture(scope="session")
def dense(
    tmp_path_factory: pytest.TempPathFactory,
    rowids: npt.NDArray[np.int64],
    vectors: npt.NDArray[np.float32],
) -> DenseIndex:
    # capacity deliberately small: add() must grow the graph
    index = DenseIndex.create(tmp_path_factory.mktemp("dense") / "dense.bin", DIM, capacity=500)
    for start in range(0, len(rowids), 1000):
        index.add(rowids[start : start + 1000], vectors[start : start + 1000])
    index.save()
    return index


def exact(
    q: npt.NDArray[np.float32],
    vectors: npt.NDArray[np.float32],
    rowids: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    k: int,
) -> list[int]:
    sims = vectors[keep] @ (q / np.linalg.norm(q))
    ids = rowids[keep]
    order = np.lexsort((ids, -sims))[:k]
    return [int(ids[i]) for i in order]


def queries(n: int, seed: int = 11) -> npt.NDArray[np.float32]:
    return np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)


RANGES = [
    YearRange(2015, 2018, include_missing=False),
    YearRange(2015, 2018, include_missing=True),
    YearRange(None, 2013, include_missing=False),
    YearRange(2019, None, include_missing=True),
    YearRange(None, None, include_missing=False),
    YearRange(None, None, include_missing=True),
]


def test_count_labels_and_reopen(dense: DenseIndex, rowids: npt.NDArray[np.int64]) -> None:
    assert dense.count() == len(rowids)
    assert np.array_equal(dense.labels(), rowids)
    reopened = DenseIndex.open(dense.path)
    assert (reopened.dim, reopened.M, reopened.ef_construction, reopened.seed) == (
        DIM,
        16,
        200,
        100,
    )
    q = queries(1)[0]
    assert reopened.search(q, 20, YearRange(), np.array([], dtype=np.int32)) == dense.search(
        q, 20, YearRange(), np.array([], dtype=np.int32)
    )


@pytest.mark.parametrize("years", RANGES, ids=str)
def test_year_filter_matches_exact_scan_with_exhaustive_ef(
    tmp_path: Path,
    dense: DenseIndex,
    rowids: npt.NDArray[np.int64],
    vectors: npt.NDArray[np.float32],
    year_by_rowid: npt.NDArray[np.int32],
    years: YearRange,
) -> None:
    # with ef >= N the HNSW walk is exhaustive, so the filtered search must equal the exact scan
    index = DenseIndex.open(dense.path)
    index.ef_search = len(rowids)
    keep = allowed_mask(year_by_rowid, years)[rowids]
    for q in queries(5):
        got = index.search(q, 50, years, year_by_rowid)
        assert [r for r, _ in got] == exact(q, vectors, rowids, keep, 50)
        sims = [s for _, s in got]
        assert sims == sorted(sims, reverse=True)


@pytest.mark.parametrize("years", RANGES[:4], ids=str)
def test_default_ef_keeps_only_eligible_and_most_of_the_true_top(
    dense: DenseIndex,
    rowids: npt.NDArray[np.int64],
    vectors: npt.NDArray[np.float32],
    year_by_rowid: npt.NDArray[np.int32],
    years: YearRange,
) -> None:
    keep = allowed_mask(year_by_rowid, years)[rowids]
    found = 0
    for q in queries(10, seed=3):
        got = dense.search(q, 20, years, year_by_rowid)
        assert len(got) == min(20, int(keep.sum()))
        assert all(
            years.contains(None if year_by_rowid[r] < 0 else int(year_by_rowid[r])) for r, _ in got
        )
        found += len({r for r, _ in got} & set(exact(q, vectors, rowids, keep, 20)))
    assert found / (10 * 20) >= 0.8  # Recall@20 of HNSW vs the exact scan


def test_selective_filter_is_exact(
    dense: DenseIndex,
    rowids: npt.NDArray[np.int64],
    vectors: npt.NDArray[np.float32],
    year_by_rowid: npt.NDArray[np.int32],
) -> None:
    years = YearRange(None, 2005, include_missing=False)
    keep = allowed_mask(year_by_rowid, years)[rowids]
    n_allowed = int(keep.sum())
    assert 0 < n_allowed < dense.brute_force_fraction * len(rowids), "precondition: selective"
    for q in queries(5, seed=5):
        got = dense.search(q, 100, years, year_by_rowid)
        assert [r for r, _ in got] == exact(q, vectors, rowids, keep, 100)
        assert len(got) == min(100, n_allowed)
        ref = vectors[np.array([r - 1 for r, _ in got])] @ (q / np.linalg.norm(q))
        assert [s for _, s in got] == pytest.approx(ref.tolist(), abs=1e-5)


def test_no_eligible_label_gives_no_hits(
    dense: DenseIndex, year_by_rowid: npt.NDArray[np.int32]
) -> None:
    assert dense.search(queries(1)[0], 10, YearRange(1800, 1801, False), year_by_rowid) == []


def test_rowids_past_year_array_count_as_missing_year(
    dense: DenseIndex, year_by_rowid: npt.NDArray[np.int32], rowids: npt.NDArray[np.int64]
) -> None:
    short = year_by_rowid[: len(year_by_rowid) // 2]
    beyond = {int(r) for r in rowids if r >= len(short)}
    index = DenseIndex.open(dense.path)
    index.ef_search = len(rowids)
    got = index.search(queries(1)[0], len(rowids), YearRange(2010, 2012, True), short)
    assert beyond <= {r for r, _ in got}
    got = index.search(queries(1)[0], len(rowids), YearRange(2010, 2012, False), short)
    assert not beyond & {r for r, _ in got}


def test_incremental_add_update_and_resize(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    v = rng.standard_normal((120, 8)).astype(np.float32)
    index = DenseIndex.create(tmp_path / "dense.bin", 8, capacity=10)
    index.add(np.arange(1, 101), v[:100])
    assert index.count() == 100
    # re-adding label 5 with another vector updates it in place
    index.add(np.array([5]), v[100:101])
    assert index.count() == 100
    top = index.search(v[100], 1, YearRange(), np.array([], dtype=np.int32))
    assert top[0][0] == 5 and top[0][1] == pytest.approx(1.0, abs=1e-5)
    index.add(np.arange(101, 121), v[100:])
    index.save()
    reopened = DenseIndex.open(tmp_path / "dense.bin")
    assert reopened.count() == 120
    assert reopened.search(v[110], 1, YearRange(), np.array([], dtype=np.int32))[0][0] == 111
    with pytest.raises(ValueError, match="vectors"):
        reopened.add(np.array([1, 2]), v[:2, :4])


def test_k0_larger_than_the_index(tmp_path: Path) -> None:
    v = np.eye(4, dtype=np.float32)[:3]
    index = DenseIndex.create(tmp_path / "dense.bin", 4, capacity=3)
    index.add(np.array([7, 8, 9]), v)
    got = index.search(v[1], 10, YearRange(), np.array([], dtype=np.int32))
    assert [r for r, _ in got] == [8, 7, 9]
    assert got[0][1] == pytest.approx(1.0)
