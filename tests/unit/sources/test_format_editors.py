"""Every format that names a record's editors gives them as editors, never as authors, and the
authors stay as they were (before, EndNote XML, refer, Zotero RDF, MEDLINE, PubMed XML, Web of
Science, Crossref and JATS dropped the editors, and EndNote XML and refer read an edited
book's editors as its authors).

Each record below is real where a real one was found (named at the record) and otherwise
written as the format's specification or writer has it (named too); no export in
../shared/data or tests/data/imports holds editors but the Web of Science and Crossref files
read here.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats.crossref import read_crossref
from litsift.sources.formats.endnote_xml import read_endnote_xml
from litsift.sources.formats.fulltext import read_jats
from litsift.sources.formats.medline import read_medline
from litsift.sources.formats.pubmed_xml import read_pubmed_xml
from litsift.sources.formats.refer import read_refer
from litsift.sources.formats.ris import read_wos
from litsift.sources.formats.wos_tabular import read_wos_table
from litsift.sources.formats.zotero_rdf import read_zotero_rdf
from litsift.sources.identity.matcher import work_key
from litsift.sources.importer import import_paths
from litsift.store.biblio import biblio_of
from litsift.store.repo import Store
from litsift.types import Kind, Paper


def _records(items: object) -> list[SourceRecord]:
    return [r for r in items if isinstance(r, SourceRecord)]  # type: ignore[attr-defined]


#: the Book Section and the Journal Article: records of a real EndNote export (the first test
#: of zotero/translators "Endnote XML.js", input of database ``endnote.enl``); the Book (its
#: editors are its tertiary authors, its series editor its secondary author) and the Edited
#: Book (its "Author" field is EndNote's "Editor") as EndNote's reference type table names
#: the fields, which Zotero's EndNote XML translator follows (``tertiary-authors``: ``editor``
#: of a ``book``; ``secondary-authors``: ``editor`` of a ``bookSection``)
ENDNOTE_XML = """<?xml version="1.0" encoding="UTF-8"?>
<xml>
  <records>
    <record>
      <database name="endnote.enl" path="endnote.enl">endnote.enl</database>
      <ref-type name="Book Section">7</ref-type>
      <contributors>
        <authors>
          <author>Mares, Isabela</author>
        </authors>
        <secondary-authors>
          <author>Hall, Peter A</author>
          <author>Soskice, David</author>
        </secondary-authors>
      </contributors>
      <titles>
        <title>Firms and the welfare state: When, why, and how does social policy matter to employers?</title>
        <secondary-title>Varieties of capitalism. The institutional foundations of comparative advantage</secondary-title>
      </titles>
      <periodical>
        <full-title>Varieties of capitalism. The institutional foundations of comparative advantage</full-title>
      </periodical>
      <pages>184-213</pages>
      <keywords/>
      <dates>
        <year>2001</year>
      </dates>
      <pub-location>New York</pub-location>
      <publisher>Oxford University Press</publisher>
      <urls/>
    </record>
    <record>
      <database name="endnote.enl" path="endnote.enl">endnote.enl</database>
      <ref-type name="Journal Article">0</ref-type>
      <contributors>
        <authors>
          <author>Foderaro, Lisa W</author>
        </authors>
      </contributors>
      <titles>
        <title>Rooftop greenhouse will boost city farming</title>
        <secondary-title>New York Times</secondary-title>
      </titles>
      <dates>
        <year>2012</year>
      </dates>
    </record>
    <record>
      <ref-type name="Book">6</ref-type>
      <contributors>
        <secondary-authors>
          <author>Higgins, E. Tory</author>
        </secondary-authors>
        <tertiary-authors>
          <author>Guinote, Ana</author>
          <author>Vescio, Theresa K.</author>
        </tertiary-authors>
      </contributors>
      <titles>
        <title>The Social Psychology of Power</title>
      </titles>
      <dates>
        <year>2010</year>
      </dates>
    </record>
    <record>
      <ref-type name="Edited Book">28</ref-type>
      <contributors>
        <authors>
          <author>Hornborg, Alf</author>
          <author>Clark, Brett</author>
        </authors>
      </contributors>
      <titles>
        <title>Ecology and Power</title>
      </titles>
      <dates>
        <year>2012</year>
      </dates>
    </record>
  </records>
