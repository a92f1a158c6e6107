"""Every derived part has the same damage contract (issue 34, item 3).

The parts: the paper index's BM25 (tantivy) and dense (hnswlib) parts and its manifest, the
full-text passage index (its tantivy files, ``dense.bin``/``dense.json``, ``passages.json``,
``manifest.json``) and ``sentences.sqlite``. Each file of each part is damaged three ways --
truncated to half, overwritten by same-size garbage, deleted -- in a copy of one real home
(60 papers of the sample, three GROBID TEI full texts). Then:

- search answers from what is intact and says so (BM25 alone, dense alone, no passages), or,
  with the manifest gone, fails with our error and the fix -- never a library's exception;
- the build that ``litsift index`` runs rebuilds exactly the damaged part (the others are
  ``unchanged``), after which the same queries give the same hits as before the damage.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.errors import IndexDamagedError, IndexMissingError
from litsift.paths import get_paths, shared_data_dir
from litsift.search.aspects.decompose import decompose
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query
from tests.conftest import PAPERS_GZ, copy_home, read_jsonl_gz
from tests.unit.test_index_damage import MemoEncoder

QUERIES = ("citation graph of scientific literature", "electrical stimulation of muscles")
TEI = shared_data_dir() / "sources" / "fulltext" / "grobid-tei"

#: the files of each part, relative to ``<home>/data/indexes`` (a glob for tantivy segments)
PAPER_BM25 = [f"paper/bm25/*.{ext}" for ext in ("term", "idx", "pos", "store", "fast")]
PAPER_BM25 += ["paper/bm25/*.fieldnorm", "paper/bm25/meta.json", "paper/bm25/.managed.json"]
PAPER_BM25 += ["paper/bm25/litsift-bm25.json"]
PAPER_DENSE = ["paper/dense.bin", "paper/dense.json"]
PASSAGES = [f"passages/*.{ext}" for ext in ("term", "idx", "pos", "store", "fast", "fieldnorm")]
PASSAGES += ["passages/meta.json", "passages/.managed.json", "passages/dense.bin"]
PASSAGES += ["passages/dense.json", "passages/passages.json", "passages/manifest.json"]
PART_OF = {f: "bm25" for f in PAPER_BM25}
PART_OF.update({f: "dense" for f in PAPER_DENSE})
PART_OF.update({f: "passages" for f in PASSAGES})
PART_OF["paper/manifest.json"] = "manifest"
PART_OF["sentences.sqlite"] = "sentences"


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def garbage(path: Path) -> None:
    path.write_bytes(random.Random(34).randbytes(path.stat().st_size))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncate": truncate,
    "same-size garbage": garbage,
    "delete": lambda p: p.unlink(),
}

Snapshot = list[list[tuple[str, float]]]


def snapshot(svc: LitsiftService) -> tuple[Snapshot, set[str | None]]:
    """The full-text top 10 of each query as (doc id, rounded score), and its notes."""
    hits, notes = [], set()
    for text in QUERIES:
        result = svc.search(Query(text, Kind.PAPER, k=10, fulltext=True))
        hits.append([(h.record.id, round(h.score, 4)) for h in result.hits])
        notes.add(result.partial)
    return hits, notes


def index_all(svc: LitsiftService):  # type: ignore[no-untyped-def]
    """What ``litsift index papers`` builds: the index pair, sentences, passages."""
    report = svc.build_index(Kind.PAPER)
    sentences = svc.build_sentences(Kind.PAPER)
    return report, sentences, svc.sentences_repaired(), svc.build_passages()


@pytest.fixture(scope="module")
def memo_encoder(encoder) -> MemoEncoder:  # type: ignore[no-untyped-def]
    return MemoEncoder(encoder)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory, memo_encoder):  # type: ignore[no-untyped-def]
    """A home with every derived part built, and the full-text hits of QUERIES over it."""
    root = tmp_path_factory.mktemp("derived-parts")
    src = root / "papers.jsonl"
    rows = read_jsonl_gz(PAPERS_GZ)[::10][:60]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    home = root / "home"
    config = get_paths(home).config_file  # the papers' sentence phase, whatever their count
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[search]\nsentence_phase = "all"\n', encoding="utf-8")
    with LitsiftService(get_paths(home), encoder=memo_encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        assert not svc.sources.import_paths(Kind.PAPER, [TEI]).bad
        assert svc.build_index(Kind.PAPER).mode == "full"
        embedded, total = svc.build_sentences(Kind.PAPER)
        assert embedded == total > 60
        assert svc.build_passages().passages > 50
        before, notes = snapshot(svc)
    assert all(before) and notes == {None}
    return home, before


@pytest.fixture
def home(pristine, tmp_path: Path) -> tuple[Path, Snapshot]:  # type: ignore[no-untyped-def]
    src, before = pristine
    copy_home(src, tmp_path / "home")
    return tmp_path / "home", before


def _file(home: Path, rel: str) -> Path:
    indexes = get_paths(home).index_dir
    found = sorted(indexes.glob(rel))
    assert len(found) == 1, (rel, found)
    return found[0]


CASES = [(rel, how) for rel in PART_OF for how in DAMAGE]


@pytest.mark.parametrize(("rel", "how"), CASES, ids=[f"{h}:{r}" for r, h in CASES])
def test_each_file_of_each_part_damaged_three_ways(home, memo_encoder, rel: str, how: str) -> None:  # type: ignore[no-untyped-def]
    path, before = home
    part = PART_OF[rel]
    DAMAGE[how](_file(path, rel))
    with LitsiftService(get_paths(path), encoder=memo_encoder) as svc:
        # search: what is intact answers, and the note says what is missing and the fix
        if part == "manifest":
            error = IndexMissingError if how == "delete" else IndexDamagedError
            with pytest.raises(error) as err:
                svc.search(Query(QUERIES[0], Kind.PAPER, fulltext=True))
            assert "litsift index" in err.value.hint
        else:
            result = svc.search(Query(QUERIES[0], Kind.PAPER, k=10, fulltext=True))
            assert result.hits
            note = result.partial or ""
            if part == "bm25":
                assert "BM25 index damaged" in note and "bm25" not in result.signals_used
            elif part == "dense":
                assert "dense index damaged" in note and result.signals_used[0] == "bm25"
                assert "dense" not in result.signals_used
            elif (rel, how) == ("passages/manifest.json", "delete"):
                # what an index of an older litsift looks like: searched (its structure is
                # checked on open), and rebuilt by the next build to get its file records
                assert note == "" and "passages" in result.signals_used
            elif part == "passages":
                assert "full text not searched: the passage index is damaged" in note
                assert "passages" not in result.signals_used
            else:  # sentences: plain search never reads them; aspect scoring does
                assert note == ""
                coverages = svc.score_aspects(decompose(QUERIES[0]), result.hits[:3])
                assert len(coverages) == 3
            if note:
                assert "run `litsift index`" in note

        # found (and marked) by now: the TUI rebuilds the kind at start, as for new rows
        assert svc.needs_index(Kind.PAPER) == (part in ("bm25", "dense", "manifest"))

        # `litsift index`: exactly the damaged part is rebuilt
        report, (embedded, total), repaired, passages = index_all(svc)
        rebuilt = {"bm25": ("bm25",), "dense": ("dense",), "manifest": ("bm25", "dense")}
        assert report.rebuilt == rebuilt.get(part, ())
        if part in ("bm25", "dense"):
            assert part in report.repaired
        assert (passages.repaired is not None) == (part == "passages")
        assert passages.unchanged == (part != "passages")
        if part == "sentences":
            # emptied and refilled (the 3 hits graded above were stored by the aspect scorer)
            assert embedded == total - 3
            if how != "delete":
                assert repaired is not None
        else:
            assert embedded == 0 and repaired is None

        assert snapshot(svc) == (before, {None})
    with LitsiftService(get_paths(path), encoder=memo_encoder) as svc:  # and on reopening
        assert snapshot(svc) == (before, {None})
        assert index_all(svc)[0].mode == "unchanged"


def test_damage_found_at_the_first_query_drops_bm25_and_marks_it(home, memo_encoder) -> None:  # type: ignore[no-untyped-def]
    """Tantivy's error at query time (a part too large to be checksummed on open: simulated
    by a manifest without file records) leaves the dense part answering and marks BM25
    damaged, so the next `litsift index` rebuilds it without --check."""
    path, before = home
    directory = get_paths(path).index_dir / "paper"
    manifest = json.loads((directory / "manifest.json").read_text())
    manifest["files"] = {}
    (directory / "manifest.json").write_text(json.dumps(manifest))
    term = _file(path, "paper/bm25/*.term")
    data = bytearray(term.read_bytes())
    data[100 : len(data) - 100] = random.Random(34).randbytes(len(data) - 200)
    term.write_bytes(bytes(data))
    with LitsiftService(get_paths(path), encoder=memo_encoder) as svc:
        result = svc.search(Query(QUERIES[0], Kind.PAPER, k=10))
        assert result.hits and result.signals_used == ("dense",)
        assert result.partial is not None and "BM25 index damaged" in result.partial
        assert "bm25" in json.loads((directory / "manifest.json").read_text())["damaged"]
        assert svc.build_index(Kind.PAPER).rebuilt == ("bm25",)
        assert snapshot(svc) == (before, {None})


def test_cli_search_notes_the_damage_and_index_repairs_it(home, encoder) -> None:  # type: ignore[no-untyped-def]
    """`litsift search --fulltext` with truncated dense.bin files (papers, passages): exit 0,
    BM25's hits over the abstracts and a note; `litsift index papers` with a truncated
    sentences.sqlite too (it exited 2 there, and the passage phase never ran) says what it
    repaired; then no note, and `index --check` finds every file sound."""
    from litsift.cli.root import main

    path, _ = home
    truncate(_file(path, "passages/dense.bin"))
    truncate(_file(path, "paper/dense.bin"))
    runner = CliRunner()
    search = ["--home", str(path), "search", QUERIES[0], "--fulltext"]
    result = runner.invoke(main, search)
    assert result.exit_code == 0, result.output
    assert "note: BM25 only — dense index damaged" in result.output
    assert "full text not searched: the passage index is damaged" in result.output
    assert "Traceback" not in result.output

    truncate(_file(path, "sentences.sqlite"))
    result = runner.invoke(main, ["--home", str(path), "index", "papers", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "repaired aspect sentences: sentences.sqlite:" in result.output
    assert "repaired dense: dense.bin has" in result.output
    assert (
        "full text: damaged: dense.bin has" in result.output and "repaired, built" in result.output
    )

    result = runner.invoke(main, search)
    assert result.exit_code == 0 and "note:" not in result.output, result.output
    result = runner.invoke(main, ["--home", str(path), "index", "papers", "--check", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "papers: every index file matches its checksum" in result.output
    assert "full text: every index file matches its checksum" in result.output
    assert "repaired" not in result.output and "up to date" in result.output
