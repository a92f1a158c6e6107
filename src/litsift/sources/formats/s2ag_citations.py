"""Semantic Scholar Academic Graph (S2AG) ``citations`` dataset files: one citation edge a line.

A line (api.semanticscholar.org/api-docs/datasets, dataset ``citations``)::

    {"citingcorpusid": "20187272", "citedcorpusid": "85219962", "isinfluential": false,
     "contexts": [...] | null, "intents": [...] | null, "updated": "2020-09-13T15:59:00.392Z"}

Each line becomes the edge ``corpusid:CITING -> corpusid:CITED`` (source ``s2ag``), written in
batches by :func:`import_citation_files` (``litsift refs import``); an end whose corpus id a
stored paper holds is written as that paper's id. Files are read line by line, plain or gzip
(by their magic bytes), so a release's GB-sized parts never sit in memory.

A line whose ``citedcorpusid`` is null (S2 could not match the reference to a paper) is
counted as *no cited id* and skipped. A line that is not JSON, lacks ``citingcorpusid``, or
carries an id that is not digits is reported as ``FILE:LINE: reason``; the other lines are
kept. A file that is not S2AG citations at all (S2 ``papers`` lines, another dataset) raises.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.errors import IngestError
from litsift.sources.identity.ids import normalize_corpusid
from litsift.store.report import Problem

if TYPE_CHECKING:
    from litsift.store import Store

__all__ = [
    "CITING_KEY",
    "SOURCE",
    "CitationImportReport",
    "CitationLine",
    "import_citation_files",
    "looks_like_citations",
    "read_citation_lines",
]

#: the key every S2AG citations line carries (and S2 papers lines do not)
CITING_KEY = "citingcorpusid"
_CITED_KEY = "citedcorpusid"
#: ``citations.source`` of the edges read from these files
SOURCE = "s2ag"
_BATCH = 20_000
_HINT = "litsift refs import reads the S2AG `citations` dataset's .jsonl(.gz) files"
_PAPER_KEYS = ("paperId", "corpusid", "corpusId", "title", "abstract", "externalids")


@dataclass(frozen=True)
class CitationLine:
    """One read line: its 1-based ``line`` number, the citing and cited corpus ids (digits;
    ``cited`` is None for a reference S2 did not match to a paper)."""

    line: int
    citing: str
    cited: str | None


@dataclass
class CitationImportReport:
    """What ``litsift refs import`` did over its files.

    ``lines`` read (blank ones aside), ``edges_added`` newly stored, ``edges_known`` already
    stored (a re-import), ``resolved`` edges with an end that is a stored paper, ``no_cited``
    lines skipped for a null ``citedcorpusid``, ``self_citations`` skipped (citing = cited),
    ``bad`` lines and files that could not be read (``FILE:LINE: reason``).
    """

    files: int = 0
    lines: int = 0
    edges_added: int = 0
    edges_known: int = 0
    resolved: int = 0
    no_cited: int = 0
    self_citations: int = 0
    bad: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.bad

    def summary(self) -> str:
        """One line: ``N lines read from F files: E edges added (K already stored), R resolved
        to stored records; S skipped (no cited id), B bad``."""
        s = "s" if self.files != 1 else ""
        skipped = f"{self.no_cited:,} skipped (no cited id)"
        if self.self_citations:
            skipped += f", {self.self_citations:,} skipped (cites itself)"
        return (
            f"{self.lines:,} line{'s' if self.lines != 1 else ''} read from "
            f"{self.files:,} file{s}: "
            f"{self.edges_added:,} edges added ({self.edges_known:,} already stored), "
            f"{self.resolved:,} resolved to stored records; {skipped}, {len(self.bad):,} bad"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "lines": self.lines,
            "edges_added": self.edges_added,
            "edges_known": self.edges_known,
            "resolved": self.resolved,
            "no_cited": self.no_cited,
            "self_citations": self.self_citations,
            "bad": [str(p) for p in self.bad],
        }


def looks_like_citations(head: bytes) -> bool:
    """Whether the first line of ``head`` (a file's first bytes, decompressed) is an S2AG
    citations line: a JSON object with ``citingcorpusid`` and ``citedcorpusid``."""
    first = head.lstrip().split(b"\n", 1)[0]
    try:
        obj = json.loads(first)
    except ValueError:
        return False
    return isinstance(obj, dict) and CITING_KEY in obj and _CITED_KEY in obj


def _open(path: Path) -> io.BufferedIOBase:
    try:
        fh: io.BufferedIOBase = path.open("rb")
        if fh.read(2) == b"\x1f\x8b":
            fh.close()
            return gzip.open(path, "rb")
        fh.seek(0)
        return fh
    except FileNotFoundError:
        raise IngestError(f"{path}: no such file", "check the path") from None
    except OSError as err:
        raise IngestError(f"{path}: cannot be read ({err.strerror})", "check the path") from None


def _wrong_format(path: Path, obj: object) -> IngestError:
    if isinstance(obj, dict) and any(k in obj for k in _PAPER_KEYS):
        return IngestError(
            f"{path}: Semantic Scholar papers, not S2AG citations lines",
            f"papers are read by: litsift ingest papers {path}",
        )
    return IngestError(
        f"{path}: not S2AG citations lines (no {CITING_KEY!r} in its first line)",
        _HINT,
    )


def read_citation_lines(path: Path) -> Iterator[CitationLine | Problem]:
    """The lines of an S2AG citations file, streamed: a :class:`CitationLine` each, or a
    :class:`Problem` (``FILE:LINE: reason``) for a bad one; blank lines are passed over.

    Raises:
        IngestError: no such file; unreadable; empty; not S2AG citations (judged by its first
            line, when that is JSON without ``citingcorpusid``).
    """
    name = str(path)
    fh = _open(path)
    seen = False
    number = 0
    try:
        while True:
            try:
                raw = fh.readline()
            except (OSError, EOFError, zlib.error):
                yield Problem(
                    name,
                    str(number + 1),
                    "the gzip stream breaks off here (the lines before it are kept); "
                    "hint: download the file again",
                )
                return
            if not raw:
                break
            number += 1
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                if not seen and not raw.lstrip().startswith(b"{"):
                    raise IngestError(
                        f"{path}: not S2AG citations lines (its first line is not JSON)",
                        _HINT,
                    ) from None
                seen = True
                cut = "" if raw.endswith(b"\n") else " (the file ends inside it)"
                yield Problem(name, str(number), f"not a JSON line{cut}")
                continue
            if not seen and not (isinstance(obj, dict) and CITING_KEY in obj):
                raise _wrong_format(path, obj)
            seen = True
            yield _line(name, number, obj)
    finally:
        fh.close()
    if not seen:
        raise IngestError(f"{path}: no lines", "download the file again")


def _corpus_id(value: object) -> str | None:
    """Corpus id digits: the lines' plain digit strings as they are (most of the time spent
    on a line otherwise), anything else through :func:`normalize_corpusid`."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and value[:1] != "0":
        return value if len(value) <= 12 else None
    return normalize_corpusid(value)


