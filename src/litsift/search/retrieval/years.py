"""The year column of a kind (year by rowid, for year filters on hnswlib labels), kept beside
the indexes so a search process does not rebuild it from the store on every start.

Reading it from SQLite costs ~1 µs a row in Python (~1.4 s at 1M papers, on the path to the
TUI's first results); the cached copy is a 4 MB ``.npy`` at 1M, read in milliseconds. It is
stamped with the store's ``(rows, max revision, max rowid)`` of the kind: every new or changed
record takes the next revision and a deletion changes the row count, so a stamp that matches
means the same years (:meth:`litsift.store.Store.rows_since`). The cache is derived data: a
missing, unreadable or stale one is rebuilt, and an index directory that cannot be written
(a read-only home) just means reading the store each time.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from litsift.store import Store
    from litsift.types import Kind

#: bump when the file's meaning changes
VERSION = 1


def cache_paths(index_root: Path, kind: Kind) -> tuple[Path, Path]:
    """``(years-<kind>.npy, years-<kind>.json)`` under ``index_root``."""
    root = Path(index_root)
    return root / f"years-{kind.value}.npy", root / f"years-{kind.value}.json"


def year_by_rowid(store: Store, kind: Kind, index_root: Path) -> npt.NDArray[np.int32]:
    """:meth:`litsift.store.Store.year_by_rowid` of ``kind``, from the cache under
    ``index_root`` when its stamp matches the store, else from the store (then cached).

    Returns:
        ``(max_rowid + 1,)`` int32: the year by rowid, -1 where a record has none or there is
        no row with that rowid.
    """
    stamp = {
        "version": VERSION,
        "rows": store.count(kind),
        "max_revision": store.max_revision(kind),
        "max_rowid": store.max_rowid(kind),
    }
    data, meta = cache_paths(index_root, kind)
    try:
        if json.loads(meta.read_text(encoding="utf-8")) == stamp:
            years: npt.NDArray[np.int32] = np.load(data, allow_pickle=False)
            if years.dtype == np.int32 and years.shape == (stamp["max_rowid"] + 1,):
                return years
    except (OSError, ValueError):  # missing, unreadable or damaged: read the store
        pass
    years = store.year_by_rowid(kind)
    _write(data, meta, years, stamp)
    return years


def _write(data: Path, meta: Path, years: npt.NDArray[np.int32], stamp: dict[str, int]) -> None:
    """Write the column, then its stamp (each by a rename): a reader never pairs a stamp with
    another column. Nothing is written where the directory cannot be (a read-only home)."""
    try:
        meta.unlink(missing_ok=True)
        for path, write in (
            (data, lambda f: np.save(f, years, allow_pickle=False)),
            (meta, lambda f: f.write(json.dumps(stamp).encode("utf-8"))),
        ):
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    write(f)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
    except OSError:
        pass
