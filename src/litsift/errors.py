"""Error hierarchy: every error a user can hit carries a one-line message and a hint.

The core raises these; the CLI and the TUI report them (``str(err)`` gives both lines).
"""

from __future__ import annotations


class LitsiftError(Exception):
    """Base class. ``message`` says what happened, ``hint`` what to do about it."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n  hint: {self.hint}" if self.hint else self.message


class ConfigError(LitsiftError):
    """The configuration file is unreadable or holds an invalid value."""


class StoreError(LitsiftError):
    """The SQLite store is missing, locked, or of an unknown schema version."""


class IngestError(LitsiftError):
    """An input file cannot be read at all (bad lines are reported, not raised)."""


class ModelNotBuiltError(LitsiftError):
    """The encoder's ONNX file is not in the cache and cannot be built here."""


class ModelError(LitsiftError):
    """The encoder cannot be loaded or exported."""


class RankerError(LitsiftError):
    """The dataset ranking model cannot be loaded."""


class IndexMissingError(LitsiftError):
    """No index has been built for this kind of record yet."""


class IndexMismatchError(LitsiftError):
    """An index manifest does not match the running encoder or schema."""


class QueryError(LitsiftError):
    """A query cannot be run (bad year range, unknown fusion method, ...)."""


class EvalError(LitsiftError):
    """An evaluation benchmark's files are missing or malformed."""


class LLMError(LitsiftError):
    """Base class for errors talking to a remote LLM endpoint."""


class LLMCancelledError(LLMError):
    """The caller cancelled the LLM call (Esc, a newer search): the request was closed, nothing
    was cached or charged. Here, not in ``litsift.llm.errors``, so the UI can tell it apart."""


class IndexDamagedError(IndexMismatchError):
    """An index file is missing, truncated, unreadable or fails its checksum; the message names
    the part and the file, and ``litsift index`` rebuilds that part from the store. A subclass
    of :class:`IndexMismatchError`, so code treating an unusable index as out of date keeps
    doing so."""


class ReviewError(LitsiftError):
    """A review cannot be made, found or changed (unknown name, name taken, bad decision)."""


class MachineFaultError(StoreError):
    """The machine refused a read or write of the home: no space left, a read-only file system,
    a lock held by another process, or a permission. Nothing stored is damaged; the hint says
    what to do (free space, open read-only, wait), never to move the store away.
    :mod:`litsift.store.faults` builds these from SQLite's error codes and ``errno``.
    ``title`` names the fault in a few words, for a note or a toast's title."""

    title = "home not writable"


class NoSpaceError(MachineFaultError):
    """No space left on the device holding the home (``SQLITE_FULL``, ``ENOSPC``)."""

    title = "disk full"


class ReadOnlyHomeError(MachineFaultError):
    """The home cannot be written: a read-only file system or directory (``SQLITE_READONLY``,
    ``EROFS``, a directory without write permission). Searching it still works."""

    title = "read-only home"


class UnwritableHomeError(ReadOnlyHomeError):
    """The home's directory or file has no write permission for this user (``EACCES`` on a
    write, a mode without ``w``): a :class:`ReadOnlyHomeError` whose hint is to check the
    owner and mode, not to remount."""

    title = "no write permission"


class StoreLockedError(MachineFaultError):
    """Another process holds the store's lock (``SQLITE_BUSY``, ``SQLITE_LOCKED``) past the
    busy timeout."""

    title = "store locked"


class PermissionDeniedError(MachineFaultError):
    """A file of the home cannot be read (``EACCES``, ``EPERM``, ``SQLITE_PERM``)."""

    title = "permission denied"


class StoreCorruptError(StoreError):
    """SQLite reports the store's file damaged and ``PRAGMA quick_check`` confirms it."""
