"""The learned dataset re-ranker: features by hand, the shipped LightGBM model, the pure
re-ordering, and the service path on the session store (real indexes, real encoder)."""

from __future__ import annotations

import datetime
import math
from pathlib import Path

# lightgbm with its scikit-learn API (LGBMRanker) for this module: imported before any dataset
# search loads lightgbm without it (litsift.search.datasets.ranker._import_lightgbm)
import lightgbm  # noqa: F401
import numpy as np
import pytest

from litsift.config import Config, SearchSettings
from litsift.errors import RankerError
from litsift.search.aspects.sentence_phase import best_sentence_cosines
from litsift.search.aspects.sentences import open_sentence_store, sentence_views
from litsift.search.datasets.popularity import MentionCounts
from litsift.search.datasets.ranker import (
    ABSENT_RANK,
    FEATURES,
    MODEL_PATH,
    PAPER_DEPTH,
    SIGNAL,
    DatasetRanker,
    dataset_features,
    default_ranker,
    papers_to_datasets,
)
from litsift.search.datasets.searcher import DatasetSearcher
from litsift.search.retrieval.fusion import Fused
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query, YearRange
from litsift.types import SignalScore as Signal


def _mentions() -> MentionCounts:
    # dataset 7 is named by papers 100 (2015), 101 (2018); dataset 8 by paper 101 only
    return MentionCounts(
        years={7: np.array([2015, 2018], dtype=np.int32), 8: np.array([2018], dtype=np.int32)},
        papers={7: np.array([100, 101], dtype=np.int64), 8: np.array([101], dtype=np.int64)},
    )


def test_features_of_a_pool_by_hand() -> None:
    mentions = _mentions()
    named_by = papers_to_datasets(mentions)
    assert named_by == {100: (7,), 101: (7, 8)}
    pool = [
        Fused(7, 0.9, 1, {"bm25": Signal(12.0, 3), "dense": Signal(0.6, 1)}),
        Fused(8, 0.5, 2, {"usage": Signal(0.4, 2)}),
        Fused(9, 0.1, 3, {}),
    ]
    X = dataset_features(
        "a dataset for question answering",
        2016,
        pool,
        {7: 2010, 8: None, 9: 2016},
        paper_dense=[(101, 0.8), (100, 0.5), (555, 0.9)],
        paper_bm25=[(555, 20.0), (100, 10.0)],
        named_by=named_by,
        mentions=mentions,
        best_sentence={7: 0.71, 8: 0.42},
    )
    assert X.shape == (3, len(FEATURES))
    row = dict(zip(FEATURES, X[0], strict=True))
    assert row["fused"] == 0.9 and row["bm25"] == 12.0 and row["dense"] == 0.6
    assert row["usage"] == 0.0 and row["log_rank_usage"] == pytest.approx(math.log1p(ABSENT_RANK))
    # up to 2016 dataset 7 has one mention; the corpus maximum is 2
    assert row["prior"] == pytest.approx(math.log(2) / math.log(3))
    assert row["paper_dense_votes"] == pytest.approx(1.3) and row["paper_dense_max"] == 0.8
    assert row["paper_bm25_votes"] == pytest.approx(1 / 11)  # paper 100 is BM25 rank 2
    assert row["vote_specificity"] == pytest.approx(2 / math.sqrt(2))
    assert row["fused_rank"] == pytest.approx(1 / 6)
    assert row["log_query_words"] == pytest.approx(math.log(5))
    assert row["log_rank_bm25"] == pytest.approx(math.log(4))
    assert (row["year_gap"], row["has_year"]) == (6.0, 1.0)
    assert row["max_sent"] == 0.71 and X[2, FEATURES.index("max_sent")] == 0.0
    row8 = dict(zip(FEATURES, X[1], strict=True))
    assert row8["paper_dense_votes"] == pytest.approx(0.8) and row8["paper_bm25_votes"] == 0.0
    assert (row8["year_gap"], row8["has_year"]) == (0.0, 0.0)
    assert row8["prior"] == 0.0  # its one mention is from 2018, after the bound
    assert not X[2, 5:9].any()  # named by no paper
    # only the top PAPER_DEPTH papers vote
    deep = [(555, 0.9)] * PAPER_DEPTH + [(100, 0.5)]
    X2 = dataset_features("q", None, pool[:1], {7: 2010}, deep, [], named_by, mentions, {})
    assert X2[0, FEATURES.index("paper_dense_votes")] == 0.0
    assert X2[0, FEATURES.index("year_gap")] > 10  # no bound: the current year


