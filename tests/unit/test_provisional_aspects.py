"""Provisional aspect grades of never-seen hits (issue 32): a hit whose sentence vectors are not
stored is graded at once from its passage vector, read from the dense index (embedded, one
vector, only where the index lacks it), with the passage constants; nothing of it is kept, and
a later call without ``provisional`` embeds its sentences and gives exactly the sentence
scorer's grades. A kind with the sentence phase (the sample's default) grades as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from litsift.paths import get_paths
from litsift.search.aspects.decompose import decompose
from litsift.search.aspects.scoring import PASSAGE_LAMBDA, PASSAGE_THRESHOLDS, AspectScorer
from litsift.search.retrieval.record_text import passage_text
from litsift.service.facade import LitsiftService
from litsift.text.sentences import split_sentences
from litsift.types import Hit, Kind, Paper, Query
from tests.counting import CountingEncoder

QUERY = (
    "Unsupervised word alignment for low-resource machine translation. "
    "We evaluate transformer models on parallel corpora."
)
N_PAPERS = 12


@pytest.fixture(scope="module")
def no_phase_home(
    tmp_path_factory: pytest.TempPathFactory, paper_slice_rows: list[dict], encoder: Any
) -> Iterator[Path]:
    """12 real papers, BM25 + dense indexed, no sentence phase (more than its 10 records)."""
    root = tmp_path_factory.mktemp("provisional")
    src = root / "papers.jsonl"
    rows = paper_slice_rows[:N_PAPERS]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    home = root / "home"
    paths = get_paths(home)
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text("[search]\nsentence_phase_max_records = 10\n", encoding="utf-8")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER)
        assert not svc.sentence_phase(Kind.PAPER)
        assert svc.build_sentences(Kind.PAPER) == (0, N_PAPERS)  # nothing ahead of time
    yield home


def _passages(encoder: Any) -> Any:
    return lambda records: encoder.encode_passages([passage_text(r) for r in records])


def test_never_seen_hits_are_graded_from_stored_passage_vectors_then_refined(
    no_phase_home: Path, encoder: Any
) -> None:
    aspects = decompose(QUERY)
    assert len(aspects) > 1
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(no_phase_home), encoder=counting) as svc:  # type: ignore[arg-type]
        hits = svc.search(Query(QUERY, Kind.PAPER, k=8)).hits
        records = [h.record for h in hits]
        assert len(hits) == 8
        first = svc.score_aspects(aspects, hits, provisional=True)
        # graded without a sentence embedded: their passage vectors come from the dense index
        assert counting.passages == 0
        assert all(c.provisional for c in first)
        assert svc.sentence_store is not None and svc.sentence_store.count(Kind.PAPER) == 0
        assert all(s.evidence is None and not s.evidence_text for c in first for s in c.scores)
        assert any(s.grade > 0 for c in first for s in c.scores)
        # the passage constants on the passage vectors (the same as embedding them now)
        fresh = AspectScorer(encoder).score(aspects, records, passage_vectors=_passages(encoder))
        assert [[s.grade for s in c.scores] for c in first] == [
            [s.grade for s in c.scores] for c in fresh
        ]
        lam = PASSAGE_LAMBDA
        for c in first:
            for s in c.scores:
                combined = (1 - lam) * s.similarity + lam * s.bm25_evidence
                assert s.combined == pytest.approx(combined, abs=1e-5)
                t1, t2 = PASSAGE_THRESHOLDS
                assert s.grade == (2 if s.combined >= t2 else 1 if s.combined >= t1 else 0)

        refined = svc.score_aspects(aspects, hits)  # the worker's second step
        assert counting.passages > 0  # now their sentences are cut and embedded...
        assert not any(c.provisional for c in refined)
        assert svc.sentence_store.count(Kind.PAPER) == len(hits)  # ...and kept
        # exactly the sentence scorer's grades
        assert refined == AspectScorer(encoder).score(aspects, records)
        # scored once, never provisional again: from memory...
        assert svc.score_aspects(aspects, hits, provisional=True) == refined
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(no_phase_home), encoder=counting) as svc:  # type: ignore[arg-type]
        # ...or from the sentence store in a later session
        assert svc.score_aspects(aspects, hits, provisional=True) == refined
        assert counting.passages == 0


def test_a_hit_missing_from_the_dense_index_embeds_its_passage_not_its_sentences(
    no_phase_home: Path, paper_slice_rows: list[dict], encoder: Any
) -> None:
    rows = paper_slice_rows[N_PAPERS : N_PAPERS + 3]  # not in this home's store or indexes
    hits = [
        Hit(Paper(id=r["id"], title=r["title"], abstract=r.get("abstract") or ""), i + 1, 0.0)
        for i, r in enumerate(rows)
    ]
    aspects = decompose(QUERY)
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(no_phase_home), encoder=counting) as svc:  # type: ignore[arg-type]
        first = svc.score_aspects(aspects, hits, provisional=True)
        assert all(c.provisional for c in first)
        assert counting.passages == len(hits)  # one passage vector each
        records = [h.record for h in hits]
        fresh = AspectScorer(encoder).score(aspects, records, passage_vectors=_passages(encoder))
        assert first == fresh
        n_sentences = sum(len(split_sentences(passage_text(r))) for r in records)
        assert n_sentences > len(hits)  # what embedding their sentences first would have cost


def test_with_the_sentence_phase_grades_are_the_sentence_grades_at_once(
    tmp_path: Path, paper_slice_rows: list[dict], encoder: Any
) -> None:
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:6]), encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok  # the default: the phase while <= 50,000
        svc.build_index(Kind.PAPER)
        assert svc.sentence_phase(Kind.PAPER) and svc.build_sentences(Kind.PAPER) == (6, 6)
    aspects = decompose(QUERY)
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(tmp_path / "home"), encoder=counting) as svc:  # type: ignore[arg-type]
        hits = svc.search(Query(QUERY, Kind.PAPER, k=6)).hits
        now = svc.score_aspects(aspects, hits, provisional=True)
        assert not any(c.provisional for c in now) and counting.passages == 0
        assert now == AspectScorer(encoder).score(aspects, [h.record for h in hits])


def test_a_full_text_hit_is_graded_from_its_passage_and_the_full_text_passage(
    paper_slice_rows: list[dict], encoder: Any
) -> None:
    rows = paper_slice_rows[20:24]
    records = [Paper(id=r["id"], title=r["title"], abstract=r.get("abstract") or "") for r in rows]
    # a full-text search's matching passage per hit (real text: another paper's abstract)
    extra = [r.get("abstract") or "" for r in paper_slice_rows[30:33]] + [""]
    aspects = decompose(QUERY)
    counting = CountingEncoder(encoder)
    scorer = AspectScorer(counting)  # type: ignore[arg-type]
    first = scorer.score(aspects, records, extra, passage_vectors=_passages(counting))
    assert all(c.provisional for c in first)
    # one vector per record and per full-text passage, not their sentences
    assert counting.passages == len(records) + sum(1 for e in extra if e)
    assert all(s.evidence is None for c in first for s in c.scores)
    final = scorer.score(aspects, records, extra)
    assert not any(c.provisional for c in final)
    assert final == AspectScorer(encoder).score(aspects, records, extra)


class CountingQueries(CountingEncoder):
    """The real encoder, counting its ``encode_queries`` calls too."""

    def __init__(self, encoder: Any) -> None:
        super().__init__(encoder)
        self.query_calls = 0

    def encode_queries(self, texts: Any) -> Any:
        self.query_calls += 1
        return self.encoder.encode_queries(texts)


def test_an_aspect_list_is_embedded_once_for_a_result_scored_in_chunks(
    paper_slice_rows: list[dict], encoder: Any
) -> None:
    records = [
        Paper(id=r["id"], title=r["title"], abstract=r["abstract"]) for r in paper_slice_rows[:4]
    ]
    aspects = decompose(QUERY)
    counting = CountingQueries(encoder)
    scorer = AspectScorer(counting)  # type: ignore[arg-type]
    chunks = [
        *scorer.score(aspects, records[:2], passage_vectors=_passages(encoder)),
        *scorer.score(aspects, records[2:], passage_vectors=_passages(encoder)),
    ]
    refined = scorer.score(aspects, records)  # the refinement: the same aspects again
    assert counting.query_calls == 1  # the TUI's chunks and refinement embed them once
    assert [c.provisional for c in chunks] == [True] * 4
    assert refined == AspectScorer(encoder).score(aspects, records)
    scorer.score(aspects[:1], records)  # an edited list is embedded anew
    assert counting.query_calls == 2
