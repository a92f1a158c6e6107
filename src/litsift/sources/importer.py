"""``litsift ingest papers|datasets PATH...``: find the files, detect each one's format, read
them, and write what they hold (:class:`~litsift.sources.writer.RecordWriter`).

A PATH may be a file, a ``.gz`` file, or a directory. A directory that a directory format
claims (a Zotero data directory, a Hugging Face dataset card) is read as one source; any other
directory is walked recursively (hidden entries skipped) and each file detected on its own --
a folder of PDFs, a folder of ``.bib`` files. litsift's own JSONL goes through
:func:`litsift.store.ingest.ingest_jsonl`.

Nothing bad stops the import: a bad entry is reported as ``FILE:LOCATION: reason`` and the
good ones are kept; an unusable file (:class:`~litsift.errors.IngestError` from its reader,
or any library error the reader let through) is reported as ``FILE: reason; hint: ...`` and
the other files go on. A file no format of the kind claims is such an unusable file when it
was named on the command line, or when it was found in a directory under a name only our
formats use (``.bib``, ``.ris``, ``.nbib``, ``.pdf``, ``.nxml``, ``.sqlite``...: a PNG renamed
``refs.bib``, an empty or cut download). Files found in a directory under other names --
images, ``.docx``, ``.tex``, and the general-purpose ``.json``, ``.csv``, ``.xml``, ``.txt``,
``.md`` (config files, data tables, notes) -- that no format claims are listed as skipped, and
so are files of the other kind found in a directory. Each message names the file once and
never an internal exception's class.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from litsift.errors import IngestError, LitsiftError, MachineFaultError, NoSpaceError
from litsift.sources.base import BadItem, DatabaseReader, Format, Notice, looks_binary
from litsift.sources.encodings import noting_guesses
from litsift.sources.formats.s2ag_citations import looks_like_citations
from litsift.sources.writer import RecordWriter
from litsift.store.faults import fault_in_chain
from litsift.store.repo import Store
from litsift.store.report import IngestReport, Problem
from litsift.text import for_storage_in
from litsift.types import Kind

__all__ = ["file_problem", "import_paths", "plan"]

#: ``progress(files_done, files_total, records_read)``: called after each file, and every
#: :data:`PROGRESS_ITEMS` items while a file is read (``files_done`` then counts the files
#: before it), so that a 200 MB file shows how far it has got
ImportProgress = Callable[[int, int, int], None]
PROGRESS_ITEMS = 1000


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


#: general-purpose text formats: a directory walk that finds one no format claims (a config
#: file, a data table, notes, a dataset card's ``dataset_infos.json``) skips it, not bad
_GENERIC_EXTENSIONS = (".json", ".jsonl", ".ndjson", ".xml", ".csv", ".txt", ".md")
#: magic bytes of files that end up under a bibliography's name
_MAGIC = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive (a .docx, .xlsx or .zip?)"),
    (b"%PDF", "a PDF"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office document"),
    (b"{\\rtf", "an RTF document"),
)
_HINT = "export it again, or name its format with --format NAME (litsift formats lists them)"
_EMPTY_HINT = "name the folder your exports or PDFs are in (hidden files are not read)"
#: ``KeyError:``, ``json.decoder.JSONDecodeError``: internal names, never shown to a user
_EXCEPTION_NAME_RE = re.compile(
    r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning)\b:?\s*"
)


def _not_regular(path: Path) -> str | None:
    """Why ``path`` is no file to open -- a FIFO (opening it waits for a writer forever), a
    device, a socket -- or None for a regular file or a directory (symbolic links followed)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # reading it then says why
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    what = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )
    return f"{what}, not a file: not opened"


def _formats_named(file: Path, kind: Kind) -> list[str]:
    """The formats of ``kind`` whose file-name endings ``file`` has (``.gz`` aside)."""
    from litsift.sources.formats import registry

    name = file.name.lower().removesuffix(".gz")
    return [
        f.name
        for f in registry.formats().values()
        if f.kind is kind and any(name.endswith(ext) for ext in f.extensions)
    ]


