"""Session fixtures: one real store + real indexes built once from a slice of ../shared/data.

The slice is 2,000 papers (every 10th line of the sample, so all venues and years appear) plus
all 3,327 datasets, indexed with the real int8 ONNX encoder. Building it takes about a minute on
two cores; every test that needs a searchable store shares it (read-only!). Tests that write
(labels, re-ingest, rebuilds) make their own home in ``tmp_path``.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from litsift.paths import shared_data_dir

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = shared_data_dir()
PAPERS_GZ = SHARED_DATA / "papers" / "ml-nlp-papers.jsonl.gz"
DATASETS_GZ = SHARED_DATA / "datasets" / "pwc-datasets.jsonl.gz"
EVAL_DIR = SHARED_DATA / "eval"
PAPER_SLICE_STEP = 10
PAPER_SLICE_SIZE = 2000


def copy_home(src: Path, dst: Path, *, dirs_exist_ok: bool = False) -> Path:
    """Copy a litsift home (or any tree holding SQLite files) to ``dst``; returns ``dst``.

    ``shutil.copytree`` opens each file as a plain file and closes it, and closing any
    descriptor of a file drops every POSIX lock this process holds on it (SQLite, "How To
    Corrupt An SQLite Database File", 2.2). The session's home is open in this process (the
    ``service`` fixture), so after such a copy a child process (a test running ``litsift``
    in a subprocess or a terminal) that closed its connection took itself for the last one and
    deleted the ``-wal`` and ``-shm`` files the session's connections still used: the next
    search here failed with "disk I/O error" (tests/unit/test_copy_home.py). SQLite files
    (``*.sqlite``) are copied through SQLite's online backup API instead, which keeps the
    locks; their ``-wal`` / ``-shm`` files are not copied (the backup holds their pages)."""
    import shutil
    import sqlite3
    from contextlib import closing

    def copy(source: str, target: str) -> object:
        if not source.endswith(".sqlite"):
            return shutil.copy2(source, target)
        uri = f"{Path(source).as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as a, closing(sqlite3.connect(target)) as b:
            a.backup(b)
        return target

    shutil.copytree(
        src,
        dst,
        ignore=shutil.ignore_patterns("*.sqlite-wal", "*.sqlite-shm"),
        copy_function=copy,
        dirs_exist_ok=dirs_exist_ok,
    )
    return dst


def read_jsonl_gz(path: Path) -> list[dict]:
    """All rows of a JSONL(.gz) file, split on \\n only (U+2028 appears inside strings)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as f:
        return [json.loads(line) for line in f.read().split("\n") if line.strip()]


def scifact_slice(
    directory: Path, n_queries: int = 20, n_other: int = 500
) -> tuple[Path, Path, Path]:
    """A BEIR-layout slice of SciFact test in ``directory``: the first ``n_queries`` queries
    (by id), their relevant documents and ``n_other`` others (seed 0). Returns (corpus,
    queries, qrels) paths."""
    import random

    from litsift.eval.benchmarks import read_jsonl
    from litsift.eval.trec import read_qrels

    scifact = EVAL_DIR / "scifact"
    qrels = read_qrels(scifact / "qrels" / "test.tsv")
    qids = sorted(qrels, key=int)[:n_queries]
    relevant = {d for q in qids for d in qrels[q]}
    rows = list(read_jsonl(scifact / "corpus.jsonl.gz"))
    others = [r for r in rows if r["_id"] not in relevant]
    keep = [r for r in rows if r["_id"] in relevant] + random.Random(0).sample(others, n_other)
    corpus = directory / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in keep))
    queries = directory / "queries.jsonl"
    queries.write_text("".join(json.dumps(r) + "\n" for r in read_jsonl(scifact / "queries.jsonl")))
    qrels_path = directory / "qrels.tsv"
    qrels_path.write_text(
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t{s}\n" for q in qids for d, s in qrels[q].items())
    )
    return corpus, queries, qrels_path


