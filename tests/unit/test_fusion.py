"""Fusion: RRF and interpolation against their formulas, ties and determinism."""

from __future__ import annotations

import random

import numpy as np
import pytest

from litsift.errors import QueryError
from litsift.search.bm25 import BM25Index
from litsift.search.dense import DenseIndex
from litsift.search.hybrid import (
    Fused,
    Signal,
    hybrid_search,
    interpolate,
    normalise,
    rrf,
    single,
)
from litsift.search.text import passage_text
from litsift.types import Dataset, Kind, YearRange
from tests.conftest import DATASETS_GZ, read_jsonl_gz

BM25_RUN = [(10, 12.0), (20, 9.0), (30, 9.0), (40, 1.0)]
DENSE_RUN = [(30, 0.9), (50, 0.8), (10, 0.7)]


def test_rrf_matches_hand_computed_values() -> None:
    fused = rrf({"bm25": BM25_RUN, "dense": DENSE_RUN}, k=60)
    expected = {
        10: 1 / 61 + 1 / 63,
        20: 1 / 62,
        30: 1 / 63 + 1 / 61,
        40: 1 / 64,
        50: 1 / 62,
    }
    assert {f.docid: f.score for f in fused} == pytest.approx(expected)
    # 10 and 30 tie, as do 20 and 50: docid ascending breaks ties
    assert [f.docid for f in fused] == [10, 30, 20, 50, 40]
    assert [f.rank for f in fused] == [1, 2, 3, 4, 5]
    top = fused[0]
    assert dict(top.signals) == {"bm25": Signal(12.0, 1), "dense": Signal(0.7, 3)}
    assert dict(fused[2].signals) == {"bm25": Signal(9.0, 2)}
    score, rank = top.signals["dense"]  # a signal unpacks as (score, rank)
    assert (score, rank) == (0.7, 3)


def test_rrf_weights_and_k() -> None:
    fused = rrf({"bm25": BM25_RUN, "dense": DENSE_RUN}, k=1, weights={"dense": 3.0})
    scores = {f.docid: f.score for f in fused}
    assert scores[50] == pytest.approx(3.0 / 3)
    assert scores[10] == pytest.approx(1 / 2 + 3.0 / 4)
    with pytest.raises(QueryError):
        rrf({"bm25": BM25_RUN}, k=0)


def test_fusion_is_independent_of_input_order_and_deterministic() -> None:
    rng = random.Random(0)
    runs = {
        name: [(rng.randrange(50), float(rng.randrange(5))) for _ in range(40)]
        for name in ("a", "b", "c")
    }
    runs = {n: sorted(dict(r).items(), key=lambda x: -x[1]) for n, r in runs.items()}
    first = rrf(runs)
    again = rrf(dict(reversed(list(runs.items()))))
    assert first == again
    keys = [(-f.score, f.docid) for f in first]
    assert keys == sorted(keys)
    inter = interpolate(runs, {"a": 0.2, "b": 0.3, "c": 0.5})
    keys = [(-f.score, f.docid) for f in inter]
    assert keys == sorted(keys)


def test_minmax_interpolation_values() -> None:
    fused = interpolate({"bm25": BM25_RUN, "dense": DENSE_RUN}, {"bm25": 0.4, "dense": 0.6})
    b = {d: (s - 1.0) / 11.0 for d, s in BM25_RUN}
    d = {doc: (s - 0.7) / 0.2 for doc, s in DENSE_RUN}
    docs = set(b) | set(d)
    expected = {x: 0.4 * b.get(x, 0.0) + 0.6 * d.get(x, 0.0) for x in docs}
    assert {f.docid: f.score for f in fused} == pytest.approx(expected)
    assert fused[0].docid == 30


def test_zscore_interpolation_uses_run_minimum_for_missing_docs() -> None:
    fused = interpolate(
        {"bm25": BM25_RUN, "dense": DENSE_RUN}, {"bm25": 1.0, "dense": 1.0}, "zscore"
    )
    bs = np.array([s for _, s in BM25_RUN])
    ds = np.array([s for _, s in DENSE_RUN])
    bz = dict(zip([x for x, _ in BM25_RUN], (bs - bs.mean()) / bs.std(), strict=True))
    dz = dict(zip([x for x, _ in DENSE_RUN], (ds - ds.mean()) / ds.std(), strict=True))
    expected = {
        x: bz.get(x, min(bz.values())) + dz.get(x, min(dz.values())) for x in set(bz) | set(dz)
    }
    assert {f.docid: f.score for f in fused} == pytest.approx(expected)


