"""Issue 28 item 6: one ingest report type serves the JSONL ingest, imports and syncs; one LLM
call-stats type. (That no SQL against the store runs outside ``store/`` is checked, for every
module, by ``test_architecture_store.py``.)"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from litsift.sources.importer import import_paths
from litsift.sources.writer import RecordWriter
from litsift.store import IngestReport, Store, ingest_jsonl
from litsift.types import Kind
from tests.conftest import PAPERS_GZ


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
    from litsift.types.llm import CallStats, Usage

    stats = CallStats().add(Usage(12, 3), 0.5, cached=False).add(Usage(), 0.0, cached=True)
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        totals = cache.totals()
    assert type(totals) is CallStats
    assert (stats.calls, stats.cached_calls, stats.prompt_tokens, stats.cost_usd) == (2, 1, 12, 0.5)