# -- test tiers (as bm25s keeps tests/core apart from tests/comparison_full) ----------------------
#: fixtures that stand for the session-built index (a test using any, even through another
#: fixture, is in the ``index`` tier)
SESSION_INDEX_FIXTURES = frozenset({"built_home", "service"})
TIERS = ("core", "encoder", "index", "tui", "terminal")
#: the passage-vector cache directory the xdist controller made for this run
_EMBED_CACHE_MADE = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``-n 2``, the CI command), the controller prepares what the workers
    share before it starts them: the ONNX export of the default encoder (two workers exporting
    into the same models directory at once would remove each other's temporary directories)
    and one passage-vector cache directory (SQLite in WAL mode, safe across processes), so a
    text embedded by one worker is a cache hit for the other. The controller removes that
    directory at the end (``pytest_unconfigure``): left behind, each run kept ~160 MB in /tmp."""
    import os
    import tempfile

    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        if not os.environ.get("LITSIFT_TEST_EMBED_CACHE"):
            made = tempfile.mkdtemp(prefix="litsift-embed-")
            os.environ["LITSIFT_TEST_EMBED_CACHE"] = made
            config.stash[_EMBED_CACHE_MADE] = made
        from litsift.models_onnx import load_encoder

        load_encoder()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the passage-vector cache directory this run made (not one given by the caller)."""
    import shutil

    made = config.stash.get(_EMBED_CACHE_MADE, None)
    if made:
        shutil.rmtree(made, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its one tier, from where it is and the fixtures it uses (directly or
    through other fixtures): ``terminal`` (litsift in a real terminal, tests/terminal/), ``tui``
    (the Textual app under Pilot, tests/tui/), ``index`` (the
    session-built index), ``encoder`` (loads the ONNX encoder, builds its own small indexes),
    else ``core`` (fast and pure: no model, no session index). Each tier runs alone with
    ``-m TIER``; the plain run still runs every test."""
    tui_dir = Path(__file__).parent / "tui"
    terminal_dir = Path(__file__).parent / "terminal"
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if terminal_dir in Path(str(item.path)).parents:
            tier = "terminal"
            # one worker runs them one after the other: each starts litsift with 2 workers
            item.add_marker(pytest.mark.xdist_group("terminal"))
        elif tui_dir in Path(str(item.path)).parents:
            tier = "tui"
        elif fixtures & SESSION_INDEX_FIXTURES:
            tier = "index"
        elif "encoder" in fixtures:
            tier = "encoder"
        else:
            tier = "core"
        item.add_marker(getattr(pytest.mark, tier))
        if fixtures & SESSION_INDEX_FIXTURES:
            # one worker builds the session index and runs every test on it (--dist loadgroup)
            item.add_marker(pytest.mark.xdist_group("session_index"))


@pytest.fixture(scope="session")
def paper_slice_rows() -> list[dict]:
    rows = read_jsonl_gz(PAPERS_GZ)
    return rows[::PAPER_SLICE_STEP][:PAPER_SLICE_SIZE]


@pytest.fixture(scope="session")
def paper_slice_file(
    tmp_path_factory: pytest.TempPathFactory, paper_slice_rows: list[dict]
) -> Path:
    path = tmp_path_factory.mktemp("slice") / "papers-2000.jsonl"
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in paper_slice_rows),
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="session")
def encoder(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The real default encoder (int8 ONNX), exported once into the shared models dir, with
    the passage-vector cache (litsift.cache.embeddings) in a directory of this session -- or
    in ``LITSIFT_TEST_EMBED_CACHE`` when set, so local re-runs embed nothing twice. Vectors are
    a function of the text alone, so a cached vector is exactly what the encoder gives (on
    the CPU that made it). The cache starts with the committed vectors of the suite's fixed
    texts (:mod:`tests.embed_seed`)."""
    import os

    from litsift.cache.embeddings import EmbeddingCache
    from litsift.models_onnx import load_encoder
    from tests.embed_seed import load_seed

    directory = os.environ.get("LITSIFT_TEST_EMBED_CACHE") or str(
        tmp_path_factory.mktemp("embed-cache")
    )
    os.environ["LITSIFT_EMBED_CACHE_DIR"] = directory  # services and subprocesses too
    enc = load_encoder()
    enc.passage_cache = EmbeddingCache(Path(directory) / "embeddings.sqlite")
    load_seed(enc.passage_cache, enc.cache_key)  # the fixed texts' committed vectors
    return enc


@pytest.fixture(scope="session")
def built_home(
    tmp_path_factory: pytest.TempPathFactory, paper_slice_file: Path, encoder
) -> Iterator[Path]:
    """A LITSIFT_HOME with the paper slice + all datasets ingested and both indexes built."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    home = tmp_path_factory.mktemp("home")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, paper_slice_file).ok
        svc.ingest(Kind.DATASET, DATASETS_GZ)
        svc.build_index(Kind.PAPER)
        svc.build_index(Kind.DATASET)
    yield home


@pytest.fixture(scope="session")
def service(built_home: Path, encoder) -> Iterator[object]:
    """A read-mostly service over :func:`built_home`. Don't write labels here."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    svc = LitsiftService(get_paths(built_home), encoder=encoder)
    yield svc
    svc.close()


# -- the scripted LLM server (tests/llm_server.py): one per session ------------------------------


@pytest.fixture(scope="session")
def _llm_server_process() -> Iterator[object]:
    from tests.llm_server import ScriptedLLMServer

    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def llm_server(_llm_server_process):  # type: ignore[no-untyped-def]
    """The session's scripted chat-completions server on 127.0.0.1, with no queued reply and
    no recorded request when a test module starts (module fixtures may configure it)."""
    _llm_server_process.reset()
    return _llm_server_process


@pytest.fixture
def srv(llm_server):  # type: ignore[no-untyped-def]
    """:func:`llm_server`, emptied before the test."""
    llm_server.reset()
    return llm_server
