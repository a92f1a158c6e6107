"""PDF metadata read off page 1 of real PDFs (issue 27, item 2): the title block, not arXiv's
rotated margin stamp; the byline and the metadata's author string as persons; the year from the
arXiv id or the printed venue line, never the file's creation date; and a PDF whose DOI, arXiv
id or title + first author + year is already stored merges into that record, keeping its
stored metadata.

Files: ``tests/data/imports/pdf`` (see its README.md) and ``../shared/data/sources/fulltext/pdf``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import get_paths, shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.pdf import read_pdf
from litsift.sources.formats.pdf_front import printed_year
from litsift.sources.identity.matcher import title_key
from litsift.sources.identity.person_names import metadata_persons, split_persons

DATA = Path(__file__).resolve().parents[2] / "data" / "imports" / "pdf"
SHARED = shared_data_dir() / "sources" / "fulltext" / "pdf"
RAPT = DATA / "arxiv-2202.00535v1_novelty-controlled-paraphrase.pdf"
ACM = DATA / "arxiv-2304.02623v1_beyond-summarization.pdf"
WITTEN = DATA / "arxiv-hep-th-9802150v2_witten-ads-holography.pdf"
WAGNER = DATA / "jit-2022_10.1177-02683962211048201_wagner-ai-literature-reviews.pdf"
MISQ = DATA / "misq-2015_srivastava-shainesh_one-page.pdf"
PASA = DATA / "arxiv-2501.10120v1_pasa-teaser-figure.pdf"


def _read(path: Path) -> SourceRecord:
    (rec,) = list(read_pdf(path))
    assert isinstance(rec, SourceRecord)
    return rec


def _created(path: Path) -> int:
    """The year of the PDF's creation date (what must not become the paper's year)."""
    return int(pymupdf.open(path).metadata["creationDate"][2:6])


def test_the_title_is_the_title_block_not_the_rotated_arxiv_stamp() -> None:
    rapt = _read(RAPT)
    assert rapt.title == (
        "Novelty Controlled Paraphrase Generation with Retrieval Augmented Conditional "
        "Prompt Tuning"
    )
    assert "arXiv" not in rapt.title
    # the metadata's title is the stamp itself: the page's all-caps title block wins
    witten = _read(WITTEN)
    assert pymupdf.open(WITTEN).metadata["title"].startswith("arXiv:hep-th/9802150")
    assert title_key(witten.title) == "anti de sitter space and holography"
    acm = _read(ACM)
    assert acm.title == (
        "Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks"
    )
    # a teaser figure's "Paper Search" (19.9 pt) is larger than the title (14.3 pt)
    pasa = _read(PASA)
    assert pasa.title == "PaSa: An LLM Agent for Comprehensive Academic Paper Search"
    assert pasa.authors[0] == "Yichen He" and pasa.authors[-1] == "Weinan E"
    assert len(pasa.authors) == 7 and pasa.year == 2025


def test_the_byline_is_read_into_persons() -> None:
    # AAAI: superscript markers between names, affiliation and e-mail lines under them
    rapt = _read(RAPT)
    assert rapt.authors == ["Jishnu Ray Chowdhury", "Yong Zhuang", "Shuyi Wang"]
    assert rapt.family_names == ["Chowdhury", "Zhuang", "Wang"]
    # ACM: two rows, markers † □ ⋄ after each name
    assert _read(ACM).authors == [
        "Zejiang Shen",
        "Tal August",
        "Pao Siangliulue",
        "Kyle Lo",
        "Jonathan Bragg",
        "Jeff Hammerbacher",
        "Doug Downey",
        "Joseph Chee Chang",
        "David Sontag",
    ]
    assert _read(WITTEN).authors == ["Edward Witten"]
    # "Family, Given and Family, G." is inverted names
    misq = _read(MISQ)
    assert misq.authors == ["Shirish C. Srivastava", "G. Shainesh"]
    assert misq.family_names == ["Srivastava", "Shainesh"]


def test_metadata_authors_are_split_into_persons() -> None:
    assert pymupdf.open(WAGNER).metadata["author"] == "Gerit Wagner, Roman Lukyanenko, and Guy Paré"
    rec = _read(WAGNER)
    assert rec.authors == ["Gerit Wagner", "Roman Lukyanenko", "Guy Paré"]
    assert rec.family_names == ["Wagner", "Lukyanenko", "Paré"]


@pytest.mark.parametrize(
    ("prefix", "first", "last", "count"),
    [
        ("acl-N18-3011", "Waleed Ammar", "Oren Etzioni", 23),
        ("acl-2023.acl-tutorials.1", "Yang Deng", "Tat-Seng Chua", 4),
        ("acl-2023.eacl-main.121", "Kalpesh Krishna", "Kyle Lo", 7),
        ("biorxiv-2024", "Varandt Khodaverdian", "Mitch McVey", 8),
        ("genomebiol-2023", "Sarah Gersing", "Rasmus Hartmann-Petersen", 15),
        ("jner-2016", "Cristiano De Marchis", "Alireza Gharabaghi", 5),
        ("natcommun-2024", "Zhongyi Lu", "Meng Li", 8),
    ],
)
def test_bylines_of_other_layouts(prefix: str, first: str, last: str, count: int) -> None:
    rec = _read(next(SHARED.glob(f"{prefix}*.pdf")))
    assert (rec.authors[0], rec.authors[-1], len(rec.authors)) == (first, last, count)
    assert not any("@" in a or "University" in a or "Institute" in a for a in rec.authors)
    if prefix == "acl-N18-3011":
        assert "Madeleine van Zuylen" in rec.authors
    if prefix == "biorxiv-2024":  # "Connor" / "Clairmont" broken over two lines
        assert "Connor Clairmont" in rec.authors
    if prefix == "jner-2016":
        assert rec.family_names[0] == "De Marchis"


def test_the_year_comes_from_the_paper_not_the_file() -> None:
    witten = _read(WITTEN)  # arXiv id hep-th/9802150; the file was made in 2008
    assert witten.ids["arxiv"] == "hep-th/9802150"
    assert (witten.year, _created(WITTEN)) == (1998, 2008)
    rapt = _read(RAPT)  # arXiv id 2202.00535
    assert (rapt.ids["arxiv"], rapt.year) == ("2202.00535", 2022)
    misq = _read(MISQ)  # one page: "MIS Quarterly 2015, 39(1), 245--267"; made in 2023
    assert (misq.year, _created(MISQ)) == (2015, 2023)
    wagner = _read(WAGNER)  # "2022, Vol. 37(2)", not "© ... 2021"
    assert wagner.year == 2022


@pytest.mark.parametrize(
    ("prefix", "year"),
    [
        ("acl-N18-3011", 2018),  # "Proceedings of NAACL-HLT 2018"
        ("acl-2020.acl-main.207", 2020),  # "... July 5 - 10, 2020" on the next line
        ("acl-2020.acl-main.447", 2020),
        ("acl-2023.eacl-main.121", 2023),
        ("biorxiv-2024", 2024),  # "this version posted February 13, 2024"
        ("genomebiol-2023", 2023),  # "Genome Biology (2023) 24:97"
        ("jner-2016", 2016),
        ("natcommun-2024", 2024),  # "Accepted: 3 January 2024"
    ],
)
def test_printed_years_of_other_layouts(prefix: str, year: int) -> None:
    assert _read(next(SHARED.glob(f"{prefix}*.pdf"))).year == year


def _ingest(home: Path, path: Path) -> dict[str, Any]:
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(path), "--json"])
    assert out.exit_code == 0, out.output
    report: dict[str, Any] = json.loads(out.output)
    return report


def _rows(home: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(get_paths(home).store_file)
    try:
        return list(conn.execute("SELECT id, title, authors, year FROM papers ORDER BY id"))
    finally:
        conn.close()


def _extras(home: Path, doc_id: str) -> tuple[list[str], int]:
    conn = sqlite3.connect(get_paths(home).store_file)
    try:
        files = [
            r[0] for r in conn.execute("SELECT path FROM attachments WHERE doc_id = ?", (doc_id,))
        ]
        passages = conn.execute("SELECT COUNT(*) FROM passages WHERE doc_id = ?", (doc_id,))
        return files, int(passages.fetchone()[0])
    finally:
        conn.close()


def test_a_pdf_whose_old_style_arxiv_id_is_stored_merges_into_that_record(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _ingest(home, DATA / "inspire_witten-atlas-refs.bib")["added"] == 4
    before = _rows(home)
    report = _ingest(home, WITTEN)
    assert (report["added"], report["merged"]) == (0, 1), report
    assert report["merges"][0]["by"] == "arxiv"
    doc_id = report["merges"][0]["into"]
    after = _rows(home)
    assert after == before  # the stored title, authors and year are kept, nothing added
    stored = next(r for r in after if r[0] == doc_id)
    assert stored[1:] == ("Anti-de Sitter space and holography", '["Edward Witten"]', 1998)
    files, passages = _extras(home, doc_id)
    assert files == [str(WITTEN)] and passages > 10  # what the PDF adds: the file, its text
    again = _ingest(home, WITTEN)
    assert (again["added"], again["merged"], again["unchanged"]) == (0, 0, 1)


def test_a_pdf_whose_doi_is_stored_keeps_the_stored_metadata(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _ingest(home, DATA / "crossref-work_10.1177-02683962211048201.json")["added"] == 1
    ((doc_id, title, authors, year),) = _rows(home)
    report = _ingest(home, WAGNER)
    assert (report["added"], report["merged"], report["merges"][0]["by"]) == (0, 1, "doi")
    assert _rows(home) == [(doc_id, title, authors, year)]
    assert json.loads(authors) == ["Gerit Wagner", "Roman Lukyanenko", "Guy Paré"]
    assert year == 2021  # Crossref's (online first); the PDF's printed 2022 does not replace it
    assert _extras(home, doc_id)[0] == [str(WAGNER)]


def test_a_pdf_without_ids_merges_by_title_first_author_and_printed_year(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _ingest(home, DATA / "colrev_30-example-records.bib")["added"] == 30
    before = _rows(home)
    report = _ingest(home, MISQ)  # the year was the file's 2023: no match, a duplicate
    assert (report["added"], report["merged"], report["merges"][0]["by"]) == (0, 1, "title")
    assert _rows(home) == before
    doc_id = report["merges"][0]["into"]
    stored = next(r for r in before if r[0] == doc_id)
    assert stored[1].startswith("Bridging the service divide") and stored[3] == 2015


#: author text as real PDFs write it (Future-House/paper-qa@c1f30bedf923:reproduction/litqa_pdfs/,
#: too large to keep here): metadata or a byline row as read off page 1 (superscripts -> ",")
@pytest.mark.parametrize(
    ("source", "text", "persons"),
    [
        (  # Nucleic Acids Research (OUP) metadata: family name first, diacritics dropped
            "10.1093/nar/gkae069 metadata",
            "Espinoza Jaime A., Kanellis Dimitris C., Saproo Sheetanshu, Leal Karla, "
            "Martinez JohanaFernandez, Bartek Jiri, Lindstrm MikaelS.",
            [("Jaime A. Espinoza", "Espinoza"), ("Dimitris C. Kanellis", "Kanellis")],
        ),
        (  # CoLRev's SAGE PDF: Oxford comma
            "10.1177/02683962211048201 metadata",
            "Gerit Wagner, Roman Lukyanenko, and Guy Paré",
            [("Gerit Wagner", "Wagner"), ("Roman Lukyanenko", "Lukyanenko")],
        ),
        (  # bioRxiv metadata: one inverted name
            "10.1101/2024.02.13.580051 metadata",
            "McVey, Mitch",
            [("Mitch McVey", "McVey")],
        ),
    ],
)
def test_metadata_author_fields(source: str, text: str, persons: list[tuple[str, str]]) -> None:
    got = metadata_persons(text)
    assert got[: len(persons)] == persons, source
    assert all(" " in name for name, _ in got)


@pytest.mark.parametrize(
    ("source", "text", "names"),
    [
        (  # Diabetologia (Springer): names separated by "·"
            "10.1007/s00125-024-06103-w",
            "Natascia Vedovato, · Maria V. Salguero, · Siri Atma W. Greeley, · Christine H. Yu, "
            "· Louis H. Philipson, ·",
            [
                "Natascia Vedovato",
                "Maria V. Salguero",
                "Siri Atma W. Greeley",
                "Christine H. Yu",
                "Louis H. Philipson",
            ],
        ),
        (  # bioRxiv: degrees after names
            "10.1101/2024.05.01.592108",
            "Masaya Misaki Ph.D., , Kymberly D. Young Ph.D., , Aki Tsuchiyagaito Ph.D., , "
            "Jonathan Savitz",
            ["Masaya Misaki", "Kymberly D. Young", "Aki Tsuchiyagaito", "Jonathan Savitz"],
        ),
        (  # Cell Reports: TeX's detached acute after its vowel
            "10.1016/j.celrep.2021.109967",
            "M. Andre\u00b4s Blanco, David B. Sykes,",
            ["M. Andrés Blanco", "David B. Sykes"],
        ),
        (  # Chemical Science (RSC) page furniture, CoLRev/ACL affiliation rows: no persons
            "10.1039/D1SC05088E",
            "Edge Article, View Article Online, Allen Institute for Artificial Intelligence, "
            "Seattle WA 98103, USA, Northwestern University, Evanston IL 60208, USA",
            [],
        ),
    ],
)
def test_byline_rows(source: str, text: str, names: list[str]) -> None:
    assert [name for name, _ in split_persons(text)] == names, source


@pytest.mark.parametrize(
    ("source", "line", "year"),
    [  # citation lines printed on page 1 of journal PDFs (paper-qa's litqa set, see above)
        ("10.1126/science.aaw1219", "Rodriques et al., Science 363, 1463–1467 (2019)", 2019),
        ("10.1016/j.celrep.2021.109967", "Blanco et al., 2021, Cell Reports 37, 109967", 2021),
        ("10.1016/j.cub.2024.02.062", "Clemons et al., 2024, Current Biology 34, 1469–1478", 2024),
        (
            "10.1186/s12984-016-0129-6",
            "Journal of NeuroEngineering and Rehabilitation (2016) 13:22",
            2016,
        ),
        (
            "PDF subject of 10.1177/02683962211048201",
            "Journal of Information Technology 2022.37:209-226",
            2022,
        ),
        ("a sentence is no citation line", "In 2019, we showed that BERT helps", None),
    ],
)
def test_citation_lines_give_the_year(source: str, line: str, year: int | None) -> None:
    assert printed_year([], 792.0, line) == year, source
