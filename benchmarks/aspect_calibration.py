"""Calibration of aspect grades and checks of the decomposition on DORIS-MAE's dev queries.

Research code (not shipped in ``litsift``): it sets the constants that ship in
:mod:`litsift.search.aspects.scoring` (``CALIBRATED_LAMBDA``, ``CALIBRATED_THRESHOLDS``).
DORIS-MAE (Wang et al., NeurIPS 2023) gives 40 dev queries with expert aspects and sub-aspects
and each query's best candidate abstract with its normalised score (``../shared/data/eval/
doris-mae/``). :func:`calibrate` sets the grade thresholds and lexical weight of
:mod:`litsift.search.aspects.scoring` from them; :func:`match_expert_aspects` compares an
automatic decomposition with the expert one.

Run through ``python benchmarks/aspect_decomposition.py``; ``tests/unit/test_aspects.py``
imports this module (``tests/bench.py``) to check that the shipped constants are still
near-optimal for the encoder on the machine running the tests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from litsift.search.aspects.scoring import AspectScorer, TextEncoder
from litsift.search.retrieval.record_text import passage_text as record_text
from litsift.types import Aspect, Record


@dataclass(frozen=True)
class ExpertMatch:
    """How automatic aspects line up with expert aspects (cosine of query embeddings).

    Attributes:
        threshold: a pair matches if its cosine similarity is >= this.
        n_expert: expert aspects.
        n_expert_matched: expert aspects with at least one automatic aspect matching.
        n_auto: automatic aspects.
        n_auto_unmatched: automatic aspects matching no expert aspect.
        best_for_expert: per expert aspect, its best similarity to an automatic aspect.
        best_for_auto: per automatic aspect, its best similarity to an expert aspect.
    """

    threshold: float
    n_expert: int
    n_expert_matched: int
    n_auto: int
    n_auto_unmatched: int
    best_for_expert: tuple[float, ...]
    best_for_auto: tuple[float, ...]


def match_expert_aspects(
    auto: Sequence[Aspect], expert: Sequence[str], encoder: TextEncoder, threshold: float
) -> ExpertMatch:
    """Compare an automatic decomposition with an expert one (issue item 5).

    Both sides are embedded with ``encode_queries``; the similarity matrix is ``(a, e)``.

    Args:
        auto: automatic aspects (e.g. ``decompose(query)``).
        expert: expert aspect texts (e.g. DORIS-MAE's ``aspects[i]["text"]``).
        encoder: the bi-encoder.
        threshold: cosine similarity at or above which two aspects match.

    Returns:
        The counts and per-aspect best similarities.
    """
    a, e = len(auto), len(expert)
    if a and e:
        sim = (
            encoder.encode_queries([x.text for x in auto]) @ encoder.encode_queries(list(expert)).T
        )
        best_e = sim.max(axis=0)
        best_a = sim.max(axis=1)
    else:
        best_e = np.full(e, -1.0, dtype=np.float32)
        best_a = np.full(a, -1.0, dtype=np.float32)
    return ExpertMatch(
        threshold=threshold,
        n_expert=e,
        n_expert_matched=int((best_e >= threshold).sum()),
        n_auto=a,
        n_auto_unmatched=int((best_a < threshold).sum()),
        best_for_expert=tuple(round(float(x), 6) for x in best_e),
        best_for_auto=tuple(round(float(x), 6) for x in best_a),
    )


_PREFIX = "Best Candidate: "
LAMBDA_GRID: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
THRESHOLD_GRID: tuple[float, ...] = tuple(round(0.2 + 0.01 * i, 2) for i in range(66))


@dataclass(frozen=True)
class DorisMaeQuery:
    """One DORIS-MAE dev query: expert aspect texts (aspects then their sub-aspects)."""

    query_id: int
    query: str
    aspects: tuple[str, ...]
    sub_aspects: tuple[tuple[str, ...], ...]
    best_candidate: Record
    best_candidate_score: float


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    from litsift.errors import EvalError

    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as err:
        raise EvalError(f"cannot read {path}: {err.strerror}", "check ../shared/data/eval") from err
    return [json.loads(line) for line in raw.split("\n") if line.strip()]


def _abstract(text: str) -> str:
    return text[len(_PREFIX) :] if text.startswith(_PREFIX) else text


def load_doris_mae(
    dev_queries_path: Path, candidates_path: Path | None = None
) -> tuple[list[DorisMaeQuery], list[Record]]:
    """Read DORIS-MAE dev queries and the candidate abstracts.

    Args:
        dev_queries_path: ``queries-dev.jsonl``.
        candidates_path: ``candidates.jsonl``; default: next to ``dev_queries_path``.

    Returns:
        ``(queries, candidates)``; candidates are :class:`Paper` records with ``id =
        "doris-mae:<corpus index>"``, no title, the "Best Candidate: " prefix removed, and
        every query's best candidate included.

    Raises:
        EvalError: a file is unreadable.
    """
    from litsift.types import Paper

    candidates_path = candidates_path or dev_queries_path.parent / "candidates.jsonl"
    cands: dict[str, Record] = {}
    for row in _read_jsonl(candidates_path):
        cands[row["id"]] = Paper(id=row["id"], title="", abstract=_abstract(row["abstract"]))
    queries: list[DorisMaeQuery] = []
    for row in _read_jsonl(dev_queries_path):
        cid = f"doris-mae:{row['best_candidate_id']}"
        best = cands.setdefault(
            cid, Paper(id=cid, title="", abstract=_abstract(row["best_candidate_abstract"]))
        )
        queries.append(
            DorisMaeQuery(
                query_id=int(row["query_id"]),
                query=row["query"],
                aspects=tuple(a["text"] for a in row["aspects"]),
                sub_aspects=tuple(tuple(a["sub_aspects"]) for a in row["aspects"]),
                best_candidate=best,
                best_candidate_score=float(row["best_candidate_score"]),
            )
        )
    return queries, sorted(cands.values(), key=lambda r: r.id)


@dataclass(frozen=True)
class Calibration:
    """The result of :func:`calibrate`.

    Attributes:
        thresholds: ``(t1, t2)``.
        lexical_weight: ``λ``.
        balanced_accuracy: of ``combined >= t1`` for aspect-vs-own-best-candidate pairs
            (positives) against aspect-vs-other-candidate pairs (negatives);
        tpr, tnr: its true positive and true negative rates.
        mae_best: mean |predicted normalised − best_candidate_score| over the best candidates.
        mean_pred_best, mean_true_best: mean predicted and true normalised score of the best
            candidates.
        mean_pred_other: mean predicted normalised score of the other candidates.
        pairwise_accuracy: share of (query, other candidate) pairs where the best candidate's
            predicted normalised score is higher (ties count one half).
        n_queries, n_items, n_candidates: dev queries, expert aspects + sub-aspects, abstracts.
    """

    thresholds: tuple[float, float]
    lexical_weight: float
    balanced_accuracy: float
    tpr: float
    tnr: float
    mae_best: float
    mean_pred_best: float
    mean_true_best: float
    mean_pred_other: float
    pairwise_accuracy: float
    n_queries: int
    n_items: int
    n_candidates: int


def calibrate(
    dev_queries_path: Path,
    encoder: TextEncoder | None = None,
    candidates_path: Path | None = None,
    fixed: tuple[float, float, float] | None = None,
    sentences: Any = None,
    passage: bool = False,
) -> Calibration:
    """Choose ``λ``, ``t1`` and ``t2`` on the DORIS-MAE dev queries; how the constants were set.

    DORIS-MAE gives, per dev query, expert aspects with sub-aspects and the normalised score
    (0–2) of the query's best candidate, but no per-aspect grades. Every expert aspect and
    sub-aspect of a query is scored against all 99 candidate abstracts (the best candidates of
    the 100 DORIS-MAE queries):

    1. ``λ`` and ``t1`` (0 vs >= 1): pairs with the query's own best candidate are positives
       (its score averages 1.3, so most of its aspects are at least partly addressed), pairs
       with the other queries' best candidates negatives (taken as unrelated; generic
       sub-aspects such as "a deep learning model" make this an approximation). ``(λ, t1)``
       maximises the balanced accuracy of ``combined >= t1`` over ``LAMBDA_GRID x
       THRESHOLD_GRID``.
    2. ``t2`` (1 vs 2): with ``λ, t1`` fixed, ``t2 >= t1`` minimises the mean absolute error
       between the predicted normalised score of each query's best candidate and its
       ``best_candidate_score``.

    Ties go to the first value in grid order, so the result is deterministic for an encoder.

    Args:
        dev_queries_path: ``queries-dev.jsonl``.
        encoder: the bi-encoder; default ``litsift.models_onnx.load_encoder()``.
        candidates_path: ``candidates.jsonl``; default next to the queries.
        fixed: ``(λ, t1, t2)`` to evaluate instead of searching the grids (the diagnostics of
            given constants, e.g. the shipped ones on another CPU, whose int8 kernels shift
            scores slightly: the grid optimum is flat, so the chosen values can move).
        sentences: where the scorer looks the candidates' sentence vectors up first (an
            ``AspectScorer`` ``sentences`` argument: ``benchmarks/aspect_storage.py`` passes
            vectors stored in other layouts, or one passage vector per record).
        passage: grade each candidate from its one bi-encoder passage vector
            (``encode_passages([record_text(c)])``, what the dense index holds) instead of its
            sentences: the path of provisional grades (``AspectScorer.score`` with
            ``passage_vectors``), which sets ``PASSAGE_LAMBDA`` / ``PASSAGE_THRESHOLDS``.

    Returns:
        The chosen values with their fit diagnostics.

    Raises:
        EvalError: a file is unreadable.
    """
    if encoder is None:
        from litsift.models_onnx import load_encoder

        encoder = load_encoder()
    queries, cands = load_doris_mae(dev_queries_path, candidates_path)
    col = {r.id: j for j, r in enumerate(cands)}
    texts: list[str] = []
    owner: list[int] = []
    for qi, q in enumerate(queries):
        items = list(q.aspects) + [s for subs in q.sub_aspects for s in subs]
        texts.extend(items)
        owner.extend([qi] * len(items))
    enc = encoder
    vectors = (
        (lambda records: enc.encode_passages([record_text(r) for r in records]))
        if passage
        else None
    )
    scorer = AspectScorer(encoder, (0.0, 0.0), 0.0, sentences=sentences)
    sim, lex, _ = scorer.raw(texts, cands, passage_vectors=vectors)
    owner_arr = np.asarray(owner, dtype=np.int64)
    nq = len(queries)
    own_col = np.asarray([col[q.best_candidate.id] for q in queries], dtype=np.int64)
    y = np.asarray([q.best_candidate_score for q in queries])
    positive = np.zeros(sim.shape, dtype=bool)
    positive[np.arange(len(texts)), own_col[owner_arr]] = True
    grid = np.asarray(THRESHOLD_GRID)

    best_ba = (-1.0, 0.0, 0.0, 0.0, 0.0)  # ba, lam, t1, tpr, tnr
    lambdas = LAMBDA_GRID if fixed is None else (fixed[0],)
    t1_grid = grid if fixed is None else np.asarray([fixed[1]])
    for lam in lambdas:
        s = (1.0 - lam) * sim + lam * lex
        pos, neg = s[positive], s[~positive]
        tpr = (pos[None, :] >= t1_grid[:, None]).mean(axis=1)
        tnr = (neg[None, :] < t1_grid[:, None]).mean(axis=1)
        ba = (tpr + tnr) / 2
        i = int(np.argmax(ba))
        if ba[i] > best_ba[0] + 1e-12:
            best_ba = (float(ba[i]), lam, float(t1_grid[i]), float(tpr[i]), float(tnr[i]))
    ba_v, lam, t1, tpr_v, tnr_v = best_ba
    s = (1.0 - lam) * sim + lam * lex

    def normalised(t2: float) -> npt.NDArray[np.float64]:
        g = (s >= t1).astype(np.float64) + (s >= t2)
        return np.stack([g[owner_arr == qi].mean(axis=0) for qi in range(nq)])  # (nq, cands)

    best_t2: tuple[float, float] | None = None
    for t2 in grid[grid >= t1] if fixed is None else [fixed[2]]:
        own = normalised(float(t2))[np.arange(nq), own_col]
        mae = float(np.abs(own - y).mean())
        if best_t2 is None or mae < best_t2[0] - 1e-12:
            best_t2 = (mae, float(t2))
    assert best_t2 is not None
    mae_v, t2 = best_t2
    norm = normalised(t2)
    own_n = norm[np.arange(nq), own_col]
    other_mask = np.ones(norm.shape, dtype=bool)
    other_mask[np.arange(nq), own_col] = False
    other_n = norm[other_mask].reshape(nq, -1)
    wins = (own_n[:, None] > other_n).sum() + 0.5 * (own_n[:, None] == other_n).sum()
    return Calibration(
        thresholds=(t1, t2),
        lexical_weight=lam,
        balanced_accuracy=round(ba_v, 6),
        tpr=round(tpr_v, 6),
        tnr=round(tnr_v, 6),
        mae_best=round(mae_v, 6),
        mean_pred_best=round(float(own_n.mean()), 6),
        mean_true_best=round(float(y.mean()), 6),
        mean_pred_other=round(float(other_n.mean()), 6),
        pairwise_accuracy=round(float(wins / other_n.size), 6),
        n_queries=nq,
        n_items=len(texts),
        n_candidates=len(cands),
    )