def _unclaimed(file: Path, kind: Kind, head: bytes, bad: bool) -> Problem:
    """``FILE: reason`` for a file that no format of ``kind`` claims (``; hint: ...`` when it
    is reported as bad rather than skipped)."""
    if not head:
        reason, hint = "empty file (0 bytes)", "export or download it again"
    else:
        what = next((label for magic, label in _MAGIC if head.startswith(magic)), "")
        if not what and looks_binary(head):
            what = "binary data, not text"
        named = _formats_named(file, kind)
        ext = "." + file.name.lower().removesuffix(".gz").rsplit(".", 1)[-1]
        if not bad:
            reason = "not a format litsift reads"
        elif len(named) > 3:
            reason = f"not any of the formats litsift reads from {ext} files ({', '.join(named)})"
        elif named:
            reason = f"not {' or '.join(named)} (nor any other format litsift reads)"
        else:
            reason = "not a format litsift reads"
        reason += f": it holds {what}" if what else ""
        hint = _HINT
        if kind is Kind.PAPER and looks_like_citations(head):
            reason += ": it holds S2AG citations lines (edges, not papers)"
            hint = f"import its citation edges with: litsift refs import {file}"
    return Problem(str(file), "", f"{reason}; hint: {hint}" if bad else reason)


def _without_exception_names(text: str) -> str:
    return re.sub(r"\(\s*\)", "", _EXCEPTION_NAME_RE.sub("", text)).strip()


def file_problem(file: str, err: LitsiftError) -> Problem:
    """``err`` about ``file`` as ``FILE: reason; hint: ...``: the path once (a reader's message
    may start with it, a library's may quote it), no internal exception class names."""
    message = err.message.removeprefix(f"{file}: ").removeprefix(f"{file}:")
    if file in message:
        message = message.replace(file, Path(file).name)
    message = _without_exception_names(message) or "cannot be read"
    return Problem(file, "", message + (f"; hint: {err.hint}" if err.hint else ""))


def plan(
    paths: Sequence[Path], kind: Kind, fmt_name: str | None = None
) -> tuple[list[tuple[Path, Format]], list[Problem], list[Problem]]:
    """The ``(path, format)`` pairs an import would read, the paths it would skip, and the
    files it cannot read (see the module docstring for which is which).

    Raises:
        IngestError: a PATH does not exist, or ``fmt_name`` is unknown or of the other kind.
    """
    from litsift.sources.formats import registry

    forced = registry.get(fmt_name) if fmt_name else None
    if forced is not None and forced.kind is not kind:
        raise IngestError(
            f"format {forced.name!r} holds {forced.kind.value}s, not {kind.value}s",
            f"use: litsift ingest {forced.kind.value}s --format {forced.name} PATH",
        )
    todo: list[tuple[Path, Format]] = []
    skipped: list[Problem] = []
    bad: list[Problem] = []
    for path in paths:
        path = Path(path)
        if not path.exists():
            if str(path) == "-":  # the Unix spelling of standard input, never read here
                raise IngestError(
                    "-: litsift does not read records from standard input",
                    "save them to a file and name it: litsift ingest papers FILE",
                )
            raise IngestError(f"{path}: no such file or directory", "check the path")
        special = _not_regular(path)
        if special is not None:  # named on the command line: bad, never opened
            bad.append(Problem(str(path), "", f"{special}; hint: name a file or a folder"))
            continue
        if path.is_dir() and next(_walk(path), None) is None:  # said "0 files", exit 0
            bad.append(Problem(str(path), "", f"an empty folder; hint: {_EMPTY_HINT}"))
            continue
        if forced is not None:
            if path.is_dir() and not forced.directory:
                for p in _walk(path):
                    special = _not_regular(p)
                    if special is None:
                        todo.append((p, forced))
                    else:
                        skipped.append(Problem(str(p), "", special))
            else:
                todo.append((path, forced))
            continue
        explicit = not path.is_dir()
        candidates = [path] if explicit else []
        if path.is_dir():
            fmt = registry.detect(path)
            if fmt is not None and fmt.kind is kind:
                todo.append((path, fmt))
                continue
            candidates = list(_walk(path))
        for file in candidates:
            special = None if explicit else _not_regular(file)
            if special is not None:  # a FIFO, device or socket in the folder: never opened
                skipped.append(Problem(str(file), "", special))
                continue
            # a file the user named, or one whose name says it is one of ours, must be read
            ours = explicit or (
                bool(_formats_named(file, kind))
                and not file.name.lower().removesuffix(".gz").endswith(_GENERIC_EXTENSIONS)
            )
            try:
                fmt = registry.detect(file)
                head = registry.read_head(file) if fmt is None else b""  # to say what it is
            except IngestError as err:
                (bad if ours else skipped).append(file_problem(str(file), err))
                continue
            if fmt is None:
                (bad if ours else skipped).append(_unclaimed(file, kind, head, ours))
            elif fmt.kind is not kind:
                other = fmt.kind.value
                reason = f"holds {other}s ({fmt.name}), not {kind.value}s"
                if explicit:
                    hint = f"use: litsift ingest {other}s FILE"
                    bad.append(Problem(str(file), "", f"{reason}; hint: {hint}"))
                else:
                    skipped.append(Problem(str(file), "", reason))
            else:
                todo.append((file, fmt))
    return todo, skipped, bad


