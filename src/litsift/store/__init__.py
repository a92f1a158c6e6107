"""SQLite store (sqlite-utils, WAL): schema and migrations, typed reads, JSONL ingest.

``Store`` opens and migrates the file (``Paths.store_file``); ``ingest_jsonl`` and
``ingest_records`` upsert papers or datasets by id and report bad lines by line number.
"""

from litsift.store.faults import fault_in_chain, store_fault
from litsift.store.ingest import BadLine, ProgressFn, ingest_jsonl, ingest_records
from litsift.store.repo import Store
from litsift.store.report import IngestReport, Problem
from litsift.store.schema import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "BadLine",
    "IngestReport",
    "Problem",
    "ProgressFn",
    "Store",
    "fault_in_chain",
    "ingest_jsonl",
    "ingest_records",
    "store_fault",
]
