"""EndNote XML and PubMed XML exports are detected and imported (before, litsift read neither:
"not a format litsift reads"). Real files written by others (tests/data/imports/endnote-xml and
pubmed-xml, origins in their README.md) are imported into a real store; every expected value
below was read by hand in the file named."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.importer import import_paths
from litsift.store.biblio import Biblio, biblio_of
from litsift.store.repo import Store
from litsift.store.triage import Triage
from litsift.types import Kind, Paper

IMPORTS = Path(__file__).parents[2] / "data" / "imports"
ENDNOTE = IMPORTS / "endnote-xml"
PUBMED = IMPORTS / "pubmed-xml"
#: file -> (format detected, records)
FILES = {
    ENDNOTE / "jabref_endnote15_3-records.xml": ("endnote-xml", 3),
    ENDNOTE / "jabref_bookends_pdf-urls.xml": ("endnote-xml", 1),
    ENDNOTE / "jabref_bookends_empty-keyword-styles.xml": ("endnote-xml", 1),
    ENDNOTE / "jabref_endnote20_report.xml": ("endnote-xml", 1),
    PUBMED / "biopython_pubmed1.xml": ("pubmed-xml", 2),
    PUBMED / "biopython_pubmed4.xml": ("pubmed-xml", 1),
    PUBMED / "biopython_pubmed7.xml": ("pubmed-xml", 1),
    PUBMED / "jabref_pubmed-book.xml": ("pubmed-xml", 1),
    PUBMED / "jabref_medlinedate-keyword.xml": ("pubmed-xml", 1),
}
SOURCES = shared_data_dir() / "sources"
#: other XML formats, still told apart from these two
OTHER_XML = {
    IMPORTS / "zotero-rdf" / "zotero-pmcid-fetcher_exported-items.rdf": "zotero-rdf",
    SOURCES / "fulltext" / "jats" / "PMC7417471.nxml": "jats",
    SOURCES / "fulltext" / "grobid-tei" / "acl-N18-3011.grobid-0.6.1.tei.xml": "grobid-tei",
    SOURCES / "arxiv" / "oai-pmh" / "paperhive_GetRecord_arXiv.xml": "arxiv-oai",
}


def _records(path: Path) -> list[SourceRecord | BadItem]:
    fmt = registry.detect(path)
    assert fmt is not None
    return list(fmt.read(path))


@pytest.mark.parametrize("path", sorted(FILES), ids=lambda p: p.name)
def test_every_record_of_a_real_export_is_detected_and_read(path: Path) -> None:
    fmt_name, count = FILES[path]
    fmt = registry.detect(path)
    assert fmt is not None and fmt.name == fmt_name
    items = list(fmt.read(path))
    assert len(items) == count
    assert all(isinstance(i, SourceRecord) and i.title for i in items)


@pytest.mark.parametrize("path", sorted(OTHER_XML), ids=lambda p: p.name)
def test_other_xml_formats_are_still_told_apart(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path} not here")
    fmt = registry.detect(path)
    assert fmt is not None and fmt.name == OTHER_XML[path]
    for reader in ("endnote-xml", "pubmed-xml"):
        with pytest.raises(IngestError):
            list(registry.get(reader).read(path))


class Stored:
    """The papers of a store, found by one of their identifiers."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.triage = Triage(store)

    def doc_id(self, scheme: str, value: str) -> str:
        row = self.store._conn.execute(
            "SELECT doc_id FROM record_ids WHERE scheme = ? AND value = ?", (scheme, value)
        ).fetchone()
        assert row is not None, f"{scheme}:{value} not stored"
        return str(row[0])

    def by_title(self, start: str) -> str:
        rows = self.store._conn.execute(
            "SELECT id FROM papers WHERE title LIKE ?", (start + "%",)
        ).fetchall()
        assert len(rows) == 1, rows
        return str(rows[0][0])

    def paper(self, doc_id: str) -> Paper:
        paper = self.store.get(Kind.PAPER, doc_id)
        assert isinstance(paper, Paper)
        return paper

    def ids(self, doc_id: str) -> dict[str, str]:
        rows = self.store._conn.execute(
            "SELECT scheme, value FROM record_ids WHERE doc_id = ?", (doc_id,)
        ).fetchall()
        return {str(s): str(v) for s, v in rows}

    def biblio(self, doc_id: str) -> Biblio:
        return biblio_of(self.store._conn, [doc_id])[doc_id]

    def tags(self, doc_id: str) -> list[str]:
        note = self.triage.note(Kind.PAPER, doc_id)
        return [t.lower() for t in note.tags] if note else []

    def note(self, doc_id: str) -> str:
        note = self.triage.note(Kind.PAPER, doc_id)
        return note.text if note else ""


