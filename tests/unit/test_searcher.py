"""KindSearcher: BM25 + dense runs with the year filter pushed down, PRF, fusion, on real
indexes of 300 real datasets embedded with the real int8 encoder."""

from __future__ import annotations

import numpy as np
import pytest

from litsift.errors import QueryError
from litsift.search.kind_searcher import KindSearcher
from litsift.search.retrieval.bm25 import BM25Index
from litsift.search.retrieval.dense import DenseIndex
from litsift.search.retrieval.fusion import interpolate, rrf, single
from litsift.search.retrieval.hybrid_stages import Ranking
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Dataset, Kind, Query, YearRange
from tests.conftest import DATASETS_GZ, read_jsonl_gz


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


def make(small_indexes, encoder, **ranking) -> KindSearcher:  # type: ignore[no-untyped-def]
    _, bm25, dense, ybr = small_indexes
    return KindSearcher(Kind.DATASET, bm25, dense, ybr, encoder, Ranking(**ranking))


def q(text: str, years: YearRange | None = None, k: int = 10, k0: int = 50, fusion=None) -> Query:  # type: ignore[no-untyped-def]
    return Query(text, Kind.DATASET, years or YearRange(), k, k0, fusion)


@pytest.mark.parametrize("fusion", ["rrf", "interpolation", "bm25", "dense"])
def test_search_fuses_the_runs_of_the_real_indexes(small_indexes, encoder, fusion: str) -> None:  # type: ignore[no-untyped-def]
    recs, bm25, dense, ybr = small_indexes
    searcher = make(small_indexes, encoder)
    target = next(r for r in recs if r.year is not None and r.description)
    query = target.id + " " + target.description[:120]
    timings: dict[str, float] = {}
    hits = searcher.search(q(query, fusion=fusion), timings=timings)
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
    # the same as the runs fused by hand
    runs = searcher.runs(q(query, fusion=fusion))
    assert set(runs) == wanted
    if "bm25" in runs:
        assert runs["bm25"] == bm25.search(query, 50, YearRange())
    if "dense" in runs:
        qvec = encoder.encode_queries([query])[0]
        assert runs["dense"] == dense.search(qvec, 50, YearRange(), ybr)
    reference = {
        "rrf": lambda: rrf(runs),
        "interpolation": lambda: interpolate(runs, {"bm25": 0.5, "dense": 0.5}),
    }.get(fusion, lambda: single(fusion, runs[fusion]))()
    assert [h.docid for h in hits] == [f.docid for f in reference[:10]]
    years = YearRange(2016, 2018, include_missing=False)
    filtered = searcher.search(q(query, years, fusion=fusion))
    assert filtered and all(2016 <= ybr[h.docid] <= 2018 for h in filtered)


def test_defaults_k0_rule_blank_queries_and_unknown_fusion(small_indexes, encoder) -> None:  # type: ignore[no-untyped-def]
    searcher = make(small_indexes, encoder, k=7, k0=30, fusion="rrf")
    resolved = searcher.resolve(Query("images", Kind.DATASET))
    assert (resolved.k, resolved.k0, resolved.fusion) == (7, 30, "rrf")
    # the k0 rule: asking for more hits than k0 deepens each run
    deep = searcher.resolve(Query("images", Kind.DATASET, k=40))
    assert deep.k0 == 40
    assert len(searcher.runs(deep)["bm25"]) == 40
    assert searcher.search(q(" \t ")) == []
    with pytest.raises(QueryError):
        searcher.search(q("images", fusion="max"))
    with pytest.raises(QueryError):
        searcher.search(q("images", k=0))


def test_dense_prf_and_bm25_query_handling(small_indexes, encoder) -> None:  # type: ignore[no-untyped-def]
    """Rocchio PRF moves the query toward its top dense hits (the run after feedback equals a
    search with the Rocchio vector), respects the year filter, and query handling strips
    request words before BM25 without losing the topic words."""
    from litsift.search.retrieval.rocchio import rocchio

    recs, _bm25, dense, ybr = small_indexes
    target = next(r for r in recs if r.year is not None and r.description)
    query = "I want to find " + target.description[:100]
    qvec = encoder.encode_queries([query])[0]
    top = dense.search(qvec, 3, YearRange(), ybr)
    vecs = np.stack([dense.vector(int(d)) for d, _ in top])
    moved = rocchio(qvec, vecs, alpha=1.0, beta=0.5, gamma=0.0)
    centroid = vecs.mean(axis=0)
    assert float(moved @ centroid) > float(qvec @ centroid / np.linalg.norm(qvec))
    prf = make(small_indexes, encoder, prf_docs=3, prf_weight=0.5)
    assert prf.dense_run(qvec, 50, YearRange(), prf_docs=3) == dense.search(
        moved, 50, YearRange(), ybr
    )
    years = YearRange(None, target.year, include_missing=False)
    hits = prf.search(q(query, years, fusion="dense"))
    assert hits and all(0 < ybr[int(h.docid)] <= target.year for h in hits)
    raw = make(small_indexes, encoder, bm25_query="raw").search(q(query, fusion="bm25"))
    handled = make(small_indexes, encoder, bm25_query="stop+request").search(
        q(query, fusion="bm25")
    )
    assert handled and raw
    assert target.rowid in [h.docid for h in handled]


def test_extra_runs_rescore_candidates_but_never_add_one(small_indexes, encoder) -> None:  # type: ignore[no-untyped-def]
    recs, bm25, dense, ybr = small_indexes
    searcher = make(small_indexes, encoder)
    query = "question answering over wikipedia"
    qvec = encoder.encode_queries([query])[0]
    pool = {d for d, _ in bm25.search(query, 20, YearRange())}
    pool |= {d for d, _ in dense.search(qvec, 20, YearRange(), ybr)}
    base = searcher.search(q(query, k=20, k0=20))
    outsider = next(r.rowid for r in recs if r.rowid not in pool)
    last = base[-1].docid
    # the extra run puts an outsider first and the base's last hit second
    extra = {"usage": [(outsider, 0.9), (last, 0.8), (base[0].docid, 0.1)]}
    weights = {"bm25": 0.25, "dense": 0.25, "usage": 0.5}
    hits = searcher.search(q(query, k=20, k0=20), extra_runs=extra, weights=weights)
    ids = [h.docid for h in hits]
    assert outsider not in ids and set(ids) <= pool
    boosted = next(h for h in hits if h.docid == last)
    assert "usage" in boosted.signals and boosted.rank < base[-1].rank
    # single-retriever fusions ignore extra runs
    only = searcher.search(q(query, k=5, k0=20, fusion="dense"), extra_runs=extra)
    assert all("usage" not in h.signals for h in only)
