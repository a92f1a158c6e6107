"""The citation signal in search (issue 31, item 4): on a tiny indexed home built from a real
OpenAlex page (37 works and their ``referenced_works``), keeping a paper (a bioinformatics tool
paper) moves the hits linked to it up in a search about word embeddings and says why (signal
``kept``); with nothing kept -- or the signal off -- the answer is the pipeline's without the
stage, hit for hit."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from litsift.graph.signal import kept_link_counts, stored_signal
from litsift.paths import get_paths, shared_data_dir
from litsift.search.pipeline import SearchPipeline
from litsift.search.retrieval.citation_stage import fuse_kept_links, kept_strength
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Label, Query

PAGE = (
    shared_data_dir()
    / "sources"
    / "openalex"
    / "api"
    / "works_filter-cited_by_two-works_per-page-200_cursor.json"
)
GLOVE = "doi:10.3115/v1/d14-1162"
BTS071 = "doi:10.1093/bioinformatics/bts071"
QUERY = "neural word embeddings learned from text"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, encoder: Any) -> Iterator[LitsiftService]:
    home = tmp_path_factory.mktemp("citation-search") / "home"
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        assert svc.sources.import_paths(Kind.PAPER, [PAGE]).added == 37
        svc.build_index(Kind.PAPER)
        yield svc


def pipeline(svc: LitsiftService, on: bool) -> SearchPipeline:
    settings = replace(svc.config.search, citation_signal=on)
    return SearchPipeline(settings, svc.searchers, svc.store, lambda: None, svc.rq.search)


def test_kept_link_counts_match_the_graph_signal(service: LitsiftService) -> None:
    conn = service.store._conn
    ids = [r[0] for r in conn.execute("SELECT id FROM papers ORDER BY id")]
    kept = [GLOVE, BTS071, "doi:10.1007/978-3-319-02621-3_26"]
    counts = kept_link_counts(service.store, ids, kept)
    linked = {k: v.linked for k, v in stored_signal(service.store, ids, kept).items() if v.linked}
    assert counts == linked
    assert counts["doi:10.1045/september2016-duma"] == 2  # cites two of the kept papers
    assert counts[BTS071] == 1  # a kept paper counts the other kept ones, never itself


def test_a_linked_hit_moves_up_and_says_why(service: LitsiftService) -> None:
    off, on = pipeline(service, False), pipeline(service, True)
    query = Query(QUERY, Kind.PAPER, k=10)
    base = off.search(query)
    # nothing kept: the stage changes nothing, hit for hit (scores, ranks, signals)
    assert on.search(query).hits == base.hits
    service.set_label(Kind.PAPER, BTS071, Label.KEEP)
    try:
        fused = on.search(query)
        unchanged = off.search(query)
    finally:
        service.set_label(Kind.PAPER, BTS071, None)
    assert unchanged.hits == base.hits  # the signal off: keeping changes nothing
    links = kept_link_counts(service.store, [h.docid for h in fused.hits], [BTS071])
    assert links and "kept" in fused.signals_used
    rank = {h.docid: h.rank for h in base.hits}
    moved = [h for h in fused.hits if h.docid in links and h.rank < rank.get(h.docid, 99)]
    assert moved, "no linked hit moved up"
    for h in fused.hits:
        assert ("kept" in h.signals) == (h.docid in links)
        if h.docid in links:
            assert h.signals["kept"].score == links[h.docid] == 1
    # a kept paper stays at its search rank (searching for it still finds it first)
    service.set_label(Kind.PAPER, GLOVE, Label.KEEP)
    try:
        glove = on.search(Query("GloVe global vectors for word representation", Kind.PAPER))
    finally:
        service.set_label(Kind.PAPER, GLOVE, None)
    assert glove.hits[0].docid == GLOVE and "kept" in glove.hits[1].signals
    assert glove.hits[0].score >= glove.hits[1].score
    # the unlinked hits keep their relative order
    unlinked = [h.docid for h in fused.hits if h.docid not in links]
    assert unlinked == [d for d in rank if d in set(unlinked)]


def test_the_weight_follows_how_much_the_kept_papers_are_about_the_query() -> None:
    """Each kept paper a hit links to counts 1 - (rank - 1) / n at its rank in the pool of n
    hits (scaled by 1 / (1 - full share), at most 1), 0 outside it; a hit's strength is their
    sum, at most 1."""
    pool = ["a", "b", "c", "d"]
    links = {"x": {"a"}, "y": {"d"}, "z": {"elsewhere"}, "w": {"c", "d"}, "v": {"a", "b"}}
    assert kept_strength(pool, links, 0.0) == {"x": 1.0, "y": 0.25, "z": 0.0, "w": 0.75, "v": 1.0}
    # the default: full in the pool's first half, then falling to 0 at its end
    assert kept_strength(pool, links) == {"x": 1.0, "y": 0.5, "z": 0.0, "w": 1.0, "v": 1.0}
    order = ["p1", "p2", "y", "z"]
    fused = fuse_kept_links(order, {"y": 1, "z": 1}, 1.0, 60, {"y": 0.25, "z": 0.0})
    assert [d for d, _, _ in fused] == ["y", "p1", "p2", "z"]  # y moves up; z stays (0)
    assert fused[0][1] == pytest.approx(1 / 63 + 0.25 / 61)
    assert fused[0][2] == (1.0, 1) and fused[3][2] is None


def test_hits_linked_to_a_kept_paper_the_query_does_not_find_stay_where_they_are(
    service: LitsiftService,
) -> None:
    """A kept paper of another topic (a bioinformatics tool, not among the query's candidates)
    moved the papers citing it to the top of a search about word embeddings; now a search
    whose candidate pool holds no kept paper is the search without the signal."""
    query = Query(QUERY, Kind.PAPER, k=10, k0=10)
    base = pipeline(service, False).search(query)
    pool = [h.docid for h in base.hits]
    assert BTS071 not in pool
    assert kept_link_counts(service.store, pool, [BTS071])  # linked hits are in the pool
    service.set_label(Kind.PAPER, BTS071, Label.KEEP)
    try:
        fused = pipeline(service, True).search(query)
    finally:
        service.set_label(Kind.PAPER, BTS071, None)
    assert [h.docid for h in fused.hits] == pool
    assert not any("kept" in h.signals for h in fused.hits)