@pytest.fixture(scope="module")
def pubmed(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    store = Store(tmp_path_factory.mktemp("pubmed") / "s.sqlite")
    report = import_paths(store, sorted(PUBMED.glob("*.xml")))
    assert report.ok and (report.read, report.added) == (6, 6), report
    return Stored(store)


@pytest.fixture(scope="module")
def endnote(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    store = Store(tmp_path_factory.mktemp("endnote") / "s.sqlite")
    report = import_paths(store, sorted(ENDNOTE.glob("*.xml")))
    assert report.ok and (report.read, report.added) == (6, 6), report
    return Stored(store)


def test_pubmed_structured_abstract_markup_ids_mesh_and_biblio(pubmed: Stored) -> None:
    """biopython_pubmed4.xml: PMID 27797938 (Gut 66(6):1116-1122)."""
    doc = pubmed.doc_id("pmid", "27797938")
    paper = pubmed.paper(doc)
    # ArticleTitle holds "<i>TERT</i>": the text stays, the markup goes
    assert paper.title == (
        "Leucocyte telomere length, genetic variants at the TERT gene region and risk of "
        "pancreatic cancer."
    )
    assert paper.authors[:2] == ("Ying Bao", "Jennifer Prescott")
    assert paper.authors[-1] == "Brian M Wolpin" and len(paper.authors) == 22
    assert (paper.year, paper.venue) == (2017, "Gut")
    assert pubmed.ids(doc) == {
        "pmid": "27797938",
        "doi": "10.1136/gutjnl-2016-312510",
        "pmcid": "PMC5442267",
    }
    # the four sections of the structured abstract, each with its label, in order
    assert paper.abstract.startswith("OBJECTIVE: Telomere shortening occurs as an early event")
    sections = [paper.abstract.index(f"{s}: ") for s in ("DESIGN", "RESULTS", "CONCLUSIONS")]
    assert sections == sorted(sections) and "<" not in paper.abstract.replace("r2<0.25", "")
    assert paper.abstract.endswith("were associated with risk of pancreatic cancer.")
    assert {"adenocarcinoma", "aged, 80 and over", "telomere shortening"} <= set(pubmed.tags(doc))
    bib = pubmed.biblio(doc)
    assert (bib.type, bib.volume, bib.issue, bib.pages) == (
        "article-journal",
        "66",
        "6",
        "1116-1122",
    )
    assert ("Morales-Oyarvide", "Vicente") in bib.names
    assert ("De Vivo", "Immaculata") in bib.names  # a family name of two words stays whole


def test_pubmed_collective_authors_keywords_dates_and_books(pubmed: Stored) -> None:
    seven = pubmed.paper(pubmed.doc_id("pmid", "29963580"))  # biopython_pubmed7.xml
    assert seven.authors[0] == "Fumin Guo"
    assert seven.authors[-1] == "Canadian Respiratory Research Network"  # CollectiveName
    assert pubmed.ids(seven.id)["doi"] == "10.1117/1.jmi.5.2.026002"
    assert pubmed.biblio(seven.id).pages == "026002"
    assert "thoracic computed tomography" in pubmed.tags(seven.id)  # KeywordList
    one = pubmed.doc_id("pmid", "12091962")  # biopython_pubmed1.xml, record 1: Season, KIE
    paper = pubmed.paper(one)
    assert paper.title == "The treatment of AIDS behind the walls of correctional facilities."
    assert (paper.authors, paper.year) == (("J Michael Olivero",), 1990)
    assert paper.venue == "Social justice (San Francisco, Calif.)"
    assert {"prisoners", "public policy", "legal approach"} <= set(pubmed.tags(one))
    assert (pubmed.biblio(one).volume, pubmed.biblio(one).pages) == ("17", "113-25")
    two = pubmed.doc_id("pmid", "9997")  # record 2: its DOI only in PubmedData/ArticleIdList
    assert pubmed.ids(two)["doi"] == "10.1016/0005-2795(76)90109-4"
    dated = pubmed.paper(pubmed.by_title("Formate assay in body fluids"))  # MedlineDate
    assert (dated.year, dated.venue) == (1999, "Biochemical medicine")
    assert pubmed.biblio(dated.id).pages == "25-138"  # StartPage / EndPage
    book = pubmed.doc_id("pmid", "21413195")  # jabref_pubmed-book.xml
    paper = pubmed.paper(book)
    assert paper.title.startswith("Rheumatoid Arthritis: National Clinical Guideline")
    assert paper.authors == (
        "National Collaborating Centre for Chronic Conditions (UK)",
        "Darlisha A Williams",
    )
    assert paper.year == 2009
    bib = pubmed.biblio(book)
    assert (bib.type, bib.publisher) == ("book", "Royal College of Physicians (UK)")


def test_endnote_styles_authors_ids_keywords_and_biblio(endnote: Stored) -> None:
    """jabref_bookends_pdf-urls.xml (Br J Cancer 112(5):943-7) and the EndNote 15 file."""
    doc = endnote.doc_id("doi", "10.1038/bjc.2014.606")
    paper = endnote.paper(doc)
    assert paper.title == (
        "Trends in the lifetime risk of developing cancer in Great Britain: comparison of risk "
        "for those born from 1930 to 1960"
    )
    assert paper.authors == ("AS Ahmad", "N Ormiston-Smith", "PD Sasieni")
    assert (paper.year, paper.venue, paper.abstract) == (2015, "Br J Cancer", "test abstract")
    # accession-num 25647015 is the PubMed id: its related URL is that PubMed page
    assert endnote.ids(doc) == {"doi": "10.1038/bjc.2014.606", "pmid": "25647015"}
    tags = endnote.tags(doc)
    assert {"neoplasms", "great britain", "aged, 80 and over"} <= set(tags)
    assert not any("/" in t or "*" in t for t in tags)  # "Neoplasms/*epidemiology"
    bib = endnote.biblio(doc)
    assert (bib.type, bib.volume, bib.issue, bib.pages) == ("article-journal", "112", "5", "943-7")
    assert ("Ormiston-Smith", "N") in bib.names
    assert "some notes" in endnote.note(doc)
    pdfs = endnote.store._conn.execute(
        "SELECT path FROM attachments WHERE doc_id = ?", (doc,)
    ).fetchall()
    assert pdfs == [("/Users/user/Documents/Bookends/Attachments/Ahmad et al 2015.pdf",)]
    # a title in three <style> runs (roman, italic, roman) is one title
    skua = endnote.paper(endnote.by_title("A demographic study of the south polar skua"))
    assert skua.title == (
        "A demographic study of the south polar skua Catharacta maccormicki at Cape Crozier"
    )
    assert skua.authors == ("D.G. Ainley", "C.A. Ribic", "R.C. Wodd")
    assert (skua.year, skua.venue) == (1990, "Journal of Animal Ecology")
    assert (endnote.biblio(skua.id).volume, endnote.biblio(skua.id).pages) == ("59", "1-20")
    assert "Label: B4" in endnote.note(skua.id)
    soil = endnote.paper(endnote.by_title("A survey of soil temperatures in the Chicago area"))
    assert endnote.biblio(soil.id).type == "book"  # ref-type name="Book"
    assert endnote.ids(soil.id) == {}  # accession-num ISI:000200148800007 is no PubMed id


def test_endnote_empty_styles_split_keywords_and_reports(endnote: Stored) -> None:
    doc = endnote.doc_id("doi", "10.1089/acu.2018.1295")  # empty-keyword-styles
    assert endnote.paper(doc).title == "Painless Laser Acupuncture for Smoking Cessation."
    assert endnote.ids(doc)["pmid"] == "29937971"
    assert endnote.tags(doc) == [
        "anxiety",
        "craving",
        "dependency",
        "destress",
        "health restoration",
    ]
    report = endnote.paper(endnote.by_title("Purple Martin (Progne subis)"))
    assert (report.authors, report.year) == (("D. A. Wiggins",), 2005)
    bib = endnote.biblio(report.id)
    assert (bib.type, bib.publisher) == ("report", "USDA Forest Service, Rocky Mountain Region")


def _cut(text: str, marker: str, tmp: Path, name: str) -> Path:
    """``text`` cut in the middle of the element that ``marker`` opens."""
    at = text.index(marker) + len(marker) // 2
    path = tmp / name
    path.write_text(text[:at], encoding="utf-8")
    return path


def test_a_cut_file_keeps_its_complete_records_and_reports_the_cut_one(tmp_path: Path) -> None:
    text = (PUBMED / "biopython_pubmed1.xml").read_text(encoding="utf-8")
    cut = _cut(text, "<ArticleTitle>Magnetic studies", tmp_path, "cut-pubmed.xml")
    items = _records(cut)
    assert [type(i) for i in items] == [SourceRecord, BadItem]
    assert isinstance(items[0], SourceRecord) and items[0].ids["pmid"] == "12091962"
    assert isinstance(items[1], BadItem) and items[1].location == "record 2"
    assert "cut short" in items[1].reason
    text = (ENDNOTE / "jabref_endnote15_3-records.xml").read_text(encoding="utf-8")
    cut = _cut(text, "<rec-number>650</rec-number>", tmp_path, "cut-endnote.xml")
    with Store(tmp_path / "s.sqlite") as store:
        report = import_paths(store, [cut])
    assert not report.ok and report.added == 2
    (problem,) = report.bad
    assert str(problem).startswith(f"{cut}:record 3: ") and "cut short" in problem.reason


def test_a_broken_record_in_the_middle_costs_only_that_record(tmp_path: Path) -> None:
    """A bare ``&`` (an export tool that did not escape it) in record 2 of 3: the XML parser
    stops there; the records around it are kept."""
    text = (ENDNOTE / "jabref_endnote15_3-records.xml").read_text(encoding="utf-8")
    broken = tmp_path / "broken.xml"
    broken.write_text(text.replace("soil temperatures in", "soil temperatures & in"), "utf-8")
    items = _records(broken)
    assert [type(i) for i in items] == [SourceRecord, BadItem, SourceRecord]
    assert isinstance(items[1], BadItem) and items[1].location == "record 2"
    assert "not well-formed" in items[1].reason
    assert isinstance(items[2], SourceRecord) and items[2].title.startswith("A demographic")
    text = (PUBMED / "biopython_pubmed1.xml").read_text(encoding="utf-8")
    broken.write_text(text.replace("</ArticleTitle>", "</ArticleTitl>", 1), "utf-8")
    items = list(registry.get("pubmed-xml").read(broken))
    assert [type(i) for i in items] == [BadItem, SourceRecord]
    assert isinstance(items[0], BadItem) and items[0].location == "record 1"


def test_files_that_are_not_these_formats_say_so(tmp_path: Path) -> None:
    plain = tmp_path / "notes.xml"
    plain.write_text("these are not records\n", encoding="utf-8")
    empty = tmp_path / "empty.xml"
    empty.write_text('<?xml version="1.0" ?>\n<PubmedArticleSet>\n</PubmedArticleSet>\n', "utf-8")
    assert registry.detect(plain) is None
    for path in (plain, empty):
        for name in ("endnote-xml", "pubmed-xml"):
            with pytest.raises(IngestError):
                list(registry.get(name).read(path))


def test_review_new_from_endnote_and_pubmed_xml(tmp_path: Path) -> None:
    """A reviewer's main use: ``litsift review new NAME --from FILE.xml``."""
    home = str(tmp_path / "home")
    runner = CliRunner()
    for name, folder, count in (("en", ENDNOTE, 6), ("pm", PUBMED, 6)):
        args = ["--home", home, "review", "new", name, "--json"]
        for path in sorted(folder.glob("*.xml")):
            args += ["--from", str(path)]
        done = runner.invoke(main, args)
        assert done.exit_code == 0, done.output
        assert json.loads(done.stdout)["prisma"]["identified"] == count
        listed = runner.invoke(main, ["--home", home, "review", "list"])
        assert f"{name}: 0 of {count} screened" in listed.stdout


def test_a_cut_gzip_file_keeps_the_records_before_the_cut(tmp_path: Path) -> None:
    """A ``.xml.gz`` download cut short: before, the reader would have raised EOFError out of
    the gzip stream; now the records read are kept and the cut is reported at its record."""
    text = (PUBMED / "biopython_pubmed4.xml").read_text(encoding="utf-8")
    head, rest = text.split("<PubmedArticleSet>")
    article = rest.split("</PubmedArticleSet>")[0]
    data = gzip.compress(f"{head}<PubmedArticleSet>{article * 40}</PubmedArticleSet>".encode())
    cut = tmp_path / "pubmed.xml.gz"
    cut.write_bytes(data[: len(data) // 2])
    fmt = registry.detect(cut)
    assert fmt is not None and fmt.name == "pubmed-xml"
    items = list(fmt.read(cut))
    good = [i for i in items if isinstance(i, SourceRecord)]
    assert 0 < len(good) < 40 and all(r.ids["pmid"] == "27797938" for r in good)
    assert isinstance(items[-1], BadItem) and items[-1].location == f"record {len(good) + 1}"
    assert "gzip" in items[-1].reason


def test_internal_pdfs_and_research_notes(tmp_path: Path) -> None:
    """What EndNote itself writes for a stored PDF and a research note, added to record 1 of
    a copy of the EndNote 15 file (its library is ``EndNote Ecology.enl``): the PDF lies in
    the library's ``EndNote Ecology.Data/PDF`` folder, next to the export."""
    text = (ENDNOTE / "jabref_endnote15_3-records.xml").read_text(encoding="utf-8")
    text = text.replace(
        "                </related-urls>\n",
        '                </related-urls>\n<pdf-urls><url><style face="normal" font="default"'
        ' size="100%">internal-pdf://0815332210/Chapman%201937.pdf</style></url></pdf-urls>\n',
        1,
    )
    text = text.replace(
        "            </notes>\n",
        '            </notes>\n<research-notes><style face="normal" font="default" '
        'size="100%">Include: </style><style face="bold" font="default" size="100%">'
        "reforestation</style></research-notes>\n",
        1,
    )
    edited = tmp_path / "export" / "My export.xml"
    edited.parent.mkdir()
    edited.write_text(text, encoding="utf-8")
    first = _records(edited)[0]
    assert isinstance(first, SourceRecord)
    assert first.attachments == [
        edited.parent / "EndNote Ecology.Data" / "PDF" / "0815332210" / "Chapman 1937.pdf"
    ]
    assert first.notes == ["some notes", "Research notes: Include: reforestation"]
