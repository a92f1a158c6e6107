"""Faults of the machine (issue 34, items 1 and 2): a full disk, a read-only home, a directory
this user may not write, a lock held by another process, a damaged store.

Real mounts where the machine allows them (root with CAP_SYS_ADMIN): a tmpfs of a few MB filled
up for a full disk, a read-only bind mount for a mounted snapshot; the unwritable directory is
made with ``chmod -w`` and the CLI run without CAP_DAC_OVERRIDE (``setpriv``), so root obeys the
permission bits. Each test skips with its reason where the machine forbids it. The CLI runs as
a subprocess of this checkout's code on a small BM25-only home (40 papers of the shared sample).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from litsift.errors import ReadOnlyHomeError, StoreCorruptError, StoreLockedError
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.store import Store
from litsift.store.faults import LOW_SPACE_BYTES, machine_fault
from litsift.types import Kind, Label
from tests.conftest import PAPERS_GZ, SHARED_DATA, copy_home, read_jsonl_gz

REPO = Path(__file__).resolve().parents[2]
N_PAPERS = 40
QUERY = "neural machine translation"
BIBTEX = SHARED_DATA / "sources" / "reference-managers" / "bibtex"
#: two real BibTeX exports (Mendeley via Better BibTeX, Zotero): ~820 KB, ~900 entries
BIB_FILES = (
    BIBTEX / "bbt_mendeley-export_duplicate-keys.bib",
    BIBTEX / "thesis-psychology_zotero-bbt-export.bib",
)
#: words a hint must never say: following them loses labels, notes and sync state
DESTRUCTIVE = ("move the file away", "ingest your records again")


# ------------------------------------------------------------------ the machine


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


@contextmanager
def mounted(*args: str, target: Path) -> Iterator[Path]:
    """``mount ARGS TARGET`` for the block, or skip saying why the machine forbids it."""
    if os.geteuid() != 0:
        pytest.skip("mounting needs root (CAP_SYS_ADMIN); not root here")
    target.mkdir(parents=True, exist_ok=True)
    done = _run("mount", *args, str(target))
    if done.returncode != 0:
        pytest.skip(f"mount {' '.join(args)} is forbidden here: {done.stderr.strip()}")
    try:
        yield target
    finally:
        _run("umount", "-l", str(target))


@contextmanager
def tmpfs(target: Path, size: str) -> Iterator[Path]:
    with mounted("-t", "tmpfs", "-o", f"size={size}", "tmpfs", target=target) as root:
        yield root


@contextmanager
def read_only_view(source: Path, target: Path) -> Iterator[Path]:
    """``source`` seen through a read-only bind mount at ``target`` (a mounted snapshot)."""
    with mounted("--bind", str(source), target=target):
        done = _run("mount", "-o", "remount,bind,ro", str(target))
        if done.returncode != 0:
            pytest.skip(f"a read-only remount is forbidden here: {done.stderr.strip()}")
        yield target


def fill(root: Path, leave: int = 0) -> Path:
    """Write zeros into ``root/filler`` until ``leave`` bytes (rounded to 4 KiB) stay free."""
    filler = root / "filler"
    block = b"\0" * (1 << 16)
    with filler.open("wb") as f:
        while True:
            free = shutil.disk_usage(root).free - leave
            if free <= 0:
                break
            try:
                f.write(block[: min(len(block), max(4096, free))])
                f.flush()
            except OSError:
                break
    return filler


def litsift(home: Path, *args: str, drop_dac: bool = False) -> subprocess.CompletedProcess[str]:
    """Run this checkout's CLI on ``home``; with ``drop_dac`` as a root that obeys permission
    bits (no CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LITSIFT_HOME", "LITSIFT_DEBUG")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO)])
    cmd = [sys.executable, "-c", "from litsift.cli.root import main; main()", "--home", str(home)]
    prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
    return subprocess.run(
        [*(prefix if drop_dac else []), *cmd, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def told(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def assert_no_bug_no_loss(done: subprocess.CompletedProcess[str]) -> None:
    out = told(done).lower()
    assert done.returncode != 2, out
    assert "failed unexpectedly" not in out and "this is a bug" not in out, out
    for words in DESTRUCTIVE:
        assert words not in out, out
    assert "traceback" not in out, out


def hit_ids(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, told(done)
    return [h["id"] for h in json.loads(done.stdout)["hits"]]


def paper_count(store_file: Path) -> int:
    with sqlite3.connect(store_file) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0])


# ------------------------------------------------------------------ a small home


@pytest.fixture(scope="module")
def home40(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with 40 papers of the shared sample and their BM25 index (no dense part)."""
    rows = read_jsonl_gz(PAPERS_GZ)[:N_PAPERS]
    src = tmp_path_factory.mktemp("src") / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    home = tmp_path_factory.mktemp("home40")
    with LitsiftService(get_paths(home)) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER, dense=False)
    return home


@pytest.fixture(scope="module")
def writable_hits(home40: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    copy = tmp_path_factory.mktemp("w") / "home"
    copy_home(home40, copy)
    ids = hit_ids(litsift(copy, "search", QUERY, "-k", "5", "--json"))
    assert ids
    return ids


def copied(home40: Path, dest: Path) -> Path:
    return copy_home(home40, dest, dirs_exist_ok=True)


# ------------------------------------------------------------------ a full disk


def test_full_disk_search_and_config_answer_and_say_why_nothing_is_saved(
    home40: Path, writable_hits: list[str], tmp_path: Path
) -> None:
    """Was: "the store ... is unreadable: disk I/O error -- hint: move the file away"."""
    with tmpfs(tmp_path / "mnt", "3m") as root:
        home = copied(home40, root / "home")
        fill(root)
        found = litsift(home, "search", QUERY, "-k", "5", "--json")
        config = litsift(home, "config")
    assert_no_bug_no_loss(found)
    assert hit_ids(found) == writable_hits
    assert "no space left" in found.stderr and "cannot be saved" in found.stderr
    assert_no_bug_no_loss(config)
    assert config.returncode == 0, told(config)
    state = json.loads(config.stdout)
    assert state["papers"]["rows"] == N_PAPERS
    assert "no space left" in state["read_only"]


@pytest.mark.parametrize("source", ["bibtex", "jsonl"])
def test_full_disk_ingest_counts_only_committed_rows_and_blames_no_file(
    home40: Path, tmp_path: Path, source: str
) -> None:
    """Was: exit 2 "failed unexpectedly (OperationalError: database or disk is full)", or the
    BibTeX file blamed ("cannot be read as bibtex") with more "added" than were stored."""
    room = LOW_SPACE_BYTES + (16 << 10)  # enough to open the store for writing, not to finish
    if source == "bibtex":
        files = [str(f) for f in BIB_FILES]
    else:  # 3,000 papers of the sample (~4 MB) merged in batches of 1,000 (~1.4 MB each)
        room = 3 * LOW_SPACE_BYTES
        rows = read_jsonl_gz(PAPERS_GZ)[1000:4000]
        jsonl = tmp_path / "papers.jsonl"
        jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        files = [str(jsonl)]
    # 12 MB: after the filler goes, the rerun must fit the store with its identity keys and
    # title postings (the first-author postings of issue 32 outgrew 6 MB on the BibTeX files)
    with tmpfs(tmp_path / "mnt", "12m") as root:
        home = copied(home40, root / "home")
        filler = fill(root, leave=room)
        done = litsift(home, "ingest", "papers", *files)
        filler.unlink()  # room for SQLite to open the store and read it back
        stored = paper_count(home / "data" / "litsift.sqlite")
        again = litsift(home, "ingest", "papers", *files, "--json")
    assert_no_bug_no_loss(done)
    assert done.returncode == 1
    assert "no space left" in done.stderr, told(done)
    assert "cannot be read" not in told(done)
    assert "free some space" in done.stderr
    committed = re.search(r"after committing ([\d,]+) added", done.stderr)
    assert committed is not None, done.stderr
    added = int(committed.group(1).replace(",", ""))
    assert 0 < added, done.stderr  # it ran out mid-way, as intended
    assert stored == N_PAPERS + added  # the report counts what was committed, no more
    report = json.loads(again.stdout)
    assert report["unchanged"] + report["merged"] >= added  # the rerun finishes the job


def test_full_disk_index_and_ingest_are_not_bugs(home40: Path, tmp_path: Path) -> None:
    """Was: exit 2 "litsift failed unexpectedly ... this is a bug" (`database or disk is full`,
    `No space left on device`)."""
    rows = read_jsonl_gz(PAPERS_GZ)[N_PAPERS : N_PAPERS + 300]
    more = tmp_path / "more.jsonl"
    more.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with tmpfs(tmp_path / "mnt", "4m") as root:
        home = copied(home40, root / "home")
        assert litsift(home, "ingest", "papers", str(more)).returncode == 0
        fill(root, leave=LOW_SPACE_BYTES + (16 << 10))
        index = litsift(home, "index", "papers", "--quiet")
        fill(root)
        ingest = litsift(home, "ingest", "papers", str(more))
        dedup = litsift(home, "dedup")
    for done in (index, ingest):
        assert_no_bug_no_loss(done)
        assert done.returncode == 1
        assert "no space left" in done.stderr, told(done)
    assert_no_bug_no_loss(dedup)


# ------------------------------------------------------------------ a read-only home


def test_read_only_mount_searches_like_the_writable_home(
    home40: Path, writable_hits: list[str], tmp_path: Path
) -> None:
    """Was: every command, search included, said the store is unreadable; ingest, sync and
    rq exited 2 as bugs. The snapshot lacks the home's empty cache dir (never made here)."""
    source = copied(home40, tmp_path / "home")
    shutil.rmtree(source / "cache")
    with read_only_view(source, tmp_path / "ro") as home:
        found = litsift(home, "search", QUERY, "-k", "5", "--json")
        config = litsift(home, "config")
        ingest = litsift(home, "ingest", "papers", str(BIB_FILES[0]))
        index = litsift(home, "index", "papers", "--quiet", "--rebuild")
        sync = litsift(home, "sync", "crossref", "--query", "retrieval", "--max-pages", "1")
        rq = litsift(home, "rq", "extract")
        listing = sorted(p.name for p in (home / "data").iterdir())
    assert hit_ids(found) == writable_hits
    assert "cannot be saved" in found.stderr and "read-only" in found.stderr
    assert_no_bug_no_loss(found)
    assert config.returncode == 0 and json.loads(config.stdout)["read_only"]
    for done in (ingest, index, sync, rq):
        assert_no_bug_no_loss(done)
        assert done.returncode == 1
        assert "cannot be written (a read-only file system)" in done.stderr, told(done)
        assert "searching a read-only home works" in done.stderr
    assert listing == ["indexes", "litsift.sqlite"]  # nothing left behind, nothing taken


def _write_into_wal(store_file: Path, rows: list[dict], tmp_path: Path) -> None:
    """Ingest ``rows`` with litsift in a process that exits without checkpointing, so the
    new rows live only in ``litsift.sqlite-wal`` (as in a snapshot of a running litsift)."""
    src = tmp_path / "wal.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from litsift.store import Store, ingest_jsonl\n"
        "from litsift.types import Kind\n"
        "s = Store(Path(sys.argv[1]))\n"
        "s._conn.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "assert ingest_jsonl(s, Kind.PAPER, Path(sys.argv[2])).ok\n"
        "os._exit(0)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    subprocess.run([sys.executable, "-c", code, str(store_file), str(src)], check=True, env=env)
    assert Path(f"{store_file}-wal").stat().st_size > 0


@pytest.mark.parametrize("shm", ["kept", "gone"])
def test_read_only_mount_with_wal_searches_and_reads_the_wal(
    home40: Path, writable_hits: list[str], tmp_path: Path, shm: str
) -> None:
    """Was: with WAL files present, search said the BM25 index "is damaged" (tantivy could not
    take its lock file) and suggested a rebuild. Rows that live only in the -wal are read:
    in place when the -shm file is there, from a private copy when it is not."""
    home = copied(home40, tmp_path / "home")
    store_file = home / "data" / "litsift.sqlite"
    _write_into_wal(store_file, read_jsonl_gz(PAPERS_GZ)[N_PAPERS : N_PAPERS + 7], tmp_path)
    if shm == "gone":
        Path(f"{store_file}-shm").unlink()
    with read_only_view(home, tmp_path / "ro") as view:
        found = litsift(view, "search", QUERY, "-k", "5", "--json")
        config = litsift(view, "config")
    assert_no_bug_no_loss(found)
    assert "damaged" not in told(found)
    assert hit_ids(found) == writable_hits  # the 7 new rows are not in the BM25 index yet
    assert json.loads(config.stdout)["papers"]["rows"] == N_PAPERS + 7


def test_read_only_home_keeps_no_history_and_refuses_labels_with_the_reason(
    home40: Path, tmp_path: Path
) -> None:
    """Writes a search makes on its own (query history) are skipped; asked-for writes (a
    label) say the home is read-only, not that the store is unreadable."""
    from litsift.types import Query

    with read_only_view(copied(home40, tmp_path / "home"), tmp_path / "ro") as home:
        with LitsiftService(get_paths(home)) as svc:
            query = Query(QUERY, Kind.PAPER, k=3)
            hits = svc.search(query).hits
            assert hits
            assert svc.record_query(query) == 0
            assert svc.read_only_reason is not None
            assert "cannot be saved" in svc.read_only_reason
            with pytest.raises(ReadOnlyHomeError) as err:
                svc.triage.set_label(Kind.PAPER, hits[0].record.id, Label.KEEP)
    for words in DESTRUCTIVE:
        assert words not in str(err.value)


@contextmanager
def unwritable(home: Path) -> Iterator[Path]:
    """``home`` with every write bit cleared while open (restored after), for commands run
    with ``drop_dac=True`` (root without CAP_DAC_OVERRIDE obeys the bits); skips the test
    where that cannot be arranged."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run the CLI without CAP_DAC_OVERRIDE")
    for path in [home, *home.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        probe = _run("setpriv", "--bounding-set", "-dac_override", "--", "touch", str(home / "x"))
        if probe.returncode == 0:
            pytest.skip("dropping CAP_DAC_OVERRIDE does not make root obey permissions here")
        yield home
    finally:
        for path in [home, *home.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)


def test_unwritable_directory_searches_as_a_user_bound_by_permissions(
    home40: Path, writable_hits: list[str], tmp_path: Path
) -> None:
    """The same home made read-only with ``chmod -w`` (a shared lab copy), searched by a
    process that obeys the permission bits."""
    with unwritable(copied(home40, tmp_path / "home")) as home:
        found = litsift(home, "search", QUERY, "-k", "5", "--json", drop_dac=True)
        ingest = litsift(home, "ingest", "papers", str(BIB_FILES[0]), drop_dac=True)
    assert hit_ids(found) == writable_hits
    assert "may not write in that directory" in found.stderr
    assert_no_bug_no_loss(found)
    assert_no_bug_no_loss(ingest)
    assert ingest.returncode == 1 and "cannot be written" in ingest.stderr


# ------------------------------------------------------------------ locks and damage


def test_a_lock_held_by_another_process_is_told_as_locked(home40: Path, tmp_path: Path) -> None:
    store_file = copied(home40, tmp_path / "home") / "data" / "litsift.sqlite"
    holder = sqlite3.connect(store_file)
    holder.execute("BEGIN IMMEDIATE")
    try:
        other = sqlite3.connect(store_file, timeout=0)
        with pytest.raises(sqlite3.OperationalError) as raised:
            other.execute("BEGIN IMMEDIATE")
        other.close()
    finally:
        holder.rollback()
        holder.close()
    fault = machine_fault(raised.value, store_file)
    assert isinstance(fault, StoreLockedError)
    assert "locked by another writer" in fault.message
    assert "wait for the other process" in fault.hint


@pytest.mark.parametrize("where", ["header", "table pages"])
def test_a_damaged_store_is_called_damaged_only_with_quick_check_and_kept(
    home40: Path, tmp_path: Path, where: str
) -> None:
    """Was: "unreadable ... hint: move the file away and ingest your records again"."""
    home = copied(home40, tmp_path / "home")
    store_file = home / "data" / "litsift.sqlite"
    with sqlite3.connect(store_file) as conn:
        page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    data = bytearray(store_file.read_bytes())
    start, end = (0, page) if where == "header" else (page, len(data))  # same-size garbage
    data[start:end] = bytes((i * 37 + 11) % 256 for i in range(end - start))
    store_file.write_bytes(bytes(data))
    if where == "header":
        with pytest.raises(StoreCorruptError) as err:
            Store(store_file)
        assert "quick_check" in err.value.message
    done = litsift(home, "config")
    assert_no_bug_no_loss(done)
    assert done.returncode == 1
    assert "is damaged (SQLite's quick_check" in done.stderr, told(done)
    assert "keep the file" in done.stderr and ".recover" in done.stderr
    assert store_file.read_bytes() == bytes(data)  # nothing moved, nothing rewritten


def test_read_only_mount_searches_with_the_dense_index(
    home40: Path, tmp_path: Path, encoder: object
) -> None:
    """hnswlib and the sentence store are read without writing: the answer is the full
    hybrid, as on the writable home."""
    home = copied(home40, tmp_path / "home")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:  # type: ignore[arg-type]
        svc.build_index(Kind.PAPER)
    writable = litsift(home, "search", QUERY, "-k", "5", "--json")
    with read_only_view(home, tmp_path / "ro") as view:
        found = litsift(view, "search", QUERY, "-k", "5", "--json")
    assert_no_bug_no_loss(found)
    assert json.loads(found.stdout)["signals_used"] == ["bm25", "dense"]
    assert json.loads(found.stdout)["engine"] == "local"  # which engine answered (issue 42)
    assert hit_ids(found) == hit_ids(writable)
    assert "cannot be saved" in found.stderr


def test_an_unreadable_store_is_permission_denied_not_damaged(home40: Path, tmp_path: Path) -> None:
    """Was: "the store ... is unreadable: unable to open database file -- hint: move the file
    away". The file is fine; this user may not read it."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run the CLI without CAP_DAC_OVERRIDE")
    home = copied(home40, tmp_path / "home")
    store_file = home / "data" / "litsift.sqlite"
    store_file.chmod(0)
    try:
        done = litsift(home, "config", drop_dac=True)
    finally:
        store_file.chmod(0o644)
    if "permission" not in done.stderr and done.returncode == 0:
        pytest.skip("dropping CAP_DAC_OVERRIDE does not make root obey permissions here")
    assert_no_bug_no_loss(done)
    assert done.returncode == 1
    assert f"permission denied: {store_file} cannot be read by this user" in done.stderr
    assert "ls -l" in done.stderr
    assert paper_count(store_file) == N_PAPERS
