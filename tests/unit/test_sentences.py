"""Stored sentence spans + vectors (litsift.search.aspects.sentences): aspect scoring embeds only
the
aspects once a record's sentences are stored, with the grades of a fresh embedding; the build is
incremental and resumable; a damaged or foreign file is started again, never an error. The
homes here set ``search.sentence_phase = "all"`` so that they keep the phase whatever the
default's size limit; a kind scored on demand past it is tested in test_sentence_cache.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.paths import get_paths
from litsift.search.aspects.decompose import decompose
from litsift.search.aspects.scoring import AspectScorer
from litsift.search.aspects.sentence_phase import build_sentences
from litsift.search.aspects.sentences import (
    FILE_NAME,
    MAX_SENTENCES,
    SentenceStore,
    open_sentence_store,
)
from litsift.search.retrieval.record_text import passage_text
from litsift.service.facade import LitsiftService
from litsift.text.sentences import split_sentences
from litsift.types import Kind
from tests.counting import CountingEncoder

N_PAPERS = 40
QUERY = (
    "Unsupervised word alignment for low-resource machine translation. "
    "We evaluate transformer models on parallel corpora."
)


class Stop(Exception):
    pass


def phase_for_all(home: Path) -> None:
    """Give ``home``'s papers the sentence phase whatever their count."""
    config = get_paths(home).config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[search]\nsentence_phase = "all"\n', encoding="utf-8")


@pytest.fixture
def home(tmp_path: Path, paper_slice_rows: list[dict], encoder):  # type: ignore[no-untyped-def]
    """A private home with N_PAPERS papers of the slice (not indexed: sentences need no index)."""
    src = tmp_path / "papers.jsonl"
    rows = paper_slice_rows[:N_PAPERS]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    phase_for_all(tmp_path / "home")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
    return tmp_path / "home"


def test_build_is_incremental_and_scoring_then_embeds_only_the_aspects(home: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(home), encoder=counting) as svc:  # type: ignore[arg-type]
        records = [r for batch in svc.store.rows_since(Kind.PAPER) for r in batch]
        assert svc.needs_sentences(Kind.PAPER)
        assert svc.build_sentences(Kind.PAPER) == (N_PAPERS, N_PAPERS)
        n_sentences = sum(
            min(len(split_sentences(passage_text(r))), MAX_SENTENCES) for r in records
        )
        assert counting.passages == n_sentences
        assert not svc.needs_sentences(Kind.PAPER)
        assert svc.build_sentences(Kind.PAPER) == (0, N_PAPERS)  # nothing new
        assert counting.passages == n_sentences

        # scoring the stored records embeds no sentence, and grades exactly as a scorer that
        # embeds every sentence itself
        aspects = decompose(QUERY)
        stored = AspectScorer(counting, sentences=svc.sentence_store).score(aspects, records)
        assert counting.passages == n_sentences
        fresh = AspectScorer(encoder).score(aspects, records)
        assert stored == fresh
        assert any(s.grade > 0 for c in stored for s in c.scores)

    # an edited abstract is cut and embedded again, alone
    old = records[3]
    edited = {
        "id": old.id,
        "title": old.title,
        "abstract": "Graph neural networks learn node embeddings. They are evaluated on Cora.",
        "year": old.year,
    }
    src = home.parent / "edit.jsonl"
    src.write_text(json.dumps(edited) + "\n", encoding="utf-8")
    with LitsiftService(get_paths(home), encoder=counting) as svc:  # type: ignore[arg-type]
        svc.ingest(Kind.PAPER, src)
        before = counting.passages
        assert svc.build_sentences(Kind.PAPER) == (1, N_PAPERS)
        rec = svc.get(Kind.PAPER, old.id)
        assert rec is not None
        n_new = len(split_sentences(passage_text(rec)))  # the title and two sentences
        assert counting.passages - before == n_new == 3
        view = svc.sentence_store.get(Kind.PAPER, [(rec.id, passage_text(rec))])  # type: ignore[union-attr]
        assert len(view[rec.id].spans) == 3


def test_a_killed_build_resumes_without_embedding_again(home: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(home), encoder=counting) as svc:  # type: ignore[arg-type]
        sentences = svc.sentence_store
        assert sentences is not None

        def stop_after_first_chunk(stage: str, done: int, total: int) -> None:
            assert stage == "sentences" and total == N_PAPERS
            if done >= 16:
                raise Stop

        with pytest.raises(Stop):
            build_sentences(svc.store, counting, Kind.PAPER, sentences, stop_after_first_chunk, 16)
        assert sentences.count(Kind.PAPER) == 16
        first = counting.passages
        assert svc.build_sentences(Kind.PAPER) == (N_PAPERS - 16, N_PAPERS)
        records = [r for batch in svc.store.rows_since(Kind.PAPER) for r in batch]
        total = sum(min(len(split_sentences(passage_text(r))), MAX_SENTENCES) for r in records)
        assert counting.passages == total  # the first 16 records were not embedded again
        assert first < total


def test_scoring_fills_the_store_for_next_time(home: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        records = [r for batch in svc.store.rows_since(Kind.PAPER) for r in batch][:5]
        aspects = decompose(QUERY)
        first = AspectScorer(encoder, sentences=svc.sentence_store).score(aspects, records)
        assert svc.sentence_store is not None and svc.sentence_store.count(Kind.PAPER) == 5
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(home), encoder=counting) as svc:  # type: ignore[arg-type]
        hits_again = AspectScorer(counting, sentences=svc.sentence_store).score(aspects, records)
        assert hits_again == first and counting.passages == 0


def test_damaged_or_foreign_files_are_started_again(tmp_path: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "index"
    root.mkdir()
    (root / FILE_NAME).write_bytes(b"this is not a SQLite database" * 100)
    store = open_sentence_store(root, encoder)
    assert isinstance(store, SentenceStore) and store.count(Kind.PAPER) == 0
    rec_scorer = AspectScorer(encoder, sentences=store)
    from litsift.types import Paper

    paper = Paper(id="p1", title="A title.", abstract="First sentence here. Second one there.")
    rec_scorer.score(decompose("first sentence"), [paper])
    assert store.count(Kind.PAPER) == 1
    store.close()
    # another encoder key (e.g. another model): the rows are not this encoder's, dropped
    other = SentenceStore(root / FILE_NAME, encoder.cache_key + "|other", encoder.dim)
    assert other.count(Kind.PAPER) == 0
    other.close()


def test_cli_index_stores_sentences(tmp_path: Path, paper_slice_rows: list[dict], encoder) -> None:  # type: ignore[no-untyped-def]
    from litsift.cli.root import main

    home = tmp_path / "home"
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:12]), encoding="utf-8")
    runner = CliRunner()
    phase_for_all(home)
    out = runner.invoke(main, ["--home", str(home), "ingest", "papers", str(src)])
    assert out.exit_code == 0, out.output
    out = runner.invoke(main, ["--home", str(home), "index", "papers", "--quiet"])
    assert out.exit_code == 0, out.output
    assert "papers: aspect sentences of 12 records stored (12 cut and embedded now)" in out.stdout
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert not svc.needs_sentences(Kind.PAPER)
