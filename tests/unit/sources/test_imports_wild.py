"""Real exports written by others, found in public repositories: dblp BibTeX's LaTeX-escaped
DOIs, PubMed's CSV of 2019, initials that read like roman numerals. Files:
``tests/data/imports/wild/`` (origin and licence in its README) and
``tests/data/imports/ris-medline/``.
"""

from __future__ import annotations

from pathlib import Path

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.bibtex import read_bibtex
from litsift.sources.formats.csv_exports import read_csv_export
from litsift.sources.formats.medline import read_medline
from litsift.sources.formats.ris import read_ris, read_wos

DATA = Path(__file__).parents[2] / "data" / "imports"
WILD = DATA / "wild"


def _records(items: object) -> list[SourceRecord]:
    return [r for r in items if isinstance(r, SourceRecord)]  # type: ignore[attr-defined]


def test_dblp_escaped_underscores_in_doi_and_url_are_undone() -> None:
    """dblp writes ``doi = {10.1007/978-3-540-24605-3\\_37}``: the DOI is
    ``10.1007/978-3-540-24605-3_37`` (else it never meets the same paper from Crossref)."""
    records = {
        r.source_key: r
        for r in _records(read_bibtex(WILD / "rnbguy-thesis2021_dblp-bibly_escaped-doi.bib"))
    }
    assert len(records) == 16
    een = records["DBLP:conf/sat/EenS03"]
    assert een.ids == {"doi": "10.1007/978-3-540-24605-3_37", "dblp": "conf/sat/EenS03"}
    assert een.url == "https://doi.org/10.1007/978-3-540-24605-3_37"
    assert een.authors == ["Niklas Eén", "Niklas Sörensson"]
    assert records["DBLP:conf/ac/Mazurkiewicz86"].ids["doi"] == "10.1007/3-540-17906-2_30"
    assert not any("\\" in v for r in records.values() for v in r.ids.values())


def test_pubmed_csv_of_2019_gives_authors_journal_year_and_ids() -> None:
    """PubMed's CSV until 2020 (``Title,URL,Description,Details,ShortDetails,...``) holds the
    authors in ``Description``, the citation in ``Details`` and the PMID in ``EntrezUID``."""
    records = _records(read_csv_export(WILD / "p1m-ortho_pubmed-csv-2019_44-records.csv"))
    assert len(records) == 44
    first = records[0]
    assert (
        first.title == "Diagnosing Pseudoarthrosis After Anterior Cervical Discectomy and Fusion."
    )
    assert first.authors == ["W Lin", "A Ha", "V Boddapati", "W Yuan", "KD Riew"]
    assert first.family_names[0] == "Lin"
    assert (first.year, first.venue) == (2018, "Neurospine")
    assert first.ids == {"doi": "10.14245/ns.1836192.096", "pmid": "31352693"}
    assert first.biblio["pages"] == "194-205" and first.biblio["volume"] == "15"
    assert all(r.authors and r.year and r.venue and "pmid" in r.ids for r in records)
    by_title = {r.title[:30]: r for r in records}
    cut = by_title["Anaesthetic care of patients u"]  # "..., Borgeat A, et al."
    assert cut.authors[-1] == "A Borgeat" and len(cut.authors) == 22
    assert by_title["Survey of medical malpractice "].authors == ["JE Peterson Jr"]
    assert by_title["Survey of medical malpractice "].family_names == ["Peterson"]


def test_a_lone_initial_with_a_point_that_reads_like_a_roman_numeral_is_the_given_name() -> None:
    """Embase and Scopus RIS write ``Iyer, V.``: V. Iyer, not "Iyer" with the suffix "V."."""
    record = _records(
        read_ris(DATA / "ris-medline" / "telemonitoring_embase-export_13-records.ris")
    )[0]
    assert record.authors[3] == "V. Iyer"
    assert record.family_names[3] == "Iyer"


