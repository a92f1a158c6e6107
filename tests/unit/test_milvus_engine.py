"""The Milvus engine (issue 33) against the local engine, on 300 real papers of the sample.

Milvus Lite runs in both of its modes: in-process on a ``.db`` file, and as its gRPC server
(``milvus-lite server``) on 127.0.0.1, reached over the network by the same pymilvus code a lab's
Milvus Standalone is. The local engine (tantivy + hnswlib) is the reference: dense hits must be
the same documents (both search exactly the same vectors with HNSW on 300 rows), BM25 hits the
same documents up to the small score differences of two BM25 implementations (tantivy's
lossy field-norm bytes vs Milvus's exact lengths), and every year filter must hold inside
Milvus. Needs the ``scale`` extra (pymilvus, milvus-lite).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

from litsift.cli.root import main
from litsift.config import Config, EngineSettings, parse_config
from litsift.errors import ConfigError, IndexMismatchError, IndexMissingError
from litsift.paths import get_paths
from litsift.search.build.layout import index_dir_for
from litsift.search.engines.milvus import MilvusEngine
from litsift.search.engines.milvus_collections import PROPERTY, year_expression
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query, YearRange
from tests.conftest import copy_home

N_PAPERS = 300
QUERIES = [
    "neural machine translation for low-resource languages",
    "graph neural networks",
    "question answering over knowledge bases",
    "bias in language models",
    "speech recognition",
    "contrastive learning of sentence embeddings",
]
YEARS = [YearRange(), YearRange(2021, 2021), YearRange(None, 2020, include_missing=False)]


def _milvus_config(uri: str, prefix: str = "litsift_") -> Config:
    return replace(Config(), engine=EngineSettings("milvus", uri, "", prefix))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, paper_slice_rows: list[dict], encoder) -> Path:
    """300 real papers, local indexes built (the reference), nothing pushed yet."""
    home = tmp_path_factory.mktemp("milvus-home")
    papers = home / "papers.jsonl"
    papers.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in paper_slice_rows[:N_PAPERS]),
        encoding="utf-8",
    )
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, papers).ok
        svc.build_index(Kind.PAPER)
    return home


@pytest.fixture(scope="module")
def lite_file(home: Path, encoder) -> Iterator[LitsiftService]:
    """The home's papers pushed to a Milvus Lite file; a service searching them."""
    svc = LitsiftService(get_paths(home), config=_milvus_config("lite.db"), encoder=encoder)
    report = svc.push_index(Kind.PAPER)
    assert (report.pushed, report.count, report.created) == (N_PAPERS, N_PAPERS, True)
    yield svc
    svc.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def lite_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``milvus-lite server`` on 127.0.0.1 (its gRPC API, as Milvus Standalone serves it)."""
    port = _free_port()
    data = tmp_path_factory.mktemp("milvus-server")
    exe = shutil.which("milvus-lite", path=str(Path(sys.executable).parent)) or "milvus-lite"
    proc = subprocess.Popen(
        [exe, "server", "--data-dir", str(data), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("milvus-lite server did not listen within 60 s")
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=30)


def _ids(run: list[tuple[int, float]]) -> list[int]:
    return [d for d, _ in run]


def test_milvus_lite_file_answers_as_the_local_engine(home: Path, lite_file, encoder) -> None:
    with LitsiftService(get_paths(home), encoder=encoder) as local_svc:
        local = local_svc.searchers.of_kind(Kind.PAPER)
        milvus = lite_file.searchers.of_kind(Kind.PAPER)
        assert type(milvus.bm25).__name__ == "MilvusBM25"
        years_of = local_svc.store.year_by_rowid(Kind.PAPER)
        for text in QUERIES:
            qvec = local.encode(text)
            for years in YEARS:
                # dense: the same vectors, the same documents and cosines
                a, b = local.dense_run(qvec, 20, years), milvus.dense_run(qvec, 20, years)
                assert _ids(a) == _ids(b), (text, years)
                assert np.allclose([s for _, s in a], [s for _, s in b], atol=1e-5)
                # BM25: the same analysed terms; two implementations agree on the top
                a, b = local.bm25_run(text, 20, years), milvus.bm25_run(text, 20, years)
                assert len(a) == len(b)
                top = min(len(a), 10)
                assert len(set(_ids(a)[:10]) & set(_ids(b)[:10])) >= top - 2, (text, years)
                if a:
                    assert _ids(b)[0] in _ids(a)[:3], (text, years)
                    assert abs(a[0][1] - b[0][1]) / a[0][1] < 0.1
                # the year filter holds inside Milvus
                for rowid in _ids(b):
                    assert years.contains(int(years_of[rowid]) if years_of[rowid] >= 0 else None)
            # the fused hits: same documents at the top
            q = Query(text, k=10)
            top_local = [h.record.id for h in local_svc.search(q).hits]
            top_milvus = [h.record.id for h in lite_file.search(q).hits]
            assert len(set(top_local) & set(top_milvus)) >= 8, text
            assert top_milvus[0] in top_local[:3]


def test_search_hits_explain_both_signals_and_vectors_come_back(lite_file, encoder) -> None:
    result = lite_file.search(Query("neural machine translation", k=5))
    assert len(result.hits) == 5
    for hit in result.hits:
        assert set(hit.signals) == {"bm25", "dense"}
    searcher = lite_file.searchers.of_kind(Kind.PAPER)
    rowids = [h.record.rowid for h in result.hits]
    found, vecs = searcher.vectors(rowids)
    assert list(found) == rowids and vecs.shape == (5, encoder.dim)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    # the stored vectors are the encoder's (what Rocchio feedback and "more like this" read)
    assert np.allclose(vecs, searcher.record_vectors([h.record for h in result.hits]))


def test_push_is_incremental_and_resumes_after_an_interruption(
    home: Path, encoder, paper_slice_rows: list[dict], tmp_path: Path
) -> None:
    copy = tmp_path / "home"  # this test changes a row: the module's home stays as it is
    copy_home(home, copy)
    config = _milvus_config(str(tmp_path / "resume.db"))
    with LitsiftService(get_paths(copy), config=config, encoder=encoder) as svc:
        engine = svc.engine
        assert isinstance(engine, MilvusEngine)
        batches = []

        def stop_after_first_batch(stage: str, done: int, total: int) -> None:
            batches.append(done)
            if done >= 100:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            engine.push(
                svc.store, encoder, Kind.PAPER, progress=stop_after_first_batch, batch_size=100
            )
        assert engine.count(Kind.PAPER) == 100
        resumed = engine.push(svc.store, encoder, Kind.PAPER, batch_size=100)
        assert (resumed.resumed, resumed.pushed, resumed.count) == (True, 200, N_PAPERS)
        again = engine.push(svc.store, encoder, Kind.PAPER)
        assert (again.pushed, again.count) == (0, N_PAPERS)
        # a changed row (re-ingested with a new title) is the only one pushed next time
        changed = dict(paper_slice_rows[7], title="Zyxwvut quokka retrieval benchmark")
        path = tmp_path / "changed.jsonl"
        path.write_text(json.dumps(changed) + "\n", encoding="utf-8")
        assert svc.ingest(Kind.PAPER, path).ok
        update = svc.push_index(Kind.PAPER)
        assert (update.pushed, update.count) == (1, N_PAPERS)
        hits = svc.search(Query("quokka zyxwvut", k=3, fusion="bm25")).hits
        assert [h.record.id for h in hits] == [changed["id"]]


def test_milvus_lite_server_on_localhost_gives_the_file_modes_hits(
    home: Path, lite_file, lite_server: str, encoder
) -> None:
    config = _milvus_config(lite_server, prefix="srv_")
    with LitsiftService(get_paths(home), config=config, encoder=encoder) as svc:
        report = svc.push_index(Kind.PAPER)
        assert (report.pushed, report.count) == (N_PAPERS, N_PAPERS)
        served = svc.searchers.of_kind(Kind.PAPER)
        in_file = lite_file.searchers.of_kind(Kind.PAPER)
        for text in QUERIES[:3]:
            for years in YEARS:
                assert served.bm25_run(text, 20, years) == in_file.bm25_run(text, 20, years)
                qvec = served.encode(text)
                a, b = served.dense_run(qvec, 20, years), in_file.dense_run(qvec, 20, years)
                assert _ids(a) == _ids(b)


def test_a_collection_of_another_encoder_is_refused(home: Path, encoder, tmp_path: Path) -> None:
    config = _milvus_config(str(tmp_path / "other.db"))
    with LitsiftService(get_paths(home), config=config, encoder=encoder) as svc:
        svc.push_index(Kind.PAPER)
        engine = svc.engine
        assert isinstance(engine, MilvusEngine)
        other = json.dumps(
            {
                "litsift": 1,
                "kind": "paper",
                "model": "bge-small",
                "dim": 384,
                "encoder": "another-onnx-file",
            }
        )
        engine.client.alter_collection_properties("litsift_papers", properties={PROPERTY: other})
        svc.searchers.invalidate()
        with pytest.raises(IndexMismatchError, match="another encoder") as err:
            svc.search(Query("graph neural networks"))
        assert "--rebuild" in err.value.hint
        # the next push sees it and rebuilds the collection from the store
        rebuilt = svc.push_index(Kind.PAPER)
        assert (rebuilt.created, rebuilt.pushed) == (True, N_PAPERS)


def test_cli_index_and_search_on_milvus_and_an_unreachable_server(
    tmp_path: Path, paper_slice_rows: list[dict]
) -> None:
    home = tmp_path / "home"  # 40 papers, no local index: the CLI pushes straight to Milvus
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:40]), "utf-8")
    home.mkdir()
    (home / "config.toml").write_text('[engine]\nuri = "cli.db"\n', encoding="utf-8")
    runner = CliRunner()
    out = runner.invoke(main, ["--home", str(home), "ingest", "papers", str(papers), "--quiet"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(
        main, ["--home", str(home), "index", "papers", "--engine", "milvus", "--quiet"]
    )
    assert out.exit_code == 0, out.output
    assert "40 rows pushed to Milvus collection litsift_papers (created, 40 in it" in out.output
    assert not index_dir_for(get_paths(home).index_dir, Kind.PAPER).exists()  # none built here
    out = runner.invoke(
        main,
        ["--home", str(home), "search", "neural networks", "--engine", "milvus", "--json"],
    )
    assert out.exit_code == 0, out.output
    answer = json.loads(out.stdout)
    hits = answer["hits"]
    assert len(hits) == 10 and all(set(h["signals"]) == {"bm25", "dense"} for h in hits)
    # the answer names its engine (issue 42 item 3): Milvus Lite's file in the index dir
    assert answer["engine"] == f"milvus at {get_paths(home).index_dir / 'cli.db'}"
    assert answer["signals_used"] == ["bm25", "dense"]
    # a server that is not there: our message and hint, no traceback, no exception name
    (home / "config.toml").write_text(
        f'[engine]\nkind = "milvus"\nuri = "http://127.0.0.1:{_free_port()}"\n', "utf-8"
    )
    out = runner.invoke(main, ["--home", str(home), "search", "graph neural networks"])
    assert out.exit_code == 1
    assert "Milvus at http://127.0.0.1:" in out.output and "engine.uri" in out.output
    assert "Traceback" not in out.output and "MilvusException" not in out.output


def test_engine_config_is_validated() -> None:
    cfg = parse_config(
        {
            "engine": {
                "kind": "milvus",
                "uri": "http://10.0.0.5:19530",
                "token_env": "MILVUS_TOKEN",
                "collection_prefix": "lab_",
            }
        }
    )
    assert cfg.engine == EngineSettings("milvus", "http://10.0.0.5:19530", "MILVUS_TOKEN", "lab_")
    assert parse_config({}).engine.kind == "local"
    with pytest.raises(ConfigError, match=r"engine\.kind must be one of local, milvus"):
        parse_config({"engine": {"kind": "qdrant"}})
    with pytest.raises(ConfigError, match="collection_prefix"):
        parse_config({"engine": {"collection_prefix": "9-bad name"}})
    with pytest.raises(ConfigError, match=r"unknown key engine\.host"):
        parse_config({"engine": {"host": "x"}})


def test_a_missing_token_and_a_bad_lite_path_are_config_errors(tmp_path: Path) -> None:
    from litsift.search.engines.base import open_engine

    os.environ.pop("LITSIFT_TEST_NO_SUCH_TOKEN", None)
    with pytest.raises(ConfigError, match="LITSIFT_TEST_NO_SUCH_TOKEN"):
        open_engine(
            EngineSettings("milvus", "http://127.0.0.1:1", "LITSIFT_TEST_NO_SUCH_TOKEN"), tmp_path
        )
    with pytest.raises(ConfigError, match="neither a server URL nor a Milvus Lite file"):
        open_engine(EngineSettings("milvus", "corpus.sqlite"), tmp_path)


def test_search_before_any_push_says_what_to_run(home: Path, encoder, tmp_path: Path) -> None:
    config = _milvus_config(str(tmp_path / "empty.db"))
    with LitsiftService(get_paths(home), config=config, encoder=encoder) as svc:
        with pytest.raises(IndexMissingError, match="no Milvus collection litsift_papers") as e:
            svc.search(Query("graph neural networks"))
        assert "litsift index papers --engine milvus" in e.value.hint
        # the TUI builds what needs_index names at start: nothing local on a Milvus engine
        assert not svc.needs_index(Kind.PAPER)


def test_year_expression() -> None:
    assert year_expression(YearRange()) == ""
    assert year_expression(YearRange(2015, 2019)) == "(year >= 2015 and year <= 2019) or year == -1"
    assert year_expression(YearRange(None, 2019, include_missing=False)) == (
        "(year >= 0 and year <= 2019)"
    )


def test_full_text_passages_in_milvus_answer_as_the_local_passage_index(
    tmp_path: Path, paper_slice_rows: list[dict], encoder
) -> None:
    """Three GROBID TEI files of real papers (shared/data/sources/fulltext): their passages
    pushed to Milvus give the local passage index's hits, and a full-text search through the
    Milvus engine carries the passage."""
    from litsift.paths import shared_data_dir

    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:30]), "utf-8")
    home = tmp_path / "home"
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, papers).ok
        tei = shared_data_dir() / "sources" / "fulltext" / "grobid-tei"
        assert not svc.sources.import_paths(Kind.PAPER, [tei]).bad
        svc.build_index(Kind.PAPER)
        built = svc.build_passages()
        assert built.passages > 50
        local = svc.passage_index
        assert local is not None
        questions = [
            "electrical stimulation of multiple contacts for hand function",
            "what corpus was used for training",
        ]
        expected = {q: local.search(q, k=10) for q in questions}
    with LitsiftService(get_paths(home), config=_milvus_config("lite.db"), encoder=encoder) as svc:
        assert not svc.has_passages()
        report = svc.push_passages()
        assert (report.pushed, report.count, report.created) == (built.passages,) * 2 + (True,)
        assert svc.push_passages().pushed == 0  # unchanged: nothing pushed again
        assert svc.has_passages()
        index = svc.passage_index
        assert index is not None and index.count == built.passages
        for q in questions:
            got = index.search(q, k=10)
            want = expected[q]
            keys = [(h.passage.doc_id, h.passage.idx) for h in got]
            want_keys = [(h.passage.doc_id, h.passage.idx) for h in want]
            assert keys[0] in want_keys[:3], q
            assert len(set(keys) & set(want_keys)) >= 7, q
        svc.push_index(Kind.PAPER)
        hits = svc.search(Query(questions[0], k=5, fulltext=True)).hits
        assert any(h.passage is not None for h in hits)
