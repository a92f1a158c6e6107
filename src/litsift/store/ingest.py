"""Ingest papers and datasets from JSONL / JSONL.gz (or in-memory dicts) into the store.

An ingest runs in two phases, so re-ingesting a file is idempotent even when the file holds
the same id twice (the DataFinder sample does, 33 times):

1. **read**: each line is decoded, validated (:func:`litsift.store.records.normalize`) and
   upserted into a connection-private TEMP staging table keyed by id, so a later line with the
   same id replaces an earlier one (last one wins) before anything is compared;
2. **merge**: staged rows, in order of first appearance, are compared with the stored rows by
   content hash in batches; new or changed rows are upserted with the next store-wide
   revisions. Each batch is one ``BEGIN IMMEDIATE`` transaction, so an interrupted ingest
   leaves every committed batch readable and the store consistent; running it again finishes
   the job (committed rows then count as unchanged).

Lines are read by :mod:`litsift.store.jsonl` (bytes split on ``b"\\n"``, strict UTF-8 and JSON
per line, gzip recognised by its magic bytes). No line can fail the ingest: every per-line
failure -- encoding, nesting depth, number range, a field of the wrong type -- is reported with
its 1-based line number and skipped, and every good line is kept; blank lines are skipped
silently.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.store.dataset_names import (
    DatasetNames,
    dataset_names,
    dataset_row,
    fields_of,
    merge_dataset,
    values_of,
)
from litsift.store.faults import machine_fault, store_fault
from litsift.store.jsonl import BadLine, JsonlReader, open_input
from litsift.store.merges import current_revision, set_revision, upsert_sql
from litsift.store.records import InvalidRecord, content_hash, normalize
from litsift.store.repo import Store
from litsift.store.report import IngestReport, Problem
from litsift.store.schema import CONTENT_COLUMNS
from litsift.types import Kind

#: ``progress(done, total)``. While reading: ``done`` = input lines read, ``total`` = None.
#: While writing: ``done`` = unique records merged, ``total`` = unique records to merge.
#: Called once per batch; an exception raised from it aborts the ingest (committed batches stay).
ProgressFn = Callable[[int, int | None], None]

_STAGE = "temp._litsift_ingest_stage"

__all__ = ["BadLine", "IngestReport", "ProgressFn", "ingest_jsonl", "ingest_records"]


class _Ingest:
    """One ingest run: staging, then batched merge; fills an :class:`IngestReport`."""

    def __init__(
        self,
        store: Store,
        kind: Kind,
        report: IngestReport,
        progress: ProgressFn | None,
        batch_size: int,
        reader: JsonlReader | None = None,
        clean: Callable[[Any], Any] | None = None,
    ) -> None:
        if store.readonly:
            if store.write_fault is not None:  # a read-only home or a full disk
                raise store.write_fault
            raise IngestError(
                f"the store {store.path} is open read-only", "open it for writing to ingest"
            )
        self.store, self.kind, self.report = store, kind, report
        self.progress, self.batch_size = progress, max(1, batch_size)
        self.reader, self.clean = reader, clean
        self._names: DatasetNames | None = None  # datasets by name key, once needed
        self.conn = store._conn
        self.cols = CONTENT_COLUMNS[kind]
        col_list = ", ".join(self.cols)
        marks = ", ".join("?" * (len(self.cols) + 2))
        keep = ", ".join(f"{c} = excluded.{c}" for c in (*self.cols[1:], "content_hash"))
        self.stage_sql = (
            f"INSERT INTO {_STAGE} ({col_list}, content_hash, seq) VALUES ({marks}) "
            f"ON CONFLICT(id) DO UPDATE SET {keep}"
        )
        self.upsert_sql = upsert_sql(kind)
        self.file = str(report.path)

    def run(self, records: Iterable[tuple[int, Any]]) -> IngestReport:
        start = time.perf_counter()
        with self.store._lock:
            self.conn.execute(f"DROP TABLE IF EXISTS {_STAGE}")
            self.conn.execute(
                f"CREATE TABLE {_STAGE} AS SELECT {', '.join(self.cols)}, content_hash, "
                f"0 AS seq FROM main.{self.kind.table} WHERE 0"
            )
            table = _STAGE.split(".")[1]
            self.conn.execute(f"CREATE UNIQUE INDEX {_STAGE}_id ON {table}(id)")
            self.conn.execute(f"CREATE INDEX {_STAGE}_seq ON {table}(seq)")
            self.conn.commit()
            try:
                good = self._stage(records)
                self._merge(good)
            except sqlite3.Error as err:  # the machine's fault (full, read-only), told as such
                fault = machine_fault(err, self.store.path)
                if fault is None:
                    raise
                raise fault from err
            finally:
                stopping = sys.exc_info()[1] is not None
                try:
                    if self.conn.in_transaction:
                        self.conn.rollback()
                    self.conn.execute(f"DROP TABLE IF EXISTS {_STAGE}")
                    self.conn.commit()
                except sqlite3.Error:
                    # the staging table is TEMP (gone with the connection); a cleanup that
                    # fails on a full disk must not hide the error that stopped the ingest
                    if not stopping:
                        raise
        self.report.elapsed_s = time.perf_counter() - start
        return self.report

    def _stage(self, records: Iterable[tuple[int, Any]]) -> int:
        """Validate and stage every record; returns the number of good ones."""
        report, batch, good = self.report, [], 0
        for line_no, obj in records:
            report.read += 1
            if isinstance(obj, InvalidRecord):
                report.bad.append(Problem(self.file, str(line_no), str(obj)))
            else:
                try:
                    values = normalize(self.kind, obj if self.clean is None else self.clean(obj))
                    batch.append((*values, content_hash(values), line_no))
                    good += 1
                except InvalidRecord as err:
                    report.bad.append(Problem(self.file, str(line_no), str(err)))
                except (ValueError, TypeError, RecursionError, UnicodeError) as err:
                    # in-memory records (ingest_records) may hold anything; a line never fails
                    # the ingest, it is reported
                    report.bad.append(
                        Problem(self.file, str(line_no), f"{type(err).__name__}: {err}"[:200])
                    )
            if report.read % self.batch_size == 0:
                self._write_stage(batch)
                batch = []
                if self.progress:
                    self.progress(report.read, None)
        self._write_stage(batch)
        if self.reader is not None:
            report.bad.extend(self.reader.stream_errors)
            if good == 0 and self.reader.is_binary():
                first = self.reader.first_not_text
                raise IngestError(
                    f"{self.reader.path} is neither gzip nor text: no line is JSON and "
                    f"{self.reader.not_text:,} are not UTF-8 text"
                    + (f" (first: line {first.line_no}: {first.reason})" if first else ""),
                    "give a JSONL file in UTF-8, one JSON object per line "
                    "(optionally gzip-compressed)",
                )
        report.bad.sort(key=lambda b: b.line_no)
        return good

    def _write_stage(self, batch: list[tuple[Any, ...]]) -> None:
        if batch:
            self.conn.executemany(self.stage_sql, batch)
            self.conn.commit()  # only the TEMP table: main.db is untouched and unlocked

    def _join(
        self, values: tuple[Any, ...], new_hash: str, old_hash: str | None
    ) -> tuple[tuple[Any, ...], str, str, str | None]:
        """A dataset's row as :mod:`litsift.store.dataset_names` merges it: ``(values, content
        hash, status, stored id kept apart or None)``; status ``added``, ``updated``,
        ``merged`` (joined a stored dataset of another spelling) or ``unchanged``."""
        if self._names is None:
            self._names = DatasetNames.of(dataset_names(self.conn))
        new = fields_of(values)
        intro = str(new["intro_paper_title"])
        stored = dataset_row(self.conn, values[0]) if old_hash is not None else None
        status, other = "updated", None
        if stored is None:
            match = self._names.find(values[0], intro, self.file)
            stored = dataset_row(self.conn, match.doc_id) if match.doc_id else None
            status, other = "merged", match.conflict
        if stored is None:
            self._names.add(values[0], intro, self.file)
            return values, new_hash, "added", other
        out = merge_dataset(stored[0], new, update=status == "updated")
        self._names.add(out["id"], out["intro_paper_title"], None)
        merged = values_of(out)
        digest = content_hash(merged)
        return merged, digest, "unchanged" if digest == stored[1] else status, None

    def _begin_write(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise store_fault(err, self.store.path) from err

    def _merge(self, good: int) -> None:
        report, table = self.report, self.kind.table
        unique = int(self.conn.execute(f"SELECT COUNT(*) FROM {_STAGE}").fetchone()[0])
        report.duplicates = good - unique
        if self.progress:
            self.progress(0, unique)
        select = (
            f"SELECT s.*, m.content_hash FROM {_STAGE} AS s "
            f"LEFT JOIN main.{table} AS m ON m.id = s.id "
            f"WHERE s.seq > ? ORDER BY s.seq LIMIT {self.batch_size}"
        )
        n = len(self.cols)
        last_seq, done = 0, 0
        while True:
            self._begin_write()
            rows = self.conn.execute(select, (last_seq,)).fetchall()
            if not rows:
                self.conn.rollback()
                return
            revision = current_revision(self.conn)
            writes: list[tuple[Any, ...]] = []
            counts = {"added": 0, "updated": 0, "unchanged": 0, "merged": 0}
            joins: list[tuple[str, str, str]] = []
            kept_apart: list[tuple[str, str, str, float]] = []
            for row in rows:
                values, new_hash, old_hash, seq = row[:n], row[n], row[n + 2], row[n + 1]
                status = "added" if old_hash is None else "updated"
                if old_hash == new_hash:
                    status = "unchanged"
                elif self.kind is Kind.DATASET:  # one row per dataset: store.dataset_names
                    values, new_hash, status, other = self._join(values, new_hash, old_hash)
                    where = f"{self.file}:{seq}"
                    if other is not None:
                        kept_apart.append((where, other, f"name:{values[0]}", 0.0))
                    if status == "merged":
                        joins.append((where, values[0], "name"))
                counts[status] += 1
                if status != "unchanged":
                    revision += 1
                    writes.append((*values, new_hash, revision))
                    if self.kind is Kind.DATASET:  # written now: a later row may join it
                        self.conn.execute(self.upsert_sql, writes[-1])
            if writes:
                if self.kind is not Kind.DATASET:
                    self.conn.executemany(self.upsert_sql, writes)
                set_revision(self.conn, revision)
            self.conn.commit()
            # counted once committed: a batch a full disk refused is not "added"
            report.unchanged += counts["unchanged"]
            report.added += counts["added"]
            report.updated += counts["updated"]
            report.merged += counts["merged"]
            report.merges.extend(joins)
            report.conflicts.extend(kept_apart)
            last_seq, done = rows[-1][n + 1], done + len(rows)
            if self.progress:
                self.progress(done, unique)


def ingest_jsonl(
    store: Store,
    kind: Kind,
    path: Path,
    progress: ProgressFn | None = None,
    batch_size: int = 1000,
    *,
    into: IngestReport | None = None,
    clean: Callable[[Any], Any] | None = None,
) -> IngestReport:
    """Ingest a JSONL or gzip-compressed JSONL file of papers or datasets.

    Fields and aliases are those of ``shared/data/README.md`` (papers also accept LitSearch's
    ``corpusid`` and BEIR's ``_id``/``text``); unknown keys are ignored.

    Args:
        store: an open, writable store.
        kind: what the file holds.
        path: the file; gzip is detected by its magic bytes, not its name.
        progress: optional callback, see :data:`ProgressFn`.
        batch_size: records per staged batch and per merge transaction.
        into: the report to fill (a fresh one by default); when the ingest raises, it holds
            the counts of the batches committed before.
        clean: applied to each parsed row before validation (the service passes
            :func:`litsift.text.for_storage_in`: no control character is stored); None: none.

    Returns:
        The report; ``report.ok`` is False when some lines were bad (invalid UTF-8 or JSON, a
        NUL byte, nesting too deep, a number too long, a missing field, a field of the wrong
        type or out of range): they were skipped, every good line was kept, and the caller
        should then exit non-zero.

    Raises:
        IngestError: the file does not exist or cannot be read, the store is read-only, or the
            file is not JSONL text at all (no line is JSON and some are not UTF-8: binary data;
            nothing is written then).
        MachineFaultError: another process held the store's write lock for longer than the
            busy timeout (10 s), the disk is full or the home read-only; batches committed
            before are kept (and counted, see ``into``).
    """
    path = Path(path)
    report = into if into is not None else IngestReport(path=path, kind=kind)
    reader = JsonlReader(path)
    job = _Ingest(store, kind, report, progress, batch_size, reader, clean)
    open_input(path).close()  # fail before touching the store when the file is unusable
    return job.run(reader)


def ingest_records(
    store: Store,
    kind: Kind,
    rows: Iterable[dict[str, Any]],
    source: Path | None = None,
    progress: ProgressFn | None = None,
    batch_size: int = 1000,
    clean: Callable[[Any], Any] | None = None,
) -> IngestReport:
    """Ingest records already in memory (e.g. a BEIR corpus converted by an eval loader).

    Validation, upsert and revision semantics are those of :func:`ingest_jsonl`; ``line_no``
    in bad lines is the 1-based position of the record in ``rows``.

    Args:
        store: an open, writable store.
        kind: what the records are.
        rows: dicts with the fields of :func:`ingest_jsonl`'s input lines.
        source: shown as the report's ``path`` (default ``<records>``).
        progress: optional callback, see :data:`ProgressFn`.
        batch_size: records per staged batch and per merge transaction.
        clean: as :func:`ingest_jsonl`'s.

    Raises:
        IngestError: the store is read-only.
        MachineFaultError: another process held the store's write lock for longer than the
            busy timeout (10 s), the disk is full or the home read-only; batches committed
            before are kept (and counted, see ``into``).
    """
    report = IngestReport(path=source or Path("<records>"), kind=kind)
    job = _Ingest(store, kind, report, progress, batch_size, clean=clean)
    return job.run(enumerate(rows, start=1))
