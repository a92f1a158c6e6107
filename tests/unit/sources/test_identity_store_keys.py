"""Identity matching per imported record does not grow with the store (issue 32).

An import used to load every stored paper's title, authors, year, url and identifiers into
memory before its first record (``IdentityIndex.from_connection``: 76 s CPU and 1.6 GB to
import 10K records into a 1M store). The keys a match needs now live in indexed tables
(``paper_keys``, ``paper_url_ids``; :mod:`litsift.store.identities`), derived once from the
papers' revisions, and each batch looks up only the papers that share an identifier, the title
key or a first-author + year block with its records (:class:`StoreIdentityIndex`).
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest

from litsift.sources.identity import IdentityIndex
from litsift.sources.identity_store import StoreIdentityIndex
from litsift.sources.importer import import_paths
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind
from tests.conftest import PAPERS_GZ

IMPORTS = Path(__file__).resolve().parents[2] / "data" / "imports"
WARM_UP = IMPORTS / "pdf" / "colrev_30-example-records.bib"
MEASURED = IMPORTS / "csv-openalex" / "bibliometrix_scopus-2026-export_sample.csv"


@pytest.fixture(scope="module")
def sample_rows() -> list[dict]:
    """The first 3,000 distinct sample papers (real records)."""
    seen: set[str] = set()
    rows = []
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8", newline="\n") as f:
        for line in f:
            row = json.loads(line)
            if row["id"] not in seen:
                seen.add(row["id"])
                rows.append(row)
            if len(rows) == 3_000:
                break
    return rows


def _store(path: Path, rows: list[dict]) -> Store:
    jsonl = path.with_suffix(".jsonl")
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    store = Store(path)
    ingest_jsonl(store, Kind.PAPER, jsonl)
    return store


def _steps_of_import(store: Store, path: Path) -> int:
    """SQLite virtual-machine steps (in hundreds) the import of ``path`` runs: a real count
    of the work the store does, which grows with every row a query reads."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0

    store.conn.set_progress_handler(tick, 100)
    try:
        report = import_paths(store, [path], Kind.PAPER)
    finally:
        store.conn.set_progress_handler(None, 0)
    assert report.read > 0 and not report.bad
    return steps[0]


