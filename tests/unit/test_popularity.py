"""Dataset popularity from paper mentions: matching rules on the real corpora, the year bound,
the cache, the pure re-ranking, and the service path on the session store."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from litsift.config import Config, SearchSettings
from litsift.paths import get_paths
from litsift.search.datasets.popularity import (
    NO_YEAR,
    SIGNAL,
    MentionCounts,
    count_mentions,
    name_tokens,
    prior,
    with_prior,
)
from litsift.search.retrieval.fusion import Fused
from litsift.service.facade import LitsiftService
from litsift.types import Dataset, Kind, Paper, Query, YearRange
from litsift.types import SignalScore as Signal
from tests.conftest import DATASETS_GZ, PAPERS_GZ, copy_home, read_jsonl_gz


@pytest.fixture(scope="module")
def real_counts() -> tuple[MentionCounts, dict[str, int]]:
    """Counts over all 3,327 PwC datasets and all 19.6K papers (rowid = row number)."""
    datasets = [
        Dataset(id=str(r["id"]), variants=tuple(r.get("variants") or ()), rowid=i)
        for i, r in enumerate(read_jsonl_gz(DATASETS_GZ), start=1)
    ]
    papers = [
        Paper(
            id=str(r["id"]),
            title=r.get("title") or "",
            abstract=r.get("abstract") or "",
            year=r.get("year"),
        )
        for r in read_jsonl_gz(PAPERS_GZ)
    ]
    rowid = {d.id: int(d.rowid or 0) for d in datasets}
    return count_mentions(datasets, papers), rowid


def test_name_tokens_skips_names_that_would_match_prose() -> None:
    assert name_tokens("MNIST") == ("MNIST",)
    assert name_tokens("Penn Treebank") == ("Penn", "Treebank")
    assert name_tokens("CIFAR-10") == ("CIFAR", "10")
    assert name_tokens("Cell") is None  # a capitalised word starts sentences
    assert name_tokens("reddit") is None
    assert name_tokens("QA") is None  # too short
    assert name_tokens("") is None


def test_widely_used_datasets_are_counted_on_the_real_corpus(real_counts) -> None:
    counts, rowid = real_counts
    top = {name: counts.count(rowid[name]) for name in ("ImageNet", "CIFAR-10", "MNIST", "SQuAD")}
    assert all(n >= 30 for n in top.values()), top
    assert counts.count(rowid["ImageNet"]) > counts.count(rowid["Cityscapes"])
    # a one-word name that is an ordinary capitalised word is never matched
    assert counts.count(rowid["Inspired"]) == 0
    assert counts.max_count >= counts.count(rowid["MNIST"])


def test_year_bound_counts_only_papers_up_to_that_year(real_counts) -> None:
    counts, rowid = real_counts
    r = rowid["ImageNet"]
    by_year = [counts.count(r, y) for y in (2011, 2014, 2018, 2025)]
    assert by_year == sorted(by_year) and by_year[0] < by_year[-1]
    assert counts.count(r, None) >= by_year[-1]
    years = counts.years[r]
    assert all(y == NO_YEAR or y <= 2014 for y in years[: by_year[1]])


def test_counts_round_trip_and_a_broken_cache_is_ignored(real_counts, tmp_path: Path) -> None:
    counts, rowid = real_counts
    path = tmp_path / "popularity.json"
    replace(counts, state={"papers": 1}).save(path)
    back = MentionCounts.load(path)
    assert back is not None and dict(back.state) == {"papers": 1}
    assert back.count(rowid["MNIST"], 2017) == counts.count(rowid["MNIST"], 2017)
    path.write_text("{not json")
    assert MentionCounts.load(path) is None
    assert MentionCounts.load(tmp_path / "missing.json") is None


def test_with_prior_reranks_adds_the_signal_and_is_deterministic() -> None:
    fused = [
        Fused(1, 0.9, 1, {"dense": Signal(0.8, 1)}),
        Fused(2, 0.8, 2, {"dense": Signal(0.7, 2)}),
        Fused(3, 0.8, 3, {"bm25": Signal(5.0, 1)}),
    ]
    counts = {2: 100, 3: 1}
    out = with_prior(fused, counts, max_count=100, weight=0.5)
    assert [f.docid for f in out] == [2, 1, 3]
    assert [f.rank for f in out] == [1, 2, 3]
    assert out[0].score == pytest.approx(0.8 + 0.5 * prior(100, 100))
    assert out[0].signals[SIGNAL] == Signal(100.0, 1) and "dense" in out[0].signals
    assert out[1].signals[SIGNAL] == Signal(0.0, 3)  # never mentioned
    # weight 0: the fused order stands (ties by docid), the signal is still there
    same = with_prior(fused, counts, 100, 0.0)
    assert [f.docid for f in same] == [1, 2, 3] and all(SIGNAL in f.signals for f in same)
    assert with_prior(list(reversed(fused)), counts, 100, 0.5) == out
    assert with_prior(fused, counts, 100, 0.5, limit=2) == out[:2]
    assert prior(0, 100) == 0.0 and prior(5, 0) == 0.0 and prior(100, 100) == 1.0


def test_service_adds_popularity_to_dataset_search_and_recounts_after_ingest(
    built_home: Path, encoder, tmp_path: Path
) -> None:

    home = tmp_path / "home"
    copy_home(built_home, home)
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        res = svc.search(Query("image classification benchmark", Kind.DATASET, k=20))
        assert res.hits and all(SIGNAL in h.signals for h in res.hits)
        assert "popularity" in res.timings
        assert (get_paths(home).index_dir / "popularity.json").is_file()
        mnist = svc.get(Kind.DATASET, "MNIST")
        assert mnist is not None and mnist.rowid is not None
        before = svc.dataset_mentions().count(mnist.rowid)
        before_2018 = svc.dataset_mentions().count(mnist.rowid, 2018)
        # a new paper naming MNIST is counted on the next search, without re-indexing
        new = tmp_path / "new.jsonl"
        new.write_text(
            '{"id": "new-1", "title": "Digits again", "abstract": "We train on MNIST.",'
            ' "year": 2019}\n'
        )
        assert svc.ingest(Kind.PAPER, new).ok
        assert svc.dataset_mentions().count(mnist.rowid) == before + 1
        assert svc.dataset_mentions().count(mnist.rowid, 2018) == before_2018  # a 2019 paper
        # papers never change: the popularity signal is for datasets only
        papers = svc.search(Query("image classification", Kind.PAPER, k=5))
        assert all(SIGNAL not in h.signals for h in papers.hits)
    # weight 0 switches each part off on its own
    cfg = Config(search=SearchSettings(dataset_popularity_weight=0.0))
    with LitsiftService(get_paths(home), config=cfg, encoder=encoder) as svc:
        res = svc.search(Query("image classification benchmark", Kind.DATASET, k=20))
        assert res.hits and all(SIGNAL not in h.signals for h in res.hits)
        assert "usage" in res.timings
    cfg = Config(search=SearchSettings(dataset_usage_weight=0.0))
    with LitsiftService(get_paths(home), config=cfg, encoder=encoder) as svc:
        res = svc.search(Query("image classification benchmark", Kind.DATASET, k=20))
        assert res.hits and all("usage" not in h.signals for h in res.hits)
        assert all(SIGNAL in h.signals for h in res.hits)


def test_year_bound_of_the_query_bounds_the_counts(service) -> None:
    res = service.search(
        Query("handwritten digit recognition", Kind.DATASET, YearRange(None, 2012), k=20)
    )
    mentions = service.dataset_mentions()
    for h in res.hits:
        assert h.signals[SIGNAL].score == mentions.count(int(h.record.rowid), 2012)


def test_usage_profiles_are_centroids_of_the_papers_naming_each_dataset(service) -> None:
    from litsift.search.datasets.popularity import UsageProfiles

    mentions = service.dataset_mentions()
    papers = service.searcher(Kind.PAPER).dense
    profiles = UsageProfiles(mentions, papers.vectors)
    ds, cents = profiles.centroids(None)
    assert len(ds) > 50 and cents.shape == (len(ds), papers.dim)
    assert np.allclose(np.linalg.norm(cents, axis=1), 1.0, atol=1e-5)
    # one dataset by hand: the normalised sum of its (indexed) mentioning papers' vectors
    d = int(ds[int(np.argmax([mentions.count(int(r)) for r in ds]))])
    found, vecs = papers.vectors(mentions.papers[d])
    assert len(found) == mentions.count(d)  # the session store indexes every paper it holds
    want = vecs.sum(0) / np.linalg.norm(vecs.sum(0))
    assert np.allclose(cents[list(ds).index(d)], want, atol=1e-5)
    # a year bound drops later papers; before any paper, nothing describes any dataset
    early, _ = profiles.centroids(2012)
    assert set(early.tolist()) < set(ds.tolist())
    assert len(profiles.centroids(1900)[0]) == 0
    # search: best first, only allowed rowids, the query's nearest centroid first
    run = profiles.search(cents[0], 20, None)
    assert run[0][0] == int(ds[0]) and [s for _, s in run] == sorted(
        (s for _, s in run), reverse=True
    )
    mask = np.zeros(int(ds.max()) + 1, dtype=bool)
    mask[ds[::2]] = True
    assert {r for r, _ in profiles.search(cents[0], 500, None, mask)} == set(ds[::2].tolist())


def test_dataset_search_fuses_the_usage_run(service) -> None:
    from litsift.search.datasets.popularity import USAGE

    # k 50: which of the usage run's candidates reach the top 10 is the re-ranker's call
    q = Query("generative adversarial networks for image synthesis", Kind.DATASET, k=50)
    res = service.search(q)
    assert res.hits and "usage" in res.timings
    assert any(USAGE in h.signals for h in res.hits)
    # the usage run honours the year filter like the other retrievers
    yr = YearRange(None, 2014, include_missing=True)
    res = service.search(Query("image classification", Kind.DATASET, yr, k=30))
    assert res.hits and all(yr.contains(h.record.year) for h in res.hits)
