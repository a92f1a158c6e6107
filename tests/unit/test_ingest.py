"""Ingest of the real paper and dataset samples: upsert, revisions, bad lines, interruption."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from litsift.errors import IngestError, StoreError
from litsift.paths import shared_data_dir
from litsift.store import BadLine, Store, ingest_jsonl, ingest_records
from litsift.types import Dataset, Kind, Paper

SHARED_DATA = shared_data_dir()
PAPERS_GZ = SHARED_DATA / "papers" / "ml-nlp-papers.jsonl.gz"
DATASETS_GZ = SHARED_DATA / "datasets" / "pwc-datasets.jsonl.gz"
SCIFACT_GZ = SHARED_DATA / "eval" / "scifact" / "corpus.jsonl.gz"
N_SLICE = 2000


def _read_gz_lines(path: Path, n: int | None = None) -> list[bytes]:
    with gzip.open(path, "rb") as fh:
        lines = fh.read().split(b"\n")
    lines = [line for line in lines if line]
    return lines[:n] if n is not None else lines


@pytest.fixture(scope="session")
def paper_lines() -> list[bytes]:
    """The first 2,000 lines of the real paper sample, as raw bytes."""
    return _read_gz_lines(PAPERS_GZ, N_SLICE)


@pytest.fixture(scope="session")
def papers_jsonl(tmp_path_factory: pytest.TempPathFactory, paper_lines: list[bytes]) -> Path:
    out = tmp_path_factory.mktemp("papers") / "papers.jsonl"
    out.write_bytes(b"\n".join(paper_lines) + b"\n")
    return out


@pytest.fixture()
def store(tmp_path: Path) -> Any:
    with Store(tmp_path / "litsift.sqlite") as s:
        yield s


def _rowids(store: Store, kind: Kind) -> dict[str, int | None]:
    return {r.id: r.rowid for batch in store.rows_since(kind) for r in batch}


def test_datasets_sample_dedups_by_last_occurrence_and_is_idempotent(store: Store) -> None:
    objs = [json.loads(line) for line in _read_gz_lines(DATASETS_GZ)]
    last = {o["id"]: o for o in objs}
    report = ingest_jsonl(store, Kind.DATASET, DATASETS_GZ)
    assert report.ok, report.bad
    assert (report.read, report.added, report.updated, report.unchanged) == (
        len(objs),
        len(last),
        0,
        0,
    )
    assert report.duplicates == len(objs) - len(last) > 0
    assert store.count(Kind.DATASET) == len(last)
    for doc_id, obj in last.items():
        dataset = store.get(Kind.DATASET, doc_id)
        assert isinstance(dataset, Dataset)
        assert dataset.description == obj["description"]
        # aliases are stripped of surrounding spaces and deduplicated, order kept
        assert dataset.variants == tuple(dict.fromkeys(v.strip() for v in obj["variants"]))
        assert dataset.date == (obj.get("date") or "")
        if obj.get("year") is not None:
            assert dataset.year == obj["year"]
        elif obj.get("date"):
            assert dataset.year == int(obj["date"][:4])  # year taken from the date
        else:
            assert dataset.year is None

    before, revision = _rowids(store, Kind.DATASET), store.max_revision(Kind.DATASET)
    again = ingest_jsonl(store, Kind.DATASET, DATASETS_GZ)
    assert (again.added, again.updated, again.unchanged) == (0, 0, len(last))
    assert again.duplicates == report.duplicates
    assert store.max_revision(Kind.DATASET) == revision
    assert _rowids(store, Kind.DATASET) == before
    assert report.summary().startswith("pwc-datasets.jsonl.gz: 3,327 read, 3,294 added")


def test_gz_and_plain_give_the_same_rows(
    tmp_path: Path, papers_jsonl: Path, paper_lines: list[bytes]
) -> None:
    gz_named_plainly = tmp_path / "papers-compressed.jsonl"  # gzip found by magic bytes
    gz_named_plainly.write_bytes(gzip.compress(papers_jsonl.read_bytes()))
    rows = []
    for i, path in enumerate((papers_jsonl, gz_named_plainly)):
        with Store(tmp_path / f"s{i}.sqlite") as s:
            report = ingest_jsonl(s, Kind.PAPER, path)
            assert report.ok and report.added == N_SLICE
            rows.append([p for batch in s.rows_since(Kind.PAPER) for p in batch])
    assert rows[0] == rows[1]
    assert [p.id for p in rows[0]] == [json.loads(line)["id"] for line in paper_lines]


def test_changed_row_bumps_revision_and_rows_since_returns_only_it(
    store: Store, tmp_path: Path, papers_jsonl: Path, paper_lines: list[bytes]
) -> None:
    ingest_jsonl(store, Kind.PAPER, papers_jsonl)
    before, revision = _rowids(store, Kind.PAPER), store.max_revision(Kind.PAPER)
    changed = json.loads(paper_lines[1234])
    changed["title"] += " (revised)"
    lines = list(paper_lines)
    lines[1234] = json.dumps(changed).encode()
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(b"\n".join(lines))

    report = ingest_jsonl(store, Kind.PAPER, edited)
    assert (report.added, report.updated, report.unchanged) == (0, 1, N_SLICE - 1)
    assert store.max_revision(Kind.PAPER) == revision + 1
    since = [p for batch in store.rows_since(Kind.PAPER, revision) for p in batch]
    assert [(p.id, p.title) for p in since] == [(changed["id"], changed["title"])]
    assert since[0].rowid == before[changed["id"]]
    assert _rowids(store, Kind.PAPER) == before


def test_bad_lines_are_reported_by_line_number_and_good_lines_kept(
    store: Store, tmp_path: Path, paper_lines: list[bytes]
) -> None:
    good = [json.loads(line) for line in paper_lines[:4]]
    good[1]["abstract"] = "first part\u2028second part"  # a line separator inside a string
    bad_year = dict(good[0], id="bad-year", year="abc")
    no_id = {k: v for k, v in good[0].items() if k != "id"}
    lines = [
        json.dumps(good[0]),  # 1
        '{"id": "x", "title": ',  # 2 invalid JSON
        "",  # 3 blank: skipped silently
        json.dumps(no_id),  # 4 missing id
        json.dumps(good[1], ensure_ascii=False),  # 5 raw U+2028 in the line
        json.dumps(bad_year),  # 6
        "   \t",  # 7 blank
        json.dumps([good[2]]),  # 8 an array, not an object
        json.dumps(dict(good[2], title="  ")),  # 9 empty title
        json.dumps(dict(good[2], authors=[1, 2])),  # 10 authors not strings
        json.dumps(good[3]),  # 11
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes("\n".join(lines).encode("utf-8") + b"\n\n")
    report = ingest_jsonl(store, Kind.PAPER, path)

    assert [b.line_no for b in report.bad] == [2, 4, 6, 8, 9, 10]
    reasons = dict((b.line_no, b.reason) for b in report.bad)
    assert "invalid JSON" in reasons[2]
    assert "missing required field 'id'" in reasons[4]
    assert "'year'" in reasons[6] and "abc" in reasons[6]
    assert "not a JSON object" in reasons[8]
    assert "empty required field 'title'" in reasons[9]
    assert "'authors'" in reasons[10]
    assert all(isinstance(b, BadLine) for b in report.bad)
    assert not report.ok
    assert "6 bad in" in report.summary() and "line 2" in report.summary()
    assert (report.read, report.added) == (9, 3)
    assert store.count(Kind.PAPER) == 3
    kept = store.get(Kind.PAPER, good[1]["id"])
    assert isinstance(kept, Paper)
    assert kept.abstract == "first part\u2028second part"
    assert store.get(Kind.PAPER, "bad-year") is None


def test_litsearch_and_beir_aliases_and_coercions(store: Store, tmp_path: Path) -> None:
    rows = [
        {"corpusid": 12345, "title": "A", "abstract": "x", "authors": "Ann Lee, Bo Chan and Cy"},
        # a year is a JSON integer, not a string (issue 14: wrong types are not coerced)
        {"_id": "beir-1", "title": "B", "text": "the body", "year": 2019, "extra": [1]},
        {"id": "p3", "title": "C", "year": 2020.0, "authors": None, "status": None},
    ]
    path = tmp_path / "aliases.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    report = ingest_jsonl(store, Kind.PAPER, path)
    assert report.ok, report.bad
    a, b, c = (store.get(Kind.PAPER, i) for i in ("12345", "beir-1", "p3"))
    assert isinstance(a, Paper) and isinstance(b, Paper) and isinstance(c, Paper)
    assert a.authors == ("Ann Lee", "Bo Chan", "Cy")
    assert (b.abstract, b.year) == ("the body", 2019)
    assert (c.year, c.authors, c.status) == (2020, (), "")


def test_ingest_records_takes_a_real_beir_corpus(store: Store) -> None:
    docs = [json.loads(line) for line in _read_gz_lines(SCIFACT_GZ, 300)]
    report = ingest_records(store, Kind.PAPER, docs)
    assert report.ok, report.bad
    assert report.added == store.count(Kind.PAPER) == len({d["_id"] for d in docs})
    paper = store.get(Kind.PAPER, docs[7]["_id"])
    assert paper is not None and isinstance(paper, Paper)
    assert (paper.title, paper.abstract) == (docs[7]["title"].strip(), docs[7]["text"])
    assert str(report.path) == "<records>"
    mixed: list[Any] = [{"title": "no id"}, "not a dict"]
    bad = ingest_records(store, Kind.PAPER, mixed)
    assert [(b.line_no, "id" in b.reason) for b in bad.bad] == [(1, True), (2, False)]


def test_unreadable_inputs_raise_ingest_error(store: Store, tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="cannot read"):
        ingest_jsonl(store, Kind.PAPER, tmp_path / "missing.jsonl")
    with pytest.raises(IngestError, match="directory"):
        ingest_jsonl(store, Kind.PAPER, tmp_path)
    with pytest.raises(IngestError, match="neither gzip nor text") as err:
        ingest_jsonl(store, Kind.PAPER, store.path)  # the SQLite file itself
    assert err.value.hint
    assert store.count(Kind.PAPER) == 0


def test_truncated_gzip_keeps_the_lines_before_the_cut(store: Store, tmp_path: Path) -> None:
    data = DATASETS_GZ.read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    report = ingest_jsonl(store, Kind.DATASET, cut)
    assert len(report.bad) == 1 and "gzip" in report.bad[0].reason
    assert report.bad[0].line_no == report.read + 1
    assert 0 < store.count(Kind.DATASET) <= report.read


def test_interrupted_ingest_leaves_committed_rows_and_a_usable_store(
    tmp_path: Path, papers_jsonl: Path
) -> None:
    path = tmp_path / "litsift.sqlite"
    with Store(path) as s:
        ingest_jsonl(s, Kind.DATASET, DATASETS_GZ)
    calls: list[tuple[int, int | None]] = []

    def stop_in_merge(done: int, total: int | None) -> None:
        calls.append((done, total))
        if total is not None and done >= 1000:
            raise KeyboardInterrupt

    def stop_in_read(done: int, total: int | None) -> None:
        if done >= 1000:
            raise RuntimeError("stop")

    with Store(path) as s:
        with pytest.raises(RuntimeError):
            ingest_jsonl(s, Kind.PAPER, papers_jsonl, progress=stop_in_read, batch_size=500)
        assert s.count(Kind.PAPER) == 0  # nothing merged yet: reading comes first
        with pytest.raises(KeyboardInterrupt):
            ingest_jsonl(s, Kind.PAPER, papers_jsonl, progress=stop_in_merge, batch_size=500)
    assert calls[:4] == [(500, None), (1000, None), (1500, None), (2000, None)]
    assert calls[4:] == [(0, N_SLICE), (500, N_SLICE), (1000, N_SLICE)]

    with Store(path, readonly=True) as s:  # committed batches are there, the rest is not
        assert s.count(Kind.PAPER) == 1000
        assert s.count(Kind.DATASET) == 3294
        assert sum(len(b) for b in s.rows_since(Kind.PAPER)) == 1000
    with Store(path) as s:
        report = ingest_jsonl(s, Kind.PAPER, papers_jsonl)
        assert (report.added, report.unchanged) == (N_SLICE - 1000, 1000)
        assert s.count(Kind.PAPER) == N_SLICE
        assert s.max_revision(Kind.PAPER) == s.max_revision(Kind.DATASET) + N_SLICE


def test_labels_keyed_by_doc_id_survive_reingest(
    store: Store, tmp_path: Path, papers_jsonl: Path, paper_lines: list[bytes]
) -> None:
    ingest_jsonl(store, Kind.PAPER, papers_jsonl)
    doc_id = json.loads(paper_lines[42])["id"]
    store.db["labels"].insert(
        {"kind": "paper", "doc_id": doc_id, "label": "keep", "updated_at": "2025-01-01T00:00:00"}
    )
    changed = json.loads(paper_lines[42])
    changed["abstract"] = "rewritten"
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(b"\n".join([*paper_lines[:42], json.dumps(changed).encode()]))
    assert ingest_jsonl(store, Kind.PAPER, edited).updated == 1
    joined = store.db.execute(
        "SELECT p.abstract, l.label FROM labels l JOIN papers p ON p.id = l.doc_id"
    ).fetchall()
    assert joined == [("rewritten", "keep")]


def test_readonly_store_refuses_ingest(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    with Store(path, readonly=True) as s, pytest.raises(IngestError, match="read-only"):
        ingest_jsonl(s, Kind.DATASET, DATASETS_GZ)


def test_locked_store_raises_store_error_and_keeps_data(tmp_path: Path, papers_jsonl: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as s:
        ingest_jsonl(s, Kind.DATASET, DATASETS_GZ)
    other = sqlite3.connect(path)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        with Store(path) as s:
            s._conn.execute("PRAGMA busy_timeout = 0")  # fail at once instead of waiting 10 s
            with pytest.raises(StoreError, match="locked by another writer") as err:
                ingest_jsonl(s, Kind.PAPER, papers_jsonl)
            assert err.value.hint
            assert s.count(Kind.DATASET) == 3294  # readers are not blocked (WAL)
            assert s.count(Kind.PAPER) == 0
    finally:
        other.rollback()
        other.close()
    with Store(path) as s:
        assert ingest_jsonl(s, Kind.PAPER, papers_jsonl).added == N_SLICE
