"""Dataset mention counts are updated from the papers added since, not recounted (issue 32).

Each paper index build counted every paper's dataset mentions again (about 2 s per 20K papers:
~100 s for a 1M store, on every ``litsift ingest`` + index of a few new papers). The cache now
updates its counts from the papers added or changed since; a deletion recounts in full. Either
way the counts equal a full count over the store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from litsift.search.datasets import mentions
from litsift.search.datasets.mentions import MentionCache
from litsift.search.datasets.popularity import MentionCounts, count_mentions
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind
from tests.conftest import DATASETS_GZ, PAPERS_GZ, read_jsonl_gz


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def full_count(store: Store) -> MentionCounts:
    datasets = [r for b in store.rows_since(Kind.DATASET) for r in b]
    papers = [r for b in store.rows_since(Kind.PAPER) for r in b]
    return count_mentions(datasets, papers)  # type: ignore[arg-type]


def same_counts(a: MentionCounts, b: MentionCounts) -> bool:
    return set(a.years) == set(b.years) and all(
        np.array_equal(a.years[k], b.years[k]) and np.array_equal(a.papers[k], b.papers[k])
        for k in a.years
    )


class PapersRead:
    """``mentions.count_mentions`` (the full count), counting the papers it reads."""

    def __init__(self) -> None:
        self.papers = 0

    def __call__(self, datasets: Any, papers: Any, state: Any = None) -> MentionCounts:
        listed = list(papers)
        self.papers += len(listed)
        return count_mentions(datasets, listed, state)


@pytest.fixture(scope="module")
def rows() -> tuple[list[dict], list[dict]]:
    """300 real datasets and the most used ones (ImageNet, COCO, SQuAD, ...: 16 are named by
    the papers), and 650 real papers (every 30th of the sample)."""
    datasets = read_jsonl_gz(DATASETS_GZ)
    used = {"ImageNet", "MNIST", "CIFAR-10", "COCO", "SQuAD", "GLUE", "Penn Treebank"}
    chosen = datasets[:300] + [d for d in datasets[300:] if d["id"] in used]
    return chosen, read_jsonl_gz(PAPERS_GZ)[::30][:650]


@pytest.fixture()
def store(tmp_path: Path, rows: tuple[list[dict], list[dict]]) -> Store:
    """A store of the datasets and the first 600 papers; ``more.jsonl`` holds 50 more."""
    datasets, papers = rows
    st = Store(tmp_path / "store.sqlite")
    ingest_jsonl(st, Kind.DATASET, write_jsonl(tmp_path / "d.jsonl", datasets))
    ingest_jsonl(st, Kind.PAPER, write_jsonl(tmp_path / "p.jsonl", papers[:600]))
    (tmp_path / "more.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in papers[600:]), "utf-8"
    )
    return st


def test_added_papers_update_the_counts_without_reading_the_others(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = MentionCache(store, tmp_path / "indexes")
    first = cache.get()
    assert same_counts(first, full_count(store)) and first.max_count > 0
    ingest_jsonl(store, Kind.PAPER, tmp_path / "more.jsonl")
    reads = PapersRead()
    monkeypatch.setattr(mentions, "count_mentions", reads)
    # a new process: the counts come from the cache file, then the 50 new papers
    after = MentionCache(store, tmp_path / "indexes").get()
    assert reads.papers == 0  # main read all 650 papers again
    assert same_counts(after, full_count(store))
    assert after.max_count >= first.max_count


def test_a_deleted_paper_recounts_in_full(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = MentionCache(store, tmp_path / "indexes")
    counts = cache.get()
    rowid = int(next(iter(counts.papers.values()))[0])  # a paper that mentions a dataset
    with store._lock:
        store._conn.execute("DELETE FROM papers WHERE rowid = ?", (rowid,))
        store._conn.commit()
    ingest_jsonl(store, Kind.PAPER, tmp_path / "more.jsonl")
    reads = PapersRead()
    monkeypatch.setattr(mentions, "count_mentions", reads)
    after = cache.get()
    assert reads.papers == store.count(Kind.PAPER)
    assert same_counts(after, full_count(store))
    assert all(rowid not in p for p in after.papers.values())
