"""Rows that arrive during any build phase (issue 43, item C): BM25, dense (see
``test_build_catch_up.py``), aspect sentences and full-text passages. Each phase either covers
what was ingested while it ran or its report names how much it left.

Was: rows ingested during the aspect-sentence phase were left without sentences, full text
imported during the passage phase was left out of the passage index, and no line said so.
The ingest happens from the phase's own progress hook, through a second connection to the
store file (what another litsift process does), with real records and real full text.
"""

from __future__ import annotations

import json
from pathlib import Path

from litsift.paths import get_paths, shared_data_dir
from litsift.search.aspects.sentence_phase import build_sentences
from litsift.search.fulltext.build import build_passage_index
from litsift.service.facade import LitsiftService
from litsift.sources.importer import import_paths
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind
from tests.conftest import DATASETS_GZ, read_jsonl_gz

KIND = Kind.DATASET
FIRST, LATER = 30, 12
TEI = sorted((shared_data_dir() / "sources" / "fulltext" / "grobid-tei").glob("*.xml"))


def _files(tmp_path: Path) -> tuple[Path, Path]:
    rows = read_jsonl_gz(DATASETS_GZ)[: FIRST + LATER]
    first, later = tmp_path / "first.jsonl", tmp_path / "later.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows[:FIRST]), encoding="utf-8")
    later.write_text("".join(json.dumps(r) + "\n" for r in rows[FIRST:]), encoding="utf-8")
    return first, later


def _ingest_once(store_file: Path, later: Path, done: list[int]) -> None:
    if not done:
        other = Store(store_file)
        done.append(ingest_jsonl(other, KIND, later).added)
        other.close()


def test_rows_ingested_during_the_bm25_phase_are_indexed_by_the_same_build(
    tmp_path: Path, encoder
) -> None:  # type: ignore[no-untyped-def]
    first, later = _files(tmp_path)
    paths = get_paths(tmp_path / "home")
    ingested: list[int] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "bm25" and done:  # BM25 has read its rows, not yet published
            _ingest_once(paths.store_file, later, ingested)

    with LitsiftService(paths, encoder=encoder) as svc:
        assert svc.ingest(KIND, first).ok
        report = svc.build_index(KIND, progress=progress)
        assert ingested == [LATER]
        assert report.manifest.count == report.manifest.part_count("dense") == FIRST + LATER
        assert report.behind == 0 and svc.rows_behind(KIND) == 0


def test_rows_ingested_during_the_sentence_phase_get_sentences_or_are_named(
    tmp_path: Path, encoder
) -> None:  # type: ignore[no-untyped-def]
    first, later = _files(tmp_path)
    paths = get_paths(tmp_path / "home")
    ingested: list[int] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "sentences" and done:  # the first chunk is stored
            _ingest_once(paths.store_file, later, ingested)

    with LitsiftService(paths, encoder=encoder) as svc:
        assert svc.ingest(KIND, first).ok
        svc.build_index(KIND)
        built = svc.build_sentences(KIND, progress=progress, chunk=8)
        assert ingested == [LATER]
        assert tuple(built) == (FIRST + LATER, FIRST + LATER) and built.behind == 0
        sentences = svc.sentence_store
        assert sentences is not None and sentences.count(KIND) == FIRST + LATER
        # they came after BM25 and dense were built: the build's summary names them
        assert svc.rows_behind(KIND) == LATER

    # with no catch-up round left, the phase counts what it did not cut
    home2 = get_paths(tmp_path / "home2")
    ingested.clear()

    def progress2(stage: str, done: int, total: int) -> None:
        if stage == "sentences" and done:
            _ingest_once(home2.store_file, later, ingested)

    with LitsiftService(home2, encoder=encoder) as svc:
        assert svc.ingest(KIND, first).ok
        sentences = svc.sentence_store
        assert sentences is not None
        built = build_sentences(svc.store, encoder, KIND, sentences, progress2, 8, rounds=0)
        assert ingested == [LATER]
        assert built[0] == FIRST and built.behind == LATER
        assert sentences.count(KIND) == FIRST


def test_full_text_imported_during_the_passage_phase_is_indexed_or_named(
    tmp_path: Path, encoder
) -> None:  # type: ignore[no-untyped-def]
    assert len(TEI) >= 2
    for rounds, papers, behind in ((2, 2, 0), (0, 1, 1)):
        home = tmp_path / f"home{rounds}"
        paths = get_paths(home)
        imported: list[int] = []

        def progress(stage: str, done: int, total: int, paths=paths, imported=imported) -> None:  # type: ignore[no-untyped-def]
            if stage == "passages" and not imported:  # the first chunk is embedded
                other = Store(paths.store_file)
                imported.append(import_paths(other, [TEI[1]], Kind.PAPER).added)
                other.close()

        with LitsiftService(paths, encoder=encoder) as svc:
            assert not svc.sources.import_paths(Kind.PAPER, [TEI[0]]).bad
            built = build_passage_index(
                svc.store, encoder, paths.index_dir, progress, rounds=rounds
            )
            assert imported == [1]
            assert (built.papers, built.behind) == (papers, behind), built
            assert not built.unchanged
            again = svc.build_passages()  # the next build takes the rest
            assert again.papers == 2 and again.behind == 0
            assert again.unchanged == (behind == 0)
