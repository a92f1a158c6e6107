"""Which fault keeps a home from being written is said, with its hint: a full disk is "disk
full" (free space), a read-only mount "read-only home" (a writable copy), a directory this
user may not write "no write permission" (the owner and mode). Was: every one of them was
"(read-only home)" in ``litsift search``'s note on a BM25 index behind the store, and the
TUI's toast title and status line said "read-only" for a full disk too.

Real faults: a tmpfs filled up, a read-only bind mount, ``chmod -w`` with the CLI run without
CAP_DAC_OVERRIDE (each skipped with its reason where the machine forbids it, see
:mod:`tests.unit.test_environment_faults`), and SQLite's own "database or disk is full" from
``PRAGMA max_page_count`` on a real store.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from litsift.errors import NoSpaceError, ReadOnlyHomeError, UnwritableHomeError
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.store.faults import machine_fault
from litsift.types import Kind
from tests.conftest import PAPERS_GZ, read_jsonl_gz
from tests.unit.test_environment_faults import (
    N_PAPERS,
    QUERY,
    assert_no_bug_no_loss,
    copied,
    fill,
    home40,
    litsift,
    read_only_view,
    tmpfs,
    unwritable,
)

__all__ = ["home40"]  # the module fixture: a 40-paper BM25-only home

BEHIND = 10  # papers ingested after the BM25 index was built


def _behind(home40: Path, dest: Path) -> Path:
    """A copy of ``home40`` at ``dest`` whose store holds 10 papers its BM25 index lacks."""
    home = copied(home40, dest)
    rows = read_jsonl_gz(PAPERS_GZ)[N_PAPERS : N_PAPERS + BEHIND]
    src = dest.parent / "behind.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with LitsiftService(get_paths(home)) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
    return home


def _note(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if "BM25 index covers" in line]
    assert len(lines) == 1, stderr
    return lines[0]


def test_full_disk_search_says_disk_full_and_to_free_space(home40: Path, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "mnt", "4m") as root:
        home = _behind(home40, root / "home")
        fill(root)
        found = litsift(home, "search", QUERY, "-k", "5", "--json")
    assert_no_bug_no_loss(found)
    assert found.returncode == 0 and json.loads(found.stdout)["hits"]
    assert _note(found.stderr).endswith(f"40 of {N_PAPERS + BEHIND} rows (disk full)")
    assert "read-only" not in found.stderr, found.stderr
    assert "hint: free some space on that disk" in found.stderr


def test_read_only_mount_search_says_read_only_home(home40: Path, tmp_path: Path) -> None:
    with read_only_view(_behind(home40, tmp_path / "home"), tmp_path / "ro") as home:
        found = litsift(home, "search", QUERY, "-k", "5", "--json")
    assert_no_bug_no_loss(found)
    assert _note(found.stderr).endswith("rows (read-only home)")
    assert "hint: searching a read-only home works" in found.stderr


def test_unwritable_home_search_says_no_write_permission(home40: Path, tmp_path: Path) -> None:
    with unwritable(_behind(home40, tmp_path / "home")) as home:
        found = litsift(home, "search", QUERY, "-k", "5", "--json", drop_dac=True)
        ingest = litsift(home, "ingest", "papers", str(tmp_path / "behind.jsonl"), drop_dac=True)
    assert_no_bug_no_loss(found)
    assert _note(found.stderr).endswith("rows (no write permission)")
    assert f"hint: check its owner and mode (ls -ld {home / 'data'})" in found.stderr
    assert "remount" not in found.stderr
    assert ingest.returncode == 1 and "check its owner and mode" in ingest.stderr


def test_sqlite_full_and_read_only_errors_are_told_apart(home40: Path, tmp_path: Path) -> None:
    """Real SQLite errors on a real store: "database or disk is full" (``max_page_count``
    reached) is a full disk, "attempt to write a readonly database" a read-only home."""
    home = copied(home40, tmp_path / "home")
    with LitsiftService(get_paths(home)) as svc:
        store = svc.store
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(NoSpaceError) as full:
            svc.set_note(Kind.PAPER, _first_id(home), "é" * 200_000)
    assert full.value.title == "disk full"
    assert "free some space" in full.value.hint
    assert not isinstance(full.value, ReadOnlyHomeError)

    store_file = home / "data" / "litsift.sqlite"
    uri = f"{store_file.as_uri()}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as conn:
        with pytest.raises(sqlite3.OperationalError) as raised:
            conn.execute("CREATE TABLE t (x)")
    assert "readonly database" in str(raised.value)
    fault = machine_fault(raised.value, store_file)
    assert isinstance(fault, ReadOnlyHomeError) and not isinstance(fault, UnwritableHomeError)
    assert fault.title == "read-only home"
    assert "free some space" not in fault.hint


def _first_id(home: Path) -> str:
    with closing(sqlite3.connect(home / "data" / "litsift.sqlite")) as conn:
        return str(conn.execute("SELECT id FROM papers LIMIT 1").fetchone()[0])
