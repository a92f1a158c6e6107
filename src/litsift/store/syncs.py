"""Saved syncs (table ``saved_syncs``): each one's source, parameters, high-water mark, last run
and the checkpoint of an unfinished walk; and when the user last looked at what syncs brought
in (``meta.arrivals_seen_at``). The fetching itself is :mod:`litsift.sources.online.sync`.
"""

from __future__ import annotations

import json
import sqlite3

from litsift.types import SyncSpec

__all__ = ["arrivals_seen_at", "load_syncs", "mark_arrivals_seen", "save_sync"]


def load_syncs(conn: sqlite3.Connection) -> list[SyncSpec]:
    """Every saved sync of a store, by name."""
    rows = conn.execute(
        "SELECT name, source, params, high_water, last_run_at, last_added, resume_token, "
        "resume_high_water FROM saved_syncs ORDER BY name"
    ).fetchall()
    return [
        SyncSpec(n, s, json.loads(p), h, r, int(a or 0), t, th) for n, s, p, h, r, a, t, th in rows
    ]


def save_sync(conn: sqlite3.Connection, spec: SyncSpec) -> None:
    """Insert or replace a saved sync (its params, high water, last run and the checkpoint of
    an unfinished walk); commits."""
    conn.execute(
        "INSERT INTO saved_syncs(name, source, params, high_water, last_run_at, last_added, "
        "resume_token, resume_high_water) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(name) DO UPDATE SET source = excluded.source, "
        "params = excluded.params, high_water = excluded.high_water, "
        "last_run_at = excluded.last_run_at, last_added = excluded.last_added, "
        "resume_token = excluded.resume_token, resume_high_water = excluded.resume_high_water",
        (
            spec.name,
            spec.source,
            json.dumps(spec.params, sort_keys=True),
            spec.high_water,
            spec.last_run_at,
            spec.last_added,
            spec.resume_token,
            spec.resume_high_water,
        ),
    )
    conn.commit()


def arrivals_seen_at(conn: sqlite3.Connection) -> str:
    """When the user last looked at what syncs brought in (ISO-8601; ``""``: never)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'arrivals_seen_at'").fetchone()
    return str(row[0]) if row else ""


def mark_arrivals_seen(conn: sqlite3.Connection, when: str) -> None:
    """Remember ``when`` (ISO-8601) as the last look at what syncs brought in; commits."""
    conn.execute(
        "INSERT INTO meta(key, value) VALUES ('arrivals_seen_at', ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (when,),
    )
    conn.commit()
