"""What a search process holds (issue 32): the dataset usage profiles keep no copy of the
mentioning papers' vectors, and stored vectors are read from the graph file, the same floats
hnswlib holds, not through hnswlib's per-float Python lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from litsift.search.build.layout import index_dir_for
from litsift.search.datasets.popularity import UsageProfiles
from litsift.search.retrieval.dense import DenseIndex
from litsift.types import Kind


def _reference_centroids(
    profiles_input: Any, dense: DenseIndex, max_year: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The usage centroids summed from hnswlib's own ``get_items``, one paper at a time in
    the order of the mentions (float64 sums, as the profiles define them)."""
    ds = np.asarray(sorted(profiles_input.papers), dtype=np.int64)
    labels = set(int(x) for x in dense.labels())
    sums = np.zeros((len(ds), dense.dim), dtype=np.float64)
    for i, d in enumerate(ds):
        for paper, year in zip(
            profiles_input.papers[int(d)], profiles_input.years[int(d)], strict=True
        ):
            if int(paper) in labels and (max_year is None or year <= max_year):
                vec = dense._index.get_items([int(paper)], return_type="numpy")[0]
                sums[i] += np.asarray(vec, dtype=np.float32)
    norms = np.linalg.norm(sums, axis=1)
    has = norms > 0
    return ds[has], (sums[has] / norms[has, None]).astype(np.float32)


def test_usage_profiles_hold_no_paper_vectors_and_give_the_same_centroids(
    built_home: Path, service: Any
) -> None:
    searcher = service.searcher(Kind.DATASET)
    profiles = searcher.usage_profiles()
    assert isinstance(profiles, UsageProfiles)
    mentions = searcher.mentions
    n_mentions = sum(len(p) for p in mentions.papers.values())
    assert n_mentions > len(mentions.papers)  # papers name datasets more than once here
    for name, value in vars(profiles).items():  # nothing (mentions, dim) stays in memory
        if isinstance(value, np.ndarray):
            assert value.ndim == 1, name
    dense = DenseIndex.open(
        index_dir_for(built_home / "data" / "indexes", Kind.PAPER) / "dense.bin"
    )
    for max_year in (None, 2019):
        ds, cents = profiles.centroids(max_year)
        ref_ds, ref_cents = _reference_centroids(mentions, dense, max_year)
        assert np.array_equal(ds, ref_ds)
        assert np.array_equal(cents, ref_cents)  # the same floats, not just close ones
    for name, value in vars(profiles).items():
        if isinstance(value, np.ndarray):
            assert value.ndim == 1, name


def test_vectors_are_read_from_the_graph_file_until_the_graph_changes(built_home: Path) -> None:
    path = index_dir_for(built_home / "data" / "indexes", Kind.PAPER) / "dense.bin"
    dense = DenseIndex.open(path)
    labels = dense.labels()
    want = np.concatenate([labels[::-7], [labels[0], -5, labels[-1] + 1000, labels[3]]])
    calls: list[int] = []
    real_get = dense._index.get_items

    class Spy:  # the real hnswlib index; counts get_items calls
        def __getattr__(self, name: str) -> Any:
            return getattr(index, name)

        def get_items(self, ids: Any, **kwargs: Any) -> Any:
            calls.append(len(ids))
            return real_get(ids, **kwargs)

    index = dense._index
    dense._index = Spy()
    found, vecs = dense.vectors(want)
    assert calls == []  # read from dense.bin
    expected = np.asarray(real_get(found.astype(np.uint64), return_type="numpy"), np.float32)
    assert list(found) == [int(x) for x in want if int(x) in set(labels.tolist())]
    assert vecs.dtype == np.float32 and np.array_equal(vecs, expected)
    assert np.array_equal(dense.vector(int(labels[0])), expected[found.tolist().index(labels[0])])
    # an added vector is in memory only: read through hnswlib from then on
    dense._index = index
    new = np.random.default_rng(3).normal(size=(1, dense.dim)).astype(np.float32)
    dense.add(np.asarray([int(labels[2])]), new)
    _, after = dense.vectors(np.asarray([int(labels[2])]))
    assert np.allclose(after[0], new[0] / np.linalg.norm(new[0]), atol=1e-6)


def test_vectors_come_from_the_loaded_graph_after_a_build_replaced_its_file(
    built_home: Path, tmp_path: Path
) -> None:
    """A build swaps a new ``dense.bin`` in while searchers still use the old graph: what they
    read stays the old graph's (the file is held open from the load)."""
    import shutil

    source = index_dir_for(built_home / "data" / "indexes", Kind.PAPER) / "dense.bin"
    path = tmp_path / "dense.bin"
    shutil.copy(source, path)
    shutil.copy(source.with_suffix(".json"), path.with_suffix(".json"))
    dense = DenseIndex.open(path)
    labels = dense.labels()[:50]
    _, before = dense.vectors(labels)
    other = DenseIndex.create(tmp_path / "new" / "dense.bin", dense.dim, len(labels))
    vecs = np.random.default_rng(4).normal(size=(len(labels), dense.dim)).astype(np.float32)
    other.add(labels, vecs)
    other.save()
    (tmp_path / "new" / "dense.bin").replace(path)  # as the swap of a build
    _, after = dense.vectors(labels)
    assert np.array_equal(after, before)
    assert np.array_equal(after, dense._index.get_items(labels.astype(np.uint64), "numpy"))