def _line(name: str, number: int, obj: object) -> CitationLine | Problem:
    if not isinstance(obj, dict):
        return Problem(name, str(number), "not a JSON object")
    value = obj.get(CITING_KEY)
    if value is None:
        return Problem(name, str(number), f"no {CITING_KEY}")
    citing = _corpus_id(value)
    if citing is None:
        return Problem(name, str(number), f"{CITING_KEY} {str(value)[:40]!r} is not digits")
    value = obj.get(_CITED_KEY)
    if value is None:
        return CitationLine(number, citing, None)
    cited = _corpus_id(value)
    if cited is None:
        return Problem(name, str(number), f"{_CITED_KEY} {str(value)[:40]!r} is not digits")
    return CitationLine(number, citing, cited)


def import_citation_files(
    store: Store,
    paths: Sequence[Path],
    *,
    batch: int = _BATCH,
    progress: Callable[[int], None] | None = None,
) -> CitationImportReport:
    """Add the edges of S2AG citations files to ``store``, ``batch`` lines a transaction, so
    an interrupted run keeps the batches written (running it again adds only the rest).

    A folder in ``paths`` stands for its files (a release's ``citations/``; hidden ones
    aside). ``progress(lines_read)`` is called after each batch. A file that cannot be read is one
    ``bad`` entry (``FILE: reason; hint: ...``); the other files are still read.
    """
    from litsift.store.repositories import Citations

    edges = Citations(store)
    report = CitationImportReport()
    pending: list[tuple[str, str]] = []

    def flush() -> None:
        if not pending:
            return
        with store.transaction():
            added, known, resolved = edges.add_edges_resolved(pending, SOURCE)
        report.edges_added += added
        report.edges_known += known
        report.resolved += resolved
        pending.clear()
        if progress is not None:
            progress(report.lines)

    files: list[Path] = []
    for path in map(Path, paths):  # a release's citations/ folder: its files, in name order
        if not path.is_dir():
            files.append(path)
            continue
        found = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not found:  # it said "0 lines read from 0 files ... 0 bad", exit 0
            hint = "name the folder the release's citations files are in"
            report.bad.append(Problem(str(path), "", f"an empty folder; hint: {hint}"))
        files += found
    for path in files:
        try:
            for item in read_citation_lines(path):
                report.lines += 1
                if isinstance(item, Problem):
                    report.bad.append(item)
                    continue
                if item.cited is None:
                    report.no_cited += 1
                elif item.cited == item.citing:
                    report.self_citations += 1
                else:
                    pending.append((f"corpusid:{item.citing}", f"corpusid:{item.cited}"))
                    if len(pending) >= batch:
                        flush()
        except IngestError as err:
            message = err.message.removeprefix(f"{path}: ")
            hint = f"; hint: {err.hint}" if err.hint else ""
            report.bad.append(Problem(str(path), "", message + hint))
        else:
            report.files += 1
    flush()
    return report