def test_importing_costs_the_same_store_work_in_a_store_ten_times_larger(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """The same real Scopus export imported into a 300- and a 3,000-paper store (after one
    import that derived the stores' keys) runs about the same number of SQLite steps; loading
    the whole store (before) ran ~10x as many in the larger one."""
    steps = []
    for n in (300, 3_000):
        with _store(tmp_path / f"s{n}.sqlite", sample_rows[:n]) as store:
            import_paths(store, [WARM_UP], Kind.PAPER)  # derives the store's keys once
            steps.append(_steps_of_import(store, MEASURED))
    small, large = steps
    assert large < 1.2 * small + 10, steps  # before: [48, 237]; now [45, 46]


def test_store_index_resolves_as_the_whole_store_index(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """On 2,500 stored real papers, 500 incoming records -- stored papers with a typo or a
    year off by one, some without authors, and unseen papers -- resolve to the same paper
    whether the index holds the whole store or only what :meth:`StoreIdentityIndex.prefetch`
    looked up."""
    stored, unseen = sample_rows[:2_500], sample_rows[2_500:2_750]
    incoming = []
    for i, row in enumerate(stored[::10] + unseen):
        title = row["title"]
        if i % 3 == 1 and len(title) > 40:  # a near-identical title
            title = title[:20] + title[21:]
        year = row.get("year")
        if i % 3 == 2 and year:
            year += 1
        authors = [] if i % 7 == 3 else row.get("authors") or []  # compared with every title
        incoming.append((title, authors, year, {}, ()))
    with _store(tmp_path / "s.sqlite", stored) as store:
        whole = IdentityIndex.from_connection(store.conn, Kind.PAPER)
        blocked = StoreIdentityIndex(store.conn, Kind.PAPER)
        with store.write_transaction():
            assert blocked.sync() == len({r["id"] for r in stored})
        answers = []
        for batch in (incoming[::2], incoming[1::2]):  # the second reuses blocks of the first
            blocked.prefetch(batch)
            answers += [(whole.match(*rec), blocked.match(*rec)) for rec in batch]
        assert len(blocked.entries) < len(whole.entries) / 2  # it did not load everything
    matched = [a for a, _ in answers if a is not None]
    assert len(matched) >= 200  # the stored ones are found (by the whole index)
    assert [a for a, _ in answers] == [b for _, b in answers]


def test_keys_follow_papers_changed_after_they_were_derived(
    tmp_path: Path, sample_rows: list[dict]
) -> None:
    """A paper retitled by a JSONL ingest after the keys were derived is matched by its new
    title in the next import (its revision marks its keys out of date)."""
    rows = sample_rows[:200]
    with _store(tmp_path / "s.sqlite", rows) as store:
        import_paths(store, [WARM_UP], Kind.PAPER)
        index = StoreIdentityIndex(store.conn, Kind.PAPER)
        with store.write_transaction():
            index.sync()  # the import's last batch: the keys are current
        changed = dict(rows[0], title="Retitled: a study of identity keys in stored records")
        update = tmp_path / "update.jsonl"
        update.write_text(json.dumps(changed) + "\n", encoding="utf-8")
        ingest_jsonl(store, Kind.PAPER, update)
        with store.write_transaction():
            assert index.sync() == 1
        record = (changed["title"], changed["authors"], changed["year"], {}, ())
        index.prefetch([record])
        match = index.match(*record)
    assert match is not None and match.doc_id == rows[0]["id"]


def test_the_key_tables_fill_on_the_first_import(tmp_path: Path, sample_rows: list[dict]) -> None:
    """Papers ingested as JSONL have no keys yet; the first import derives the keys of every
    stored paper before its first batch (what it writes itself is derived at the next one)."""
    with _store(tmp_path / "s.sqlite", sample_rows[:100]) as store:
        keys = store.conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
        report = import_paths(store, [WARM_UP], Kind.PAPER)
        filled = store.conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
    assert keys == 0 and report.added > 0
    assert filled == 100
    with sqlite3.connect(tmp_path / "s.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM paper_url_ids").fetchone()[0] > 0


def test_an_interrupted_key_fill_keeps_its_committed_chunks_and_resumes(
    tmp_path: Path, sample_rows: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keys of a store are derived in committed chunks: a fill stopped in its third chunk
    (the disk filled up while storing it) keeps the first two, the import stops with the
    machine's fault, and the next import derives the rest and imports its records."""
    from litsift.errors import MachineFaultError, NoSpaceError
    from litsift.sources import identity_store, writer
    from litsift.store import identities

    monkeypatch.setattr(writer, "SYNC_CHUNK", 100)
    monkeypatch.setattr(identity_store, "SYNC_CHUNK", 100)
    real_put = identities.put_keys
    calls = [0]

    def put_keys_failing_third(*args: object) -> None:
        calls[0] += 1
        if calls[0] == 3:
            raise NoSpaceError("no space left on the device", "free some space")
        real_put(*args)  # type: ignore[arg-type]

    with _store(tmp_path / "s.sqlite", sample_rows[:250]) as store:
        monkeypatch.setattr(identities, "put_keys", put_keys_failing_third)
        with pytest.raises(MachineFaultError):
            import_paths(store, [WARM_UP], Kind.PAPER)
        kept = store.conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
        monkeypatch.setattr(identities, "put_keys", real_put)
        report = import_paths(store, [WARM_UP], Kind.PAPER)
        filled = store.conn.execute("SELECT COUNT(*) FROM paper_keys").fetchone()[0]
    assert kept == 200
    assert filled == 250 and report.added > 0
