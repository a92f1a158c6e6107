"""Every importer that sees references keeps them as citation edges, on the real samples of
../shared/data/sources: an edge count per file and edges read from the file by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.importer import import_paths
from litsift.store import citations
from litsift.store.repo import Store

SRC = shared_data_dir() / "sources"
TEI = SRC / "fulltext" / "grobid-tei"
S2 = SRC / "semantic-scholar" / "graph-api"

# file -> (citing paper id, edges from it, edges to it, (cited keys read from the file by hand))
CASES = {
    # 70 `reference` entries: 65 with a DOI, 4 with article-title + author, 1 `unstructured` only
    "crossref/works_10.1371-journal.pone.0033693.json": (
        "doi:10.1371/journal.pone.0033693",
        69,
        0,
        ("doi:10.1038/sj.npp.1301164", "doi:10.1586/14737175.5.3.325"),
    ),
    # 14 references (8 with paperId: 6 of them with a DOI) and 1,000 citing papers
    "semantic-scholar/graph-api/paper_full-fields_with-1000-citations-14-references.json": (
        "doi:10.1093/mind/lix.236.433",
        14,
        1000,
        ("doi:10.2307/3610576",),
    ),
    # 57 biblStruct: b6 has no title; the others by DOI (7) or title + first author
    "fulltext/grobid-tei/acl-2020.acl-main.207.grobid-0.6.1.tei.xml": (
        None,
        52,
        0,
        ("doi:10.18653/v1/n18-1101", "doi:10.1162/tacl_a_00051"),
    ),
    # PubMed ids of the ref-list (ref 1: PMID 1512246)
    "fulltext/jats/PMC5828200.nxml": ("doi:10.18632/oncotarget.24369", 52, 0, ("pmid:1512246",)),
    # S2ORC 2023: bibentry b0 matched to corpus id 1352843, b1 to 11681236
    "semantic-scholar/datasets-samples/s2orc/s2orc-sample.jsonl.gz": (
        None,
        95,
        0,
        ("corpusid:1352843", "corpusid:11681236", "corpusid:52042590"),
    ),
    "fulltext/s2orc-doc2json-json/acl-2020.acl-main.207.doc2json.json": (
        None,
        53,
        0,
        ("doi:10.18653/v1/n18-1101",),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_importer_keeps_references(name: str, tmp_path: Path) -> None:
    citing, out_edges, in_edges, cited = CASES[name]
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [SRC / name])
        assert report.ok, report.summary()
        conn = store._conn
        assert citations.count(conn) == out_edges + in_edges
        if citing is not None:
            refs = citations.references(conn, citing)
            assert len(refs) == out_edges
            assert len(citations.cited_by(conn, citing)) == in_edges
        else:
            refs = [r[0] for r in conn.execute("SELECT cited FROM citations")]
        for key in cited:
            assert key in refs


def test_tei_reference_without_identifier_resolves_by_title(tmp_path: Path) -> None:
    """SPECTER's reference b1, "Construction of the literature graph in semantic scholar"
    (Ammar et al.), carries no identifier; importing that paper (N18-3011, whose TEI has none
    either) joins the edge to it, in either order."""
    specter = TEI / "acl-2020.acl-main.207.grobid-0.6.1.tei.xml"
    lit_graph = TEI / "acl-N18-3011.grobid-0.6.1.tei.xml"
    for order in ([specter, lit_graph], [lit_graph, specter]):
        with Store(tmp_path / f"{order[0].name}.db") as store:
            for path in order:
                import_paths(store, [path])
            ids = dict(store._conn.execute("SELECT title, id FROM papers").fetchall())
            graph_id = ids["Construction of the Literature Graph in Semantic Scholar"]
            specter_id = next(v for k, v in ids.items() if k.startswith("SPECTER"))
            assert citations.cited_by(store._conn, graph_id) == [specter_id]
            assert graph_id in citations.references(store._conn, specter_id)


def test_unstored_cited_works_keep_the_label_the_source_gave(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [SRC / "crossref/works_10.1371-journal.pone.0033693.json"])
        import_paths(store, [TEI / "acl-2020.acl-main.207.grobid-0.6.1.tei.xml"])
        specter = store._conn.execute(
            "SELECT id FROM papers WHERE title LIKE 'SPECTER%'"
        ).fetchone()[0]
        refs = citations.references(store._conn, specter)
        labels = citations.labels(store._conn, [*refs, "doi:10.1038/sj.npp.1301164"])
        # Crossref ref1: article-title, author "AF Arnsten", year 2006
        assert labels["doi:10.1038/sj.npp.1301164"] == (
            "Stimulants: Therapeutic actions in ADHD. (AF Arnsten, 2006)"
        )
        # TEI b0: analytic title, 8 authors (the first "K Anant"), imprint date 2019
        assert (
            "Estimating position bias without intrusive interventions (K Anant et al., 2019)"
            in (labels.values())
        )
        assert len(labels) == 1 + len(refs)  # every SPECTER reference has a title
