"""What one ingest or import did: :class:`IngestReport`, with each bad entry or unusable file
as a :class:`Problem` (``FILE:LOCATION: reason``).

One type serves litsift's JSONL ingest (:mod:`litsift.store.ingest`, one file, bad entries
located by line number), the import of third-party formats
(:class:`litsift.sources.writer.RecordWriter`, :func:`litsift.sources.importer.import_paths`)
and syncs; an import that reads a JSONL file folds that file's report into its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from litsift.types import Kind

__all__ = ["IngestReport", "Problem"]


@dataclass(frozen=True)
class Problem:
    """A bad entry or unusable file: printed as ``FILE:LOCATION: reason``.

    ``location`` is where in the file (a 1-based line number for JSONL, an entry's key or
    line for other formats), ``""`` for the whole file.
    """

    file: str
    location: str
    reason: str

    @property
    def line_no(self) -> int:
        """The 1-based line number when ``location`` is one (JSONL), else 0."""
        return int(self.location) if self.location.isdigit() else 0

    def __str__(self) -> str:
        # a one-paper file (PDF, TEI, JATS) is located by its own name: said once
        whole = not self.location or self.location == PurePath(self.file).name
        where = self.file if whole else f"{self.file}:{self.location}"
        return f"{where}: {self.reason}"


@dataclass
class IngestReport:
    """What one ingest or import did.

    Attributes:
        kind: papers or datasets.
        path: the one input file of a JSONL ingest (``<records>`` for in-memory records);
            None for an import of many files (then :meth:`summary` counts ``files``).
        read: entries (non-blank lines, records) read, good and bad.
        added: records that were not in the store.
        updated: records whose content changed (content hash differs); for an import, entries
            imported before from the same format, file and location.
        merged: entries that matched another stored record by identifier or title + first
            author + year, and were merged onto it.
        unchanged: records whose content was already stored as is.
        duplicates: JSONL lines whose id already appeared earlier in the same file (the last
            one wins; not bad). An import counts them as unchanged.
        bad: skipped entries and unusable files, in input order.
        merges: ``(incoming location, stored doc id, reason)`` for each merged entry.
        conflicts: ``(incoming location, stored doc id, "scheme:value", title score 0-100)``
            for each entry that shares an identifier with a stored paper of a clearly
            different title (kept apart).
        skipped: files found in a directory that no format of this kind claims and whose
            names are not ours, or that hold the other kind.
        files: ``(file, format, entries read)`` per file read.
        warnings: remarks that cost nothing (a repeated field, a control character removed,
            an expected column missing), ``FILE:LOCATION: message``; not bad.
        layouts: file -> the variant of its format the reader recognised (``ieee``).
        elapsed_s: wall time in seconds.
    """

    kind: Kind = Kind.PAPER
    path: Path | None = None
    read: int = 0
    added: int = 0
    updated: int = 0
    merged: int = 0
    unchanged: int = 0
    duplicates: int = 0
    bad: list[Problem] = field(default_factory=list)
    merges: list[tuple[str, str, str]] = field(default_factory=list)
    conflicts: list[tuple[str, str, str, float]] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    files: list[tuple[str, str, int]] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    layouts: dict[str, str] = field(default_factory=dict)
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when nothing was bad."""
        return not self.bad

    def fold(self, other: IngestReport) -> None:
        """Add ``other``'s counts, bad entries, merges and conflicts to these (its duplicate
        ids count as unchanged)."""
        self.read += other.read
        self.added += other.added
        self.updated += other.updated
        self.merged += other.merged
        self.unchanged += other.unchanged + other.duplicates
        self.bad.extend(other.bad)
        self.merges.extend(other.merges)
        self.conflicts.extend(other.conflicts)
        self.warnings.extend(other.warnings)
        self.layouts.update(other.layouts)

    def _kept_apart(self) -> str:
        """``, 1 kept apart (FILE:entry k shares doi:… with a stored paper of another
        title)``: what happened and to which entry ("1 id conflicts" said neither)."""
        where, other, ident, _ = self.conflicts[0]
        n = len(self.conflicts)
        more = f"; {n - 1:,} more: --json lists them" if n > 1 else ""
        if self.kind is Kind.DATASET:  # store.dataset_names: same name key, another paper
            return (f", {n:,} kept apart ({where}: {ident.removeprefix('name:')} is named like "
                    f"the stored {other} but introduced by another paper{more})")  # fmt: skip
        return (f", {n:,} kept apart ({where} shares {ident} with a stored "
                f"paper of another title{more})")  # fmt: skip

    def _joined(self) -> str:
        """`` (FILE:entry k joined the stored SciQ by name)``: a dataset merged by its name."""
        if self.kind is not Kind.DATASET or not self.merges:
            return ""
        where, into, _ = self.merges[0]
        more = f"; {len(self.merges) - 1:,} more" if len(self.merges) > 1 else ""
        return f" ({where} joined the stored {into} by name{more})"

    def summary(self) -> str:
        """One line in one vocabulary for every ingest (issue 45: the JSONL line said
        "duplicate ids" where an import said "unchanged"): ``papers.jsonl.gz: 3,327 read,
        3,294 added, 0 updated, 0 merged, 33 unchanged, 0 bad in 0.4 s`` for one file,
        ``3 files: 988 read, ...`` for an import. A record whose id came twice in one file is
        unchanged the second time (``(33 repeated ids)`` says so); the first bad one is quoted."""
        n = len(self.files)
        where = (
            f"{n:,} file{'s' if n != 1 else ''}"
            if self.path is None
            else f"{self.path.name or self.path}"
        )
        text = (
            f"{where}: {self.read:,} read, {self.added:,} added, {self.updated:,} updated, "
            f"{self.merged:,} merged{self._joined()}, "
            f"{self.unchanged + self.duplicates:,} unchanged"
            + (f" ({self.duplicates:,} repeated ids)" if self.duplicates else "")
            + f", {len(self.bad):,} bad"
            + (self._kept_apart() if self.conflicts else "")
            + (f", {_count(len(self.skipped), 'file')} skipped" if self.skipped else "")
            + (f", {_count(len(self.warnings), 'warning')}" if self.warnings else "")
            + f" in {self.elapsed_s:.1f} s"
        )
        if self.path is not None and self.bad:
            first = self.bad[0]
            text += f" (first bad: line {first.line_no}: {first.reason})"
        return text

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON data (``litsift ingest --json``); bad entries and skipped
        files as ``FILE:LOCATION: reason``."""
        return {
            "kind": self.kind.value,
            "read": self.read,
            "added": self.added,
            "updated": self.updated,
            "merged": self.merged,
            "unchanged": self.unchanged,
            "bad": [str(p) for p in self.bad],
            "merges": [{"entry": e, "into": d, "by": r} for e, d, r in self.merges],
            "conflicts": [
                {"entry": e, "with": d, "id": i, "title_score": round(t, 1)}
                for e, d, i, t in self.conflicts
            ],
            "skipped": [str(p) for p in self.skipped],
            "warnings": [str(p) for p in self.warnings],
            "files": [
                {"file": f, "format": fmt, "read": n}
                | ({"layout": self.layouts[f]} if f in self.layouts else {})
                for f, fmt, n in self.files
            ],
            "elapsed_s": round(self.elapsed_s, 3),
        }


def _count(n: int, noun: str) -> str:
    """``"1 file"``, ``"3 files"``, ``"1,204 warnings"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