def test_embase_ris_family_and_initials_without_a_comma_are_split() -> None:
    """Embase's RIS writes ``A1  - Fanning E.`` and ``A1  - Adler D.G.``: the family name is
    Fanning / Adler (what de-duplication compares), not "E." / "D.G."."""
    record = _records(read_ris(WILD / "rispy_embase-ris_family-initials.ris"))[0]
    assert (record.authors, record.family_names) == (["E. Fanning"], ["Fanning"])
    assert record.name_parts == [("Fanning", "E.")]
    assert record.ids == {"doi": "10.1177/2325967120950040"}
    shared = shared_data_dir() / "sources" / "reference-managers" / "ris"
    records = _records(read_ris(shared / "asreview_embase-export.ris"))
    assert records[0].family_names == ["Liu", "Adler"]
    assert records[0].authors == ["R. Liu", "D.G. Adler"]
    assert records[1].name_parts[0] == ("Eloubeidi", "M.A.")


def test_eric_nbib_records_start_with_own_and_are_read() -> None:
    """ERIC's ``.nbib`` export is MEDLINE-tagged text whose records start with ``OWN - ERIC``
    (no ``PMID``): detected as ``medline``, authors ``Family, Given``, the DOI read off the
    ``AID`` link. It was refused ("not medline")."""
    path = WILD / "colrev_eric-nbib.nbib"
    assert registry.detect(path) is registry.get("medline")
    (record,) = _records(read_medline(path))
    assert (record.title, record.year, record.venue) == ("Paper title", 2000, "Journal Name")
    assert record.authors == ["Tom Smith", "Shawn Hunter"]
    assert record.name_parts == [("Smith", "Tom"), ("Hunter", "Shawn")]
    assert record.ids == {"doi": "10.1000/123456789"}
    assert record.tags == ["Keyword 1", "Keyword 2"]
    assert record.biblio["pages"] == "1-9"


def test_a_bib_file_whose_lines_end_in_cr_alone_is_detected_as_bibtex() -> None:
    """JabRef's UTF-16BE fixture ends its lines with ``\\r`` alone (classic Mac OS) and opens
    with a ``% Encoding:`` line: its entry does not start the file. It was refused as
    "not bibtex"."""
    path = WILD / "jabref_utf-16be_cr-line-ends.bib"
    assert registry.detect(path) is registry.get("bibtex")
    (record,) = _records(read_bibtex(path))
    assert record.title == "Ü ist ein Umlaut"


def test_bare_ampersands_and_html_character_references_in_bibtex_are_kept() -> None:
    """Taylor & Francis and Wiley write ``&`` unescaped (``publisher = {Taylor & Francis}``),
    Web of Science ``title = {A dummy title&apos;s}``, others ``&#169;``: pylatexenc read the
    ``&`` as an alignment tab and dropped it ("Taylor Francis", "title apos;s", "#169;")."""
    tandf = _records(read_bibtex(WILD / "colrev_taylor-francis-bibtex_bare-ampersand.bib"))
    assert tandf[0].title == "This is a dummy title from publisher Taylor & Francis"
    assert tandf[0].biblio["publisher"] == "Taylor & Francis"
    wos = {
        r.source_key: r for r in _records(read_bibtex(WILD / "colrev_wos-bibtex_html-entity.bib"))
    }
    assert wos["WOS:000444488888888"].title == "A dummy title's"
    (inbook,) = _records(read_bibtex(WILD / "colrev_inbook_numeric-char-ref.bib"))
    assert inbook.venue == "Dummy in Practice © asdf"
    assert inbook.biblio["publisher"] == "John Wiley & Sons, Ltd"


def test_a_bare_percent_sign_in_a_bibtex_abstract_is_not_a_comment() -> None:
    """An exporter's ``about 50% in a narrow wavelength range`` (Better BibTeX issue 95's
    file): LaTeX would read ``%`` as a comment, which cut the rest of the line from the
    abstract ("a reduction of about 50transmission measurement")."""
    path = shared_data_dir() / "sources" / "reference-managers" / "bibtex" / "edge-cases"
    (record,) = _records(read_bibtex(path / "bbt-95-96_percent-sign_preamble.bib"))
    assert "reduction of about 50% in a narrow wavelength range of 400-500" in record.abstract
    assert "from 2.2% and 0.8" in record.abstract and "to 51% and 21" in record.abstract


