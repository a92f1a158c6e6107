"""BM25Index on a real tantivy index of the 3,327 Papers with Code datasets (+ a paper slice)."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.search.retrieval.bm25 import BM25Index, analyzer
from litsift.search.retrieval.record_text import ALL_FIELD, FIELDS, passage_text, record_fields
from litsift.types import Dataset, Kind, Paper, YearRange
from tests.conftest import DATASETS_GZ, PAPERS_GZ, read_jsonl_gz

WEIRD_QUERIES = [
    "",
    "   ",
    "\t\n ",
    '"unbalanced quote',
    '"question answering"',
    "title:squad",
    "name:(image OR text)",
    "(((",
    ")",
    "AND",
    "OR NOT AND",
    "image AND NOT text",
    "+must -not ^2 ~1 *",
    "bert^3 roberta~2 wiki*",
    "[2019 TO 2020]",
    "{a TO b}",
    "\\",
    "a\\b/c//d",
    "/regex.*/",
    "?!.,;:'\"`~@#$%^&*()_+=-{}[]|<>",
    "...",
    "——–‐",
    "🚀🔥 transformers 🤗",
    "😀",
    "naïve Bayes für Übersetzung",
    "中文 问答 数据集",
    "Вопросно-ответная система",
    "ﷺ \u200b\u2028\ufeff",
    "year:2019",
    "rowid:1",
    "x" * 5000,
    "question answering " * 2000,
    " ".join(f"w{i}" for i in range(3000)),
]

RANGES = [
    YearRange(2015, 2018, include_missing=False),
    YearRange(2015, 2018, include_missing=True),
    YearRange(None, 2012, include_missing=False),
    YearRange(2020, None, include_missing=True),
    YearRange(2019, 2019, include_missing=False),
    YearRange(None, None, include_missing=False),
]

QUERIES = [
    "question answering",
    "image classification of medical scans",
    "speech recognition in noisy environments",
    "We need a large corpus of news articles for abstractive summarization.",
    "3D point cloud segmentation",
]


def dataset_records() -> list[Dataset]:
    rows = read_jsonl_gz(DATASETS_GZ)
    return [
        Dataset(
            id=r["id"],
            variants=tuple(r.get("variants") or ()),
            description=r.get("description") or "",
            intro_paper_title=r.get("intro_paper_title") or "",
            year=r.get("year"),
            rowid=i + 1,
        )
        for i, r in enumerate(rows)
    ]


@pytest.fixture(scope="session")
def datasets() -> list[Dataset]:
    return dataset_records()


@pytest.fixture(scope="session")
def ds_index(tmp_path_factory: pytest.TempPathFactory, datasets: list[Dataset]) -> BM25Index:
    index = BM25Index.create(tmp_path_factory.mktemp("bm25") / "datasets", Kind.DATASET)
    assert index.add(datasets) == len(datasets)
    index.close()
    return index


@pytest.fixture(scope="session")
def doc_tokens(datasets: list[Dataset]) -> dict[int, set[str]]:
    """Brute force: every analysed token of every scored field (default boost > 0) of every
    dataset."""
    from litsift.search.retrieval.record_text import DEFAULT_BOOSTS

    an = analyzer()
    out: dict[int, set[str]] = {}
    for rec in datasets:
        assert rec.rowid is not None
        toks: set[str] = set()
        for name, text in record_fields(rec).items():
            if DEFAULT_BOOSTS[Kind.DATASET].get(name, 0.0) > 0:
                toks.update(an.analyze(text))
        out[rec.rowid] = toks
    return out


def test_count_and_reopen(ds_index: BM25Index, datasets: list[Dataset]) -> None:
    assert ds_index.count() == len(datasets)
    reopened = BM25Index.open(ds_index.path)
    assert reopened.kind is Kind.DATASET
    assert reopened.count() == len(datasets)
    q = "visual question answering"
    assert reopened.search(q, 20, YearRange()) == ds_index.search(q, 20, YearRange())


@pytest.mark.parametrize("query", WEIRD_QUERIES, ids=range(len(WEIRD_QUERIES)))
def test_any_text_is_a_query(ds_index: BM25Index, datasets: list[Dataset], query: str) -> None:
    hits = ds_index.search(query, 10, YearRange(2010, 2020, include_missing=True))
    assert len(hits) <= 10
    assert all(1 <= rowid <= len(datasets) and score > 0 for rowid, score in hits)
    if not analyzer().analyze(query):
        assert hits == []


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ("image AND NOT text", "image and not text"),
        ("name:(image OR text)", "name image or text"),
        ('"question answering"^3', "question answering 3"),
        ("+speech -recognition", "speech recognition"),
    ],
)
def test_operators_are_plain_words(ds_index: BM25Index, raw: str, plain: str) -> None:
    assert ds_index.search(raw, 30, YearRange()) == ds_index.search(plain, 30, YearRange())


@pytest.mark.parametrize("years", RANGES, ids=str)
@pytest.mark.parametrize("query", QUERIES)
def test_year_filter_is_pushed_down(
    ds_index: BM25Index,
    datasets: list[Dataset],
    doc_tokens: dict[int, set[str]],
    query: str,
    years: YearRange,
) -> None:
    year_of = {d.rowid: d.year for d in datasets}
    n = len(datasets)
    tokens = set(analyzer().analyze(query))
    eligible_matches = {
        rowid
        for rowid, toks in doc_tokens.items()
        if toks & tokens and years.contains(year_of[rowid])
    }
    # every eligible matching document, and only those, when k0 covers the corpus
    everything = ds_index.search(query, n, years)
    assert {r for r, _ in everything} == eligible_matches
    # a small k0 gets the best eligible documents, not a post-filtered top-k0
    unfiltered = ds_index.search(query, n, YearRange())
    expected = [(r, s) for r, s in unfiltered if years.contains(year_of[r])][:10]
    got = ds_index.search(query, 10, years)
    assert [r for r, _ in got] == [r for r, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-6)
    assert all(years.contains(year_of[r]) for r, _ in got)


def test_missing_years_follow_include_missing(ds_index: BM25Index, datasets: list[Dataset]) -> None:
    year_of = {d.rowid: d.year for d in datasets}
    query = "dataset benchmark corpus images text"
    with_missing = ds_index.search(query, len(datasets), YearRange(2016, 2018, True))
    without = ds_index.search(query, len(datasets), YearRange(2016, 2018, False))
    missing_hits = {r for r, _ in with_missing if year_of[r] is None}
    assert missing_hits, "precondition: the query matches datasets without a year"
    assert not any(year_of[r] is None for r, _ in without)
    assert {r for r, _ in with_missing} == missing_hits | {r for r, _ in without}


def test_results_sorted_with_rowid_tie_break(tmp_path: Path) -> None:
    index = BM25Index.create(tmp_path / "ties", Kind.DATASET)
    twins = [Dataset(id="Twin", description="graph benchmark", rowid=r) for r in (9, 3, 7, 5, 1)]
    index.add([*twins, Dataset(id="Other", description="graph graph benchmark", rowid=4)])
    index.commit()
    all_hits = index.search("graph benchmark", 10, YearRange())
    assert [r for r, _ in all_hits][1:] == [1, 3, 5, 7, 9]
    top3 = index.search("graph benchmark", 3, YearRange())
    assert [r for r, _ in top3] == [r for r, _ in all_hits][:3]
    scores = [s for _, s in all_hits]
    assert scores == sorted(scores, reverse=True)


def test_query_term_frequency_counts(tmp_path: Path) -> None:
    """A word the query repeats weighs more (Lucene/bm25s query term frequency)."""
    index = BM25Index.create(tmp_path / "qtf", Kind.DATASET)
    index.add(
        [
            Dataset(id="A", description="graph data collection", rowid=1),
            Dataset(id="B", description="speech data collection", rowid=2),
        ]
    )
    index.commit()
    assert index.query_term_counts("graph speech speech Speeches") == {"graph": 1, "speech": 3}
    assert index.query_tokens("graph speech speech") == ["graph", "speech"]
    once = dict(index.search("graph speech", 2, YearRange()))
    assert once[1] == pytest.approx(once[2])  # same idf, same length
    twice = index.search("graph speech speech", 2, YearRange())
    assert [r for r, _ in twice] == [2, 1]
    assert dict(twice)[2] == pytest.approx(2 * dict(twice)[1])


def test_add_upserts_by_rowid(tmp_path: Path) -> None:
    index = BM25Index.create(tmp_path / "upsert", Kind.DATASET)
    index.add([Dataset(id="Alpha", description="zebra stripes", rowid=1, year=2001)])
    index.add([Dataset(id="Beta", description="lion manes", rowid=2)])
    index.commit()
    index.add([Dataset(id="Alpha", description="penguin colonies", rowid=1, year=2010)])
    index.commit()
    assert index.count() == 2
    assert index.search("zebra", 5, YearRange()) == []
    assert [r for r, _ in index.search("penguin", 5, YearRange(2009, 2011, False))] == [1]
    assert index.search("penguin", 5, YearRange(2000, 2002, False)) == []


def test_field_boosts(ds_index: BM25Index, datasets: list[Dataset]) -> None:
    only_name = BM25Index.open(ds_index.path)
    only_name.boosts = {"name": 1.0}
    an = analyzer()
    names = {d.rowid: d.id for d in datasets}
    hits = only_name.search("imagenet", len(datasets), YearRange())
    expected = {d.rowid for d in datasets if "imagenet" in an.analyze(d.id)}
    assert expected, "precondition: some dataset names contain ImageNet"
    assert {r for r, _ in hits} == expected
    all_fields = ds_index.search("imagenet", len(datasets), YearRange())
    assert len(all_fields) > len(hits)
    assert all("imagenet" in an.analyze(names[r]) for r, _ in hits)


def test_wrong_kind_and_missing_rowid_are_refused(tmp_path: Path) -> None:
    index = BM25Index.create(tmp_path / "k", Kind.DATASET)
    with pytest.raises(ValueError, match="rowid"):
        index.add([Dataset(id="x")])
    with pytest.raises(ValueError, match="paper"):
        index.add([Paper(id="p", title="t", rowid=1)])


def test_paper_index_finds_papers_by_their_title(tmp_path: Path) -> None:
    rows = read_jsonl_gz(PAPERS_GZ)[::60][:300]
    papers = [
        Paper(
            id=r["id"],
            title=r["title"],
            abstract=r.get("abstract") or "",
            authors=tuple(r.get("authors") or ()),
            year=r.get("year"),
            venue=r.get("venue") or "",
            rowid=i + 1,
        )
        for i, r in enumerate(rows)
    ]
    index = BM25Index.create(tmp_path / "papers", Kind.PAPER)
    index.add(papers)
    index.close()
    assert set(index.boosts) <= set(FIELDS[Kind.PAPER]) and index.fields == FIELDS[Kind.PAPER]
    for paper in papers[::15]:
        hits = index.search(paper.title, 10, YearRange(paper.year, paper.year, False))
        assert paper.rowid in [r for r, _ in hits]
    first = papers[0]
    assert passage_text(first).startswith(first.title)
    assert first.abstract[:50] in passage_text(first)


def test_index_of_an_older_layout_is_refused_with_the_fix(
    tmp_path: Path, datasets: list[Dataset]
) -> None:
    """An index whose sidecar lists no fields or other fields (written before ALL_FIELD) is
    not searched with a fallback: it is an index of another layout, to rebuild."""
    import json

    from litsift.errors import IndexMismatchError
    from litsift.search.retrieval.bm25 import META_FILE

    index = BM25Index.create(tmp_path / "legacy", Kind.DATASET)
    index.add(datasets[:50])
    index.close()
    assert BM25Index.open(index.path).count() == 50
    old_fields = [f for f in FIELDS[Kind.DATASET] if f != ALL_FIELD]
    for meta in ({"kind": "dataset"}, {"kind": "dataset", "fields": old_fields}):
        (index.path / META_FILE).write_text(json.dumps(meta))
        with pytest.raises(IndexMismatchError) as err:
            BM25Index.open(index.path)
        assert "litsift index" in err.value.hint


def test_bm25_query_text_modes() -> None:
    from litsift.search.retrieval.query import bm25_query_text

    q = "I want to build a semi-supervised method for the segmentation of images."
    assert bm25_query_text(q, "raw") == q
    assert bm25_query_text(q, "stop").split() == [
        "i",
        "want",
        "build",
        "semi",
        "supervised",
        "method",
        "segmentation",
        "images",
    ]
    assert bm25_query_text(q, "stop+request").split()[:2] == ["build", "semi"]
    # a query made only of stopwords is kept as typed
    assert bm25_query_text("The It", "stop") == "The It"
    with pytest.raises(ValueError):
        bm25_query_text(q, "magic")