def _stopped(
    fault: MachineFaultError, label: str, writer: RecordWriter, report: IngestReport
) -> MachineFaultError:
    """``fault`` told with what the import had committed when it stopped at ``label``."""
    report.fold(writer.counts)
    writer.counts = type(writer.counts)()
    done = (
        f"{report.added:,} added, {report.updated:,} updated, {report.merged:,} merged, "
        f"{report.unchanged:,} unchanged ({len(report.bad):,} bad entries skipped)"
    )
    return type(fault)(
        f"{fault.message}; the import stopped at {label}, after committing {done}",
        f"{fault.hint}; the same ingest then skips what is already stored",
    )


def import_paths(
    store: Store,
    paths: Sequence[Path],
    kind: Kind = Kind.PAPER,
    fmt_name: str | None = None,
    progress: ImportProgress | None = None,
    keep_untitled: bool = False,
) -> IngestReport:
    """Import every record found under ``paths`` into ``store``.

    Args:
        store: an open, writable store.
        paths: files, ``.gz`` files or directories.
        kind: papers or datasets.
        fmt_name: force this format (``--format``) instead of detecting each file's.
        progress: optional callback, see :data:`ImportProgress`.
        keep_untitled: keep papers with an abstract and an id but no title
            (:class:`~litsift.sources.writer.RecordWriter`; a review's records).

    Returns:
        The report; ``report.ok`` is False when some entry or file was bad (the caller should
        then exit non-zero), and everything good was kept.

    Raises:
        IngestError: a PATH does not exist, the format is unknown, or the store is read-only.
        MachineFaultError: the disk filled up, the home is read-only, or another process held
            the store's write lock for longer than 10 s; the message says what was committed
            before (all of it is kept), and no file is blamed for it.
    """
    from litsift.store.ingest import ingest_jsonl

    start = time.perf_counter()
    if store.readonly:
        if store.write_fault is not None:  # a read-only home or a full disk
            raise store.write_fault
        raise IngestError(f"the store {store.path} is open read-only", "open it for writing")
    todo, skipped, unreadable = plan(paths, kind, fmt_name)
    report = IngestReport(kind=kind, skipped=skipped)  # path None: a report of many files
    databases = _databases(todo)  # every .bib of this call is one \bibliography{a,b,c}
    writer = RecordWriter(store, kind, keep_untitled=keep_untitled)
    writer.counts.bad.extend(unreadable)
    for i, (path, fmt) in enumerate(todo):
        label = str(path)

        def tick(items: int, files_done: int = i, base: int = writer.counts.read) -> None:
            """``items`` read from this file so far."""
            if progress is not None and items % PROGRESS_ITEMS == 0:
                progress(files_done, len(todo), base + items)

        if fmt.read_database is not None:  # read with the other files of its database
            if path in databases:
                _read_database(writer, report, fmt.name, fmt.read_database, databases[path], tick)
            if progress is not None:
                progress(i + 1, len(todo), writer.counts.read)
            continue
        if fmt.name.startswith("jsonl"):
            writer.flush()
            sub = IngestReport(kind=kind, path=path)
            try:
                ingest_jsonl(store, kind, path, into=sub, clean=for_storage_in)
            except MachineFaultError as err:  # the batches committed before count
                writer.counts.fold(sub)
                raise _stopped(err, label, writer, report) from err
            except LitsiftError as err:
                writer.counts.bad.append(file_problem(label, err))
                continue
            writer.counts.fold(sub)
            report.files.append((label, fmt.name, sub.read))
            # the JSONL rows join the index
            old, writer = writer, RecordWriter(store, kind, keep_untitled=keep_untitled)
            writer.counts = old.counts
            continue
        before = writer.counts.read
        try:
            with noting_guesses() as guesses:  # a file decoded as GBK, Windows-1251, ...
                for n, item in enumerate(fmt.read(path), 1):
                    writer.add(fmt.name, label, item)
                    tick(n)
            for guess in guesses:
                writer.add(fmt.name, label, Notice("", guess))
            writer.flush()
        except MachineFaultError as err:  # the machine's fault, never the file's
            raise _stopped(err, label, writer, report) from err
        except LitsiftError as err:
            writer.flush()
            writer.counts.bad.append(file_problem(label, err))
        except (Exception, RecursionError) as err:  # a library error the reader let through
            fault = fault_in_chain(err, path)
            if isinstance(fault, NoSpaceError):  # ENOSPC: the disk's fault, not the file's
                raise _stopped(fault, label, writer, report) from err
            writer.flush()
            reason = f"cannot be read as {fmt.name}: unexpected content ({err})"[:300]
            hint = "check the file; if it is sound, please report this to litsift"
            writer.counts.bad.append(file_problem(label, IngestError(reason, hint)))
        writer.flush()
        report.files.append((label, fmt.name, writer.counts.read - before))
        if progress is not None:
            progress(i + 1, len(todo), writer.counts.read)
    writer.flush()
    report.fold(writer.counts)
    report.bad = [replace(p, reason=_without_exception_names(p.reason)) for p in report.bad]
    report.elapsed_s = time.perf_counter() - start
    return report


