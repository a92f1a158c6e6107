"""Fusion: RRF and interpolation against their formulas, ties and determinism."""

from __future__ import annotations

import random

import numpy as np
import pytest

from litsift.errors import QueryError
from litsift.search.retrieval.fusion import Fused, fuse, interpolate, normalise, rrf, single
from litsift.types import SignalScore as Signal

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


def test_fuse_dispatches_by_name_and_refuses_unknown_fusions() -> None:
    runs = {"bm25": BM25_RUN, "dense": DENSE_RUN}
    assert fuse(runs, "rrf", rrf_k=60) == rrf(runs, k=60)
    assert fuse(runs, "interpolation") == interpolate(runs, {"bm25": 0.5, "dense": 0.5})
    assert fuse(runs, "dense") == single("dense", DENSE_RUN)
    with pytest.raises(QueryError):
        fuse(runs, "max")


@pytest.mark.parametrize("fusion", ["rrf", "interpolation", "bm25", "dense"])
def test_a_limit_gives_the_head_of_the_full_fused_list(fusion: str) -> None:
    rng = random.Random(7)
    runs = {
        "bm25": [(d, float(rng.randint(0, 5))) for d in rng.sample(range(300), 100)],
        "dense": [(d, rng.random()) for d in rng.sample(range(300), 100)],
    }
    for run in runs.values():
        run.sort(key=lambda x: -x[1])
    full = fuse(runs, fusion)
    for limit in (0, 1, 10, len(full), len(full) + 5):
        assert fuse(runs, fusion, limit=limit) == full[:limit]
    assert fuse(runs, fusion, limit=None) == full


def test_an_exhaustive_run_is_normalised_from_its_floor() -> None:
    """A BM25 run shorter than k0 holds every matching document; normalising from its own last
    score would give its last document 0 -- as if it matched nothing (issue 19)."""
    rare = [(1, 6.0), (2, 5.0), (3, 4.0)]  # the only three documents with the rare term
    dense = [(d, 0.9 - 0.01 * d) for d in range(10, 30)]  # 20 documents without it
    weights = {"bm25": 0.5, "dense": 0.5}
    old = interpolate({"bm25": rare, "dense": dense}, weights, limit=10)
    assert 3 not in [f.docid for f in old]  # min-max from its own minimum: document 3 got 0
    new = interpolate({"bm25": rare, "dense": dense}, weights, limit=10, exhaustive={"bm25": 0.0})
    assert {1, 2, 3} <= {f.docid for f in new}
    scores = {f.docid: f.score for f in new}
    assert scores[3] == pytest.approx(0.5 * 4.0 / 6.0)  # (s - 0) / (max - 0)
    assert normalise([6.0, 5.0, 4.0], "minmax", 0.0) == pytest.approx([1.0, 5 / 6, 4 / 6])
    # a floor above the run's minimum is not a floor
    assert normalise([6.0, 4.0], "minmax", 5.0) == pytest.approx([1.0, 0.0])
    assert (
        fuse(
            {"bm25": rare, "dense": dense},
            "interpolation",
            weights,
            limit=10,
            exhaustive={"bm25": 0.0},
        )
        == new
    )


def test_rare_term_matches_stay_in_the_hybrid_top_10(service) -> None:  # type: ignore[no-untyped-def]
    """On the session store: one-word queries matching 2-10 papers keep far more of their BM25
    matches in the hybrid top 10 than with min-max from the run's own minimum (on the 19.6K
    DataFinder home: 408 of 522 matches of 97 queries kept, against 270)."""
    from litsift.search.aspects.decompose import content_terms
    from litsift.types import Kind, Query

    searcher = service.searchers.of_kind(Kind.PAPER)
    words: dict[str, None] = {}
    for batch in service.store.rows_since(Kind.PAPER, 0):
        for r in batch[::3]:
            for w in content_terms(r.title):
                if len(w) >= 8 and w.isalpha():
                    words.setdefault(w)
    queries = matches = kept_before = kept = 0
    for w in list(words)[:600]:
        q = searcher.resolve(Query(w, Kind.PAPER, k=10))
        runs = searcher.runs(q)
        found = {d for d, _ in runs["bm25"]}
        if not 2 <= len(found) <= 10:
            continue
        queries += 1
        matches += len(found)
        kept_before += len(
            found & {f.docid for f in interpolate(runs, searcher.ranking.weights, limit=10)}
        )
        kept += len(found & {f.docid for f in searcher.search(q)})
    assert queries >= 20
    assert kept > kept_before and kept >= 0.6 * matches