</xml>
"""  # noqa: E501 (the export's lines as written)


def test_endnote_xml_editors_by_reference_type(tmp_path: Path) -> None:
    path = tmp_path / "endnote.xml"
    path.write_text(ENDNOTE_XML, "utf-8")
    chapter, article, book, edited = _records(read_endnote_xml(path))
    assert (chapter.authors, chapter.editors) == (
        ["Isabela Mares"],
        ["Peter A Hall", "David Soskice"],
    )
    assert chapter.editor_parts == [("Hall", "Peter A"), ("Soskice", "David")]
    assert (article.authors, article.editors) == (["Lisa W Foderaro"], [])
    # the series editor (secondary author of a Book) is no editor of the book
    assert (book.authors, book.editors) == ([], ["Ana Guinote", "Theresa K. Vescio"])
    # an edited book's authors are its editors; its identity stays as when read as authors
    assert (edited.authors, edited.editors) == ([], ["Alf Hornborg", "Brett Clark"])
    assert work_key(edited.title, edited.authors, 2012, edited.family_names) == work_key(
        edited.title, ["Alf Hornborg", "Brett Clark"], 2012
    )


#: a book from the Norwegian National Library's catalogue (the ``%0 Book`` test of
#: zotero/translators "ReferBibIX.js", which reads its ``%E`` as the editor, ``%Y`` as the
#: translator); a chapter and an edited book as EndNote's refer export writes them (``%E`` the
#: editor of the book a section is in; an ``Edited Book``'s ``%A`` its "Editor" field)
REFER = """%0 Book
%R oai:nb.bibsys.no:998320569524702202
%R URN:NBN:no-nb_digibok_2016062048105
%U https://urn.nb.no/URN:NBN:no-nb_digibok_2016062048105
%T Usynlige byer
%A Calvino, Italo
%Y Aardal, Jorunn
%E Stender Clausen, Jørgen
%D 1982
%G Flerspråklig
%G Norsk (Bokmål)
%G Italiensk
%G Dansk
%Z Elektronisk reproduksjon [Norge] Nasjonalbiblioteket Digital 2016-11-03
%I Aschehoug
%C Oslo
%@ 8203107354
%K Italiensk litteratur
%K Idealbyer
%K kjernelitteratur
%P 173 s.

%0 Book Section
%A Cowan, Nelson
%E Miyake, Akira
%E Shah, Priti
%T An Embedded-Processes Model of Working Memory
%B Models of Working Memory
%D 1999

%0 Edited Book
%A Hornborg, Alf
%A Clark, Brett
%T Ecology and Power
%D 2012
"""


def test_refer_editors(tmp_path: Path) -> None:
    path = tmp_path / "records.enw"
    path.write_text(REFER, "utf-8")
    book, chapter, edited = _records(read_refer(path))
    # the translator (%Y) is neither an author nor an editor
    assert (book.authors, book.editors) == (["Italo Calvino"], ["Jørgen Stender Clausen"])
    assert book.editor_parts == [("Stender Clausen", "Jørgen")]
    assert (chapter.authors, chapter.editors) == (["Nelson Cowan"], ["Akira Miyake", "Priti Shah"])
    assert (edited.authors, edited.editors) == ([], ["Alf Hornborg", "Brett Clark"])
    assert edited.family_names == ["Hornborg", "Clark"]  # its identity, as before


#: a book section and an edited book as Zotero's RDF export writes them (zotero/translators
#: "Zotero RDF.js": ``bib:BookSection`` in a ``bib:Book``; each creator type in its own
#: ``rdf:Seq``, ``bib:authors`` and ``bib:editors`` on the item), names from the RIS records
#: of test_ris_editors.py
ZOTERO_RDF = """<rdf:RDF
 xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
 xmlns:z="http://www.zotero.org/namespaces/export#"
 xmlns:dcterms="http://purl.org/dc/terms/"
 xmlns:bib="http://purl.org/net/biblio#"
 xmlns:foaf="http://xmlns.com/foaf/0.1/"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
    <bib:BookSection rdf:about="#item_1">
        <z:itemType>bookSection</z:itemType>
        <dcterms:isPartOf>
            <bib:Book><dc:title>Models of Working Memory</dc:title></bib:Book>
        </dcterms:isPartOf>
        <bib:authors>
            <rdf:Seq>
                <rdf:li>
                    <foaf:Person>
                        <foaf:surname>Cowan</foaf:surname>
                        <foaf:givenName>Nelson</foaf:givenName>
                    </foaf:Person>
                </rdf:li>
            </rdf:Seq>
        </bib:authors>
        <bib:editors>
            <rdf:Seq>
                <rdf:li>
                    <foaf:Person>
                        <foaf:surname>Miyake</foaf:surname>
                        <foaf:givenName>Akira</foaf:givenName>
                    </foaf:Person>
                </rdf:li>
                <rdf:li>
                    <foaf:Person>
                        <foaf:surname>Shah</foaf:surname>
                        <foaf:givenName>Priti</foaf:givenName>
                    </foaf:Person>
                </rdf:li>
            </rdf:Seq>
        </bib:editors>
        <dc:title>An Embedded-Processes Model of Working Memory</dc:title>
        <dc:date>1999</dc:date>
    </bib:BookSection>
    <bib:Book rdf:about="#item_2">
        <z:itemType>book</z:itemType>
        <bib:editors>
            <rdf:Seq>
                <rdf:li>
                    <foaf:Person>
                        <foaf:surname>Hornborg</foaf:surname>
                        <foaf:givenName>Alf</foaf:givenName>
                    </foaf:Person>
                </rdf:li>
                <rdf:li>
                    <foaf:Person>
                        <foaf:surname>Clark</foaf:surname>
                        <foaf:givenName>Brett</foaf:givenName>
                    </foaf:Person>
                </rdf:li>
            </rdf:Seq>
        </bib:editors>
        <dc:title>Ecology and Power</dc:title>
        <dc:date>2012</dc:date>
    </bib:Book>
