"""Semantic Scholar and arXiv records carry their type, volume, issue and pages, as the
OpenAlex and Crossref records do: S2's ``publicationTypes`` / ``publicationVenue.type`` /
``journal``, arXiv's ``journal-ref``; an arXiv record without one is a preprint.

Files: the real Graph API responses and arXiv feeds of ``../shared/data/sources`` (origins in
its README): S2's ``paper_full-fields_with-1000-citations-14-references.json`` and
``author_full-fields_with-papers.json``; arXiv's classic Atom feed (2016), the arXivRaw
OAI-PMH page (2015) and the Kaggle metadata snapshot (2007).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.arxiv import read_atom, read_oai, read_snapshot
from litsift.sources.formats.s2 import paper_record, read_s2
from litsift.sources.importer import import_paths
from litsift.store import Store
from litsift.store.biblio import biblio_of
from litsift.types import Kind

SOURCES = shared_data_dir() / "sources"
S2 = SOURCES / "semantic-scholar" / "graph-api"
TURING = S2 / "paper_full-fields_with-1000-citations-14-references.json"
ATOM = SOURCES / "arxiv" / "api-atom" / "legacy-2016_search_query-au-del_maestro_max10.xml"
CS_RO = "legacy-2025_search_query-cat-cs.RO-AND-neural_max2.xml"
OAI = SOURCES / "arxiv" / "oai-pmh" / "arxivoaiharvester_ListRecordsResponse.xml"
KAGGLE = (
    SOURCES / "arxiv" / "kaggle-metadata-snapshot" / "arxiv-metadata-oai-snapshot.first200.json"
)


def _need(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"{path} not here (../shared/data)")
    return path


def _records(items: Any) -> list[SourceRecord]:
    return [r for r in items if isinstance(r, SourceRecord)]


def _citation(paper_id: str) -> dict[str, Any]:
    """One citing paper object of the Turing paper's response, as S2 sent it."""
    doc = json.loads(_need(TURING).read_text(encoding="utf-8"))
    return next(c for c in doc["citations"] if c["paperId"] == paper_id)


def test_s2_paper_has_its_journal_type_volume_and_pages() -> None:
    """Turing's paper: ``publicationTypes: ["JournalArticle", "Review"]``, ``journal: {"name":
    "Mind", "volume": "LIX", "pages": "433-460"}``: the record had no type, volume or pages."""
    (turing,) = _records(read_s2(_need(TURING)))
    assert turing.biblio == {"type": "article-journal", "volume": "LIX", "pages": "433-460"}


def test_s2_pubmed_volume_and_issue_in_one_are_split() -> None:
    """S2 gives a PubMed journal's volume and issue as one (``"92 5"``) and its pages wrapped
    in white space."""
    rec = paper_record(_citation("47c0598171f7d6c063035b318da9a88d8836da4a"), "item 1")
    assert rec is not None and rec.venue == "Annals of Plastic Surgery"
    assert rec.biblio == {
        "type": "article-journal",
        "volume": "92",
        "issue": "5",
        "pages": "487-488",
    }


def test_s2_arxiv_preprint_and_conference_paper_take_no_corr_volume() -> None:
    """DBLP's CoRR entry S2 gives an arXiv paper (``journal: {"name": "ArXiv", "volume":
    "abs/2404.13957"}``) is no volume: the paper on arXiv.org is a preprint; the one of a
    conference (``publicationVenue.type: conference``, ``publicationTypes: ["JournalArticle"]``)
    is a conference paper."""
    preprint = paper_record(_citation("ceb800a2bed2362df511158096e347fc45172b4d"), "item 1")
    assert preprint is not None and preprint.venue == "arXiv.org"
    assert preprint.biblio == {"type": "article"}
    talk = paper_record(_citation("c4ef333deeeee9cc8cbf16a9e76bc4a60a43ae03"), "item 2")
    assert talk is not None and talk.venue == "IEEE Games Entertainment Media Conference"
    assert talk.biblio == {"type": "paper-conference"}


def test_s2_author_papers_types_and_untyped_journal_pages() -> None:
    papers = _records(read_s2(_need(S2 / "author_full-fields_with-papers.json")))
    by_title = {r.title: r.biblio for r in papers}
    assert by_title["The p-Function in λ-K-Conversion"] == {
        "type": "article-journal",
        "volume": "2",
        "pages": "164",
    }
    typed = [b for b in by_title.values() if b.get("type")]
    assert len(typed) == 19 and all(b["type"] == "article-journal" for b in typed)


