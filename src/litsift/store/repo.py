"""The SQLite store: opening (and migrating) the file, and typed reads of papers and datasets.

SQLite is the source of truth; the BM25 and dense indexes are derived from it. The record
tables' ``rowid`` is an explicit ``INTEGER PRIMARY KEY AUTOINCREMENT`` column, so a rowid is
stable across re-ingest (rows are upserted by ``id``) and never reused: it is the hnswlib label.
Every new or changed row gets the next value of a store-wide ``revision`` counter, which lets
an indexer pick up only what changed since its last build (:meth:`Store.rows_since`).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.errors import LitsiftError, ReadOnlyHomeError, StoreError
from litsift.store.faults import machine_fault, place_fault, store_fault
from litsift.store.records import row_to_record
from litsift.store.schema import RECORD_COLUMNS, SCHEMA_VERSION, migrate, user_version
from litsift.types import Kind, Record

if TYPE_CHECKING:
    import sqlite_utils

#: SQLite's default limit of bound parameters is 999 on old builds; stay under it.
_MAX_PARAMS = 900
_BUSY_TIMEOUT_MS = 10_000
# SQLite primary result codes a read-only open may meet where mode=ro cannot make the -shm
_READONLY, _IOERR, _CANTOPEN = 8, 10, 14


def _select(kind: Kind) -> str:
    return f"SELECT rowid, {', '.join(RECORD_COLUMNS[kind])} FROM {kind.table}"


class Store:
    """A litsift store: one SQLite file in WAL mode, schema version in ``PRAGMA user_version``.

    Attributes:
        path: the SQLite file (usually ``Paths.store_file``).
        db: the sqlite-utils database over the connection, for code that needs raw access
            (made on first use: importing sqlite-utils imports pandas, ~0.7 s, which opening
            a store, a search and the TUI never need).

    The connection may be used from a worker thread (``check_same_thread=False``); calls are
    serialised by a lock, but an iterator from :meth:`rows_since` should be consumed by one
    thread. Connection and lock are the store package's own: code outside it goes through
    these methods and the repositories of :mod:`litsift.store` (each bound to a store), and
    spans several writes with :meth:`transaction`. Use as a context manager, or call
    :meth:`close`.
    """

    def __init__(
        self, path: Path, readonly: bool = False, write_fault: LitsiftError | None = None
    ) -> None:
        """Open the store at ``path``; unless ``readonly``, create it and apply migrations.

        A read-only open tries ``mode=ro``; where SQLite cannot open a WAL file that way (a
        read-only directory or a full disk, where the ``-shm`` file cannot be made) and the
        ``-wal`` file is absent or empty, it opens the file ``immutable=1`` (nothing can be
        missed: no write is pending); with a non-empty ``-wal`` it reads a private copy of
        the two files in the temp dir (:attr:`read_note` says which).

        Args:
            path: the SQLite file; its parent directory is created when writing.
            readonly: open read-only; the file must exist and be fully migrated.
            write_fault: why the home cannot be written (raised by every write), for a store
                opened read-only because a writable open failed.

        Raises:
            StoreError: the file is missing (read-only), written by a newer litsift (unknown
                ``user_version``); :class:`~litsift.errors.MachineFaultError` (no space,
                read-only, locked, permission) or
                :class:`~litsift.errors.StoreCorruptError` (``PRAGMA quick_check`` fails).
        """
        self.path = Path(path)
        self.readonly = readonly
        self.write_fault = write_fault
        #: how a read-only store was opened when ``mode=ro`` could not be used, else None
        self.read_note: str | None = None
        self._copy_dir: Path | None = None
        self._lock = threading.RLock()
        if readonly and not self.path.is_file():
            raise StoreError(
                f"no litsift store at {self.path}",
                "ingest some records first: litsift ingest papers PATH "
                "(`litsift formats` lists what it reads)",
            )
        try:
            if readonly:
                conn = self._connect_readonly()
            else:
                # SQLite would open a file it cannot write read-only without a word, and a
                # full disk fails later, mid-write: ask the place first
                fault = place_fault(self.path)
                if fault is not None:
                    raise fault
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(str(self.path), check_same_thread=False)
        except (OSError, sqlite3.Error) as err:
            self._drop_copy()
            raise store_fault(err, self.path) from err
        self._conn = conn
        try:
            self._setup()
        except BaseException:
            conn.close()
            self._drop_copy()
            raise
        self._db: sqlite_utils.Database | None = None

    def _connect_readonly(self) -> sqlite3.Connection:
        uri = self.path.resolve().as_uri()

        def connect(target: str) -> sqlite3.Connection:
            conn = sqlite3.connect(target, uri=True, check_same_thread=False)
            try:
                conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            except BaseException:
                conn.close()
                raise
            return conn

        try:
            return connect(f"{uri}?mode=ro")
        except sqlite3.Error as err:
            code = (getattr(err, "sqlite_errorcode", None) or 0) & 0xFF
            if code not in (_CANTOPEN, _IOERR, _READONLY):
                raise
        wal = self.path.with_name(self.path.name + "-wal")
        pending = wal.stat().st_size if wal.is_file() else 0
        if pending:
            try:
                self._copy_dir = Path(tempfile.mkdtemp(prefix="litsift-ro-"))
                for src in (self.path, wal):
                    shutil.copyfile(src, self._copy_dir / src.name)
                conn = connect(f"{(self._copy_dir / self.path.name).as_uri()}?mode=ro")
                self.read_note = (
                    f"read from a private copy: the store's -wal ({pending:,} bytes of recent "
                    "changes) cannot be read in place"
                )
                return conn
            except (OSError, sqlite3.Error):
                self._drop_copy()
        conn = connect(f"{uri}?immutable=1")
        self.read_note = "opened as immutable (SQLite cannot make its -shm file here)"
        if pending:
            self.read_note += f"; {pending:,} bytes of recent changes in {wal} are not visible"
        return conn

    def _drop_copy(self) -> None:
        if self._copy_dir is not None:
            shutil.rmtree(self._copy_dir, ignore_errors=True)
            self._copy_dir = None

    def _setup(self) -> None:
        conn = self._conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            version = user_version(conn)
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the store {self.path} has schema version {version}, newer than this "
                    f"litsift understands ({SCHEMA_VERSION})",
                    "upgrade litsift, or point LITSIFT_HOME at another directory",
                )
            if self.readonly:
                if version < SCHEMA_VERSION:
                    raise StoreError(
                        f"the store {self.path} has schema version {version}, "
                        f"this litsift needs {SCHEMA_VERSION}",
                        "open it once for writing (e.g. run litsift ingest) to migrate it",
                    )
                conn.execute("PRAGMA query_only = ON")
                return
            if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                raise StoreError(
                    f"cannot switch the store {self.path} to WAL mode",
                    "put the store on a local file system (set LITSIFT_HOME)",
                )
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn)
        except sqlite3.Error as err:
            raise store_fault(err, self.path) from err

    def require_writable(self) -> None:
        """Raise why this store cannot be written, if it cannot.

        Raises:
            MachineFaultError: the reason a writable open failed (no space, read-only home).
            ReadOnlyHomeError: the store was opened read-only on purpose.
        """
        if self.readonly:
            raise self.write_fault or ReadOnlyHomeError(
                f"the store {self.path} is open read-only",
                "open it for writing (a command that ingests or labels does)",
            )

    # ------------------------------------------------------------------ reads

    def count(self, kind: Kind) -> int:
        """Number of records of ``kind``."""
        with self._lock:
            return int(self._conn.execute(f"SELECT COUNT(*) FROM {kind.table}").fetchone()[0])

    def get(self, kind: Kind, doc_id: str) -> Record | None:
        """The record with external id ``doc_id``, or None."""
        with self._lock:
            row = self._conn.execute(f"{_select(kind)} WHERE id = ?", (doc_id,)).fetchone()
        return None if row is None else row_to_record(kind, row)

    def get_by_rowids(self, kind: Kind, rowids: Sequence[int]) -> dict[int, Record]:
        """Load records by rowid (hnswlib label), one query per 900 ids.

        Returns:
            ``{rowid: record}`` in the order of ``rowids`` (first occurrence); rowids with no
            row are absent.
        """
        found: dict[int, Record] = {}
        wanted = list(dict.fromkeys(int(r) for r in rowids))
        with self._lock:
            for start in range(0, len(wanted), _MAX_PARAMS):
                chunk = wanted[start : start + _MAX_PARAMS]
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(f"{_select(kind)} WHERE rowid IN ({marks})", chunk):
                    found[row[0]] = row_to_record(kind, row)
        return {r: found[r] for r in wanted if r in found}

    def ids_by_rowid(self, kind: Kind, rowids: Sequence[int]) -> dict[int, str]:
        """External ids of rowids (hnswlib labels), one query per 900 rowids; no row is loaded.

        Returns:
            ``{rowid: id}`` in the order of ``rowids`` (first occurrence); rowids with no row
            are absent.
        """
        pairs = self._lookup(kind, "rowid", "id", [int(r) for r in rowids])
        return {int(r): str(d) for r, d in pairs.items()}

    def rowids_by_id(self, kind: Kind, doc_ids: Sequence[str]) -> dict[str, int]:
        """Rowids of external ids, one query per 900 ids; no row is loaded.

        Returns:
            ``{id: rowid}`` in the order of ``doc_ids`` (first occurrence); ids with no row
            are absent.
        """
        pairs = self._lookup(kind, "id", "rowid", [str(d) for d in doc_ids])
        return {str(d): int(r) for d, r in pairs.items()}

    def _lookup(
        self, kind: Kind, key: str, value: str, keys: Sequence[int | str]
    ) -> dict[int | str, int | str]:
        """``{key: value}`` of two columns of ``kind``'s table for ``keys`` (in their order,
        first occurrence; missing keys absent), one query per 900 keys."""
        found: dict[int | str, int | str] = {}
        wanted = list(dict.fromkeys(keys))
        with self._lock:
            for start in range(0, len(wanted), _MAX_PARAMS):
                chunk = wanted[start : start + _MAX_PARAMS]
                marks = ",".join("?" * len(chunk))
                sql = f"SELECT {key}, {value} FROM {kind.table} WHERE {key} IN ({marks})"
                found.update(self._conn.execute(sql, chunk))
        return {k: found[k] for k in wanted if k in found}

    def rows_since(
        self, kind: Kind, revision: int = 0, batch_size: int = 1000
    ) -> Iterator[list[Record]]:
        """Yield, in batches ordered by rowid, the records whose revision is > ``revision``.

        Pages by rowid (keyset pagination), so no read transaction stays open between batches.

        Args:
            kind: papers or datasets.
            revision: the :meth:`max_revision` an index was built at; 0 yields every row.
            batch_size: records per yielded list (at least 1).

        Yields:
            Non-empty lists of records with ``rowid`` set.
        """
        sql = f"{_select(kind)} WHERE revision > ? AND rowid > ? ORDER BY rowid LIMIT ?"
        last = 0
        while True:
            with self._lock:
                rows = self._conn.execute(sql, (revision, last, max(1, batch_size))).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            yield [row_to_record(kind, row) for row in rows]

    def max_revision(self, kind: Kind) -> int:
        """The highest revision among records of ``kind`` (0 for an empty table)."""
        with self._lock:
            sql = f"SELECT COALESCE(MAX(revision), 0) FROM {kind.table}"
            return int(self._conn.execute(sql).fetchone()[0])

    def count_since(self, kind: Kind, revision: int, after: int = 0) -> int:
        """How many records of ``kind`` have a revision > ``revision`` and a rowid > ``after``
        (what :meth:`rows_since` has left to yield past rowid ``after``)."""
        sql = f"SELECT COUNT(*) FROM {kind.table} WHERE revision > ? AND rowid > ?"
        with self._lock:
            return int(self._conn.execute(sql, (revision, after)).fetchone()[0])

    def max_rowid(self, kind: Kind) -> int:
        """The largest rowid of ``kind`` (0 for an empty table): with :meth:`count` and
        :meth:`max_revision`, enough to tell rows added since from rows deleted (a later row
        takes a larger rowid). All three read one B-tree path, not the table."""
        with self._lock:
            sql = f"SELECT COALESCE(MAX(rowid), 0) FROM {kind.table}"
            return int(self._conn.execute(sql).fetchone()[0])

    def year_by_rowid(self, kind: Kind) -> npt.NDArray[np.int32]:
        """Year of each record indexed by rowid, for year filters on hnswlib labels.

        Returns:
            ``(max_rowid + 1,)`` int32 array: ``out[rowid]`` is the year, or -1 where the
            record has no year or there is no row with that rowid (including index 0).
        """
        with self._lock:
            max_rowid = self._conn.execute(
                f"SELECT COALESCE(MAX(rowid), 0) FROM {kind.table}"
            ).fetchone()[0]
            out = np.full(int(max_rowid) + 1, -1, dtype=np.int32)
            rows = self._conn.execute(
                f"SELECT rowid, year FROM {kind.table} WHERE year IS NOT NULL"
            ).fetchall()
        if rows:
            pairs = np.array(rows, dtype=np.int64)
            out[pairs[:, 0]] = pairs[:, 1]
        return out

    def year_span(self, kind: Kind) -> tuple[int | None, int | None]:
        """The smallest and largest year among records of ``kind`` (None, None when none)."""
        with self._lock:
            lo, hi = self._conn.execute(f"SELECT MIN(year), MAX(year) FROM {kind.table}").fetchone()
        return lo, hi

    # ------------------------------------------------------------- lifecycle

    def close(self) -> None:
        """Close the connection (idempotent). WAL is checkpointed by SQLite on last close."""
        with self._lock:
            self._conn.close()
            self._drop_copy()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r}, readonly={self.readonly})"

    @property
    def db(self) -> sqlite_utils.Database:
        """The sqlite-utils database over the store's connection (imported and made on first
        use)."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self._conn, execute_plugins=False)
        return self._db

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction spanning several repository calls: ``BEGIN IMMEDIATE`` under
        the store's lock, committed when the block ends, rolled back when it raises. The
        repositories' calls inside the block (each takes the re-entrant lock) join it.

        Raises:
            StoreLockedError: another process held the write lock past the busy timeout (10 s).
            MachineFaultError: the store is read-only here, or the disk is full.
        """
        with self._write_transaction():
            yield

    @contextmanager
    def _write_transaction(self) -> Iterator[sqlite3.Connection]:
        """:meth:`transaction` handing its connection to the store's own modules (nothing
        outside :mod:`litsift.store` gets it): one ``BEGIN IMMEDIATE`` transaction under the
        store's lock, committed when the block ends, rolled back when it raises.

        Raises:
            StoreLockedError: another process held the write lock past the busy timeout (10 s).
            MachineFaultError: the store is read-only here, or the disk is full (a SQLite error
                raised in the block is reported as such when it is one; others pass through).
        """
        self.require_writable()
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise store_fault(err, self.path) from err
            try:
                yield conn
            except sqlite3.Error as err:
                _rollback(conn)
                fault = machine_fault(err, self.path)
                if fault is not None:
                    raise fault from err
                raise
            except BaseException:
                _rollback(conn)
                raise
            try:
                conn.commit()
            except sqlite3.Error as err:
                _rollback(conn)
                raise store_fault(err, self.path) from err


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back, where SQLite has not already (it does after some SQLITE_FULL and I/O
    errors); a failing rollback must not hide the error that caused it."""
    try:
        conn.rollback()
    except sqlite3.Error:
        pass