</rdf:RDF>
"""


def test_zotero_rdf_editors(tmp_path: Path) -> None:
    path = tmp_path / "export.rdf"
    path.write_text(ZOTERO_RDF, "utf-8")
    chapter, edited = _records(read_zotero_rdf(path))
    assert (chapter.authors, chapter.editors) == (["Nelson Cowan"], ["Akira Miyake", "Priti Shah"])
    assert chapter.editor_parts == [("Miyake", "Akira"), ("Shah", "Priti")]
    assert chapter.family_names == ["Cowan"]
    # an edited book: no authors; its identity without names, as before
    assert (edited.authors, edited.family_names) == ([], [])
    assert edited.editors == ["Alf Hornborg", "Brett Clark"]


#: an NCBI Bookshelf chapter as PubMed writes it (the second record of the test of
#: zotero/translators "MEDLINEnbib.js", PMID 21249755, as it is there: no ``SO`` line, a blank
#: line after it): ``FED``/``ED`` the book's editors
MEDLINE_CHAPTER = """PMID- 21249755
STAT- Publisher
DA  - 20110121
DRDT- 20080809
CTDT- 20080718
PB  - National Center for Biotechnology Information (US)
DP  - 2009
TI  - Peutz-Jeghers Syndrome
BTI - Cancer Syndromes
AB  - PJS is a rare disease. ("Peutz-Jeghers syndrome is no frequent nosological unit".
      (1)) There are no high-quality estimates of the prevalence or incidence of PJS.
      Estimates have included 1 in 8,500 to 23,000 live births (2), 1 in 50,000 to 1 in
      100,000 in Finland (3), and 1 in 200,000 (4). A report on the incidence of PJS is
      available at www.peutz-jeghers.com. At Mayo Clinic from 1945 to 1996 the
      incidence of PJS was 0.9 PJS patients per 100,000 patients. PJS has been reported
      in Western Europeans (5), African Americans (5), Nigerians (6), Japanese (7),
      Chinese (8, 9), Indians (10, 11), and other populations (12-15). PJS occurs
      equally in males and females (7).
CI  - Copyright (c) 2009-, Douglas L Riegert-Johnson
FED - Riegert-Johnson, Douglas L
ED  - Riegert-Johnson DL
FED - Boardman, Lisa A
ED  - Boardman LA
FED - Hefferon, Timothy
ED  - Hefferon T
FED - Roberts, Maegan
ED  - Roberts M
FAU - Riegert-Johnson, Douglas
AU  - Riegert-Johnson D
FAU - Gleeson, Ferga C.
AU  - Gleeson FC
FAU - Westra, Wytske
AU  - Westra W
FAU - Hefferon, Timothy
AU  - Hefferon T
FAU - Wong Kee Song, Louis M.
AU  - Wong Kee Song LM
FAU - Spurck, Lauren
AU  - Spurck L
FAU - Boardman, Lisa A.
AU  - Boardman LA
LA  - eng
PT  - Book Chapter
PL  - Bethesda (MD)
EDAT- 2011/01/21 06:00
MHDA- 2011/01/21 06:00
CDAT- 2011/01/21 06:00
AID - NBK1826 [bookaccession]