def test_shipped_model_loads_and_reorders_a_pool() -> None:
    assert MODEL_PATH.is_file()
    ranker = default_ranker()
    assert default_ranker() is ranker
    pool = [
        Fused(1, 0.3, 1, {"bm25": Signal(5.0, 1)}),
        Fused(2, 0.2, 2, {"dense": Signal(0.5, 1)}),
    ]
    X = np.zeros((2, len(FEATURES)))
    X[:, FEATURES.index("fused")] = [0.3, 0.2]
    X[:, FEATURES.index("fused_rank")] = [1 / 6, 1 / 7]
    X[1, FEATURES.index("paper_bm25_votes")] = 2.0  # many lexical paper hits name dataset 2
    X[1, FEATURES.index("prior")] = 1.0  # and it is the most used dataset
    X[1, FEATURES.index("fused")] = 0.29
    scores = ranker.predict(X)
    assert scores.shape == (2,) and np.isfinite(scores).all()
    out = ranker.rerank(pool, X)
    assert [f.rank for f in out] == [1, 2]
    assert [f.score for f in out] == sorted(scores.tolist(), reverse=True)
    by_id = {f.docid: f for f in out}
    # the fused score and rank stay visible as a signal; the runs' signals are kept
    assert by_id[1].signals[SIGNAL] == Signal(0.3, 1) and by_id[1].signals["bm25"].rank == 1
    assert by_id[2].signals[SIGNAL] == Signal(0.2, 2)
    assert ranker.predict(np.zeros((0, len(FEATURES)))).shape == (0,)
    assert ranker.rerank(pool, X, limit=1) == out[:1]  # a cut builds only what it keeps


def test_a_missing_or_foreign_model_is_a_clear_error(tmp_path: Path) -> None:
    import lightgbm as lgb

    with pytest.raises(RankerError, match="cannot load"):
        DatasetRanker(tmp_path / "absent.txt")
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 3)), np.tile([0, 1], 20)
    other = lgb.LGBMRanker(n_estimators=2, verbose=-1, min_child_samples=2)
    other.fit(X, y, group=[10] * 4, feature_name=["a", "b", "c"])
    path = tmp_path / "other.txt"
    other.booster_.save_model(str(path))
    with pytest.raises(RankerError, match="trained on features"):
        DatasetRanker(path)


def test_service_reranks_the_dataset_pool(service) -> None:
    q = Query("a benchmark for open-domain question answering", Kind.DATASET, k=10)
    # a service opened now, like `plain` below: the session's service has served the earlier
    # tests of this home, whose searchers may hold what those tests changed
    ranked = LitsiftService(service.paths, encoder=service.encoder)
    try:
        res = ranked.search(q)
    finally:
        ranked.close()
    assert res.hits and "ranker" in res.timings
    assert all(SIGNAL in h.signals for h in res.hits)
    assert [h.score for h in res.hits] == sorted((h.score for h in res.hits), reverse=True)
    # the re-ranked top 10 come from the fused pool of dataset_ranker_pool (300) candidates,
    # retrieved at that depth although the query's k0 is the default 100
    n = Config().search.dataset_ranker_pool
    assert n > Config().search.k0
    cfg = Config(search=SearchSettings(dataset_ranker=False))
    plain = LitsiftService(service.paths, config=cfg, encoder=service.encoder)
    try:
        pool = plain.search(Query(q.text, Kind.DATASET, k=n, k0=n))
        assert len(pool.hits) > 100
        assert all(SIGNAL not in h.signals for h in pool.hits)
        fused_rank = {h.docid: h.rank for h in pool.hits}
        for h in res.hits:
            assert fused_rank[h.docid] == h.signals[SIGNAL].rank
        fused = [
            Fused(
                int(h.record.rowid or 0),
                h.score,
                h.rank,
                {n: Signal(s.score, s.rank) for n, s in h.signals.items()},
            )
            for h in pool.hits
        ]
        searcher = plain.searcher(Kind.DATASET)
        X = searcher.features(q, fused)
        assert X is not None and X.shape == (len(fused), len(FEATURES))
        best = searcher.best_sentence(fused, plain.encoder.encode_queries([q.text])[0])
        assert list(X[:, FEATURES.index("max_sent")]) == [best[f.docid] for f in fused]
        # no year bound: the gap is measured from the current year to the dataset's own year
        gap, has = FEATURES.index("year_gap"), FEATURES.index("has_year")
        this_year = datetime.date.today().year
        for h, row in zip(pool.hits, X, strict=True):
            assert row[has] == (h.record.year is not None)
            assert row[gap] == (0 if h.record.year is None else this_year - h.record.year)
        # the model's order over that pool is the order the search returned
        scores = default_ranker().predict(X)
        order = sorted(range(len(fused)), key=lambda i: (-scores[i], fused[i].docid))
        assert [pool.hits[i].docid for i in order[:10]] == [h.docid for h in res.hits]
    finally:
        plain.close()
    # a smaller pool is honoured: every hit then comes from the fused top 20
    small = Config(search=SearchSettings(dataset_ranker_pool=20))
    svc20 = LitsiftService(service.paths, config=small, encoder=service.encoder)
    try:
        hits = svc20.search(Query(q.text, Kind.DATASET, k=10)).hits
        assert len(hits) == 10 and max(h.signals[SIGNAL].rank for h in hits) <= 20
    finally:
        svc20.close()
    # a year bound reaches the ranker's paper runs and the result stays inside it
    yr = YearRange(None, 2014, include_missing=True)
    bounded = service.search(Query("image classification", Kind.DATASET, yr, k=20))
    assert bounded.hits and all(yr.contains(h.record.year) for h in bounded.hits)
    # papers are never re-ranked
    papers = service.search(Query("question answering", Kind.PAPER, k=5))
    assert papers.hits and all(SIGNAL not in h.signals for h in papers.hits)


