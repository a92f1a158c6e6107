"""Citation edges in the store (litsift.store.citations): edges from a real OpenAlex page, each
resolved to the stored paper when its record arrives (by any identifier), and the API the
refs/TUI/export code reads (references, cited_by, graph)."""

from __future__ import annotations

import json
from pathlib import Path

from litsift.paths import shared_data_dir
from litsift.sources.importer import import_paths
from litsift.store import citations
from litsift.store.repo import Store

OA = shared_data_dir() / "sources" / "openalex" / "api"
CITED_BY = OA / "works_filter-cited_by_two-works_per-page-200_cursor.json"


def test_openalex_page_keeps_its_references_and_resolves_internal_ones(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [CITED_BY])
        assert report.added == 37
        conn = store._conn
        # 37 works with a title carry 1,026 referenced_works (the untitled W2963341956 is a bad
        # item and keeps none); 27 of them name another work of the same page
        assert citations.count(conn) == 1026
        stored = {r[0] for r in conn.execute("SELECT id FROM papers")}
        internal = conn.execute(
            "SELECT count(*) FROM citations WHERE citing IN (SELECT id FROM papers) "
            "AND cited IN (SELECT id FROM papers)"
        ).fetchone()[0]
        assert internal == 27
        # W2250539671 (GloVe, doi 10.3115/v1/d14-1162) cites W2153579005 (doi 10.57702/kcdhx0zi),
        # both on the page: the edge joins the two stored ids, whatever their order in the file
        glove = "doi:10.3115/v1/d14-1162"
        assert glove in stored
        assert "doi:10.57702/kcdhx0zi" in citations.references(conn, glove)
        assert glove in citations.cited_by(conn, "doi:10.57702/kcdhx0zi")
        # a reference outside the page stays an OpenAlex key
        refs = citations.references(conn, glove)
        assert any(r.startswith("openalex:W") for r in refs)
        assert not any(r.startswith("openalex:W") and r in stored for r in refs)


def test_edge_resolves_when_its_record_arrives_by_another_identifier(tmp_path: Path) -> None:
    work = json.loads((OA / "work_W2162348455.json").read_text())
    refs = [w.rsplit("/", 1)[-1] for w in work["referenced_works"]]
    with Store(tmp_path / "s.db") as store:
        with store._write_transaction() as conn:
            # a fetched trail named the work by its DOI and by its OpenAlex id, before it arrived
            added = citations.add_edges(
                conn,
                [("key:someone", "doi:10.1038/35002501"), ("key:someone", "openalex:W2162348455")],
                "refs-fetch",
            )
        assert added == 2
        import_paths(store, [OA / "work_W2162348455.json"])
        doc = store._conn.execute("SELECT id FROM papers").fetchone()[0]
        # both keys name the one stored paper now: one edge remains
        assert citations.references(store._conn, "key:someone") == [doc]
        assert len(citations.references(store._conn, doc)) == len(set(refs)) == 230
        assert citations.resolve(store._conn) == 0  # nothing left to resolve


def test_graph_of_a_collection(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [CITED_BY])
        glove = "doi:10.3115/v1/d14-1162"
        g = citations.graph(store._conn, [glove])
        assert g.has_edge(glove, "doi:10.57702/kcdhx0zi")
        assert g.nodes[glove]["stored"] and g.nodes["doi:10.57702/kcdhx0zi"]["stored"]
        assert g.out_degree(glove) == len(citations.references(store._conn, glove))
        assert citations.graph(store._conn).number_of_edges() == 1026


def test_resolve_rewrites_edges_written_before_their_record(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [OA / "work_W2162348455.json"])
        doc = store._conn.execute("SELECT id FROM papers").fetchone()[0]
        with store._write_transaction() as conn:  # as a store written by another path holds it
            conn.execute(
                "INSERT INTO citations(citing, cited, source) "
                "VALUES ('key:x', 'openalex:W2162348455', 't')"
            )
        assert citations.resolve(store._conn) == 1
        assert citations.references(store._conn, "key:x") == [doc]


def test_stored_signal_counts_shared_references(tmp_path: Path) -> None:
    from litsift.graph.signal import stored_signal

    works = json.loads(CITED_BY.read_text())["results"]
    refs = {w["doi"]: set(w["referenced_works"]) for w in works if w.get("doi") and w["title"]}
    glove = "https://doi.org/10.3115/v1/d14-1162"
    others = [d for d in refs if d != glove]
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [CITED_BY])
        key = {d: "doi:" + d.removeprefix("https://doi.org/").lower() for d in refs}
        signal = stored_signal(store, [key[d] for d in others], [key[glove]])
        for d in others:
            # references outside the page stay OpenAlex keys on both sides, so shared
            # references count whether or not the cited work is stored
            assert signal[key[d]].coupling == len(refs[d] & refs[glove])
        assert max(s.coupling for s in signal.values()) == 4  # 7 papers share 1 to 4 with GloVe
        assert signal[key["https://doi.org/10.57702/kcdhx0zi"]].linked == 1
