"""Aspect scoring without the papers' sentence phase (issue 32): past
``search.sentence_phase_max_records`` records `litsift index` embeds no sentence of that kind; a
shown hit's sentences are cut and embedded when it is first scored and kept in a bounded on-disk
cache (least recently used dropped first, the phase's rows pinned); the vectors are stored as
int8 with one scale per vector; a write killed halfway leaves the file usable with its last
commit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from litsift.config import load_config
from litsift.errors import ConfigError
from litsift.paths import get_paths
from litsift.search.aspects.decompose import decompose
from litsift.search.aspects.scoring import AspectScorer
from litsift.search.aspects.sentences import FILE_NAME, SentenceStore, sentence_views
from litsift.search.retrieval.record_text import passage_text
from litsift.search.retrieval.vector_codec import pack_vectors, unpack_vectors
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Paper
from tests.counting import CountingEncoder

QUERY = (
    "Unsupervised word alignment for low-resource machine translation. "
    "We evaluate transformer models on parallel corpora."
)


def _write_config(home: Path, text: str) -> None:
    config = get_paths(home).config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")


def _papers(rows: list[dict], n: int) -> list[Paper]:
    return [Paper(id=r["id"], title=r["title"], abstract=r.get("abstract") or "") for r in rows[:n]]


def test_index_runs_no_paper_phase_and_shown_hits_are_scored_on_demand(
    tmp_path: Path, paper_slice_rows: list[dict], encoder
) -> None:  # type: ignore[no-untyped-def]
    from litsift.cli.root import main

    home = tmp_path / "home"
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:12]), encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["--home", str(home), "ingest", "papers", str(src)]).exit_code == 0
    _write_config(home, "[search]\nsentence_phase_max_records = 10\n")  # 12 papers: too many
    out = runner.invoke(main, ["--home", str(home), "index", "papers", "--quiet"])
    assert out.exit_code == 0, out.output
    assert (
        "papers: aspect sentences are embedded when a hit is first scored (more than "
        "search.sentence_phase_max_records = 10; the last 20,000 are kept)"
    ) in out.stdout

    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(home), encoder=counting) as svc:  # type: ignore[arg-type]
        assert not svc.sentence_phase(Kind.PAPER) and svc.sentence_phase(Kind.DATASET)
        assert not svc.needs_sentences(Kind.PAPER)  # nothing for the TUI to resume
        sentences = svc.sentence_store
        assert sentences is not None and sentences.count(Kind.PAPER) == 0
        assert svc.build_sentences(Kind.PAPER) == (0, 12) and counting.passages == 0

        records = [r for batch in svc.store.rows_since(Kind.PAPER) for r in batch][:5]
        first = AspectScorer(counting, sentences=sentences).score(decompose(QUERY), records)
        assert counting.passages > 0  # cut and embedded on demand...
        assert sentences.count(Kind.PAPER, pinned=False) == 5  # ...and kept, unpinned
        assert any(s.grade > 0 for c in first for s in c.scores)
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(home), encoder=counting) as svc:  # type: ignore[arg-type]
        again = AspectScorer(counting, sentences=svc.sentence_store).score(
            decompose(QUERY), records
        )
        assert again == first and counting.passages == 0  # a later search embeds nothing


def test_the_auto_phase_runs_while_a_kind_is_small_and_its_rows_join_the_cache_past_it(
    tmp_path: Path, paper_slice_rows: list[dict], encoder
) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:12]), encoding="utf-8")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:  # the default: "auto", 50,000
        assert svc.ingest(Kind.PAPER, src).ok
        assert svc.sentence_phase(Kind.PAPER) and svc.needs_sentences(Kind.PAPER)
        assert svc.build_sentences(Kind.PAPER) == (12, 12)
        assert svc.sentence_store is not None
        assert svc.sentence_store.count(Kind.PAPER, pinned=True) == 12
    _write_config(home, "[search]\nsentence_phase_max_records = 10\nsentence_cache_records = 5\n")
    counting = CountingEncoder(encoder)
    with LitsiftService(get_paths(home), encoder=counting) as svc:  # type: ignore[arg-type]
        assert not svc.sentence_phase(Kind.PAPER) and not svc.needs_sentences(Kind.PAPER)
        assert svc.build_sentences(Kind.PAPER) == (0, 12) and counting.passages == 0
        assert svc.sentence_store is not None
        assert (
            svc.sentence_store.count(Kind.PAPER)
            == svc.sentence_store.count(Kind.PAPER, pinned=False)
            == 5
        )


def test_the_cache_is_bounded_and_drops_the_least_recently_used(
    tmp_path: Path, paper_slice_rows: list[dict], encoder
) -> None:  # type: ignore[no-untyped-def]
    papers = _papers(paper_slice_rows, 6)
    views = sentence_views(papers, encoder)
    store = SentenceStore(tmp_path / FILE_NAME, encoder.cache_key, encoder.dim, max_cached=3)
    for p, v in zip(papers[:3], views[:3], strict=True):
        store.put(Kind.PAPER, [(p.id, v)])
    assert store.get(Kind.PAPER, [(papers[0].id, passage_text(papers[0]))])  # p0 used again
    store.put(Kind.PAPER, [(papers[3].id, views[3])])
    wanted = [(p.id, passage_text(p)) for p in papers[:4]]
    assert set(store.get(Kind.PAPER, wanted)) == {papers[0].id, papers[2].id, papers[3].id}

    # the phase's rows are pinned: never dropped to bound the cache, and not counted in it
    store.put(Kind.PAPER, [(papers[4].id, views[4]), (papers[5].id, views[5])], pinned=True)
    store.put(Kind.DATASET, [("d1", views[1])])
    assert store.count(Kind.PAPER, pinned=True) == 2
    assert store.count(Kind.PAPER, pinned=False) + store.count(Kind.DATASET) == 3
    # a kind whose phase is switched off: its rows join the cache, trimmed to the bound
    store.set_pinned(Kind.PAPER, False)
    assert store.count(Kind.PAPER) + store.count(Kind.DATASET) == 3
    store.close()


def test_a_home_with_a_small_cache_keeps_only_that_many(
    tmp_path: Path, paper_slice_rows: list[dict], encoder
) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    _write_config(home, "[search]\nsentence_cache_records = 4\n")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.sentence_store is not None and svc.sentence_store.max_cached == 4
        scorer = AspectScorer(encoder, sentences=svc.sentence_store)
        scorer.score(decompose(QUERY), _papers(paper_slice_rows, 7))
        assert svc.sentence_store.count(Kind.PAPER) == 4


@pytest.mark.parametrize(
    ("text", "key"),
    [('sentence_phase = "papers"', "search.sentence_phase"), ("sentence_cache_records = -1", "")],
)
def test_bad_sentence_settings_are_config_errors(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"[search]\n{text}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert key in err.value.message and "sentence" in err.value.message


def test_int8_vectors_round_trip_within_tolerance(paper_slice_rows: list[dict], encoder) -> None:  # type: ignore[no-untyped-def]
    papers = _papers(paper_slice_rows, 8)
    texts = [passage_text(p) for p in papers]
    raw = np.asarray(encoder.encode_passages(texts), dtype=np.float32)
    blob = pack_vectors(raw)
    assert len(blob) == len(raw) * (4 + encoder.dim)  # a quarter of float32, plus the scales
    back = unpack_vectors(blob, len(raw), encoder.dim)
    assert back is not None and back.shape == raw.shape and back.dtype == np.float32
    query = encoder.encode_queries([QUERY])[0]
    assert np.abs(back @ query - raw @ query).max() < 0.01
    assert np.allclose(np.linalg.norm(back, axis=1), 1.0, atol=1e-5)
    assert unpack_vectors(blob[:-1], len(raw), encoder.dim) is None  # a torn row is refused
    # rounding is idempotent: a record read back from the store grades like a fresh one
    view = sentence_views(papers[:1], encoder)[0]
    again = unpack_vectors(pack_vectors(view.vectors), len(view.vectors), encoder.dim)
    assert again is not None and np.abs(again - view.vectors).max() < 1e-6


_KILLED_WRITER = """
import os, signal, sys
import numpy as np
from pathlib import Path
from litsift.search.aspects.sentences import SentenceStore, SentenceView
from litsift.search.retrieval.vector_codec import pack_vectors
store = SentenceStore(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
store._db.execute("PRAGMA cache_size = 1")  # dirty pages go to the WAL before the commit
rng = np.random.default_rng(7)
rows = [("paper", f"killed-{i}", b"x" * 20, np.zeros(16, "<i4").tobytes(),
         pack_vectors(rng.standard_normal((8, int(sys.argv[3])))), 0, 0) for i in range(2000)]
store._db.execute("BEGIN")
store._db.executemany("INSERT INTO sentences VALUES (?,?,?,?,?,?,?)", rows)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_write_killed_halfway_leaves_the_cache_usable(
    tmp_path: Path, paper_slice_rows: list[dict], encoder
) -> None:  # type: ignore[no-untyped-def]
    papers = _papers(paper_slice_rows, 3)
    views = sentence_views(papers, encoder)
    path = tmp_path / FILE_NAME
    store = SentenceStore(path, encoder.cache_key, encoder.dim)
    store.put(Kind.PAPER, [(p.id, v) for p, v in zip(papers[:2], views[:2], strict=True)])
    store.close()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITER, str(path), encoder.cache_key, str(encoder.dim)],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    assert Path(f"{path}-wal").stat().st_size > 1_000_000  # the write had reached the disk

    reopened = SentenceStore(path, encoder.cache_key, encoder.dim)
    assert reopened.repaired is None and reopened.count(Kind.PAPER) == 2  # the last commit
    got = reopened.get(Kind.PAPER, [(p.id, passage_text(p)) for p in papers[:2]])
    for p, v in zip(papers[:2], views[:2], strict=True):
        assert got[p.id].packed == v.packed and np.array_equal(got[p.id].vectors, v.vectors)
    reopened.put(Kind.PAPER, [(papers[2].id, views[2])])
    assert reopened.count(Kind.PAPER) == 3
    reopened.close()