def test_normalise_edge_cases() -> None:
    assert normalise([3.0, 3.0], "minmax").tolist() == [1.0, 1.0]
    assert normalise([3.0, 3.0], "zscore").tolist() == [0.0, 0.0]
    assert normalise([], "minmax").tolist() == []
    assert normalise([2.0, 1.0], "none").tolist() == [2.0, 1.0]
    with pytest.raises(QueryError):
        normalise([1.0], "softmax")  # type: ignore[arg-type]


def test_empty_runs_and_string_docids() -> None:
    assert rrf({"bm25": [], "dense": []}) == []
    fused = interpolate(
        {"bm25": [("b", 2.0), ("a", 2.0)], "dense": []}, {"bm25": 1.0, "dense": 1.0}
    )
    assert [f.docid for f in fused] == ["a", "b"]
    assert single("dense", DENSE_RUN) == [
        Fused(30, 0.9, 1, {"dense": Signal(0.9, 1)}),
        Fused(50, 0.8, 2, {"dense": Signal(0.8, 2)}),
        Fused(10, 0.7, 3, {"dense": Signal(0.7, 3)}),
    ]


@pytest.fixture(scope="module")
def small_indexes(tmp_path_factory: pytest.TempPathFactory, encoder):  # type: ignore[no-untyped-def]
    """BM25 + dense indexes of 300 real datasets, embedded with the real encoder."""
    rows = read_jsonl_gz(DATASETS_GZ)[:300]
    recs = [
        Dataset(
            id=r["id"],
            variants=tuple(r.get("variants") or ()),
            description=r.get("description") or "",
            intro_paper_title=r.get("intro_paper_title") or "",
            year=r.get("year"),
            rowid=i + 1,
        )
        for i, r in enumerate(rows)
    ]
    root = tmp_path_factory.mktemp("hybrid")
    bm25 = BM25Index.create(root / "bm25", Kind.DATASET)
    bm25.add(recs)
    bm25.close()
    dense = DenseIndex.create(root / "dense.bin", encoder.dim, capacity=len(recs))
    dense.add(np.arange(1, len(recs) + 1), encoder.encode_passages([passage_text(r) for r in recs]))
    ybr = np.array([-1, *[-1 if r.year is None else r.year for r in recs]], dtype=np.int32)
    return recs, bm25, dense, ybr


@pytest.mark.parametrize("fusion", ["rrf", "interpolation", "bm25", "dense"])
def test_hybrid_search_with_the_real_encoder(small_indexes, encoder, fusion: str) -> None:  # type: ignore[no-untyped-def]
    recs, bm25, dense, ybr = small_indexes
    target = next(r for r in recs if r.year is not None and r.description)
    query = target.id + " " + target.description[:120]
    timings: dict[str, float] = {}
    hits = hybrid_search(
        bm25, dense, encoder, ybr, query, YearRange(), 50, 10, fusion=fusion, timings=timings
    )
    stages = {"bm25": {"bm25", "fuse"}, "dense": {"encode", "dense", "fuse"}}
    assert set(timings) == stages.get(fusion, {"bm25", "encode", "dense", "fuse"})
    assert all(v >= 0 for v in timings.values())
    assert 0 < len(hits) <= 10
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    keys = [(-h.score, h.docid) for h in hits]
    assert keys == sorted(keys)
    expected_signals = {"rrf": {"bm25", "dense"}, "interpolation": {"bm25", "dense"}}
    wanted = expected_signals.get(fusion, {fusion})
    assert all(set(h.signals) <= wanted for h in hits)
    assert target.rowid in [h.docid for h in hits]
    runs = {}
    if "bm25" in wanted:
        runs["bm25"] = bm25.search(query, 50, YearRange())
    if "dense" in wanted:
        runs["dense"] = dense.search(encoder.encode_queries([query])[0], 50, YearRange(), ybr)
    reference = {
        "rrf": lambda: rrf(runs),
        "interpolation": lambda: interpolate(runs, {"bm25": 0.5, "dense": 0.5}),
    }.get(fusion, lambda: single(fusion, runs[fusion]))()
    assert [h.docid for h in hits] == [f.docid for f in reference[:10]]
    years = YearRange(2016, 2018, include_missing=False)
    filtered = hybrid_search(bm25, dense, encoder, ybr, query, years, 50, 10, fusion=fusion)
    assert filtered and all(2016 <= ybr[h.docid] <= 2018 for h in filtered)


