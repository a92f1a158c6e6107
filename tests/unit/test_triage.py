"""Triage state on real SQLite files and real papers: labels + undo, notes, collections, history.

Every test builds its own store in ``tmp_path`` from a 120-paper slice of
``../shared/data/papers/ml-nlp-papers.jsonl.gz`` (every 50th line, so venues and years vary).
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from litsift.errors import LitsiftError
from litsift.paths import shared_data_dir
from litsift.store import SCHEMA_VERSION, Store, ingest_jsonl
from litsift.store import history as history_mod
from litsift.store import triage as triage_mod
from litsift.store.schema import MIGRATIONS
from litsift.store.triage import LABEL_FILTERS, Triage, TriageError, filter_by_label, parse_tags
from litsift.types import Hit, Kind, Label, YearRange

SHARED_DATA = shared_data_dir()
PAPERS_GZ = SHARED_DATA / "papers" / "ml-nlp-papers.jsonl.gz"
STEP, N = 50, 120


@pytest.fixture(scope="session")
def slice_rows() -> list[dict[str, Any]]:
    rows = []
    with gzip.open(PAPERS_GZ, "rb") as fh:
        for i, line in enumerate(fh):
            if i % STEP == 0:
                rows.append(json.loads(line))
            if len(rows) == N:
                break
    return rows


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


@pytest.fixture()
def store_file(tmp_path: Path, slice_rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "litsift.sqlite"
    with Store(path) as store:
        assert ingest_jsonl(store, Kind.PAPER, write_jsonl(tmp_path / "p.jsonl", slice_rows)).ok
    return path


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in rows]


def test_labels_and_undo_persist_across_reopen(store_file: Path, slice_rows: list) -> None:
    a, b, c = ids(slice_rows)[:3]
    with Store(store_file) as store:
        t = Triage(store)
        assert t.set_label(Kind.PAPER, a, Label.KEEP) is None
        assert t.set_label(Kind.PAPER, b, Label.DISCARD) is None
        assert t.set_label(Kind.PAPER, a, Label.MAYBE) is Label.KEEP
        assert t.set_label(Kind.PAPER, a, Label.MAYBE) is Label.MAYBE  # no-op: no undo entry
        assert t.undo_depth() == 3
    with Store(store_file) as store:  # a new process: labels and the undo stack are on disk
        t = Triage(store)
        assert t.labels(Kind.PAPER, [a, b, c]) == {a: Label.MAYBE, b: Label.DISCARD}
        assert t.undo() == (Kind.PAPER, a, Label.KEEP)
        assert t.label(Kind.PAPER, a) is Label.KEEP
    with Store(store_file) as store:
        t = Triage(store)
        assert t.undo() == (Kind.PAPER, b, None)
        assert t.undo() == (Kind.PAPER, a, None)
        assert t.undo() is None
        assert t.labels(Kind.PAPER, [a, b, c]) == {}
        t.set_label(Kind.PAPER, c, Label.KEEP)
        assert t.set_label(Kind.PAPER, c, None) is Label.KEEP
        assert t.label(Kind.PAPER, c) is None
        assert t.undo() == (Kind.PAPER, c, Label.KEEP)


def test_undo_stack_is_bounded(
    store_file: Path, slice_rows: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(triage_mod, "UNDO_DEPTH", 3)
    with Store(store_file) as store:
        t = Triage(store)
        for doc_id in ids(slice_rows)[:5]:
            t.set_label(Kind.PAPER, doc_id, Label.KEEP)
        assert t.undo_depth() == 3
        undone = [t.undo() for _ in range(4)]
    assert [u[1] for u in undone[:3] if u] == ids(slice_rows)[4:1:-1]
    assert undone[3] is None


def test_label_queries_and_filters_on_real_hits(store_file: Path, slice_rows: list) -> None:
    doc_ids = ids(slice_rows)[:8]
    with Store(store_file) as store:
        t = Triage(store)
        plan = {doc_ids[0]: Label.KEEP, doc_ids[2]: Label.KEEP, doc_ids[3]: Label.MAYBE}
        plan[doc_ids[5]] = Label.DISCARD
        for doc_id, label in plan.items():
            t.set_label(Kind.PAPER, doc_id, label)
        assert t.ids_with_label(Kind.PAPER, Label.KEEP) == [doc_ids[0], doc_ids[2]]
        assert t.label_counts(Kind.PAPER) == {Label.KEEP: 2, Label.MAYBE: 1, Label.DISCARD: 1}
        assert t.ids_with_label(Kind.DATASET, Label.KEEP) == []
        records = [store.get(Kind.PAPER, d) for d in doc_ids]
        hits = [Hit(record=r, rank=i + 1, score=1.0 / (i + 1)) for i, r in enumerate(records) if r]
        labels = t.labels(Kind.PAPER, [h.docid for h in hits])
    assert labels == plan
    shown = {f: [h.docid for h in filter_by_label(hits, labels, f)] for f in LABEL_FILTERS}
    assert shown["all"] == doc_ids
    assert shown["unlabelled"] == [d for d in doc_ids if d not in plan]
    assert shown["keep"] == [doc_ids[0], doc_ids[2]]
    assert shown["maybe"] == [doc_ids[3]]
    assert shown["discard"] == [doc_ids[5]]
    assert shown["hide-discard"] == [d for d in doc_ids if d != doc_ids[5]]
    with pytest.raises(ValueError, match="unknown label filter"):
        filter_by_label(hits, labels, "nope")  # type: ignore[arg-type]


def test_notes_and_tags(store_file: Path, slice_rows: list) -> None:
    a, b = ids(slice_rows)[:2]
    assert parse_tags(" to read, dense  retrieval,,To Read ") == ("to read", "dense retrieval")
    with Store(store_file) as store:
        t = Triage(store)
        t.set_note(Kind.PAPER, a, "compare with BM25", parse_tags("to read, baseline"))
        t.set_note(Kind.PAPER, b, "", ["baseline"])
        note = t.note(Kind.PAPER, a)
        assert note is not None and note.text == "compare with BM25"
        assert note.tags == ("to read", "baseline")
        assert t.ids_with_tag(Kind.PAPER, "Baseline") == sorted([a, b])
        assert t.tags(Kind.PAPER) == [("baseline", 2), ("to read", 1)]
        t.set_note(Kind.PAPER, b, "  ", [])  # empty note and no tags: deleted
        assert t.note(Kind.PAPER, b) is None
        assert set(t.notes(Kind.PAPER, [a, b])) == {a}


def test_collections(store_file: Path, slice_rows: list) -> None:
    a, b, c = ids(slice_rows)[:3]
    with Store(store_file) as store:
        t = Triage(store)
        assert t.add_to_collection("  related   work ", Kind.PAPER, b) == "related work"
        t.add_to_collection("related work", Kind.PAPER, a)
        t.add_to_collection("related work", Kind.PAPER, b)  # idempotent
        t.create_collection("Baselines")
        t.add_to_collection("Baselines", Kind.PAPER, b)
        assert t.collections() == ["Baselines", "related work"]
        assert t.collection_items("related work") == [(Kind.PAPER, b), (Kind.PAPER, a)]
        assert t.collections_of(Kind.PAPER, b) == ["Baselines", "related work"]
        ann = t.annotations(Kind.PAPER, [a, b, c])
        assert ann[b].collections == ("Baselines", "related work") and ann[c].collections == ()
        assert t.rename_collection("related work", "Related") == "Related"
        assert t.collection_items("Related") == [(Kind.PAPER, b), (Kind.PAPER, a)]
        with pytest.raises(TriageError, match="exists"):
            t.rename_collection("Related", "Baselines")
        assert t.remove_from_collection("Related", Kind.PAPER, a)
        assert not t.remove_from_collection("Related", Kind.PAPER, a)
        assert t.delete_collection("Baselines")
        with pytest.raises(TriageError) as err:
            t.collection_items("Baselines")
        assert "Related" in err.value.hint
        with pytest.raises(TriageError, match="empty collection name"):
            t.create_collection("   ")


def test_query_history_and_saved_searches(
    store_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store(store_file) as store:
        t = Triage(store)
        first = t.record_query("dense retrieval for QA", Kind.PAPER, "2018:2020")
        assert t.record_query("dense retrieval for QA ", Kind.PAPER, "2018:2020") == first
        second = t.record_query("image datasets", Kind.DATASET, YearRange(2015, None))
        third = t.record_query("dense retrieval for QA", Kind.PAPER, "")
        assert [h.id for h in t.history()] == [third, second, first]
        assert [h.id for h in t.history(kind=Kind.DATASET)] == [second]
        assert t.history()[1].years == "2015:" and t.history()[1].year_range.start == 2015
        saved = t.save_search(first, "DPR papers")
        assert saved.saved and saved.name == "DPR papers" and saved.year_range.end == 2020
        with pytest.raises(TriageError, match="exists"):
            t.save_search(second, "DPR papers")
        with pytest.raises(TriageError, match="no query"):
            t.save_search(10_000, "x")
        t.save_search(second, "images")
        assert [s.name for s in t.saved_searches()] == ["DPR papers", "images"]
        entry = t.saved_search("images")
        assert entry is not None and entry.text == "image datasets" and entry.kind is Kind.DATASET
        assert t.delete_saved_search("images") and t.saved_search("images") is None
        # unsaved history is trimmed, saved searches are kept
        monkeypatch.setattr(history_mod, "HISTORY_DEPTH", 2)
        for i in range(4):
            t.record_query(f"query {i}", Kind.PAPER)
        kept = [h.text for h in t.history(limit=10)]
        assert kept == ["query 3", "query 2", "dense retrieval for QA"]
        assert t.history(limit=10)[-1].saved


def test_research_question_fields(store_file: Path, slice_rows: list) -> None:
    a = ids(slice_rows)[0]
    with Store(store_file) as store:
        t = Triage(store)
        before = store.get(Kind.PAPER, a)
        assert before is not None and (before.problem, before.method) == ("", "")
        t.set_research_question(Kind.PAPER, a, " word alignment ", "bidirectional Transformer")
        after = store.get(Kind.PAPER, a)
        assert after is not None
        assert (after.problem, after.method) == ("word alignment", "bidirectional Transformer")
        assert store.max_revision(Kind.PAPER) == len(slice_rows)  # not a content change
        with pytest.raises(TriageError, match="no paper"):
            t.set_research_question(Kind.PAPER, "no-such-id", "p", "m")
        with pytest.raises(TriageError, match="only papers"):
            t.set_research_question(Kind.DATASET, a, "p", "m")


def test_triage_survives_reingest_of_same_and_changed_file(
    tmp_path: Path, store_file: Path, slice_rows: list
) -> None:
    a, b, c = ids(slice_rows)[:3]
    with Store(store_file) as store:
        t = Triage(store)
        t.set_label(Kind.PAPER, a, Label.KEEP)
        t.set_label(Kind.PAPER, b, Label.DISCARD)
        t.set_note(Kind.PAPER, a, "good", ["core"])
        t.add_to_collection("survey", Kind.PAPER, a)
        t.set_research_question(Kind.PAPER, a, "problem text", "method text")
        same = ingest_jsonl(store, Kind.PAPER, tmp_path / "p.jsonl")
        assert same.unchanged == len(slice_rows) and same.added == same.updated == 0
        changed = [dict(r) for r in slice_rows if r["id"] != b]  # b dropped from the corpus
        changed[0] = {**changed[0], "title": changed[0]["title"] + " (revised)"}
        report = ingest_jsonl(store, Kind.PAPER, write_jsonl(tmp_path / "p2.jsonl", changed))
        assert report.updated == 1
    with Store(store_file) as store:
        t = Triage(store)
        assert t.labels(Kind.PAPER, [a, b, c]) == {a: Label.KEEP, b: Label.DISCARD}
        note = t.note(Kind.PAPER, a)
        assert note is not None and note.tags == ("core",)
        assert t.collection_items("survey") == [(Kind.PAPER, a)]
        rec = store.get(Kind.PAPER, a)
        assert rec is not None and rec.title.endswith("(revised)")
        assert (rec.problem, rec.method) == ("problem text", "method text")


def test_triage_survives_index_rebuild(tmp_path: Path, slice_rows: list) -> None:
    from litsift.errors import ModelNotBuiltError
    from litsift.search.build.two_phase import build_in_two_phases

    try:
        from litsift.models_onnx import load_encoder

        encoder = load_encoder(build_if_missing=False)
    except ModelNotBuiltError as err:
        pytest.skip(f"encoder not built: {err.message}")
    small = slice_rows[:12]  # embedding is the slow part: keep the corpus tiny
    a = small[0]["id"]
    with Store(tmp_path / "small.sqlite") as store:
        assert ingest_jsonl(store, Kind.PAPER, write_jsonl(tmp_path / "s.jsonl", small)).ok
        Triage(store).set_label(Kind.PAPER, a, Label.KEEP)
        Triage(store).add_to_collection("c", Kind.PAPER, a)
        index_root = tmp_path / "index"
        build_in_two_phases(store, encoder, Kind.PAPER, index_root)
        build_in_two_phases(store, encoder, Kind.PAPER, index_root, rebuild=True)
        assert Triage(store).labels(Kind.PAPER, [a]) == {a: Label.KEEP}
        assert Triage(store).collection_items("c") == [(Kind.PAPER, a)]


def test_read_only_store_refuses_writes_but_reads(store_file: Path, slice_rows: list) -> None:
    a = ids(slice_rows)[0]
    with Store(store_file) as store:
        Triage(store).set_label(Kind.PAPER, a, Label.KEEP)
    with Store(store_file, readonly=True) as store:
        t = Triage(store)
        assert t.label(Kind.PAPER, a) is Label.KEEP
        with pytest.raises(TriageError, match="read-only") as err:
            t.set_label(Kind.PAPER, a, Label.DISCARD)
        assert isinstance(err.value, LitsiftError) and err.value.hint


def test_v1_store_is_migrated_keeping_its_labels(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite"
    conn = sqlite3.connect(path)
    MIGRATIONS[0](conn)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO labels(kind, doc_id, label, updated_at) VALUES ('paper', 'x', 'keep', 't')"
    )
    conn.commit()
    conn.close()
    with Store(path) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        t = Triage(store)
        assert t.labels(Kind.PAPER, ["x"]) == {"x": Label.KEEP}
        t.set_label(Kind.PAPER, "x", Label.MAYBE)
        assert t.undo() == (Kind.PAPER, "x", Label.KEEP)
