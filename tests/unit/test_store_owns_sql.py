"""Issue 28 items 4 and 6: SQL against the store's tables lives in ``store/``; one ingest
report type serves the JSONL ingest, imports and syncs; one LLM call-stats type."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from litsift.sources.importer import import_paths
from litsift.sources.writer import RecordWriter
from litsift.store import IngestReport, Store, ingest_jsonl
from litsift.types import Kind
from tests.conftest import PAPERS_GZ

SRC = Path(__file__).resolve().parents[2] / "src" / "litsift"
#: modules outside store/ that may run SQL: zotero.py reads Zotero's own database
OWN_DATABASES = {"sources/formats/zotero.py"}


def test_sql_against_store_tables_lives_in_store() -> None:
    outside = sorted(SRC.glob("service*.py"))
    for package in ("sources", "rq", "graph", "review"):
        outside += sorted((SRC / package).glob("*.py"))
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for path in outside
        if str(path.relative_to(SRC)) not in OWN_DATABASES
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"\.execute(many)?\(", line)
    ]
    assert found == []


def test_an_import_folds_a_jsonl_files_report_into_the_same_report_type(tmp_path: Path) -> None:
    """A JSONL file read by ``litsift ingest`` (import_paths) and by ingest_jsonl gives the same
    counts in the same type: its duplicate ids count as unchanged, its bad line is located as
    ``FILE:LINE``."""
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line, _ in zip(f, range(5), strict=False)]
    lines = [json.dumps(r) for r in rows] + [json.dumps(rows[0]), '{"id": "x", "title": 7}']
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Store(tmp_path / "a.sqlite") as store:
        direct = ingest_jsonl(store, Kind.PAPER, path)
    with Store(tmp_path / "b.sqlite") as store:
        imported = import_paths(store, [path], Kind.PAPER)
        writer = RecordWriter(store)
    assert type(direct) is type(imported) is type(writer.counts) is IngestReport
    assert (direct.read, direct.added, direct.duplicates) == (7, 5, 1)
    assert (imported.read, imported.added, imported.unchanged) == (7, 5, 1)
    assert [str(p) for p in imported.bad] == [str(p) for p in direct.bad]
    assert [str(p).split(": ")[0] for p in imported.bad] == [f"{path}:7"]
    assert imported.files == [(str(path), "jsonl", 7)]


def test_the_call_log_and_a_piece_of_work_count_llm_calls_in_one_type(tmp_path: Path) -> None:
    from litsift.cache import LLMCache
    from litsift.cache.llm_cache import CallStats, Usage

    stats = CallStats().add(Usage(12, 3), 0.5, cached=False).add(Usage(), 0.0, cached=True)
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        totals = cache.totals()
    assert type(totals) is CallStats
    assert (stats.calls, stats.cached_calls, stats.prompt_tokens, stats.cost_usd) == (2, 1, 12, 0.5)
