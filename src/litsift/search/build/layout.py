"""Where the indexes of one kind live on disk, and how a build publishes them.

``<index_root>/<kind>/`` holds ``bm25/`` (tantivy), ``dense.bin`` + ``dense.json`` (hnswlib)
and ``manifest.json`` (:mod:`litsift.search.build.manifest`). Every build writes into a staging dir
beside the target (``.<kind>.tmp-*``) and swaps it in with two renames (current ->
``.<kind>.old``, new -> current), then deletes the old one. A crash between the renames is
repaired on the next open or build (``.<kind>.old`` is put back and its checksums verified;
an open repairs only when no build holds the lock, and otherwise reads ``.<kind>.old`` where
it lies); a crash before them leaves only a staging dir, which the next build deletes. One
writer per kind at a time: :func:`write_lock` (an advisory ``flock`` on ``.<kind>.lock``)
makes a second build of the same kind fail at once instead of racing the first.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from litsift.errors import LitsiftError
from litsift.types import Kind

HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
HNSW_SEED = 100
#: rows read from the store (and embedded in one encoder call) at a time
BATCH_SIZE = 1000

#: ``progress(stage, done, total)``
Progress = Callable[[str, int, int], None]


def index_dir_for(index_root: Path, kind: Kind) -> Path:
    """``index_root/<kind>/``, the directory holding ``bm25/``, ``dense.bin``, ``manifest.json``."""
    return Path(index_root) / kind.value


def old_dir(index_root: Path, kind: Kind) -> Path:
    return Path(index_root) / f".{kind.value}.old"


def recover(index_root: Path, kind: Kind, locked: bool = False) -> bool:
    """Repair a swap interrupted between its two renames; True when ``.<kind>.old`` was put
    back (its files are then checked in full before use).

    A reader (``locked`` False: a search opening the index, ``index_status``) repairs only
    under the build lock, taken without waiting: while a build holds it, ``.<kind>.old``
    beside no current index is that build between its two renames, not a crash, and a reader
    that put it back made the build's second rename fail (the new index was not published).
    Such a reader reads the old index where it lies (:func:`current_dir`).

    Args:
        locked: the caller holds :func:`write_lock` of ``kind`` (a build).
    """
    target, old = index_dir_for(index_root, kind), old_dir(index_root, kind)
    if not old.exists():
        return False
    if locked:
        return _put_back(target, old)
    try:
        with write_lock(index_root, kind):
            return _put_back(target, old)
    except (LitsiftError, OSError):  # a build is mid-swap, or the home cannot be written
        return False


def _put_back(target: Path, old: Path) -> bool:
    if not old.exists():
        return False
    if target.exists():
        shutil.rmtree(old, ignore_errors=True)
        return False
    os.rename(old, target)
    return True


def current_dir(index_root: Path, kind: Kind) -> Path:
    """The directory to read the index of ``kind`` from: :func:`index_dir_for`, or, while a
    build is between the two renames of its swap (or a crash there could not be repaired in
    a read-only home), the previous index where the first rename put it."""
    target, old = index_dir_for(index_root, kind), old_dir(index_root, kind)
    return old if not target.exists() and old.exists() else target


def swap(index_root: Path, kind: Kind, new_dir: Path) -> None:
    """Put ``new_dir`` in place of the index of ``kind`` (two renames, then delete the old)."""
    target, old = index_dir_for(index_root, kind), old_dir(index_root, kind)
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.rename(target, old)
    os.rename(new_dir, target)
    shutil.rmtree(old, ignore_errors=True)


def staging_dir(index_root: Path, kind: Kind) -> Path:
    """A new empty staging dir ``.<kind>.tmp-*`` beside the index (call under the lock)."""
    return Path(tempfile.mkdtemp(prefix=f".{kind.value}.tmp-", dir=index_root))


def clear_staging(index_root: Path, kind: Kind) -> None:
    """Delete staging dirs left by an interrupted build (call under the lock)."""
    for stale in Path(index_root).glob(f".{kind.value}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)


@contextmanager
def write_lock(index_root: Path, kind: Kind) -> Iterator[None]:
    """Hold the build lock of ``kind`` (non-blocking).

    Raises:
        LitsiftError: another build of ``kind`` holds it (in this or another process).
    """
    path = Path(index_root) / f".{kind.value}.lock"
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LitsiftError(
                f"another build of the {kind.table} index is running",
                "wait for it to finish (the TUI builds the dense index in the background)",
            ) from None
        try:  # the holder before us may have unlinked the file: lock the one at the path
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)
