"""A query that names a dataset lists that dataset first (litsift.search.datasets.named).

Before, the re-ranker's popularity evidence put COCO above COCO Captions for ``COCO
captions`` and SuperGLUE above GLUE for ``GLUE`` (both ranked first by BM25 and dense), and a
misspelled ``imagnet`` found no ImageNet at all.
"""

from __future__ import annotations

import pytest

from litsift.search.datasets.named import NameIndex
from litsift.types import Kind, Query, YearRange
from tests.conftest import DATASETS_GZ, read_jsonl_gz


@pytest.fixture(scope="module")
def names() -> NameIndex:
    rows = read_jsonl_gz(DATASETS_GZ)
    return NameIndex.of((i, r["id"], r.get("variants") or []) for i, r in enumerate(rows))


def _ids(names: NameIndex, query: str) -> list[str]:
    rows = read_jsonl_gz(DATASETS_GZ)
    return [rows[i]["id"] for i, _ in names.named(query)]


def test_names_aliases_and_one_edit(names: NameIndex) -> None:
    assert _ids(names, "COCO captions") == ["COCO Captions"]
    assert _ids(names, "ms-coco") == ["COCO"]  # an alias
    assert _ids(names, "imagnet") == ["ImageNet"]  # one letter missing
    assert _ids(names, "mnst") == []  # too short to guess from
    assert _ids(names, "image classification") == []


def test_no_datafinder_query_names_a_dataset(names: NameIndex) -> None:
    """The rule never fires on DataFinder's queries, so its figures cannot move."""
    import json

    from tests.conftest import EVAL_DIR

    path = EVAL_DIR / "datafinder" / "test_data.jsonl"
    rows = [json.loads(line) for line in path.read_text().split("\n") if line.strip()]
    assert not [r[f] for r in rows for f in ("query", "keyphrase_query") if names.named(r[f])]


@pytest.mark.parametrize(
    ("text", "first"),
    [("COCO captions", "COCO Captions"), ("GLUE", "GLUE"), ("imagnet", "ImageNet")],
)
def test_the_named_dataset_comes_first(service, text: str, first: str) -> None:
    hits = service.search(Query(text, Kind.DATASET, k=10)).hits
    assert hits[0].record.id == first
    assert "named" in hits[0].signals
    assert len({h.docid for h in hits}) == len(hits) == 10


def test_a_named_dataset_after_the_cut_off_stays_out(service) -> None:
    hits = service.search(Query("COCO captions", Kind.DATASET, YearRange(None, 2014), k=10)).hits
    assert "COCO Captions" not in [h.record.id for h in hits]  # introduced in 2015
    assert all(h.record.year is None or h.record.year <= 2014 for h in hits)
