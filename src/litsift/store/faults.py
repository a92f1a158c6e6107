"""Faults of the machine under a litsift home, told apart: no space left, a read-only home, a
lock held by another process, a permission, and a damaged store.

SQLite's primary result code (``sqlite3.Error.sqlite_errorcode & 0xFF``) and ``errno`` decide;
where SQLite only says "disk I/O error" or "unable to open database file", the place itself is
examined (a read-only mount, a directory without write permission, no free space).
``PRAGMA quick_check`` runs before a store is ever called damaged. Every hint keeps the data --
free space, open read-only, wait for the other process -- and none says to move the store away.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

from litsift.errors import (
    LitsiftError,
    MachineFaultError,
    NoSpaceError,
    PermissionDeniedError,
    ReadOnlyHomeError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    UnwritableHomeError,
)

__all__ = [
    "LOW_SPACE_BYTES",
    "fault_in_chain",
    "free_bytes",
    "machine_fault",
    "place_fault",
    "quick_check",
    "store_fault",
]

# SQLite primary result codes (https://www.sqlite.org/rescode.html)
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT = 3, 5, 6, 8, 10, 11
_FULL, _CANTOPEN, _AUTH, _NOTADB = 13, 14, 23, 26

#: Below this many free bytes, an I/O error SQLite cannot name (``SQLITE_IOERR_SHMSIZE``: the
#: ``-shm`` file cannot grow) or a file that cannot be created is put down to a full disk.
LOW_SPACE_BYTES = 1 << 20

#: errno values a library reports only in its message (tantivy: "os error 28")
_TEXT_ERRNO = (
    ("no space left on device", errno.ENOSPC),
    ("os error 28", errno.ENOSPC),
    ("database or disk is full", errno.ENOSPC),
    ("disk quota exceeded", errno.EDQUOT),
    ("os error 122", errno.EDQUOT),
    ("read-only file system", errno.EROFS),
    ("os error 30", errno.EROFS),
    ("permission denied", errno.EACCES),
    ("os error 13", errno.EACCES),
)

_READ_ONLY_HINT = (
    "searching a read-only home works; to ingest, index, label or keep notes, copy the home "
    "to a writable place and set LITSIFT_HOME to it (or remount it read-write)"
)


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing ancestor."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def free_bytes(path: Path) -> int | None:
    """Bytes free for this user on the file system holding ``path`` (or its nearest existing
    ancestor), or None when it cannot be asked."""
    try:
        return shutil.disk_usage(_existing(path)).free
    except OSError:
        return None


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(_existing(path)).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _human(n: int | None) -> str:
    if n is None:
        return "unknown space"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return f"{n} B"  # pragma: no cover


def _errno_of(err: BaseException) -> int | None:
    if isinstance(err, OSError) and err.errno is not None:
        return err.errno
    text = str(err).lower()
    for needle, code in _TEXT_ERRNO:
        if needle in text:
            return code
    return None


def no_space(where: Path) -> NoSpaceError:
    """The error for a full disk under ``where`` (a file or directory of the home)."""
    where = Path(where)
    place = where if where.is_dir() else where.parent
    return NoSpaceError(
        f"no space left on the disk holding {place} ({_human(free_bytes(place))} free); "
        "nothing stored before is lost",
        "free some space on that disk (or set LITSIFT_HOME to a home on another disk) and "
        "run the command again",
    )


def read_only(where: Path, why: str) -> ReadOnlyHomeError:
    """The error for a home that cannot be written (``why``: "a read-only file system")."""
    return ReadOnlyHomeError(f"{where} cannot be written ({why})", _READ_ONLY_HINT)


def unwritable(where: Path, why: str) -> UnwritableHomeError:
    """The error for a home this user may not write (``why``: "this user may not write in
    that directory"): its hint is the owner and mode, not a remount."""
    return UnwritableHomeError(
        f"{where} cannot be written ({why})",
        f"check its owner and mode (ls -ld {where}) and run litsift as the home's owner, or "
        "copy the home to a writable place and set LITSIFT_HOME to it; searching works as it is",
    )


def place_fault(path: Path) -> MachineFaultError | None:
    """What the place says when SQLite or the OS gave no reason: a read-only mount, no free
    space, a directory this user cannot write, a file this user cannot read."""
    path = Path(path)
    directory = path if path.is_dir() else path.parent
    if _read_only_fs(path):
        return read_only(directory, "a read-only file system")
    free = free_bytes(path)
    if free is not None and free < LOW_SPACE_BYTES:
        return no_space(path)
    if path.exists() and not path.is_dir() and not os.access(path, os.R_OK):
        return PermissionDeniedError(
            f"permission denied: {path} cannot be read by this user",
            f"check its owner and mode (ls -l {path}); run litsift as the home's owner",
        )
    if directory.is_dir() and not os.access(directory, os.W_OK):
        return unwritable(directory, "this user may not write in that directory")
    if path.exists() and not path.is_dir() and not os.access(path, os.W_OK):
        return unwritable(path, "this user may not write that file")
    return None


def machine_fault(err: BaseException, path: Path | None = None) -> MachineFaultError | None:
    """Tell what the machine refused, from ``err`` and the place ``path`` it happened at.

    Args:
        err: a ``sqlite3.Error`` (its ``sqlite_errorcode``), an ``OSError`` (its ``errno``) or
            a library's error whose message carries the OS's words ("No space left on device",
            "os error 30").
        path: the file or directory being read or written (the store, an index directory);
            None when unknown (then only the error itself decides).

    Returns:
        :class:`NoSpaceError`, :class:`ReadOnlyHomeError`, :class:`StoreLockedError` or
        :class:`PermissionDeniedError`, or None when ``err`` is no fault of the machine (a
        damaged file, a bug).
    """
    place = Path(path) if path is not None else None
    if isinstance(err, MachineFaultError):
        return err
    if isinstance(err, sqlite3.Error):
        code = getattr(err, "sqlite_errorcode", None)
        primary = None if code is None else code & 0xFF
        where = place or Path(".")
        if primary == _FULL:
            return no_space(where)
        if primary == _READONLY:
            found = place_fault(where) if place is not None else None
            return found or read_only(where, "the file system or the file is read-only")
        if primary in (_BUSY, _LOCKED):
            return StoreLockedError(
                f"the store {where} is locked by another writer (another litsift ingest, "
                "index, sync or dedup)",
                "wait for the other process to finish, then run the command again",
            )
        if primary in (_PERM, _AUTH):
            return PermissionDeniedError(
                f"permission denied on {where}",
                f"check its owner and mode (ls -l {where}); run litsift as the home's owner",
            )
        if primary in (_CANTOPEN, _IOERR) and place is not None:
            return place_fault(place)
        return None
    code = _errno_of(err)
    if code is None:
        return None
    filename = getattr(err, "filename", None)
    where = Path(filename) if isinstance(filename, str) else (place or Path("."))
    if code in (errno.ENOSPC, errno.EDQUOT):
        return no_space(where)
    if code == errno.EROFS:
        return read_only(where if where.is_dir() else where.parent, "a read-only file system")
    if code in (errno.EACCES, errno.EPERM):
        by_place = place_fault(where)
        if by_place is not None:
            return by_place
        return PermissionDeniedError(
            f"permission denied on {where}",
            f"check its owner and mode (ls -l {where}); run litsift as the home's owner",
        )
    return None


def fault_in_chain(err: BaseException, path: Path | None = None) -> MachineFaultError | None:
    """:func:`machine_fault` of ``err`` or of any exception it was raised from."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        fault = machine_fault(current, path)
        if fault is not None:
            return fault
        current = current.__cause__ or current.__context__
    return None


def quick_check(path: Path) -> str | None:
    """``PRAGMA quick_check`` of the SQLite file at ``path``, opened read-only.

    Returns:
        None when the file checks out; otherwise what SQLite reports (its first five
        problems, or why the file cannot be read as a database at all).
    """
    uri = Path(path).absolute().as_uri()
    for params in ("mode=ro", "immutable=1"):
        try:
            conn = sqlite3.connect(f"{uri}?{params}", uri=True)
        except sqlite3.Error:
            continue
        try:
            rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)").fetchall()]
        except sqlite3.DatabaseError as err:
            code = getattr(err, "sqlite_errorcode", 0) & 0xFF
            if code in (_CORRUPT, _NOTADB):
                return str(err)
            continue  # cannot open this way (a read-only directory): try the next
        finally:
            conn.close()
        return None if rows == ["ok"] else "; ".join(rows)
    return None


def store_fault(err: BaseException, path: Path) -> LitsiftError:
    """The error to report when the store at ``path`` failed with ``err``: a machine fault, a
    damaged file (only when ``PRAGMA quick_check`` agrees), or a plain I/O failure.

    Never a hint to move the store away: it holds labels, notes and sync state that no
    re-import brings back.
    """
    fault = machine_fault(err, path)
    if fault is not None:
        return fault
    code = getattr(err, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    if primary in (_CORRUPT, _NOTADB):
        problem = quick_check(path)
        if problem is not None:
            return StoreCorruptError(
                f"the store {path} is damaged (SQLite's quick_check: {problem[:200]})",
                "keep the file (it holds your labels and notes): restore it from a backup, or "
                f"salvage its rows with: sqlite3 {path} .recover | sqlite3 recovered.sqlite",
            )
    return StoreError(
        f"cannot read or write the store {path}: {err}",
        "check the disk (free space, `dmesg`) and run the command again; the store was "
        "not changed by the failed step",
    )