def test_authors_listed_on_one_wos_line_with_semicolons_are_several_people() -> None:
    """WoS's MEDLINE records of ~2006 wrote ``AU Joffe, Hadine; Hall, Janet E; ...``: seven
    people, not one called "Hadine; Hall Janet E; ... Joffe"; ``UT MEDLINE:16735938`` is the
    record's PMID."""
    path = WILD / "jabref_wos-medline-isi_semicolon-authors.isi"
    assert registry.detect(path) is registry.get("wos")
    one, seven = _records(read_wos(path))
    assert one.authors == ["Nancy J Wesensten"] and one.ids == {"pmid": "16842170"}
    assert seven.authors[:2] == ["Hadine Joffe", "Janet E Hall"] and len(seven.authors) == 7
    assert seven.family_names[-1] == "Martin"
    assert seven.name_parts[1] == ("Hall", "Janet E")
    assert seven.ids == {"pmid": "16735938"}


def test_a_bibtex_name_with_its_suffix_last_keeps_its_given_name() -> None:
    """``Articlewriter, Laura, III`` (suffix last, as ProQuest and RIS write it) was read by
    BibTeX's rule ``Family, Jr, Given``: given name "III", shown "III Articlewriter Laura"."""
    first = _records(read_bibtex(WILD / "colrev_loader-bibtex_suffix-last.bib"))[0]
    assert first.authors == ["Laura Articlewriter III"]
    assert first.name_parts == [("Articlewriter", "Laura")]
    apa = shared_data_dir() / "sources" / "reference-managers" / "bibtex"
    by_key = {
        r.source_key: r for r in _records(read_bibtex(apa / "bbt-2660_plus-in-field-name.bib"))
    }
    assert by_key["9.8:8"].authors == ["A. A. Author Jr.", "B. B. Author"]  # Family, Jr, Given


def test_a_bibtex_name_list_separated_by_semicolons_is_a_list(tmp_path: Path) -> None:
    """R tools write Web of Science's ``AU`` into BibTeX as it is, ``Author = {Luna, JP;
    Perez, C; Toro, S}``, and Zotero exports it so again: the list read as one person ("C;
    Toro S Luna JP; Perez"). Here the WoS BibTeX sample with its lists written that way."""
    source = WILD / "colrev_wos-bibtex_html-entity.bib"
    text = source.read_text(encoding="utf-8-sig")
    semicolons = text.replace("Julia and Writertwo", "Julia; Writertwo").replace(
        "Julian and Guestwriter", "Julian; Guestwriter"
    )
    assert semicolons.count("; ") == text.count("; ") + 2
    path = tmp_path / "r-export.bib"
    path.write_text(semicolons, encoding="utf-8")
    got = [(r.authors, r.name_parts) for r in _records(read_bibtex(path))]
    assert got == [(r.authors, r.name_parts) for r in _records(read_bibtex(source))]
    assert got[0][0] == ["Julia Writerone", "Paul Writertwo"]


def test_biblatex_extended_name_format_is_read_by_its_keys(tmp_path: Path) -> None:
    """Better BibTeX's biblatex export writes a name with particles in biblatex's extended
    name format (``family=Kuilen, given=Gijs, prefix={van de}, useprefix=true``): it read as
    one name "family=Kuilen given=Gijs, ...". Here the Zotero / BBT export of ../shared with
    its ``{van de Kuilen}, Gijs`` written so: the same people come out."""
    source = shared_data_dir() / "sources" / "reference-managers" / "bibtex"
    source /= "thesis-psychology_zotero-bbt-export.bib"
    text = source.read_text(encoding="utf-8")
    extended = "family=Kuilen, given=Gijs, prefix={van de}, useprefix=true"
    assert text.count("{van de Kuilen}, Gijs") == 1
    path = tmp_path / "biblatex.bib"
    path.write_text(text.replace("{van de Kuilen}, Gijs", extended), encoding="utf-8")
    (want,) = [r for r in _records(read_bibtex(source)) if "Gijs van de Kuilen" in r.authors]
    (got,) = [r for r in _records(read_bibtex(path)) if r.source_key == want.source_key]
    assert got.authors == want.authors and got.name_parts == want.name_parts
    assert ("van de Kuilen", "Gijs") in got.name_parts