"""


def test_medline_editors(tmp_path: Path) -> None:
    path = tmp_path / "pubmed.nbib"
    path.write_text(MEDLINE_CHAPTER, "utf-8")
    (chapter,) = _records(read_medline(path))
    assert chapter.authors[:2] == ["Douglas Riegert-Johnson", "Ferga C. Gleeson"]
    assert len(chapter.authors) == 7
    assert chapter.editors == [
        "Douglas L Riegert-Johnson",
        "Lisa A Boardman",
        "Timothy Hefferon",
        "Maegan Roberts",
    ]
    assert chapter.editor_parts[0] == ("Riegert-Johnson", "Douglas L")
    assert chapter.biblio["type"] == "chapter"


#: the same chapter as PubMed XML writes a Bookshelf record (DTD pubmed_250101.dtd:
#: ``Book/AuthorList Type="editors"`` the book's editors, the chapter's ``AuthorList
#: Type="authors"``; the layout of tests/data/imports/pubmed-xml/jabref_pubmed-book.xml)
PUBMED_XML_CHAPTER = """<?xml version="1.0" ?>
<PubmedArticleSet>
<PubmedBookArticle>
    <BookDocument>
        <PMID Version="1">21249755</PMID>
        <ArticleIdList>
            <ArticleId IdType="bookaccession">NBK1826</ArticleId>
        </ArticleIdList>
        <Book>
            <Publisher>
                <PublisherName>National Center for Biotechnology Information (US)</PublisherName>
                <PublisherLocation>Bethesda (MD)</PublisherLocation>
            </Publisher>
            <BookTitle book="cancersyndromes">Cancer Syndromes</BookTitle>
            <PubDate>
                <Year>2009</Year>
            </PubDate>
            <AuthorList Type="editors">
                <Author>
                    <LastName>Riegert-Johnson</LastName>
                    <ForeName>Douglas L</ForeName>
                    <Initials>DL</Initials>
                </Author>
                <Author>
                    <LastName>Boardman</LastName>
                    <ForeName>Lisa A</ForeName>
                    <Initials>LA</Initials>
                </Author>
            </AuthorList>
        </Book>
        <ArticleTitle book="cancersyndromes" part="pjs">Peutz-Jeghers Syndrome</ArticleTitle>
        <AuthorList Type="authors">
            <Author>
                <LastName>Riegert-Johnson</LastName>
                <ForeName>Douglas</ForeName>
                <Initials>D</Initials>
            </Author>
            <Author>
                <LastName>Gleeson</LastName>
                <ForeName>Ferga C.</ForeName>
                <Initials>FC</Initials>
            </Author>
        </AuthorList>
        <Language>eng</Language>
    </BookDocument>
    <PubmedBookData>
        <ArticleIdList>
            <ArticleId IdType="pubmed">21249755</ArticleId>
        </ArticleIdList>
    </PubmedBookData>
