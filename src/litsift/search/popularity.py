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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from litsift.search.hybrid import DocId, Fused, Signal, _finish
from litsift.types import Dataset, Paper

#: bump when the matching rules change: cached counts are then recomputed
POPULARITY_VERSION = 1
#: the name of the signal added to each hit
SIGNAL = "popularity"
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
        state: what the counts were computed from (store counts and revisions); compared with
            the store's current state to decide whether to recompute.
    """

    years: Mapping[int, npt.NDArray[np.int32]]
    state: Mapping[str, int] = field(default_factory=dict)

    @property
    def max_count(self) -> int:
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
            return cls(MappingProxyType(years), MappingProxyType(dict(data["state"])))
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
    frozen = {k: np.sort(np.asarray(v, dtype=np.int32)) for k, v in years.items()}
    return MentionCounts(MappingProxyType(frozen), MappingProxyType(dict(state or {})))


def prior(count: int, max_count: int) -> float:
    """``log(1 + count) / log(1 + max_count)`` in [0, 1]; 0 when nothing is mentioned."""
    if max_count <= 0 or count <= 0:
        return 0.0
    return math.log1p(count) / math.log1p(max_count)


def with_prior(
    fused: Sequence[Fused], counts: Mapping[DocId, int], max_count: int, weight: float
) -> list[Fused]:
    """Add ``weight · prior(count)`` to each fused score and re-rank (pure function).

    Each result gains a :data:`SIGNAL` signal: score = the mention count, rank = its rank by
    count among ``fused`` (ties by docid). Order is deterministic, by ``(-score, docid)``.

    Args:
        fused: the fused candidates (any order).
        counts: ``{docid: mention count}``; a missing docid counts 0.
        max_count: the largest count in the corpus (the prior's normaliser).
        weight: the prior's weight (0 leaves the scores unchanged but still adds the signal).

    Returns:
        A new list, best first, ranks renumbered.
    """
    by_count = sorted(fused, key=lambda f: (-counts.get(f.docid, 0), str(f.docid)))
    count_rank = {f.docid: i for i, f in enumerate(by_count, start=1)}
    scores: dict[DocId, float] = {}
    signals: dict[DocId, dict[str, Signal]] = {}
    for f in fused:
        c = counts.get(f.docid, 0)
        scores[f.docid] = f.score + weight * prior(c, max_count)
        signals[f.docid] = {**f.signals, SIGNAL: Signal(float(c), count_rank[f.docid])}
    return _finish(scores, signals)
