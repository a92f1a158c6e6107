"""Aspect decomposition, per-aspect scoring and calibration on the real DORIS-MAE dev data.

Decomposition tests are pure text; scoring tests use the real int8 ONNX encoder (session
fixture ``encoder`` of ``tests/conftest.py``).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from litsift.search.aspects.coverage import coverage_order
from litsift.search.aspects.decompose import (
    MAX_KEYPHRASE_WORDS,
    MIN_CONTENT_WORDS,
    content_terms,
    decompose,
    is_keyphrase_query,
)
from litsift.search.aspects.scoring import (
    CALIBRATED_LAMBDA,
    CALIBRATED_THRESHOLDS,
    PASSAGE_LAMBDA,
    PASSAGE_THRESHOLDS,
    AspectScorer,
    grade,
)
from litsift.search.retrieval.record_text import passage_text as record_text
from litsift.text.sentences import split_sentences
from litsift.types import Aspect, Coverage, Hit, Paper
from tests.bench import benchmark_module
from tests.conftest import EVAL_DIR

# the calibration sweep is research code in benchmarks/ that set the shipped constants
calibration = benchmark_module("aspect_calibration")
calibrate = calibration.calibrate
load_doris_mae = calibration.load_doris_mae
match_expert_aspects = calibration.match_expert_aspects

DORIS = EVAL_DIR / "doris-mae"
DEV = DORIS / "queries-dev.jsonl"


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]


@pytest.fixture(scope="module")
def dev_rows() -> list[dict]:
    return _rows(DEV)


@pytest.fixture(scope="module")
def doris():  # type: ignore[no-untyped-def]
    return load_doris_mae(DEV)


def _check_valid(query: str, aspects: list[Aspect]) -> None:
    """Spans index into the query, parents point back to a containing top-level aspect."""
    for i, a in enumerate(aspects):
        assert 0 <= a.start < a.end <= len(query)
        assert a.text == query[a.start : a.end]
        assert a.text == a.text.strip()
        if a.parent is not None:
            p = aspects[a.parent]
            assert a.parent < i and p.parent is None
            assert p.start <= a.start and a.end <= p.end


# -- decomposition ---------------------------------------------------------------------------


def test_dev_queries_split_into_sentences_and_clauses(dev_rows: list[dict]) -> None:
    n_sub = 0
    for row in dev_rows:
        q = row["query"]
        aspects = decompose(q)
        _check_valid(q, aspects)
        top = [a for a in aspects if a.parent is None]
        # one top-level aspect per sentence, in order, each inside its sentence
        sentences = split_sentences(q)
        assert len(top) == len(sentences)
        for a, (s, e) in zip(top, sentences, strict=True):
            assert s <= a.start and a.end <= e
        # every clause carries a requirement, and a split sentence has at least two clauses
        for i, a in enumerate(top):
            subs = [b for b in aspects if b.parent == aspects.index(a)]
            assert len(subs) != 1, (i, subs)
            for b in subs:
                assert len(content_terms(b.text)) >= MIN_CONTENT_WORDS, b.text
            n_sub += len(subs)
        assert decompose(q) == aspects  # deterministic
        assert not is_keyphrase_query(q)
    assert n_sub > 0  # the long dev queries do get clause-level sub-aspects


def test_split_sentences_keeps_abbreviations_and_decimals() -> None:
    text = (
        "We follow Smith et al. (2020) closely. Accuracy rose by 3.5 points, e.g. on SQuAD "
        "and i.e. on long texts. It works!"
    )
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == [
        "We follow Smith et al. (2020) closely.",
        "Accuracy rose by 3.5 points, e.g. on SQuAD and i.e. on long texts.",
        "It works!",
    ]


def test_split_sentences_covers_every_abstract(doris) -> None:  # type: ignore[no-untyped-def]
    _, cands = doris
    for rec in cands:
        text = record_text(rec)
        spans = split_sentences(text)
        assert spans
        assert all(a < b for a, b in spans)
        assert all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1))
        covered = "".join(text[s:e] for s, e in spans)
        assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", text)


def test_keyphrase_queries_become_phrases() -> None:
    rows = _rows(EVAL_DIR / "datafinder" / "test_data.jsonl")
    with_commas = [r["keyphrase_query"] for r in rows if "," in r["keyphrase_query"]]
    assert with_commas
    for kq in with_commas:
        aspects = decompose(kq)
        _check_valid(kq, aspects)
        phrases = [p.strip() for p in kq.split(",") if p.strip()]
        assert is_keyphrase_query(kq) == (len(phrases) > 1)
        assert [a.text for a in aspects] == phrases
        assert all(len(a.text.split()) <= MAX_KEYPHRASE_WORDS for a in aspects)
    for r in rows:
        assert not is_keyphrase_query(r["query"])
        _check_valid(r["query"], decompose(r["query"]))


def test_decompose_is_robust_to_any_string() -> None:
    rng = random.Random(7)
    alphabet = "ab ,;:.!?\n-–•()0123456789éÜ😀\u2028\t"
    samples = ["", "   ", "\n\n", "???", "and", "; ; ;", "- \n* \n1. x", "😀 and 😀", "a" * 3000]
    samples += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 120))) for _ in range(300)
    ]
    samples += ["graph neural nets, molecules; proteins\n- drug discovery, low resource"]
    for q in samples:
        aspects = decompose(q)
        _check_valid(q, aspects)
        assert bool(aspects) == bool(q.strip()), repr(q)


# -- scoring ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scorer(encoder) -> AspectScorer:  # type: ignore[no-untyped-def]
    return AspectScorer(encoder)


def _expert_aspects(q) -> list[Aspect]:  # type: ignore[no-untyped-def]
    """Expert aspects then their sub-aspects, as Aspect records (text only, no spans)."""
    out = [Aspect(t) for t in q.aspects]
    for i, subs in enumerate(q.sub_aspects):
        out.extend(Aspect(s, parent=i) for s in subs)
    return out


def test_best_candidate_covers_its_expert_aspects_better(doris, scorer) -> None:  # type: ignore[no-untyped-def]
    queries, cands = doris
    wins = 0
    pool = cands[:30]
    for q in queries[:10]:
        records = [*pool, q.best_candidate] if q.best_candidate not in pool else pool
        covs = {c.doc_id: c for c in scorer.score(_expert_aspects(q), records)}
        own = covs[q.best_candidate.id].normalised
        others = sorted(c.normalised for d, c in covs.items() if d != q.best_candidate.id)
        assert 0.0 <= own <= 2.0
        wins += own > others[len(others) // 2]
    assert wins >= 8  # the known best candidate beats the median other abstract


def test_scores_are_consistent_and_reproducible(encoder, doris) -> None:  # type: ignore[no-untyped-def]
    queries, cands = doris
    q = queries[0]
    aspects = decompose(q.query)
    records = [q.best_candidate, *cands[:5]]
    first = AspectScorer(encoder).score(aspects, records)
    again = AspectScorer(encoder)
    assert again.score(aspects, records) == first  # a fresh scorer
    assert again.score(aspects, records) == first  # from the sentence cache
    for rec, cov in zip(records, first, strict=True):
        assert cov.doc_id == rec.id and len(cov.scores) == len(aspects)
        text = record_text(rec)
        sentences = split_sentences(text)
        for i, s in enumerate(cov.scores):
            assert s.aspect_index == i
            assert s.evidence in sentences
            assert s.evidence is not None and s.evidence_text == text[slice(*s.evidence)]
            assert 0.0 <= s.bm25_evidence <= 1.0
            expect = (1 - CALIBRATED_LAMBDA) * s.similarity + CALIBRATED_LAMBDA * s.bm25_evidence
            assert s.combined == pytest.approx(expect, abs=1e-5)
            assert s.grade == grade(s.combined, CALIBRATED_THRESHOLDS)
        assert cov.normalised == pytest.approx(sum(s.grade for s in cov.scores) / len(aspects))


def test_empty_inputs(scorer) -> None:  # type: ignore[no-untyped-def]
    rec = Paper(id="empty", title="")
    [cov] = scorer.score([Aspect("graph neural networks")], [rec])
    assert cov.scores[0].grade == 0 and cov.scores[0].evidence is None
    [cov] = scorer.score([], [Paper(id="p", title="A title", abstract="Some text.")])
    assert cov == Coverage("p", (), 0.0, 0.0)
    assert scorer.score([Aspect("x")], []) == []
    with pytest.raises(ValueError):
        AspectScorer(scorer.encoder, (0.5, 0.4))


def test_coverage_order(doris, scorer) -> None:  # type: ignore[no-untyped-def]
    queries, cands = doris
    q = queries[1]
    others = [c for c in cands if c.id != q.best_candidate.id]
    pool = [*others[:9], q.best_candidate]
    covs = scorer.score(decompose(q.query), pool)
    by_cov = coverage_order(pool, covs, blend=0.0)
    assert sorted(r.id for r in by_cov) == sorted(r.id for r in pool)
    norm = {c.doc_id: c.normalised for c in covs}
    assert [norm[r.id] for r in by_cov] == sorted(norm.values(), reverse=True)
    assert coverage_order(pool, covs, blend=1.0) == pool
    # hits work too; items without a coverage keep their order after the covered ones
    hits = [Hit(record=r, rank=i + 1, score=1.0 / (i + 1)) for i, r in enumerate(pool)]
    ordered = coverage_order(hits, covs[:5], blend=0.0)
    assert [h.docid for h in ordered[5:]] == [r.id for r in pool[5:]]
    with pytest.raises(ValueError):
        coverage_order(pool, covs, blend=1.5)


def test_calibration_reproduces_constants(encoder) -> None:  # type: ignore[no-untyped-def]
    cal = calibrate(DEV, encoder)
    assert cal.n_queries == 40 and cal.n_candidates == 99
    assert cal.balanced_accuracy > 0.5  # better than chance at telling own from other
    assert cal.mean_pred_best > cal.mean_pred_other
    # The int8 kernels differ by CPU (AVX2 vs AVX-512 VNNI), which moves scores in the third
    # decimal; the grid optimum is flat, so the argmax itself can move one grid step (the
    # constants were set on this AMD AVX2 machine; another CPU may pick a neighbouring step).
    # What must hold on any CPU: the shipped constants are (near-)optimal for this encoder.
    assert cal.lexical_weight == pytest.approx(CALIBRATED_LAMBDA, abs=0.15)
    assert cal.thresholds[0] == pytest.approx(CALIBRATED_THRESHOLDS[0], abs=0.03)
    assert cal.thresholds[1] == pytest.approx(CALIBRATED_THRESHOLDS[1], abs=0.04)
    shipped = calibrate(DEV, encoder, fixed=(CALIBRATED_LAMBDA, *CALIBRATED_THRESHOLDS))
    assert (shipped.lexical_weight, shipped.thresholds) == (
        CALIBRATED_LAMBDA,
        CALIBRATED_THRESHOLDS,
    )
    assert shipped.balanced_accuracy >= cal.balanced_accuracy - 0.01
    assert shipped.mae_best <= cal.mae_best + 0.03
    assert shipped.mean_pred_best > shipped.mean_pred_other


def test_passage_calibration_reproduces_the_provisional_constants(encoder) -> None:  # type: ignore[no-untyped-def]
    # provisional grades (one passage vector per record: never-seen hits, issue 32) have their
    # own constants, fitted the same way; near-optimal on any CPU (see above)
    cal = calibrate(DEV, encoder, passage=True)
    assert cal.n_queries == 40 and cal.n_candidates == 99
    assert cal.lexical_weight == pytest.approx(PASSAGE_LAMBDA, abs=0.15)
    assert cal.thresholds[0] == pytest.approx(PASSAGE_THRESHOLDS[0], abs=0.03)
    assert cal.thresholds[1] == pytest.approx(PASSAGE_THRESHOLDS[1], abs=0.04)
    # nearly as discriminative as the sentences (0.79 / 0.98 there)
    assert cal.balanced_accuracy > 0.75 and cal.pairwise_accuracy > 0.95


def test_match_expert_aspects(doris, encoder) -> None:  # type: ignore[no-untyped-def]
    queries, _ = doris
    q = queries[0]
    auto = decompose(q.query)
    m = match_expert_aspects(auto, list(q.aspects), encoder, threshold=0.5)
    assert m.n_auto == len(auto) and m.n_expert == len(q.aspects)
    assert m.n_expert_matched == sum(s >= 0.5 for s in m.best_for_expert)
    assert m.n_auto_unmatched == sum(s < 0.5 for s in m.best_for_auto)
    same = match_expert_aspects(auto, [a.text for a in auto], encoder, threshold=0.99)
    assert same.n_expert_matched == len(auto) and same.n_auto_unmatched == 0
    none = match_expert_aspects([], list(q.aspects), encoder, threshold=0.5)
    assert none.n_expert_matched == 0 and none.n_auto == 0