</PubmedBookArticle>
</PubmedArticleSet>
"""


def test_pubmed_xml_editors(tmp_path: Path) -> None:
    path = tmp_path / "pubmed.xml"
    path.write_text(PUBMED_XML_CHAPTER, "utf-8")
    (chapter,) = _records(read_pubmed_xml(path))
    assert chapter.authors == ["Douglas Riegert-Johnson", "Ferga C. Gleeson"]
    assert chapter.editors == ["Douglas L Riegert-Johnson", "Lisa A Boardman"]
    assert chapter.editor_parts == [("Riegert-Johnson", "Douglas L"), ("Boardman", "Lisa A")]


WOS_PLAIN = (
    shared_data_dir()
    / "sources"
    / "reference-managers"
    / "database-exports"
    / "calcore_web-of-science-plaintext-c3-we.txt"
)
WOS_TAB = Path(__file__).parents[2] / "data" / "imports" / "wos-tab"


@pytest.mark.skipif(not WOS_PLAIN.is_file(), reason=f"{WOS_PLAIN} not here")
def test_wos_plain_text_be_editors() -> None:
    """A real Web of Science export: 17 proceedings papers name their volume's editors in
    ``BE``, one a line (``BE Cunha, J`` then ``   Fernandes, JP`` ...)."""
    records = _records(read_wos(WOS_PLAIN))
    by_title = {r.title: r for r in records}
    paper = by_title["Active learning in data science education"]
    assert paper.authors == ["V. Konkol'ova", "J. Paralic"]
    assert (paper.editors, paper.editor_parts) == (["F Jakab"], [("Jakab", "F")])
    milo = next(r for r in records if r.title.startswith("Milo: A visual programming"))
    assert milo.editors == ["J Cunha", "JP Fernandes", "C Kelleher", "G Engels", "J Mendes"]
    assert milo.authors == ["Arjun Rao", "Ayush Bihani", "Mydhili Nair"]
    assert sum(1 for r in records if r.editors) == 17


#: that record as the tab-delimited export lays it out: the tags of a real savedrecs.txt
#: header (labnetwork_savedrecs-tab-utf8_tags.txt), names joined by "; " as in its AU and AF,
#: one more tab at the end of the row
_WOS_ROW = {
    "PT": "C",
    "AU": "Konkol'ová, V; Paralic, J",
    "BE": "Jakab, F",
    "AF": "Konkol'ova, V.; Paralic, J.",
    "TI": "Active learning in data science education",
    "SO": "2018 16TH INTERNATIONAL CONFERENCE ON EMERGING ELEARNING TECHNOLOGIES AND "
    "APPLICATIONS (ICETA)",
    "DT": "Proceedings Paper",
    "PY": "2018",
    "BP": "285",
    "UT": "WOS:000457680400042",
}
#: the Excel export's names for the same columns (the header of
#: 5ampere-WOS_savedrecs-csv_full-names_ut-unique-id.csv)
_WOS_NAMES = {
    "PT": "Publication Type",
    "AU": "Authors",
    "BE": "Book Editors",
    "TI": "Article Title",
    "SO": "Source Title",
    "PY": "Publication Year",
    "UT": "UT (Unique ID)",
}


def test_wos_table_be_editors(tmp_path: Path) -> None:
    lines = (WOS_TAB / "labnetwork_savedrecs-tab-utf8_tags.txt").read_text("utf-8-sig")
    header = lines.split("\n", 1)[0].rstrip("\r").split("\t")
    tab = tmp_path / "savedrecs.txt"
    row = [_WOS_ROW.get(tag, "") for tag in header]
    tab.write_text("\t".join(header) + "\n" + "\t".join(row) + "\t\n", "utf-8")
    excel = (WOS_TAB / "5ampere-WOS_savedrecs-csv_full-names_ut-unique-id.csv").read_text(
        "utf-8-sig"
    )
    names = next(csv.reader([excel.split("\n", 1)[0]]))
    by_name = {name: _WOS_ROW[tag] for tag, name in _WOS_NAMES.items()}
    table = tmp_path / "savedrecs.csv"
    with table.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([names, [by_name.get(n, "") for n in names]])
    (from_tab,) = _records(read_wos_table(tab))
    assert from_tab.authors == ["V. Konkol'ova", "J. Paralic"]
    assert (from_tab.editors, from_tab.editor_parts) == (["F Jakab"], [("Jakab", "F")])
    (from_csv,) = _records(read_wos_table(table))
    assert (from_csv.authors, from_csv.editors) == (["V Konkol'ová", "J Paralic"], ["F Jakab"])


CROSSREF = shared_data_dir() / "sources" / "crossref"


@pytest.mark.skipif(not CROSSREF.is_dir(), reason=f"{CROSSREF} not here")
def test_crossref_editor_list() -> None:
    """Real Crossref responses: a PLOS ONE work names its academic editor in ``editor``
    (``role: editor``), as do seven of the twenty works of an author query."""
    (plos,) = _records(read_crossref(CROSSREF / "works_10.1371-journal.pone.0033693.json"))
    assert plos.authors[0] == "Shankar Sadasivan" and len(plos.authors) == 6
    assert (plos.editors, plos.editor_parts) == (
        ["Cesario V. Borlongan"],
        [("Borlongan", "Cesario V.")],
    )
    works = _records(
        read_crossref(CROSSREF / "works_query-ecology_query.author-carl-boettiger.json")
    )
    edited = [w for w in works if w.editors]
    assert len(edited) == 7
    forecast = next(w for w in works if w.title == "The forecast trap")
    assert (forecast.authors, forecast.editors) == (["Carl Boettiger"], ["Stephan Munch"])


#: the front matter of PMC3289602 (PLoS Negl Trop Dis, 10.1371/journal.pntd.0001477) as quoted
#: in petermr/norma's JATSArticleMetaElement.java, which elides the other contributors: PLOS
#: names the academic editor in its own ``contrib-group``, ``contrib-type="editor"``
JATS = """<?xml version="1.0" encoding="UTF-8"?>
<article article-type="research-article"><front><article-meta>
			<article-id pub-id-type="pmcid">3289602</article-id>
			<article-id pub-id-type="doi">10.1371/journal.pntd.0001477</article-id>
			<title-group>
				<article-title>Genetic Characterization of Zika Virus Strains:
					Geographic Expansion of the Asian Lineage</article-title>
			</title-group>
			<contrib-group>
				<contrib contrib-type="author">
					<name>
						<surname>Haddow</surname>
						<given-names>Andrew D.</given-names>
					</name>
					<xref ref-type="aff" rid="aff1">
						<sup>1</sup>
					</xref>
				</contrib>
			</contrib-group>
			<contrib-group>
				<contrib contrib-type="editor">
					<name>
						<surname>Olson</surname>
						<given-names>Ken E.</given-names>
					</name>
					<role>Editor</role>
					<xref ref-type="aff" rid="edit1" />
				</contrib>
			</contrib-group>
			<aff id="edit1">Colorado State University, United States of America</aff>
			<pub-date pub-type="epub">
				<day>28</day>
				<month>2</month>
				<year>2012</year>
			</pub-date>
