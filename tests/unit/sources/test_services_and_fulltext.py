"""OpenAlex, Crossref, Semantic Scholar, GROBID TEI, JATS and S2ORC importers on the real
samples of ../shared/data/sources: counts, fields, and files that hold no papers."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.crossref import parse_page as crossref_page
from litsift.sources.formats.openalex import parse_page as openalex_page
from litsift.sources.formats.s2 import parse_page as s2_page

SRC = shared_data_dir() / "sources"

# file -> (format, records, bad items, records with an abstract); counts from the README
CASES = {
    "openalex/api/works_search_title_and_abstract-biodiversity-AND-finance_per-page-200_"
    "cursor-page1.json.gz": (
        "openalex",
        200,
        0,
        151,
    ),
    "openalex/api/works_filter-doi-list_per-page-200_cursor-page1.json": ("openalex", 50, 0, 49),
    "openalex/api/works_filter-cited_by_two-works_per-page-200_cursor.json": (
        "openalex",
        37,
        1,
        29,
    ),
    "openalex/api/work_W2162348455.json": ("openalex", 1, 0, 0),
    "crossref/journals-2167-8359_works_query-ecology_with-jats-abstracts.json": (
        "crossref",
        20,
        0,
        20,
    ),
    "crossref/works_query-ecology_query.author-carl-boettiger.json": ("crossref", 20, 0, 15),
    "crossref/works_query.publisher-name_UFSM.json": ("crossref", 20, 0, 19),
    "crossref/works_sample-10.json": ("crossref", 10, 0, 3),
    "crossref/works_10.1371-journal.pone.0033693.json": ("crossref", 1, 0, 0),
    "semantic-scholar/graph-api/paper-batch_rich-fields_4ids-1null.json": ("s2", 3, 1, 3),
    "semantic-scholar/graph-api/author_full-fields_with-papers.json": ("s2", 60, 0, 34),
    "semantic-scholar/graph-api/paper-search-bulk_kubernetes_page1.json": ("s2", 1000, 0, 0),
    "semantic-scholar/datasets-samples/papers/papers-sample.jsonl.gz": ("s2", 100, 0, 0),
    "fulltext/grobid-tei/acl-N18-3011.grobid-0.6.1.tei.xml": ("grobid-tei", 1, 0, 1),
    "fulltext/jats/PMC6398430.nxml": ("jats", 1, 0, 1),
    "fulltext/s2orc-doc2json-json/acl-2020.acl-main.207.doc2json.json": ("s2orc", 1, 0, 1),
    "semantic-scholar/datasets-samples/s2orc/s2orc-sample.jsonl.gz": ("s2orc", 3, 0, 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sample_counts(name: str) -> None:
    fmt_name, records, bad, abstracts = CASES[name]
    fmt = registry.detect(SRC / name)
    assert fmt is not None and fmt.name == fmt_name
    items = list(fmt.read(SRC / name))
    recs = [i for i in items if isinstance(i, SourceRecord)]
    assert (len(recs), sum(isinstance(i, BadItem) for i in items)) == (records, bad)
    assert all(r.title for r in recs)
    assert sum(1 for r in recs if r.abstract) == abstracts


def test_fields() -> None:
    (work,) = list(registry.get("openalex").read(SRC / "openalex/api/work_W2162348455.json"))
    assert isinstance(work, SourceRecord)
    assert work.title == "Biodiversity hotspots for conservation priorities"
    assert work.ids == {
        "openalex": "W2162348455",
        "doi": "10.1038/35002501",
        "mag": "2162348455",
        "pmid": "10706275",
    }
    peerj = [
        i
        for i in registry.get("crossref").read(
            SRC / "crossref/journals-2167-8359_works_query-ecology_with-jats-abstracts.json"
        )
    ]
    assert isinstance(peerj[0], SourceRecord) and peerj[0].abstract.startswith(
        "Background Terrestrial biomes"
    )
    assert "<jats" not in " ".join(r.abstract for r in peerj if isinstance(r, SourceRecord))
    jats = next(iter(registry.get("jats").read(SRC / "fulltext/jats/PMC6398430.nxml")))
    assert isinstance(jats, SourceRecord)
    assert jats.title.startswith("Counting crows") and jats.ids["pmcid"] == "PMC6398430"
    assert len(jats.sections) > 20
    tei = next(
        iter(
            registry.get("grobid-tei").read(
                SRC / "fulltext/grobid-tei/jner-2016_multi-contact-FES.grobid-0.6.1.tei.xml"
            )
        )
    )
    assert isinstance(tei, SourceRecord) and tei.ids == {"doi": "10.1186/s12984-016-0129-6"}


def test_paging_fields_for_sync() -> None:
    page = openalex_page(
        (SRC / "openalex/api/works_filter-doi-list_per-page-200_cursor-page1.json").read_bytes()
    )
    assert page.next and page.total == 50
    last = openalex_page(
        (
            SRC / "openalex/api/works_filter-doi-list_per-page-200_cursor-page2-last.json"
        ).read_bytes()
    )
    assert last.next is None and not last.items
    err = openalex_page((SRC / "openalex/api/error_invalid-filter.json").read_bytes())
    assert err.error and not err.items
    one = crossref_page((SRC / "crossref/works_query-widget_cursor-page1.json").read_bytes())
    assert one.next and len(one.items) == 20
    bulk = s2_page(
        (SRC / "semantic-scholar/graph-api/paper-search-bulk_kubernetes_page1.json").read_bytes()
    )
    assert bulk.next and len(bulk.items) == 1000
    gone = s2_page((SRC / "semantic-scholar/graph-api/error_404_paper-not-found.json").read_bytes())
    assert gone.error == "Paper with id 0 not found"


@pytest.mark.parametrize(
    "name",
    [
        "openalex/api/works_group_by-type.json",
        "semantic-scholar/graph-api/author-search_turing.json",
        "semantic-scholar/graph-api/datasets-api_releases.json",
    ],
)
def test_files_without_papers_are_not_imported(name: str) -> None:
    fmt = registry.detect(SRC / name)
    if fmt is not None:
        with pytest.raises(IngestError):
            list(fmt.read(SRC / name))


def test_truncated_json_keeps_complete_works_and_reports_the_cut_one(tmp_path: Path) -> None:
    whole = list(registry.get("crossref").read(SRC / "crossref/works_sample-10.json"))
    data = (SRC / "crossref/works_sample-10.json").read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(data[: len(data) // 2])
    items = list(registry.get("crossref").read(cut))
    *records, last = items
    assert records and all(isinstance(r, SourceRecord) for r in records)
    assert [r.ids for r in records] == [r.ids for r in whole[: len(records)]]  # type: ignore[union-attr]
    assert isinstance(last, BadItem) and f"item {len(records) + 1} is cut off" in last.reason
    cut.write_bytes(data[: data.index(b'"total-results"') + 5])  # before the works: none kept
    with pytest.raises(IngestError, match="cut off at line 1"):
        list(registry.get("crossref").read(cut))


def test_openalex_abstracts_are_plain_text() -> None:
    """Five sample abstracts carry <br>, <i> or &amp; in their inverted index: they come out as
    text (tags dropped, entities decoded), words kept."""
    import glob
    import json as _json

    from litsift.sources.formats.openalex import abstract_from_inverted_index

    seen = 0
    for path in glob.glob(str(SRC / "openalex" / "api" / "*.json")):
        data = _json.loads(Path(path).read_text(encoding="utf-8"))
        for work in data.get("results", [data]) if isinstance(data, dict) else []:
            index = work.get("abstract_inverted_index")
            if not isinstance(index, dict):
                continue
            raw = " ".join(index)
            text = abstract_from_inverted_index(index)
            assert "<br>" not in text and "&amp;" not in text and "</i>" not in text
            if "&amp;" in raw or "<i>" in raw:
                seen += 1
    assert seen >= 2
    assert abstract_from_inverted_index({"A&amp;B": [0], "<i>in</i>": [1], "vivo": [2]}) == (
        "A&B in vivo"
    )


def test_a_jats_formula_in_a_semantic_scholar_title_is_its_text(tmp_path: Path) -> None:
    """An IEEE title through Semantic Scholar's bulk search kept a whole JATS inline formula
    (``<inline-formula><tex-math ...>$\\mu$</tex-math><alternatives>μ<inline-graphic
    .../></alternatives></inline-formula>Bench: ...``), shown so in the app and exported. It is
    now its text alternative; a formula with TeX only gives the TeX."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from litsift.text.markup import plain_text
    from litsift.types import Kind

    page = SRC / "semantic-scholar" / "graph-api" / "paper-search-bulk_kubernetes_page1.json"
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [page]).added > 100
        titles = [r[0] for r in svc.store._conn.execute("SELECT title FROM papers")]
    bench = [t for t in titles if "Bench: An Open-Source Factory" in t]
    assert bench == ["μBench: An Open-Source Factory of Benchmark Microservice Applications"]
    assert not any("<inline-formula" in t or "tex-math" in t for t in titles)
    assert plain_text("in <inline-formula><tex-math>$O(n)$</tex-math></inline-formula> time") == (
        "in O(n) time"
    )
