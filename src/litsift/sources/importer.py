"""``litsift ingest papers|datasets PATH...``: find the files, detect each one's format, read
them, and write what they hold (:class:`~litsift.sources.writer.RecordWriter`).

A PATH may be a file, a ``.gz`` file, or a directory. A directory that a directory format
claims (a Zotero data directory, a Hugging Face dataset card) is read as one source; any other
directory is walked recursively (hidden entries skipped) and each file detected on its own --
a folder of PDFs, a folder of ``.bib`` files. Files no format claims are listed as skipped, not
as errors. litsift's own JSONL goes through :func:`litsift.store.ingest.ingest_jsonl`.

Nothing bad stops the import: a bad entry is reported as ``FILE:LOCATION: reason`` and the
good ones are kept; an unusable file (:class:`~litsift.errors.IngestError` from its reader,
or any library error the reader let through) is reported as ``FILE: reason`` and the other
files go on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litsift.errors import IngestError, LitsiftError
from litsift.sources.base import Format
from litsift.sources.writer import Counts, Problem, RecordWriter
from litsift.store.repo import Store
from litsift.types import Kind

__all__ = ["ImportReport", "import_paths", "plan"]

#: ``progress(files_done, files_total, records_read)``
ImportProgress = Callable[[int, int, int], None]


@dataclass
class ImportReport(Counts):
    """What one ``litsift ingest`` did: the :class:`~litsift.sources.writer.Counts` (``read``;
    ``added`` new records; ``updated`` entries imported before from the same format, file and
    location whose content changed; ``merged`` entries that matched another record by
    identifier or title + first author + year; ``unchanged``; ``bad`` entries and unusable
    files; ``merges``; ``conflicts``: entries sharing an identifier with a stored paper of a
    clearly different title, kept apart), and:

    Attributes:
        kind: papers or datasets.
        skipped: files no format claims (``FILE: reason``).
        files: ``(file, format, entries read)`` per file read.
        elapsed_s: wall time in seconds.
    """

    kind: Kind = Kind.PAPER
    skipped: list[Problem] = field(default_factory=list)
    files: list[tuple[str, str, int]] = field(default_factory=list)
    elapsed_s: float = 0.0

    def summary(self) -> str:
        """One line, e.g. ``3 files: 988 read, 960 added, ... in 1.2 s``."""
        return (
            f"{len(self.files):,} file{'s' if len(self.files) != 1 else ''}: "
            f"{self.read:,} read, {self.added:,} added, {self.updated:,} updated, "
            f"{self.merged:,} merged, {self.unchanged:,} unchanged, {len(self.bad):,} bad"
            + (f", {len(self.conflicts):,} id conflicts" if self.conflicts else "")
            + (f", {len(self.skipped):,} files skipped" if self.skipped else "")
            + f" in {self.elapsed_s:.1f} s"
        )

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON data (``litsift ingest --json``)."""
        return {
            "kind": self.kind.value,
            **super().to_json(),
            "skipped": [str(p) for p in self.skipped],
            "files": [{"file": f, "format": fmt, "read": n} for f, fmt, n in self.files],
            "elapsed_s": round(self.elapsed_s, 3),
        }


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


def plan(
    paths: Sequence[Path], kind: Kind, fmt_name: str | None = None
) -> tuple[list[tuple[Path, Format]], list[Problem]]:
    """The ``(path, format)`` pairs an import would read, and the paths it would skip.

    Raises:
        IngestError: a PATH does not exist, or ``fmt_name`` is unknown or of the other kind.
    """
    from litsift.sources import registry

    forced = registry.get(fmt_name) if fmt_name else None
    if forced is not None and forced.kind is not kind:
        raise IngestError(
            f"format {forced.name!r} holds {forced.kind.value}s, not {kind.value}s",
            f"use: litsift ingest {forced.kind.value}s --format {forced.name} PATH",
        )
    todo: list[tuple[Path, Format]] = []
    skipped: list[Problem] = []
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise IngestError(f"{path}: no such file or directory", "check the path")
        if forced is not None:
            if path.is_dir() and not forced.directory:
                todo.extend((p, forced) for p in _walk(path))
            else:
                todo.append((path, forced))
            continue
        candidates = [path] if not path.is_dir() else []
        if path.is_dir():
            fmt = registry.detect(path)
            if fmt is not None and fmt.kind is kind:
                todo.append((path, fmt))
                continue
            candidates = list(_walk(path))
        for file in candidates:
            try:
                fmt = registry.detect(file)
            except IngestError as err:
                skipped.append(Problem(str(file), "", err.message))
                continue
            if fmt is None:
                skipped.append(Problem(str(file), "", "not a format litsift reads"))
            elif fmt.kind is not kind:
                skipped.append(
                    Problem(
                        str(file), "", f"holds {fmt.kind.value}s ({fmt.name}), not {kind.value}s"
                    )
                )
            else:
                todo.append((file, fmt))
    return todo, skipped


def import_paths(
    store: Store,
    paths: Sequence[Path],
    kind: Kind = Kind.PAPER,
    fmt_name: str | None = None,
    progress: ImportProgress | None = None,
) -> ImportReport:
    """Import every record found under ``paths`` into ``store``.

    Args:
        store: an open, writable store.
        paths: files, ``.gz`` files or directories.
        kind: papers or datasets.
        fmt_name: force this format (``--format``) instead of detecting each file's.
        progress: optional callback, see :data:`ImportProgress`.

    Returns:
        The report; ``report.ok`` is False when some entry or file was bad (the caller should
        then exit non-zero), and everything good was kept.

    Raises:
        IngestError: a PATH does not exist, the format is unknown, or the store is read-only.
        StoreError: another process held the store's write lock for longer than 10 s.
    """
    from litsift.store.ingest import ingest_jsonl

    start = time.perf_counter()
    if store.readonly:
        raise IngestError(f"the store {store.path} is open read-only", "open it for writing")
    todo, skipped = plan(paths, kind, fmt_name)
    report = ImportReport(kind=kind, skipped=skipped)
    writer = RecordWriter(store, kind)
    for i, (path, fmt) in enumerate(todo):
        label = str(path)
        if fmt.name.startswith("jsonl"):
            writer.flush()
            try:
                sub = ingest_jsonl(store, kind, path)
            except LitsiftError as err:
                writer.counts.bad.append(Problem(label, "", err.message))
                continue
            report.read += sub.read
            report.added += sub.added
            report.updated += sub.updated
            report.unchanged += sub.unchanged + sub.duplicates
            writer.counts.bad.extend(Problem(label, str(b.line_no), b.reason) for b in sub.bad)
            report.files.append((label, fmt.name, sub.read))
            old, writer = writer, RecordWriter(store, kind)  # the JSONL rows join the index
            writer.counts = old.counts
            continue
        before = writer.counts.read
        try:
            for item in fmt.read(path):
                writer.add(fmt.name, label, item)
        except LitsiftError as err:
            writer.flush()
            writer.counts.bad.append(Problem(label, "", err.message))
        except (Exception, RecursionError) as err:  # a library error the reader let through
            writer.flush()
            reason = f"cannot be read as {fmt.name}: {type(err).__name__}: {err}"
            writer.counts.bad.append(Problem(label, "", reason[:300]))
        writer.flush()
        report.files.append((label, fmt.name, writer.counts.read - before))
        if progress is not None:
            progress(i + 1, len(todo), writer.counts.read)
    writer.flush()
    report.fold(writer.counts)
    report.elapsed_s = time.perf_counter() - start
    return report