</article-meta></front></article>
"""


def test_jats_editor_contrib(tmp_path: Path) -> None:
    path = tmp_path / "PMC3289602.nxml"
    path.write_text(JATS, "utf-8")
    (article,) = _records(read_jats(path))
    assert article.authors == ["Andrew D. Haddow"]
    assert (article.editors, article.editor_parts) == (["Ken E. Olson"], [("Olson", "Ken E.")])


def test_imported_editors_are_stored_apart_from_authors(tmp_path: Path) -> None:
    """Imported into a real store, each of these formats' chapters keeps its authors as its
    authors and its book's editors in ``paper_biblio.editors``; an edited book has no
    authors and its editors there."""
    files = {
        "endnote.xml": ENDNOTE_XML,
        "records.enw": REFER,
        "export.rdf": ZOTERO_RDF,
        "pubmed.nbib": MEDLINE_CHAPTER,
        "PMC3289602.nxml": JATS,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, "utf-8")
    with Store(tmp_path / "s.sqlite") as store:
        report = import_paths(store, [tmp_path / n for n in files])
        assert report.ok, report
        rows = store._conn.execute("SELECT id, title FROM papers").fetchall()
        by_title = {str(title): str(doc) for doc, title in rows}
        stored = biblio_of(store._conn, list(by_title.values()))

        def people(title: str) -> tuple[list[str], tuple[str, ...]]:
            paper = store.get(Kind.PAPER, by_title[title])
            assert isinstance(paper, Paper)
            return list(paper.authors), stored[by_title[title]].editors

        assert people(
            "Firms and the welfare state: When, why, and how does social policy "
            "matter to employers?"
        ) == (["Isabela Mares"], ("Peter A Hall", "David Soskice"))
        assert people("Usynlige byer") == (["Italo Calvino"], ("Jørgen Stender Clausen",))
        assert people("Peutz-Jeghers Syndrome")[1][:2] == (
            "Douglas L Riegert-Johnson",
            "Lisa A Boardman",
        )
        assert people(
            "Genetic Characterization of Zika Virus Strains: Geographic Expansion of the Asian "
            "Lineage"
        ) == (["Andrew D. Haddow"], ("Ken E. Olson",))
        # the RDF and the refer file hold the same chapter: one record, its editors once
        assert people("An Embedded-Processes Model of Working Memory") == (
            ["Nelson Cowan"],
            ("Akira Miyake", "Priti Shah"),
        )
        # the same edited book in EndNote XML and refer: merged, no authors, its editors
        assert people("Ecology and Power") == ([], ("Alf Hornborg", "Brett Clark"))
