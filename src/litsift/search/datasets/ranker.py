"""A learned re-ranker for dataset recommendation (LambdaMART over the hybrid pool).

The hybrid stack gives each dataset candidate several kinds of evidence that a fixed linear
fusion weighs poorly: the BM25 and dense scores of its description, the usage-profile cosine
(:class:`litsift.search.datasets.popularity.UsageProfiles`), its popularity among the store's
papers, the papers near the query that name it, and how old it is relative to the query's year
bound.
A gradient-boosted ranking model (LambdaMART, Burges 2010, "From RankNet to LambdaRank to
LambdaMART: An Overview", MSR-TR-2010-82; the LightGBM ``lambdarank`` objective) combines them
per candidate, re-scoring the top ``search.dataset_ranker_pool`` (300) fused candidates before
the top ``k`` is cut.

The shipped model (:data:`MODEL_PATH`) was trained by ``benchmarks/train_dataset_ranker.py`` on
the *tune* half of DataFinder's test queries only (both query types, the fixed split of
:func:`litsift.eval.benchmarks.query_half`); the held-out half is never seen, and its numbers
are the unbiased ones (docs/EVALUATION-RESULTS.md, round 6; re-fit for the pool of 300 in
round 13). The features are store-relative (scores, ranks, counts, years), not dataset
identities, so the model applies to any store of papers + datasets; it was trained with the
default search settings.

Feature vector of one candidate (:data:`FEATURES`, in order):

* ``fused``: the fused hybrid score (popularity prior included);
* ``bm25``, ``dense``, ``usage``: each run's raw score (0 when the run did not retrieve it);
* ``prior``: ``log(1 + count) / log(1 + max count)``
  (:func:`~litsift.search.datasets.popularity.prior`);
* ``paper_dense_votes`` / ``paper_dense_max``: sum / max of the cosines of the top
  :data:`PAPER_DEPTH` dense paper hits for the query that name the dataset;
* ``paper_bm25_votes``: ``sum 1 / (r + 10)`` over the 0-based ranks ``r`` of the top
  :data:`PAPER_DEPTH` BM25 paper hits that name it;
* ``vote_specificity``: number of dense paper votes / ``sqrt(1 + count)`` (a dataset named
  by the nearby papers more often than its overall use predicts);
* ``fused_rank``: ``1 / (rank + 5)`` in the fused pool;
* ``log_query_words``: ``log`` of the query's whitespace word count (keyphrase vs sentence);
* ``log_rank_bm25``, ``log_rank_dense``, ``log_rank_usage``: ``log(1 + rank)`` in each run
  (``log(1 + 1000)`` when absent);
* ``year_gap``: query year bound (the current year when the query has none) minus the
  dataset's year, 0 when the dataset has no year; ``has_year``: 1 if it has one;
* ``max_sent``: the best cosine between the query and one sentence of the dataset's passage
  (its stored aspect sentences, :func:`litsift.search.aspects.sentence_phase.best_sentence_cosines`;
  the
  whole-passage cosine when they are not stored yet). Added in round 12: a full-sentence query
  often matches one sentence of a long description.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from litsift.errors import RankerError
from litsift.search.datasets.popularity import USAGE, MentionCounts, prior
from litsift.search.retrieval.fusion import DocId, Fused, ranked
from litsift.types import SignalScore

#: the model file shipped with litsift (LightGBM text format)
MODEL_PATH = Path(__file__).with_name("dataset_ranker.lgb.txt")
#: the name of the signal holding the fused hybrid score and rank before re-ranking
SIGNAL = "hybrid"
#: how many BM25 and dense paper hits vote for the datasets they name
PAPER_DEPTH = 50
#: the rank recorded for a run that did not retrieve the candidate
ABSENT_RANK = 1000

FEATURES: tuple[str, ...] = (
    "fused",
    "bm25",
    "dense",
    "usage",
    "prior",
    "paper_dense_votes",
    "paper_dense_max",
    "paper_bm25_votes",
    "vote_specificity",
    "fused_rank",
    "log_query_words",
    "log_rank_bm25",
    "log_rank_dense",
    "log_rank_usage",
    "year_gap",
    "has_year",
    "max_sent",
)


def papers_to_datasets(mentions: MentionCounts) -> dict[int, tuple[int, ...]]:
    """Invert the mention lists: ``{paper rowid: (dataset rowids it names, ascending)}``."""
    out: dict[int, list[int]] = {}
    for d in sorted(mentions.papers):
        for p in mentions.papers[d]:
            out.setdefault(int(p), []).append(int(d))
    return {p: tuple(ds) for p, ds in out.items()}


def dataset_features(
    query_text: str,
    max_year: int | None,
    pool: Sequence[Fused],
    dataset_years: Mapping[DocId, int | None],
    paper_dense: Sequence[tuple[DocId, float]],
    paper_bm25: Sequence[tuple[DocId, float]],
    named_by: Mapping[int, Sequence[int]],
    mentions: MentionCounts,
    best_sentence: Mapping[DocId, float],
) -> npt.NDArray[np.float64]:
    """The ``(len(pool), len(FEATURES))`` feature matrix of a dataset candidate pool.

    Args:
        query_text: the query as typed.
        max_year: the query's upper year bound (None: the current calendar year is used).
        pool: the fused candidates, best first, with their ``bm25``/``dense``/``usage``
            signals (any missing one counts as not retrieved).
        dataset_years: ``{docid: year or None}`` for every candidate.
        paper_dense: the query's dense paper run ``[(paper rowid, cosine)]``, best first.
        paper_bm25: the query's BM25 paper run ``[(paper rowid, score)]``, best first.
        named_by: ``{paper rowid: dataset rowids it names}`` (:func:`papers_to_datasets`).
        mentions: the store's mention counts (year-bounded counts give ``prior``).
        best_sentence: ``{docid: best query-sentence cosine}`` (``max_sent``; 0 when absent).
    """
    dense_votes: dict[int, float] = {}
    dense_max: dict[int, float] = {}
    n_votes: dict[int, int] = {}
    for pid, cos in paper_dense[:PAPER_DEPTH]:
        for d in named_by.get(int(pid), ()):
            dense_votes[d] = dense_votes.get(d, 0.0) + float(cos)
            dense_max[d] = max(dense_max.get(d, 0.0), float(cos))
            n_votes[d] = n_votes.get(d, 0) + 1
    bm25_votes: dict[int, float] = {}
    for r, (pid, _score) in enumerate(paper_bm25[:PAPER_DEPTH]):
        for d in named_by.get(int(pid), ()):
            bm25_votes[d] = bm25_votes.get(d, 0.0) + 1.0 / (r + 10)
    bound = max_year if max_year is not None else datetime.date.today().year
    log_words = math.log(max(1, len(query_text.split())))
    max_count = mentions.max_count
    rows = np.zeros((len(pool), len(FEATURES)), dtype=np.float64)
    absent = SignalScore(0.0, ABSENT_RANK)
    for i, f in enumerate(pool):
        d = int(f.docid)
        count = mentions.count(d, max_year)
        bm, de, us = (f.signals.get(n, absent) for n in ("bm25", "dense", USAGE))
        year = dataset_years.get(f.docid)
        rows[i] = (
            f.score,
            bm.score,
            de.score,
            us.score,
            prior(count, max_count),
            dense_votes.get(d, 0.0),
            dense_max.get(d, 0.0),
            bm25_votes.get(d, 0.0),
            n_votes.get(d, 0) / math.sqrt(1 + count),
            1.0 / (f.rank + 5),
            log_words,
            math.log1p(bm.rank),
            math.log1p(de.rank),
            math.log1p(us.rank),
            0.0 if year is None else bound - year,
            0.0 if year is None else 1.0,
            best_sentence.get(f.docid, 0.0),
        )
    return rows


def _import_lightgbm() -> Any:
    """``import lightgbm`` without its scikit-learn wrappers.

    LightGBM's ``compat`` module imports scikit-learn whenever it is installed (for
    ``LGBMRanker`` & co., which prediction from a saved ``Booster`` never uses): ~1.0 s of a
    cold ``litsift search --datasets`` on this 2-core machine (lightgbm import 1.26 s -> 0.27 s).
    When lightgbm is not loaded yet, scikit-learn is hidden while it loads (LightGBM then
    marks its sklearn API unavailable in this process) and visible again right after, so other
    code can still import scikit-learn itself. Training (``benchmarks/train_dataset_ranker.py``)
    imports lightgbm first and keeps the full API.
    """
    import sys

    if "lightgbm" in sys.modules or "sklearn" in sys.modules:
        import lightgbm

        return lightgbm
    sys.modules["sklearn"] = None  # type: ignore[assignment]  # import sklearn -> ImportError
    try:
        import lightgbm
    finally:
        if sys.modules.get("sklearn", 0) is None:
            del sys.modules["sklearn"]
    return lightgbm


class DatasetRanker:
    """A LightGBM LambdaMART model over :data:`FEATURES`.

    Args:
        path: the model file (LightGBM text format, as written by ``Booster.save_model``).

    Raises:
        RankerError: the file is missing, unreadable, or was trained on other features.
    """

    def __init__(self, path: Path = MODEL_PATH) -> None:
        lgb = _import_lightgbm()
        try:
            self._booster: Any = lgb.Booster(model_file=str(path))
        except Exception as exc:  # lightgbm raises its own LightGBMError or OSError
            raise RankerError(
                f"cannot load the dataset ranking model {path}: {exc}",
                "reinstall litsift, or set search.dataset_ranker = false in the config",
            ) from exc
        names = tuple(self._booster.feature_name())
        if names != FEATURES:
            raise RankerError(
                f"dataset ranking model {path} was trained on features {names}, not {FEATURES}",
                "retrain it with benchmarks/train_dataset_ranker.py",
            )

    def predict(self, features: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """``(n,)`` scores (higher is better) for an ``(n, len(FEATURES))`` matrix."""
        if len(features) == 0:
            return np.zeros(0, dtype=np.float64)
        return np.asarray(self._booster.predict(features), dtype=np.float64)

    def rerank(
        self, pool: Sequence[Fused], features: npt.NDArray[np.float64], limit: int | None = None
    ) -> list[Fused]:
        """Re-order ``pool`` by the model's scores (ties by docid), keeping the first ``limit``
        (all when None).

        Each result's score becomes the model score; its fused score and rank are kept as the
        :data:`SIGNAL` signal next to the runs' signals.
        """
        scores = self.predict(features)
        new_scores: dict[DocId, float] = {}
        signals: dict[DocId, dict[str, SignalScore]] = {}
        for f, s in zip(pool, scores, strict=True):
            new_scores[f.docid] = float(s)
            signals[f.docid] = {**f.signals, SIGNAL: SignalScore(float(f.score), f.rank)}
        return ranked(new_scores, signals, limit)


@cache
def default_ranker() -> DatasetRanker:
    """The shipped model, loaded once per process."""
    return DatasetRanker(MODEL_PATH)


__all__ = [
    "FEATURES",
    "MODEL_PATH",
    "PAPER_DEPTH",
    "SIGNAL",
    "DatasetRanker",
    "dataset_features",
    "default_ranker",
    "papers_to_datasets",
]
