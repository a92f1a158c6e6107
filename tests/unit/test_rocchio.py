"""Rocchio "more like this": the formula's properties on seeded vectors, and its effect on real
papers embedded with the real int8 ONNX encoder."""

from __future__ import annotations

import gzip
import json
from typing import Any

import numpy as np
import pytest

from litsift.errors import ModelNotBuiltError
from litsift.paths import shared_data_dir
from litsift.search.retrieval.record_text import passage_text
from litsift.search.retrieval.rocchio import SIGNAL, more_like_this, rerank_hits, rocchio
from litsift.types import Hit, Paper, SignalScore

SHARED_DATA = shared_data_dir()
PAPERS_GZ = SHARED_DATA / "papers" / "ml-nlp-papers.jsonl.gz"
DIM = 16


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def vecs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {
        "q": unit(rng.normal(size=DIM)),
        "pos": unit(rng.normal(size=(4, DIM))),
        "neg": unit(rng.normal(size=(3, DIM))),
        "cands": unit(rng.normal(size=(30, DIM))),
    }


def test_rocchio_is_unit_and_moves_toward_positives_away_from_negatives(vecs: dict) -> None:
    q, pos, neg = vecs["q"], vecs["pos"], vecs["neg"]
    plain = rocchio(q, None, None)
    np.testing.assert_allclose(plain, q, rtol=1e-6)
    moved = rocchio(q, pos, neg)
    assert moved.dtype == np.float32 and moved.shape == (DIM,)
    assert abs(float(np.linalg.norm(moved)) - 1.0) < 1e-6
    pos_c, neg_c = unit(pos.mean(axis=0)), unit(neg.mean(axis=0))
    assert moved @ pos_c > plain @ pos_c
    only_neg = rocchio(q, None, neg)
    assert only_neg @ neg_c < plain @ neg_c
    # bigger beta -> closer to the relevant centroid
    assert rocchio(q, pos, neg, beta=2.0) @ pos_c > moved @ pos_c
    # feedback only (no query) is the normalised centroid difference
    fb = rocchio(None, pos, None)
    np.testing.assert_allclose(fb, pos_c, rtol=1e-5)


def test_rocchio_errors(vecs: dict) -> None:
    with pytest.raises(ValueError, match="needs a query"):
        rocchio(None, None, None)
    with pytest.raises(ValueError, match="shape"):
        rocchio(vecs["q"], vecs["pos"][:, :5], None)
    with pytest.raises(ValueError, match="zero"):
        rocchio(vecs["q"], None, vecs["q"][None, :], gamma=1.0)
    with pytest.raises(ValueError, match="candidate_vecs"):
        more_like_this(vecs["cands"][:, :5], vecs["q"], vecs["pos"])


def test_more_like_this_orders_by_cosine_with_index_tie_break(vecs: dict) -> None:
    cands = np.vstack([vecs["cands"], vecs["cands"][:5]])  # rows 30..34 duplicate rows 0..4
    order, scores = more_like_this(cands, vecs["q"], vecs["pos"], vecs["neg"])
    assert sorted(order.tolist()) == list(range(len(cands)))
    assert np.all(np.diff(scores[order]) <= 0)
    pos_of = {int(i): r for r, i in enumerate(order)}
    for i in range(5):
        assert pos_of[i] < pos_of[30 + i]  # equal scores: the earlier candidate first
    again, _ = more_like_this(cands, vecs["q"], vecs["pos"], vecs["neg"])
    assert again.tolist() == order.tolist()


def test_rerank_hits_adds_the_signal_and_renumbers(vecs: dict) -> None:
    hits = [
        Hit(
            record=Paper(id=f"p{i}", title=f"t{i}"),
            rank=i + 1,
            score=1.0 - i / 100,
            signals={"bm25": SignalScore(5.0 - i, i + 1)},
        )
        for i in range(len(vecs["cands"]))
    ]
    out = rerank_hits(hits, vecs["cands"], vecs["q"], vecs["pos"], vecs["neg"])
    assert [h.rank for h in out] == list(range(1, len(hits) + 1))
    assert sorted(h.docid for h in out) == sorted(h.docid for h in hits)
    assert all(h.signals[SIGNAL].rank == h.rank and "bm25" in h.signals for h in out)
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True)
    with pytest.raises(ValueError, match="candidate vectors"):
        rerank_hits(hits[:3], vecs["cands"], vecs["q"], vecs["pos"])
    assert rerank_hits([], vecs["cands"][:0], vecs["q"], vecs["pos"]) == ()


def _topic(rows: list[dict[str, Any]], phrase: str, n: int) -> list[Paper]:
    hits = [r for r in rows if phrase in r["title"].lower()][:n]
    return [Paper(id=r["id"], title=r["title"], abstract=r["abstract"]) for r in hits]


def test_rocchio_moves_real_ranking_toward_kept_papers() -> None:
    from litsift.models_onnx import load_encoder

    try:
        encoder = load_encoder(build_if_missing=False)
    except ModelNotBuiltError as err:
        pytest.skip(f"encoder not built: {err.message}")
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as fh:
        rows = [json.loads(line) for line in fh.read().split("\n") if line.strip()]
    mt = _topic(rows, "machine translation", 25)
    rl = _topic(rows, "reinforcement learning", 25)
    emb_mt = encoder.encode_passages([passage_text(p) for p in mt])
    emb_rl = encoder.encode_passages([passage_text(p) for p in rl])
    kept, discarded = emb_mt[:5], emb_rl[:5]
    cands = np.vstack([emb_mt[5:], emb_rl[5:]])
    is_mt = np.array([True] * 20 + [False] * 20)
    query = encoder.encode_queries(["learning from data"])[0]

    def mean_rank_of_mt(order: np.ndarray) -> float:
        ranks = np.empty(len(order))
        ranks[order] = np.arange(len(order))
        return float(ranks[is_mt].mean())

    before, _ = more_like_this(cands, query, None, None)
    after, _ = more_like_this(cands, query, kept, discarded)
    assert mean_rank_of_mt(after) < mean_rank_of_mt(before)
    assert is_mt[after[:20]].sum() > is_mt[before[:20]].sum()
