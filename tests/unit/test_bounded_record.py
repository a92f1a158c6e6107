"""Bounded cost per record at index time (issue 43, item A).

Was: one 5M-character abstract made ``litsift index`` take 287 s and 1.3 GB on a 3-record home
(3 min 23 s of it splitting the abstract into sentences). A build now reads at most
``MAX_FIELD_CHARS`` of each BM25 field, ``MAX_PASSAGE_CHARS`` of the passage it embeds and cuts
into sentences (at most ``MAX_SENTENCES`` of at most ``MAX_SENTENCE_CHARS`` each), and a
paper's first ``MAX_PASSAGES_PER_PAPER`` full-text passages; the store keeps everything.
Real records of the shared sample, blown up; the counts the caps allow are asserted, never
seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litsift.paths import get_paths, shared_data_dir
from litsift.search.aspects.sentences import MAX_SENTENCE_CHARS, MAX_SENTENCES
from litsift.search.build.index_pair import open_indexes
from litsift.search.fulltext.build import MAX_PASSAGES_PER_PAPER, build_passage_index
from litsift.search.retrieval.record_text import (
    MAX_FIELD_CHARS,
    MAX_PASSAGE_CHARS,
    passage_text,
    record_fields,
)
from litsift.service.facade import LitsiftService
from litsift.types import Kind, YearRange
from tests.conftest import PAPERS_GZ, read_jsonl_gz

TEI = shared_data_dir() / "sources" / "fulltext" / "grobid-tei"
#: a word in no record, put at the very end of the huge abstract
TAIL_WORD = "zqxjvtailword"
HUGE = 3_000_000


def _huge(abstract: str, size: int) -> str:
    return (abstract.strip() + " ") * (size // (len(abstract) + 1) + 1) + TAIL_WORD


def test_a_multi_megabyte_abstract_is_indexed_within_the_caps(
    tmp_path: Path, encoder, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    rows = read_jsonl_gz(PAPERS_GZ)[:3]
    rows[0]["abstract"] = _huge(rows[0]["abstract"], HUGE)  # sentences with full stops
    no_stops = rows[1]["abstract"].replace(".", " ").replace("?", " ").replace("!", " ")
    rows[1]["abstract"] = _huge(no_stops, HUGE // 3)  # one "sentence" of a megabyte
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    given: list[int] = []  # the length of every text handed to the (real) encoder
    real = encoder.encode_passages

    def encode_passages(texts, *args, **kwargs):  # type: ignore[no-untyped-def]
        given.extend(len(t) for t in texts)
        return real(texts, *args, **kwargs)

    monkeypatch.setattr(encoder, "encode_passages", encode_passages)
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        big = svc.store.get(Kind.PAPER, str(rows[0]["id"]))
        flat = svc.store.get(Kind.PAPER, str(rows[1]["id"]))
        assert big is not None and flat is not None
        assert len(big.abstract) > HUGE  # the store keeps the text whole
        # what a build reads of it is cut first
        assert len(passage_text(big)) <= MAX_PASSAGE_CHARS
        assert len(record_fields(big)["abstract"]) == MAX_FIELD_CHARS
        report = svc.build_index(Kind.PAPER)
        embedded, total = svc.build_sentences(Kind.PAPER)
        assert report.manifest.count == 3 and report.manifest.part_count("dense") == 3
        assert (embedded, total) == (3, 3)
        assert given and max(given) <= MAX_PASSAGE_CHARS
        sentences = svc.sentence_store
        assert sentences is not None
        views = sentences.get(Kind.PAPER, [(r.id, passage_text(r)) for r in (big, flat)])
        for record in (big, flat):
            view = views[record.id]
            assert len(view.text) <= MAX_PASSAGE_CHARS
            assert 0 < len(view.spans) <= MAX_SENTENCES
            assert all(0 < e - s <= MAX_SENTENCE_CHARS for s, e in view.spans.tolist())
        assert len(views[big.id].spans) > MAX_SENTENCES // 2  # its first sentences are kept
        # BM25 holds the first MAX_FIELD_CHARS of the abstract: its start is found, its end not
        index, _, _ = open_indexes(svc.paths.index_dir, Kind.PAPER, encoder)
        head = " ".join(rows[0]["title"].split()[:6])
        assert big.rowid in [r for r, _ in index.search(head, 3, YearRange())]
        assert index.search(TAIL_WORD, 3, YearRange()) == []
        stored = svc.store.get(Kind.PAPER, big.id)
        assert stored is not None and stored.abstract.endswith(TAIL_WORD)


def test_a_papers_full_text_is_indexed_up_to_the_passage_cap(tmp_path: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    assert MAX_PASSAGES_PER_PAPER == 1_000
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert not svc.sources.import_paths(Kind.PAPER, [TEI]).bad
        whole = build_passage_index(svc.store, encoder, tmp_path / "whole")
        capped = build_passage_index(svc.store, encoder, tmp_path / "capped", per_paper=8)
    assert whole.papers == capped.papers == 3
    assert whole.passages > 3 * 8
    assert capped.passages == 3 * 8  # each paper's first 8; the store keeps them all
