"""A dataset's users through the service (``refs.dataset_users``): the stored papers that name
it, counted as the dataset search's popularity signal counts them, the query's first then the
newest; and the dataset hits of ``litsift search --datasets --json`` carry the description and
URL a script needs to show them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from litsift.cli.output import hits_to_json
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.types import Dataset, Hit, Kind, Query, SearchResult

PAPERS = [
    ("p-2018", "Reading comprehension on SQuAD", "We train readers on SQuAD.", 2018),
    ("p-2021", "Graph parsing", "We parse graphs; SQuAD 2.0 questions too.", 2021),
    ("p-2020", "Question answering with retrieval", "Open-domain question answering.", 2020),
    ("p-2019", "Question answering over SQuAD", "Extractive question answering.", 2019),
    ("p-none", "Parsing without a year", "A treebank study that never names it.", None),
    ("p-lower", "squad of robots", "A squad of robots (lowercase: no mention).", 2022),
]
DATASETS = [
    {"id": "SQuAD", "variants": ["SQuAD 2.0"], "description": "The **SQuAD** set.", "year": 2016},
    {"id": "Penn Treebank", "variants": [], "description": "Parsed sentences.", "year": 1993},
]


@pytest.fixture
def svc(tmp_path: Path, encoder: Any) -> Iterator[LitsiftService]:
    papers, datasets = tmp_path / "papers.jsonl", tmp_path / "datasets.jsonl"
    papers.write_text(
        "".join(
            json.dumps({"id": i, "title": t, "abstract": a, "year": y}) + "\n"
            for i, t, a, y in PAPERS
        )
    )
    datasets.write_text("".join(json.dumps(d) + "\n" for d in DATASETS))
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as service:
        assert service.ingest(Kind.PAPER, papers).ok and service.ingest(Kind.DATASET, datasets).ok
        service.build_index(Kind.PAPER)
        yield service


def test_the_papers_naming_a_dataset_newest_first_then_the_querys_first(
    svc: LitsiftService,
) -> None:
    users = svc.refs.dataset_users("SQuAD")
    # named by its id or an alias, case kept ("squad of robots" does not name it)
    assert users.total == 3
    assert [p.id for p in users.papers] == ["p-2021", "p-2019", "p-2018"]  # newest first
    assert (users.doc_id, users.query, users.max_year) == ("SQuAD", "", None)
    asked = svc.refs.dataset_users("SQuAD", "question answering")
    assert asked.papers[0].id == "p-2019"  # the query finds it first among the three
    assert {p.id for p in asked.papers} == {"p-2021", "p-2019", "p-2018"}
    # the year bound of the query, as the popularity count
    bounded = svc.refs.dataset_users("SQuAD", max_year=2019)
    assert bounded.total == 2 and [p.id for p in bounded.papers] == ["p-2019", "p-2018"]
    squad = svc.get(Kind.DATASET, "SQuAD")
    assert squad is not None and squad.rowid is not None
    assert svc.dataset_mentions().count(squad.rowid, 2019) == 2


def test_a_dataset_no_paper_names_and_one_not_stored(svc: LitsiftService) -> None:
    none = svc.refs.dataset_users("Penn Treebank", "parsing")
    assert none.total == 0 and none.papers == ()
    assert svc.refs.dataset_users("No Such Set").total == 0


def test_dataset_hits_in_json_carry_description_and_url() -> None:
    ds = Dataset("SQuAD", ("SQuAD 2.0",), "The **SQuAD** set.", year=2016, url="https://x.org")
    result = SearchResult(Query("qa", Kind.DATASET), (Hit(record=ds, rank=1, score=1.0),), 0.01)
    (hit,) = hits_to_json(result)["hits"]
    assert hit["description"] == "The **SQuAD** set." and hit["url"] == "https://x.org"
    assert list(hit)[:5] == ["rank", "id", "title", "year", "aliases"]  # the keys before stay