def _databases(todo: Sequence[tuple[Path, Format]]) -> dict[Path, list[Path]]:
    """The files of each format that reads its files as one database (BibTeX), keyed by the
    first of them: every ``.bib`` of one ingest call is one ``\\bibliography{a,b,c}``."""
    groups: dict[str, list[Path]] = {}
    for path, fmt in todo:
        if fmt.read_database is not None:
            groups.setdefault(fmt.name, []).append(path)
    return {paths[0]: paths for paths in groups.values()}


def _read_database(
    writer: RecordWriter,
    report: IngestReport,
    fmt: str,
    reader: DatabaseReader,
    paths: list[Path],
    tick: Callable[[int], None],
) -> None:
    """Read ``paths`` together with ``reader``; one ``report.files`` row each; ``tick(n)``
    after the n-th item."""
    read = dict.fromkeys(paths, 0)
    current = paths[0]
    try:
        for n, (current, item) in enumerate(reader(paths), 1):
            tick(n)
            if isinstance(item, BadItem) and not item.location:  # an unusable file
                writer.flush()
                writer.counts.bad.append(
                    file_problem(str(current), IngestError(item.reason, "check the file"))
                )
                continue
            writer.add(fmt, str(current), item)
            if not isinstance(item, Notice):
                read[current] = read.get(current, 0) + 1
        writer.flush()
    except MachineFaultError as err:  # the machine's fault, never the files'
        raise _stopped(err, str(current), writer, report) from err
    except (Exception, RecursionError) as err:  # a library error the reader let through
        fault = fault_in_chain(err, current)
        if isinstance(fault, NoSpaceError):  # ENOSPC: the disk's fault, not the file's
            raise _stopped(fault, str(current), writer, report) from err
        writer.flush()
        reason = f"cannot be read as {fmt}: unexpected content ({err})"[:300]
        hint = "check the file; if it is sound, please report this to litsift"
        writer.counts.bad.append(file_problem(str(current), IngestError(reason, hint)))
    writer.flush()
    report.files.extend((str(path), fmt, n) for path, n in read.items())