def test_arxiv_atom_journal_ref_gives_container_volume_pages() -> None:
    """``arxiv:journal_ref`` was the venue as one string (``Phys. Rev. B 74, 024520
    (2006)``) and the record had no type; an entry without one is a preprint."""
    entries = {r.ids["arxiv"]: r for r in _records(read_atom(_need(ATOM)))}
    prb = entries["cond-mat/0603029"]
    assert prb.venue == "Phys. Rev. B"
    assert prb.biblio == {"type": "article-journal", "volume": "74", "pages": "024520"}
    assert entries["1201.4869"].venue == "Int. J. Mod. Phys. B"
    preprints = _records(read_atom(_need(ATOM.with_name(CS_RO))))
    assert len(preprints) == 2 and all(r.venue == "arXiv" for r in preprints)
    assert all(r.biblio == {"type": "article"} for r in preprints)


def test_arxiv_oai_journal_refs_in_three_shapes() -> None:
    """arXivRaw's ``journal-ref`` in INSPIRE's compact form (an erratum after ``;``), the
    mathematics style, and a free-text one that is kept as written."""
    records = {r.ids["arxiv"]: r for r in _records(read_oai(_need(OAI)))}
    assert (records["0704.0471"].venue, records["0704.0471"].biblio) == (
        "Phys.Rev.C",
        {"type": "article-journal", "volume": "76", "pages": "024606"},
    )
    assert (records["0704.0874"].venue, records["0704.0874"].biblio) == (
        "J. London Math. Soc.",
        {"type": "article-journal", "volume": "78", "pages": "418-440"},
    )
    assert records["0704.1114"].biblio["pages"] == "L191-L194"
    lecture = records["0704.0716"]
    assert lecture.venue.startswith("Polygons, polyominoes and polycubes, 247-299")
    assert lecture.biblio == {"type": "article"}


def test_arxiv_snapshot_journal_refs_are_read_where_their_shape_is_known() -> None:
    """Of the 200 real 2007 lines, those with a ``journal-ref`` (all typed now), most of them
    with a volume; each volume read is a number the ref holds."""
    records = _records(read_snapshot(_need(KAGGLE)))
    lines = [json.loads(line) for line in _need(KAGGLE).read_text(encoding="utf-8").splitlines()]
    refs = {line["id"]: line["journal-ref"] for line in lines if line.get("journal-ref")}
    published = [r for r in records if r.ids["arxiv"] in refs]
    assert len(published) == len(refs) and all(r.biblio.get("type") for r in records)
    with_volume = [r for r in published if r.biblio.get("volume")]
    assert len(with_volume) >= 0.7 * len(published)
    for r in with_volume:
        ref = " ".join(refs[r.ids["arxiv"]].split())
        assert r.biblio["volume"] in ref and r.venue in ref
    notes = next(r for r in records if r.venue.startswith("Lect.NotesPhys"))
    assert notes.biblio["type"] == "chapter"


def test_imported_arxiv_and_s2_records_store_their_details(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [_need(ATOM), _need(TURING)], Kind.PAPER)
        assert report.ok
        ids = [str(i) for (i,) in store._conn.execute("SELECT doc_id FROM paper_biblio")]
        rows = biblio_of(store._conn, ids)
    stored = {(b.type, b.volume, b.pages) for b in rows.values()}
    assert ("article-journal", "74", "024520") in stored
    assert ("article-journal", "LIX", "433-460") in stored


@pytest.mark.parametrize("preprint_first", [True, False])
def test_a_preprint_type_gives_way_to_the_published_version(
    tmp_path: Path, preprint_first: bool
) -> None:
    """An arXiv record is now typed a preprint (``article``): stored first, its type kept
    the journal's version of the same paper (here its BibTeX entry, matched by the arXiv id)
    from typing it, since a merge replaced no stored fact."""
    atom = _need(ATOM.with_name(CS_RO))
    bib = tmp_path / "published.bib"
    bib.write_text(
        "@article{rdd2026,\n  title = {Neural Implicit Flow Fields for Spatio-Temporal Motion"
        " Mapping},\n  journal = {IEEE Robotics and Automation Letters},\n  volume = {11},\n"
        "  pages = {1--8},\n  year = {2026},\n  eprint = {2510.14827},\n"
        "  archiveprefix = {arXiv}\n}\n",
        encoding="utf-8",
    )
    with Store(tmp_path / "s.db") as store:
        for path in [atom, bib] if preprint_first else [bib, atom]:
            assert import_paths(store, [path], Kind.PAPER).ok
        (doc_id,) = [
            str(i)
            for (i,) in store._conn.execute(
                "SELECT doc_id FROM record_ids WHERE scheme = 'arxiv' AND value = '2510.14827'"
            )
        ]
        stored = biblio_of(store._conn, [doc_id])[doc_id]
    assert (stored.type, stored.volume, stored.pages) == ("article-journal", "11", "1-8")
