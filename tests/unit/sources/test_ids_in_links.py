"""Identifiers read out of real export links.

Scopus writes each record's link with its DOI as one query parameter among others
(``record.uri?eid=2-s2.0-…&doi=10.1177%2F2055…&partnerID=40&md5=…``); the DOI was read to the
end of the link (``10.1177/2055…&partnerid=40&md5=71ae…``) and stored among the paper's ids.

Data: ``tests/data/imports/csv-openalex/bibliometrix_scopus-2026-export_sample.csv`` (a
Scopus CSV export from the bibliometrix project; see that folder's README).
"""

from __future__ import annotations

import csv
from pathlib import Path

from litsift.sources.identity.ids import ids_in_text, normalize_doi

SCOPUS_CSV = (
    Path(__file__).resolve().parents[2]
    / "data" / "imports" / "csv-openalex" / "bibliometrix_scopus-2026-export_sample.csv"
)  # fmt: skip


def test_the_doi_of_a_scopus_link_is_its_doi_column() -> None:
    with SCOPUS_CSV.open(encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["DOI"] and "doi=" in r["Link"]]
    assert len(rows) >= 5
    for row in rows:
        found = ids_in_text(row["Link"])
        assert found["doi"] == normalize_doi(row["DOI"]), row["Link"]
        assert found["scopus"] == row.get("EID", found["scopus"])


def test_a_doi_with_query_like_text_outside_a_link_is_kept_whole() -> None:
    """Only a link's query parameters end a DOI at ``&``: a DOI written as text stays whole,
    and a publisher's page link still loses its page's name."""
    assert ids_in_text("doi:10.1000/a&b")["doi"] == "10.1000/a&b"
    page = "https://onlinelibrary.wiley.com/doi/full/10.1002/jcc.20289"
    assert ids_in_text(page)["doi"] == "10.1002/jcc.20289"
    assert ids_in_text(f"{page}?af=R&x=1")["doi"] == "10.1002/jcc.20289"


def test_an_apa_doi_with_a_double_slash_is_the_same_article(tmp_path: Path) -> None:
    """A real Zotero CSL-JSON export of a psychology thesis holds one article twice: from
    PubMed as 10.1037//0022-3514.75.5.1231 and from PsycNET as 10.1037/0022-3514.75.5.1231
    (same journal, volume, pages, authors and year). The two DOIs stayed apart, so the review
    counted it twice and dedup missed it. They are one DOI, so one paper."""
    from litsift.paths import get_paths, shared_data_dir
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    csl = (
        shared_data_dir()
        / "sources"
        / "reference-managers"
        / "csl-json"
        / "thesis-psychology_zotero-csl-json-export.json"
    )
    assert normalize_doi("10.1037//0022-3514.75.5.1231") == "10.1037/0022-3514.75.5.1231"
    assert normalize_doi("https://doi.org/10.1037//0033-295X.109.2.330") == (
        "10.1037/0033-295x.109.2.330"
    )
    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        svc.sources.import_paths(Kind.PAPER, [csl])
        rows = svc.store._conn.execute(
            "SELECT id FROM papers WHERE lower(title) = 'teasing in hierarchical and intimate "
            "relations'"
        ).fetchall()
    assert len(rows) == 1, rows