def test_max_sent_reads_stored_sentences_and_falls_back_to_the_passage_vector(
    service, encoder, tmp_path: Path
) -> None:
    """``max_sent`` is the best cosine over a dataset's stored sentences; a dataset whose
    sentences are missing, or were cut from a text it no longer has, gets its whole-passage
    cosine from the dense index instead (nothing is embedded at search time)."""
    datasets = service.searcher(Kind.DATASET)
    hits = service.search(Query("a benchmark for question answering", Kind.DATASET, k=8)).hits
    records = [h.record for h in hits]
    rowids = [int(r.rowid) for r in records]
    qvec = encoder.encode_queries(["reading comprehension over Wikipedia paragraphs"])[0]
    sentences = open_sentence_store(tmp_path, encoder)
    assert sentences is not None
    stored = sentence_views(records[:4], encoder)
    sentences.put(Kind.DATASET, [(r.id, v) for r, v in zip(records[:4], stored, strict=True)])
    # record 4's row holds the sentences of another text: stale, so not used
    other = sentence_views([records[5]], encoder)[0]
    sentences.put(Kind.DATASET, [(records[4].id, other)])

    got = best_sentence_cosines(service.store, sentences, Kind.DATASET, rowids, qvec)
    assert set(got) == set(rowids[:4])
    for rowid, view in zip(rowids, stored, strict=False):
        # each sentence embedded on its own agrees with the stored (int8-rounded) vectors
        texts = [view.text[s:e] for s, e in view.spans]
        fresh = encoder.encode_passages(texts) @ qvec
        assert got[rowid] == pytest.approx(float(fresh.max()), abs=2e-3)
    assert best_sentence_cosines(service.store, None, Kind.DATASET, rowids, qvec) == {}

    searcher = DatasetSearcher(
        datasets.datasets,
        datasets.papers,
        datasets.mentions,
        best_sentences=lambda ids, q: best_sentence_cosines(
            service.store, sentences, Kind.DATASET, ids, q
        ),
    )
    pool = [Fused(rowid, 1.0 - i / 10, i + 1, {}) for i, rowid in enumerate(rowids)]
    best = searcher.best_sentence(pool, qvec)
    found, vecs = datasets.datasets.vectors(rowids)
    whole = {int(r): float(v @ qvec) for r, v in zip(found, vecs, strict=True)}
    assert set(whole) == set(rowids)
    for i, rowid in enumerate(rowids):
        if i < 4:
            assert best[rowid] == got[rowid]
        else:  # missing or stale: the passage vector of the dense index
            assert best[rowid] == pytest.approx(whole[rowid], abs=1e-6)
    assert any(abs(best[r] - whole[r]) > 1e-3 for r in rowids[:4])  # sentences, not passages
    sentences.close()
