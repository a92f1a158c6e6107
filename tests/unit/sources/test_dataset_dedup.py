"""``litsift dedup`` merges the datasets a store made before imports joined them by name.

An "old" store, as litsift wrote it before one row per dataset: Papers with Code's dataset
file (bulk ingest) holds ``SciQ``, and the Hugging Face card ``sciq`` was written as a row of
its own (its row and provenance copied from a store the card alone was imported into, as an
old import left them). ``litsift dedup`` merges them by the import's rule
(:mod:`litsift.store.dataset_names`): the older row's id, both names, the card's label, note,
collection and provenance on it; PwC's ``BIRD`` and ``BiRD`` (other papers) stay apart.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths, shared_data_dir
from litsift.sources.importer import import_paths
from litsift.store import Store
from litsift.store.dataset_names import DatasetNames
from litsift.store.triage import Triage
from litsift.types import Dataset, Kind, Label

DATA = shared_data_dir()
PWC_JSONL = DATA / "datasets" / "pwc-datasets.jsonl.gz"
SCIQ_CARD = DATA / "sources" / "huggingface" / "dataset-cards" / "sciq"
COPIED = ("datasets", "provenance")


def _cli(home: Path, *args: str) -> str:
    done = CliRunner().invoke(main, ["--home", str(home), *args])
    assert done.exit_code == 0, done.output
    return done.output


def _old_store(tmp_path: Path) -> Path:
    """The home of a store with PwC's ``SciQ`` and the card's ``sciq`` as two rows."""
    card = Store(tmp_path / "card.sqlite")
    with card:
        report = import_paths(card, [SCIQ_CARD], Kind.DATASET)
        assert report.added == 1, report.summary()
    home = tmp_path / "home"
    db = get_paths(home).store_file
    db.parent.mkdir(parents=True, exist_ok=True)
    with Store(db) as store:
        import_paths(store, [PWC_JSONL], Kind.DATASET)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("ATTACH DATABASE ? AS card", (str(tmp_path / "card.sqlite"),))
        for table in COPIED:
            cols = [r[1] for r in conn.execute(f"PRAGMA card.table_info({table})")]
            names = ", ".join(c for c in cols if c != "rowid")  # a new rowid: a later row
            conn.execute(f"INSERT INTO main.{table} ({names}) SELECT {names} FROM card.{table}")
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'revision'")
    conn.close()
    with Store(db) as store:
        triage = Triage(store)
        triage.set_label(Kind.DATASET, "sciq", Label.KEEP)
        triage.set_note(Kind.DATASET, "sciq", "science exam questions", ["qa"])
        triage.add_to_collection("benchmarks", Kind.DATASET, "sciq")
    return home


def _dump(home: Path) -> list[str]:
    conn = sqlite3.connect(get_paths(home).store_file)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def test_dedup_merges_a_card_and_a_pwc_entry_stored_as_two_rows(tmp_path: Path) -> None:
    home = _old_store(tmp_path)
    with Store(get_paths(home).store_file) as store:
        assert isinstance(store.get(Kind.DATASET, "sciq"), Dataset)
        assert isinstance(store.get(Kind.DATASET, "SciQ"), Dataset)
        before = store.count(Kind.DATASET)
    dump = _dump(home)
    dry = _cli(home, "dedup", "--dry-run")
    assert "keep  dataset SciQ\n  <- sciq (name)" in dry
    assert _dump(home) == dump  # --dry-run changes nothing
    done = _cli(home, "dedup")
    merged = done.splitlines()[-1]
    assert "datasets compared: merged" in merged and "datasets compared: merged 0" not in merged
    with Store(get_paths(home).store_file) as store:
        assert store.get(Kind.DATASET, "sciq") is None
        sciq = store.get(Kind.DATASET, "SciQ")
        assert isinstance(sciq, Dataset)
        assert "sciq" in sciq.variants
        assert sciq.url == "https://allenai.org/data/sciq"  # filled from the card
        assert sciq.intro_paper_title == "Crowdsourcing Multiple Choice Science Questions"
        triage = Triage(store)
        assert triage.label(Kind.DATASET, "SciQ") == Label.KEEP
        note = triage.note(Kind.DATASET, "SciQ")
        assert note is not None and note.text == "science exam questions"
        assert triage.collections_of(Kind.DATASET, "SciQ") == ["benchmarks"]
        files = store._conn.execute(
            "SELECT DISTINCT doc_id FROM provenance WHERE kind = 'dataset'"
        ).fetchall()
        assert files == [("SciQ",)]  # the card's provenance moved
        # other papers introduced BIRD (Blocksworld) and BiRD (Bigram Relatedness)
        assert {d.id for d in (store.get(Kind.DATASET, n) for n in ("BIRD", "BiRD")) if d} == {
            "BIRD",
            "BiRD",
        }
        assert store.count(Kind.DATASET) < before
    again = _cli(home, "dedup")
    assert "datasets compared: merged 0 into 0" in again


def test_rows_read_from_one_file_stay_apart_and_json_lists_the_groups(tmp_path: Path) -> None:
    names = DatasetNames()
    names.add_files("TWEETQA", "TWEETQA: A Social Media Focused QA Dataset", {"pwc.json"})
    assert names.find_from("TweetQA", "", {"pwc.json"}).doc_id is None  # a source's own two
    assert names.find_from("TweetQA", "", {"other.json"}).doc_id == "TWEETQA"
    home = _old_store(tmp_path)
    plan = json.loads(_cli(home, "dedup", "--dry-run", "--json"))
    assert {"keep": "SciQ", "merge": ["sciq"]} in plan["dataset_groups"]
    assert plan["applied"] is False and plan["dataset_duplicates"] == len(plan["dataset_groups"])