def test_hybrid_search_refuses_unknown_fusion_and_ignores_blank_queries(  # type: ignore[no-untyped-def]
    small_indexes, encoder
) -> None:
    _, bm25, dense, ybr = small_indexes
    assert hybrid_search(bm25, dense, encoder, ybr, " \t ", YearRange(), 10, 3) == []
    with pytest.raises(QueryError):
        hybrid_search(bm25, dense, encoder, ybr, "images", YearRange(), 10, 3, fusion="max")


def test_dense_prf_and_bm25_query_handling(small_indexes, encoder) -> None:  # type: ignore[no-untyped-def]
    """Rocchio PRF moves the query toward its top dense hits (so the top-3 documents' centroid
    ranks at least as high), respects the year filter, and query handling strips request
    words before BM25 without losing the topic words."""
    from litsift.search.hybrid import _rocchio

    recs, bm25, dense, ybr = small_indexes
    target = next(r for r in recs if r.year is not None and r.description)
    query = "I want to find " + target.description[:100]
    qvec = encoder.encode_queries([query])[0]
    top = dense.search(qvec, 3, YearRange(), ybr)
    moved = _rocchio(dense, qvec, top, 0.5)
    assert np.linalg.norm(moved) == pytest.approx(1.0, abs=1e-5)
    centroid = np.mean([dense.vector(int(d)) for d, _ in top], axis=0)
    assert float(moved @ centroid) > float(qvec @ centroid / np.linalg.norm(qvec))
    years = YearRange(None, target.year, include_missing=False)
    hits = hybrid_search(
        bm25, dense, encoder, ybr, query, years, 50, 10, fusion="dense", prf_docs=3
    )
    assert hits and all(0 < ybr[int(h.docid)] <= target.year for h in hits)
    raw = hybrid_search(bm25, dense, encoder, ybr, query, YearRange(), 50, 10, fusion="bm25")
    handled = hybrid_search(
        bm25,
        dense,
        encoder,
        ybr,
        query,
        YearRange(),
        50,
        10,
        fusion="bm25",
        bm25_query="stop+request",
    )
    assert handled and raw
    assert target.rowid in [h.docid for h in handled]


def test_extra_runs_rescore_candidates_but_never_add_one(small_indexes, encoder) -> None:  # type: ignore[no-untyped-def]
    recs, bm25, dense, ybr = small_indexes
    query = "question answering over wikipedia"
    qvec = encoder.encode_queries([query])[0]
    pool = {d for d, _ in bm25.search(query, 20, YearRange())}
    pool |= {d for d, _ in dense.search(qvec, 20, YearRange(), ybr)}
    base = hybrid_search(bm25, dense, encoder, ybr, query, YearRange(), 20, 20)
    outsider = next(r.rowid for r in recs if r.rowid not in pool)
    last = base[-1].docid
    # the extra run puts an outsider first and the base's last hit second
    extra = {"usage": [(outsider, 0.9), (last, 0.8), (base[0].docid, 0.1)]}
    weights = {"bm25": 0.25, "dense": 0.25, "usage": 0.5}
    hits = hybrid_search(
        bm25, dense, encoder, ybr, query, YearRange(), 20, 20, weights=weights, extra_runs=extra
    )
    ids = [h.docid for h in hits]
    assert outsider not in ids and set(ids) <= pool
    boosted = next(h for h in hits if h.docid == last)
    assert "usage" in boosted.signals and boosted.rank < base[-1].rank
    # single-retriever fusions ignore extra runs
    only = hybrid_search(
        bm25, dense, encoder, ybr, query, YearRange(), 20, 5, fusion="dense", extra_runs=extra
    )
    assert all("usage" not in h.signals for h in only)
