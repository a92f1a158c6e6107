"""The files of the full-text passage index on disk (``<index dir>/passages/``): their names,
the damage check of their manifest and whether an index was built, shared by the build
(:mod:`litsift.search.fulltext.build`) and the index (:mod:`litsift.search.fulltext.index`)."""

from __future__ import annotations

import json
from pathlib import Path

from litsift.search.build.manifest import FileRecord, cheap_to_verify, check_records

__all__ = ["DIR_NAME", "MANIFEST", "META", "passage_damage", "passages_built"]

DIR_NAME = "passages"
META = "passages.json"
MANIFEST = "manifest.json"


def _records(directory: Path) -> dict[str, FileRecord] | None:
    """The file records of the passage index in ``directory``, None when it has no
    manifest (built before records existed).

    Raises:
        ValueError: the manifest cannot be read.
    """
    path = directory / MANIFEST
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, RecursionError) as err:
        raise ValueError(f"{MANIFEST} cannot be read: {err}") from err
    files = raw.get("files") if isinstance(raw, dict) else None
    ok = isinstance(files, dict) and all(
        isinstance(r, dict) and isinstance(r.get("size"), int) and isinstance(r.get("sha256"), str)
        for r in files.values()
    )
    if not ok or not isinstance(files, dict):
        raise ValueError(f"{MANIFEST} is not a file record")
    return {str(rel): FileRecord(size=r["size"], sha256=r["sha256"]) for rel, r in files.items()}


def passage_damage(directory: Path, full: bool = False) -> str | None:
    """Why the passage index in ``directory`` is damaged, or None: a recorded file missing or
    of another size, or failing its sha256 (with ``full``, or when the index is small enough:
    :func:`~litsift.search.build.manifest.cheap_to_verify`). An index without a manifest (built by
    an older litsift) is not checked here; opening it still checks its structure."""
    try:
        records = _records(directory)
    except ValueError as err:
        return str(err)
    if records is None:
        return None
    return check_records(directory, records, full or cheap_to_verify(records))


#: ``passages.json`` path -> ((mtime ns, size), it lists no passage): read again only when changed
_EMPTY: dict[Path, tuple[tuple[int, int], bool]] = {}


def passages_built(index_root: Path) -> bool:
    """True when a passage index was built under ``index_root`` and is not known to be empty,
    without opening it: one ``stat`` while ``passages.json`` is unchanged, so a caller may ask
    on every search. A damaged index counts as built (searching it says what to run)."""
    directory = Path(index_root) / DIR_NAME
    path = directory / META
    try:
        st = path.stat()
    except OSError:
        return (directory / MANIFEST).is_file()  # passages.json lost: damaged, not absent
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _EMPTY.get(path)
    if cached is None or cached[0] != stamp:
        try:
            labels = json.loads(path.read_text(encoding="utf-8")).get("labels")
            empty = isinstance(labels, list) and not labels
        except (OSError, ValueError, AttributeError, RecursionError):
            empty = False  # unreadable: damaged
        cached = (stamp, empty)
        _EMPTY[path] = cached
    return not cached[1]
