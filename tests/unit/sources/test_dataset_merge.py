"""One row per dataset: a Hugging Face card and a Papers-with-Code entry of one dataset merge.

Real files from ``shared/data``: the PwC dataset JSONL (bulk ingest path), the PwC evaluation
tables and the Hugging Face cards (record importer path), into real temporary stores.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.search.datasets.popularity import count_mentions
from litsift.sources.importer import import_paths
from litsift.store import Store
from litsift.store.dataset_names import name_key
from litsift.store.report import IngestReport
from litsift.types import Dataset, Kind, Paper

DATA = shared_data_dir()
PWC_JSONL = DATA / "datasets" / "pwc-datasets.jsonl.gz"
CARDS = DATA / "sources" / "huggingface" / "dataset-cards"
TABLES = DATA / "sources" / "paperswithcode" / "evaluation-tables-format"
PAPERS_GZ = DATA / "papers" / "ml-nlp-papers.jsonl.gz"


def _pwc(name: str) -> dict:
    with gzip.open(PWC_JSONL, "rt", encoding="utf-8") as fh:
        return next(r for line in fh if (r := json.loads(line))["id"] == name)


def _store(tmp_path: Path, *paths: Path) -> tuple[Store, list[IngestReport]]:
    store = Store(tmp_path / "litsift.sqlite")
    return store, [import_paths(store, [p], Kind.DATASET) for p in paths]


def _sciq(store: Store) -> list[Dataset]:
    rows = [store.get(Kind.DATASET, n) for n in ("SciQ", "sciq")]
    return [d for d in rows if isinstance(d, Dataset)]


def test_name_key_folds_spelling_only() -> None:
    assert name_key("SciQ") == name_key("sciq") == name_key("allenai/sciq")
    assert name_key("AG News") == name_key("ag_news") == name_key("ag-news")
    assert name_key("CIFAR-10") == name_key("cifar10")
    assert name_key("SQuAD") != name_key("SQuAD 2.0") != name_key("SQuAD1.1")


@pytest.mark.parametrize("order", ["pwc-first", "cards-first"])
def test_a_card_and_a_pwc_entry_of_one_dataset_are_one_row(tmp_path: Path, order: str) -> None:
    paths = (PWC_JSONL, CARDS) if order == "pwc-first" else (CARDS, PWC_JSONL)
    store, reports = _store(tmp_path, *paths)
    with store:
        rows = _sciq(store)
        assert len(rows) == 1, [d.id for d in rows]
        sciq = rows[0]
        assert {"SciQ", "sciq"} <= set(sciq.variants)
        assert sciq.description == _pwc("SciQ")["description"].strip()  # the richer one
        assert sciq.url == "https://allenai.org/data/sciq"  # filled from the card
        assert sciq.intro_paper_title == "Crowdsourcing Multiple Choice Science Questions"
        stored_id = "SciQ" if order == "pwc-first" else "sciq"
        assert sciq.id == stored_id  # the stored row keeps its id
        second = reports[1]
        assert any(into == stored_id and by == "name" for _, into, by in second.merges)
        assert f"{second.merged} merged (" in second.summary() and "by name" in second.summary()
        # both orders end with the same rows; a second import of each file changes nothing
        assert store.count(Kind.DATASET) == 3294 + 28 - 19
        for path in paths:
            again = import_paths(store, [path], Kind.DATASET)
            assert again.added == again.updated == again.merged == 0, again.summary()
        assert len(_sciq(store)) == 1 and set(_sciq(store)[0].variants) == set(sciq.variants)


def test_names_that_only_look_alike_stay_apart(tmp_path: Path) -> None:
    # PwC's SQuAD lists SQuAD2.0 as a variant; the tables' SQuAD2.0 is still its own dataset
    store, _ = _store(tmp_path, PWC_JSONL, TABLES / "sota-extractor_squad.json")
    with store:
        squad, squad2 = store.get(Kind.DATASET, "SQuAD"), store.get(Kind.DATASET, "SQuAD2.0")
        assert isinstance(squad, Dataset) and isinstance(squad2, Dataset)
        assert "SQuAD2.0" in squad.variants and squad2.id == "SQuAD2.0"
        # one file's own entries are distinct: BIRD (Blocksworld) and BiRD (Bigram Relatedness)
        bird, bi_rd = store.get(Kind.DATASET, "BIRD"), store.get(Kind.DATASET, "BiRD")
        assert isinstance(bird, Dataset) and isinstance(bi_rd, Dataset)
        assert "Blocksworld" in bird.description and "Bigram" in bi_rd.description


def test_a_dataset_introduced_by_another_paper_is_kept_apart_and_reported(tmp_path: Path) -> None:
    store, reports = _store(tmp_path, PWC_JSONL, CARDS / "mnist")
    with store:
        assert store.get(Kind.DATASET, "MNIST") and store.get(Kind.DATASET, "mnist")
    text = reports[1].summary()
    assert "1 kept apart" in text and "introduced by another paper" in text


def test_popularity_counts_the_merged_row_under_both_names(tmp_path: Path) -> None:
    store, _ = _store(tmp_path, CARDS / "snli", PWC_JSONL)
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8") as fh:
        papers = [
            Paper(id=r["id"], title=r["title"], abstract=r.get("abstract") or "")
            for line in fh
            if "SNLI" in line or "Stanford Natural Language Inference" in line
            for r in [json.loads(line)]
        ]
    with store:
        snli = store.get(Kind.DATASET, "snli")
        assert isinstance(snli, Dataset) and snli.rowid is not None
        assert store.get(Kind.DATASET, "SNLI") is None
        assert {"snli", "SNLI", "Stanford Natural Language Inference"} <= set(snli.variants)
    merged = count_mentions([snli], papers).count(snli.rowid)
    pwc = _pwc("SNLI")
    apart = count_mentions(
        [Dataset(id="SNLI", variants=tuple(pwc["variants"]), rowid=1)], papers
    ).count(1)
    assert merged >= apart > 0
