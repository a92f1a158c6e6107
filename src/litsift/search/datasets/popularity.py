"""Dataset popularity from the paper corpus: how many papers mention a dataset by name.

DataFinder's relevant datasets are heavily skewed toward widely used ones (ImageNet, CIFAR-10,
COCO, Penn Treebank … are the relevant answer of 10 % of its test queries), and a researcher
asking for "a dataset for X" usually wants the benchmark the field uses. litsift estimates that
use from the papers in the user's own store: a dataset's *mention count* is the number of
papers whose title or abstract contains the dataset's name or one of its aliases, and its
prior is ``log(1 + count) / log(1 + max count)`` in [0, 1]. Counts honour the year filter's
upper bound (only papers published up to that year count), so a query "as of 2016" does not
see the popularity a dataset gained later.

Matching is exact on word tokens (``\\w+``), case-sensitive, so "Cell" the dataset does not
match "cell" the word. One-token names that are ordinary words ("Inspired", "Reddit") or
shorter than three characters are skipped: capitalised at a sentence start they would match
prose. Acronyms that collide with method names (SGD, MAP) still match; that noise is measured
in docs/EVALUATION-RESULTS.md (round 3) and is smaller than the gain.

The prior is added to the fused hybrid score of each candidate (``score + w · prior``) before
the top ``k`` is cut (:func:`with_prior`); the weight is ``SearchSettings.dataset_popularity_
weight``, chosen on DataFinder's tune half.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from litsift.search.retrieval.fusion import DocId, Fused, ranked
from litsift.types import Dataset, Paper, SignalScore

#: bump when the matching rules change: cached counts are then recomputed
POPULARITY_VERSION = 2
#: the name of the signal added to each hit
SIGNAL = "popularity"
#: the name of the usage-profile run in fusion
USAGE = "usage"
VectorLookup = Callable[
    [npt.NDArray[np.int64]], tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]
]
_TOKEN = re.compile(r"\w+")
#: a paper without a year counts under every year bound (as a dataset without a year stays
#: eligible under DataFinder's cut-off)
NO_YEAR = -1


def name_tokens(name: str) -> tuple[str, ...] | None:
    """The token pattern a dataset name is matched by, or None when the name is too
    ambiguous to match (one token that is lowercase, a capitalised word, or < 3 characters)."""
    toks = tuple(_TOKEN.findall(name))
    if not toks:
        return None
    if len(toks) == 1:
        t = toks[0]
        if len(t) < 3 or t.islower() or (t[0].isupper() and t[1:].islower()):
            return None
    return toks


@dataclass(frozen=True)
class MentionCounts:
    """Years of the papers that mention each dataset.

    Attributes:
        years: ``{dataset rowid: (n,) int32 sorted years}`` of the mentioning papers
            (:data:`NO_YEAR` for a paper without a year); datasets never mentioned are absent.
        papers: ``{dataset rowid: (n,) int64 paper rowids}``, aligned with ``years``.
        state: what the counts were computed from (store counts and revisions); compared with
            the store's current state to decide whether to recompute.
    """

    years: Mapping[int, npt.NDArray[np.int32]]
    papers: Mapping[int, npt.NDArray[np.int64]] = field(default_factory=dict)
    state: Mapping[str, int] = field(default_factory=dict)

    @cached_property
    def max_count(self) -> int:
        """The largest count of any dataset (all years), computed once."""
        return max((len(v) for v in self.years.values()), default=0)

    def count(self, rowid: int, max_year: int | None = None) -> int:
        """Papers mentioning the dataset, published up to ``max_year`` (None: all)."""
        ys = self.years.get(int(rowid))
        if ys is None:
            return 0
        if max_year is None:
            return len(ys)
        return int(np.searchsorted(ys, max_year, side="right"))

    def counts(self, rowids: Iterable[DocId], max_year: int | None = None) -> dict[DocId, int]:
        return {r: self.count(int(r), max_year) for r in rowids}

    def save(self, path: Path) -> None:
        """Write the counts as JSON atomically (temp file + rename)."""
        data = {
            "version": POPULARITY_VERSION,
            "state": dict(self.state),
            "years": {str(k): v.tolist() for k, v in self.years.items()},
            "papers": {str(k): v.tolist() for k, v in self.papers.items()},
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".popularity-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> MentionCounts | None:
        """The counts saved at ``path``, or None when missing, unreadable or of another
        :data:`POPULARITY_VERSION`."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != POPULARITY_VERSION:
                return None
            years = {int(k): np.asarray(v, dtype=np.int32) for k, v in data["years"].items()}
            papers = {int(k): np.asarray(v, dtype=np.int64) for k, v in data["papers"].items()}
            if set(years) != set(papers):
                return None
            return cls(
                MappingProxyType(years),
                MappingProxyType(papers),
                MappingProxyType(dict(data["state"])),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None


def count_mentions(
    datasets: Iterable[Dataset], papers: Iterable[Paper], state: Mapping[str, int] | None = None
) -> MentionCounts:
    """Count, for each dataset, the papers whose title or abstract names it.

    A paper counts once per dataset however often it names it. Names are the dataset id and
    its ``variants`` (:func:`name_tokens`); a name shared by several datasets credits each.
    One pass over each paper's tokens with a first-token lookup: about 2 s for 19.6K papers.

    Args:
        datasets: dataset records with ``rowid`` set.
        papers: paper records.
        state: stored with the counts (see :attr:`MentionCounts.state`).

    Returns:
        The counts, keyed by dataset rowid.
    """
    by_name: dict[tuple[str, ...], set[int]] = defaultdict(set)
    for d in datasets:
        if d.rowid is None:
            continue
        for name in {d.id, *d.variants}:
            toks = name_tokens(name)
            if toks is not None:
                by_name[toks].add(int(d.rowid))
    by_first: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for pattern in by_name:
        by_first[pattern[0]].append(pattern)
    years: dict[int, list[int]] = defaultdict(list)
    rowids: dict[int, list[int]] = defaultdict(list)
    for p in papers:
        words: list[str] = _TOKEN.findall(f"{p.title} . {p.abstract}")
        found: set[int] = set()
        for i, word in enumerate(words):
            for cand in by_first.get(word, ()):
                if len(cand) == 1 or tuple(words[i : i + len(cand)]) == cand:
                    found |= by_name[cand]
        year = NO_YEAR if p.year is None else int(p.year)
        for rowid in found:
            years[rowid].append(year)
            rowids[rowid].append(-1 if p.rowid is None else int(p.rowid))
    by_year: dict[int, npt.NDArray[np.int32]] = {}
    by_paper: dict[int, npt.NDArray[np.int64]] = {}
    for k, v in years.items():
        ys = np.asarray(v, dtype=np.int32)
        order = np.argsort(ys, kind="stable")
        by_year[k] = ys[order]
        by_paper[k] = np.asarray(rowids[k], dtype=np.int64)[order]
    return MentionCounts(
        MappingProxyType(by_year), MappingProxyType(by_paper), MappingProxyType(dict(state or {}))
    )


def updated_mentions(
    old: MentionCounts,
    datasets: Iterable[Dataset],
    changed: Sequence[Paper],
    state: Mapping[str, int] | None = None,
) -> MentionCounts:
    """``old`` with the mentions of the ``changed`` papers (added or edited since ``old`` was
    counted) replaced by their current ones: what :func:`count_mentions` over every paper would
    give, in time proportional to ``len(changed)`` (issue 32). Papers deleted since are not
    seen here: callers recount in full when rows were deleted.

    Args:
        old: counts over the papers as they were.
        datasets: every dataset record, ``rowid`` set (the same datasets as ``old``'s).
        changed: the papers added or changed since, ``rowid`` set.
        state: stored with the result.
    """
    fresh = count_mentions(datasets, changed, state)
    gone = np.asarray([int(p.rowid) for p in changed if p.rowid is not None], np.int64)
    top = max([int(gone.max(initial=0))] + [int(v.max(initial=0)) for v in old.papers.values()])
    is_gone = np.zeros(top + 1, dtype=bool)  # by paper rowid (-1: none, never gone)
    is_gone[gone] = True
    years: dict[int, npt.NDArray[np.int32]] = {}
    papers: dict[int, npt.NDArray[np.int64]] = {}
    for k in old.years.keys() | fresh.years.keys():
        ys = old.years.get(k, np.zeros(0, np.int32))
        ps = old.papers.get(k, np.zeros(0, np.int64))
        keep = ~is_gone[np.maximum(ps, 0)] | (ps < 0)
        ys = np.concatenate([ys[keep], fresh.years.get(k, np.zeros(0, np.int32))])
        ps = np.concatenate([ps[keep], fresh.papers.get(k, np.zeros(0, np.int64))])
        if len(ys):
            order = np.lexsort((ps, ys))  # by year, then paper rowid: count_mentions' order
            years[k], papers[k] = ys[order], ps[order]
    return MentionCounts(
        MappingProxyType(years), MappingProxyType(papers), MappingProxyType(dict(state or {}))
    )


def prior(count: int, max_count: int) -> float:
    """``log(1 + count) / log(1 + max_count)`` in [0, 1]; 0 when nothing is mentioned."""
    if max_count <= 0 or count <= 0:
        return 0.0
    return math.log1p(count) / math.log1p(max_count)


def with_prior(
    fused: Sequence[Fused],
    counts: Mapping[DocId, int],
    max_count: int,
    weight: float,
    limit: int | None = None,
) -> list[Fused]:
    """Add ``weight · prior(count)`` to each fused score and re-rank (pure function).

    Each result gains a :data:`SIGNAL` signal: score = the mention count, rank = its rank by
    count among ``fused`` (ties by docid). Order is deterministic, by ``(-score, docid)``.

    Args:
        fused: the fused candidates (any order).
        counts: ``{docid: mention count}``; a missing docid counts 0.
        max_count: the largest count in the corpus (the prior's normaliser).
        weight: the prior's weight (0 leaves the scores unchanged but still adds the signal).
        limit: keep the first ``limit`` results only (all when None).

    Returns:
        A new list, best first, ranks renumbered.
    """
    by_count = sorted(fused, key=lambda f: (-counts.get(f.docid, 0), str(f.docid)))
    count_rank = {f.docid: i for i, f in enumerate(by_count, start=1)}
    scores: dict[DocId, float] = {}
    signals: dict[DocId, dict[str, SignalScore]] = {}
    for f in fused:
        c = counts.get(f.docid, 0)
        scores[f.docid] = f.score + weight * prior(c, max_count)
        signals[f.docid] = {**f.signals, SIGNAL: SignalScore(float(c), count_rank[f.docid])}
    return ranked(scores, signals, limit)


class UsageProfiles:
    """Each dataset described by the papers that use it: the normalised sum of the embeddings
    of the papers naming it (published up to a year bound), searched with the query vector.

    This is document expansion from citing contexts (cf. anchor text in web search, or
    citation-context expansion of papers): a dataset whose description does not resemble the
    research ideas it serves (CIFAR-10's is about 32x32 images; its users write about GANs
    and robustness) is found through its users. Measured on DataFinder in
    docs/EVALUATION-RESULTS.md (round 5).

    The mentioning papers' vectors are not held: each year bound's centroids are summed from
    :data:`CHUNK` vectors at a time, in the order of the mentions (so the sums are the same
    floats whatever the chunking). Held were ``(papers naming a dataset, dim)`` float32, ~1 GB
    at 1M papers.

    Args:
        mentions: the counts, with paper rowids.
        vectors: ``rowids -> (found rowids, (m, dim) vectors)`` over the paper dense index
            (:meth:`litsift.search.retrieval.dense.DenseIndex.vectors`); papers not in it are
            skipped.
    """

    #: mentioning papers whose vectors are read at a time
    CHUNK = 8_192

    def __init__(self, mentions: MentionCounts, vectors: VectorLookup) -> None:
        self._ds = np.asarray(sorted(mentions.papers), dtype=np.int64)
        papers = [mentions.papers[int(d)] for d in self._ds]
        years = [mentions.years[int(d)] for d in self._ds]
        self._papers = (
            np.concatenate(papers).astype(np.int64) if papers else np.zeros(0, dtype=np.int64)
        )
        self._owner = np.repeat(np.arange(len(self._ds)), [len(p) for p in papers])
        self._years = np.concatenate(years) if years else np.zeros(0, dtype=np.int32)
        self._vectors = vectors
        self._cache: dict[int | None, tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]] = {}

    def centroids(
        self, max_year: int | None = None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """``(m,)`` dataset rowids with at least one embedded mentioning paper published up to
        ``max_year`` (papers without a year always count), and their ``(m, dim)`` unit
        centroids. Cached per year bound."""
        if max_year not in self._cache:
            keep = np.ones(len(self._papers), dtype=bool)
            if max_year is not None:
                keep &= self._years <= max_year
            sums: npt.NDArray[np.float64] | None = None
            for start in range(0, max(len(self._papers), 1), self.CHUNK):
                part = slice(start, start + self.CHUNK)
                ids, owners = self._papers[part][keep[part]], self._owner[part][keep[part]]
                found, vecs = self._vectors(ids)
                if sums is None:
                    dim = vecs.shape[1] if vecs.ndim == 2 else 0
                    sums = np.zeros((len(self._ds), dim), dtype=np.float64)
                if len(found):  # found: the ids in the dense index, in the order given
                    np.add.at(sums, owners[np.isin(ids, found)], vecs)
            assert sums is not None
            norms = np.linalg.norm(sums, axis=1)
            has = norms > 0
            cents = (sums[has] / norms[has, None]).astype(np.float32)
            self._cache[max_year] = (self._ds[has], cents)
        return self._cache[max_year]

    def search(
        self,
        qvec: npt.ArrayLike,
        k: int,
        max_year: int | None,
        allowed: npt.NDArray[np.bool_] | None = None,
    ) -> list[tuple[int, float]]:
        """Top ``k`` datasets by cosine between ``qvec`` and their usage centroid.

        Args:
            qvec: ``(dim,)`` query vector.
            k: hits wanted.
            max_year: only papers published up to this year describe a dataset.
            allowed: optional bool mask over dataset rowids (the year filter); rowids past its
                end are not allowed.

        Returns:
            ``[(dataset rowid, cosine)]``, best first, ties by rowid.
        """
        ds, cents = self.centroids(max_year)
        if allowed is not None and len(ds):
            inside = ds < len(allowed)
            ok = np.zeros(len(ds), dtype=bool)
            ok[inside] = allowed[ds[inside]]
            ds, cents = ds[ok], cents[ok]
        if len(ds) == 0 or k <= 0:
            return []
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        sims = cents @ (q / max(float(np.linalg.norm(q)), 1e-12))
        order = np.lexsort((ds, -sims))[:k]
        return [(int(ds[i]), float(sims[i])) for i in order]
