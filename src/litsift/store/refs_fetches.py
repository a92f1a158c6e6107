"""Checkpoints of ``litsift refs fetch`` (table ``refs_fetches``): per (source, seed paper,
direction) the paging token of the first page not yet written, the pages written, and whether
the walk reached its end (:mod:`litsift.sources.online.trail`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

Direction = Literal["backward", "forward"]

__all__ = ["Checkpoint", "Direction", "load_checkpoint", "save_checkpoint"]


@dataclass
class Checkpoint:
    """Where the walk of one (source, seed, direction) stands: ``token`` of the first page not
    written (None: not started or finished), ``done`` once it reached its end."""

    token: str | None = None
    pages: int = 0
    done: bool = False
    fetched_at: str | None = None


def load_checkpoint(
    conn: sqlite3.Connection, source: str, seed: str, direction: Direction
) -> Checkpoint:
    """The saved state of one walk (a fresh one when never run)."""
    row = conn.execute(
        "SELECT token, pages, done, fetched_at FROM refs_fetches "
        "WHERE source = ? AND seed = ? AND direction = ?",
        (source, seed, direction),
    ).fetchone()
    if row is None:
        return Checkpoint()
    return Checkpoint(row[0], int(row[1] or 0), bool(row[2]), row[3])


def save_checkpoint(
    conn: sqlite3.Connection, source: str, seed: str, direction: Direction, state: Checkpoint
) -> None:
    """Insert or replace the state of one walk (in the caller's transaction)."""
    conn.execute(
        "INSERT INTO refs_fetches(source, seed, direction, token, pages, done, fetched_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(source, seed, direction) DO UPDATE SET "
        "token = excluded.token, pages = excluded.pages, done = excluded.done, "
        "fetched_at = excluded.fetched_at",
        (source, seed, direction, state.token, state.pages, int(state.done), state.fetched_at),
    )
