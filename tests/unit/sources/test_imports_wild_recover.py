"""Real exports that litsift misread where Zotero and JabRef read them: an RIS record without
its ``ER`` line, eLibrary's RIS (types spelled out, ``VO`` for the volume), Web of Science's
Inspec records (``ID`` the identifiers, not keywords; an article number's pages), an article
number as a paper's only pages (Web of Science, Scopus), Crossref's organisations as authors
(AIS eLibrary), a BibTeX key used twice or a ``crossref`` to no entry. Files:
``tests/data/imports/wild/`` and ``wos-tab/`` (origin and licence in their READMEs), and the
database exports of ``../shared/data/sources/reference-managers`` (its README).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from litsift.export.formats import to_csl_json
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, Notice, SourceRecord
from litsift.sources.formats.bibtex import read_bibtex
from litsift.sources.formats.crossref import read_crossref
from litsift.sources.formats.ris import read_ris, read_wos
from litsift.sources.formats.wos_tabular import read_wos_table
from litsift.sources.importer import import_paths
from litsift.store.repo import Store
from litsift.types import Kind, Paper

WILD = Path(__file__).parents[2] / "data" / "imports" / "wild"
EXPORTS = shared_data_dir() / "sources" / "reference-managers"


def _records(items: object) -> list[SourceRecord]:
    return [r for r in items if isinstance(r, SourceRecord)]  # type: ignore[attr-defined]


def test_an_ris_record_without_er_before_the_next_ty_is_kept_with_a_warning() -> None:
    """CoLRev's loader sample ends its first record without ``ER`` (a blank line and a
    ``% Comment`` line, then ``TY``): the record was skipped (a bad entry); Zotero and
    JabRef read both records, and so does CoLRev. The next ``TY`` ends it."""
    items = list(read_ris(WILD / "colrev_loader-ris_no-er-before-ty.ris"))
    assert not [i for i in items if isinstance(i, BadItem)]
    (warning,) = [i for i in items if isinstance(i, Notice)]
    assert warning.location == "line 2" and "before the next record (line 26)" in warning.message
    first, second = _records(items)
    assert first.title == "Title of a conference paper" and len(first.authors) == 5
    assert first.ids == {"doi": "10.1234/random-name55555.2020.00050", "pmid": "12345678"}
    assert first.biblio == {"type": "paper-conference", "pages": "183-186"}
    assert (first.location, second.location) == ("record 1", "record 2")
    assert second.title == "Title of a journal paper" and second.year == 2017


def test_a_last_ris_record_without_er_is_kept_with_a_warning_unless_cut_in_a_line(
    tmp_path: Path,
) -> None:
    """A file whose last record has no ``ER`` line: Zotero and JabRef keep the record; it
    was reported as cut short and not read. A file that ends inside a line of it (a cut
    download) still reports it as cut."""
    text = (WILD / "rispy_embase-ris_family-initials.ris").read_text(encoding="utf-8")
    assert text.endswith("\nER  -\n")
    (whole,) = _records(read_ris(WILD / "rispy_embase-ris_family-initials.ris"))
    path = tmp_path / "no-er.ris"
    path.write_text(text.removesuffix("ER  -\n"), encoding="utf-8")
    items = list(read_ris(path))
    assert isinstance(items[0], Notice) and items[0].location == "line 1"
    assert "the file ends first" in items[0].message
    assert items[1:] == [whole]
    path.write_text(text.removesuffix("ER  -\n")[:-20], encoding="utf-8")  # inside DO
    (cut,) = list(read_ris(path))
    assert isinstance(cut, BadItem) and cut.location == "line 1" and "cut short" in cut.reason


def test_an_import_of_a_record_without_er_adds_it_and_warns_at_its_line(tmp_path: Path) -> None:
    path = WILD / "colrev_loader-ris_no-er-before-ty.ris"
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [path])
    assert report.ok and report.added == 2 and not report.bad
    assert [w for w in report.warnings if f"{path}:line 2: " in str(w)]


def test_elibrary_ris_type_spelled_out_and_vo_volume_are_read(tmp_path: Path) -> None:
    """eLibrary.ru's RIS (rispy's sample) writes ``TY  - Journal Article`` (EndNote's name of
    ``JOUR``) and the volume as ``VO  - 8``: the record came in with no type and no volume,
    so its locator could not tell it from another paper of the same title."""
    (record,) = _records(read_ris(WILD / "rispy_elibrary-ris_spelled-out-type.ris"))
    assert record.biblio == {
        "type": "article-journal",
        "volume": "8",
        "issue": "3",
        "pages": "52-57",
    }
    assert record.locator == {"volume": "8", "issue": "3", "page": "52"}
    assert record.venue == "Gynecology, Obstetrics and Perinatology" and record.year == 2009
    text = (WILD / "rispy_elibrary-ris_spelled-out-type.ris").read_text(encoding="utf-8-sig")
    chapter = text.replace("TY  - Journal Article", "TY  - Book Section").replace(
        "JO  - ", "A2  - Editor, Anna\nT2  - "
    )
    path = tmp_path / "chapter.ris"
    path.write_text(chapter.replace("VO  - 8", "VL  - 2\nVO  - 8"), encoding="utf-8")
    (record,) = _records(read_ris(path))  # a chapter's A2 is its editor, as for CHAP
    assert record.biblio["type"] == "chapter" and record.editors == ["Anna Editor"]
    assert record.biblio["volume"] == "2"  # VL first


def test_wos_inspec_records_read_id_as_identifiers_and_de_as_indexing_terms() -> None:
    """Web of Science's Inspec records (JabRef's sample) hold the identifiers in ``ID``
    (``...],[S0003-6951(06)22430-6],[10.1063/1.2234275]``), not Keywords Plus: they came in
    as tags (``1-T],[S0003-6951(06)22430-6],[10.1063/1.2234275]``) and the DOI was lost.
    ``DE``'s treatment (``Experimental/``) and classification codes were tags too."""
    first, second = _records(read_wos(WILD / "jabref_wos-inspec-isi_identifier-list.isi"))
    assert first.ids == {"doi": "10.1063/1.2234275"}
    assert second.ids == {"doi": "10.1088/0953-8984/18/23/006"}
    assert (first.source_key, first.biblio["type"]) == ("INSPEC:9027814", "article-journal")
    assert first.tags[:2] == ["barium compounds", "ion implantation"]
    assert "waveguide lasers" in first.tags and "second harmonic generation" in first.tags
    assert "He+ implantation" in first.tags  # Inspec's /sup +/ written out
    for record in (first, second):
        assert not [t for t in record.tags if "[" in t or "/" in t or "Experimental" in t]
        assert not [t for t in record.tags if re.match(r"[A-Z][0-9]{4}", t)]  # A4265K ...
    assert first.title.endswith("production of beta -BaB2O4 optical waveguides")
    assert (
        second.title == "Optical and photoelectric spectroscopy of photorefractive Sn2P2S6 crystals"
    )
    assert "spectra of Sn2P2S6 crystals" in second.abstract
    assert first.authors[0] == "R. Degl'Innocenti" and first.venue == "Applied Physics Letters"


def test_wos_inspec_article_number_pages_are_the_article_number(tmp_path: Path) -> None:
    """Inspec writes an article-numbered paper's pages as the article number, a hyphen and
    the page within it (``BP 41103-1``, ``EP 41103-41103-3``, ``PS 41103-1-3``: APL's
    article 041103): they were stored as pages ``41103-1-41103-41103-3``. A paper with pages
    (``BP 5323``, ``EP 5331``) keeps them."""
    first, second = _records(read_wos(WILD / "jabref_wos-inspec-isi_identifier-list.isi"))
    assert first.biblio["pages"] == "41103"
    assert first.locator == {"volume": "89", "issue": "4", "article": "41103"}
    assert second.biblio["pages"] == "5323-5331" and second.locator["page"] == "5323"
    with Store(tmp_path / "s.db") as store:
        assert import_paths(store, [WILD / "jabref_wos-inspec-isi_identifier-list.isi"]).ok
        pages = sorted(p for (p,) in store._conn.execute("SELECT pages FROM paper_biblio"))
    assert pages == ["41103", "5323-5331"]


@pytest.mark.parametrize(
    ("path", "read", "title_start", "pages"),
    [
        (EXPORTS / "database-exports" / "calcore_web-of-science-plaintext-c3-we.txt", read_wos,
         "Ad hoc efforts for advancing data science", "e1007695"),  # AR e1007695, no BP / EP; PG 18
        (EXPORTS / "ris" / "asreview_scopus-export.ris", read_ris, "", "104501"),  # C7, no SP
        (WILD.parent / "wos-tab" / "freshwater-forecasting-review_savedrecs-csv_result-number.csv",
         read_wos_table, "", "141112"),  # the Article Number column
    ],
)  # fmt: skip
def test_a_paper_with_only_an_article_number_has_it_as_its_pages(
    path: Path, read: Callable[[Path], Iterator[object]], title_start: str, pages: str
) -> None:
    """Web of Science writes an article-numbered paper's number as ``AR`` (PLoS:
    ``AR e1007695``, ``PG 18``; its tables' ``Article Number``), Scopus's RIS as ``C7``: they
    stood in the locator only and
    the paper had no pages, where Crossref gives the article number as its ``page``."""
    if not path.is_file():
        pytest.skip(f"{path} not here (../shared/data)")
    records = _records(read(path))
    (record,) = [r for r in records if r.biblio.get("pages") == pages]
    assert record.title.startswith(title_start)
    assert record.locator["article"] == pages.lstrip("e")
    with_pages = [r for r in records if r.locator.get("page")]
    assert with_pages and all(r.biblio["pages"][0] != "e" for r in with_pages)


def test_crossref_organisations_as_authors_stay_organisations(tmp_path: Path) -> None:
    """AIS eLibrary deposits its authors' universities as authors with only a ``name``
    (``{"name": "Paderborn University", "sequence": "first"}``): they came in as persons,
    family name ``University``, and were exported as ``University, Paderborn``. Stored as a
    BibTeX ``{Org Name}`` is (and as Zotero reads them), they stay one name."""
    path = WILD / "colrev_crossref-ais_organisation-authors.json"
    (record,) = _records(read_crossref(path))
    assert record.authors[:2] == ["Guido Schryen", "Paderborn University"]
    assert record.family_names[:3] == ["Schryen", "Paderborn University", "Wagner"]
    assert record.family_names[-1] == "HEC Montréal"
    assert ("Paderborn University", "") in record.name_parts
    assert ("University of Technology Darmstadt", "") in record.name_parts
    with Store(tmp_path / "s.db") as store:
        assert import_paths(store, [path]).added == 1
        (doc_id,) = [r[0] for r in store._conn.execute("SELECT id FROM papers")]
        paper = store.get(Kind.PAPER, doc_id)
        assert isinstance(paper, Paper)
        (item,) = json.loads(to_csl_json(store, [paper]))
    assert item["author"][0] == {"family": "Schryen", "given": "Guido"}
    assert item["author"][1] == {"literal": "Paderborn University"}
    assert item["author"][7] == {"literal": "HEC Montréal"}


def test_a_bibtex_key_used_twice_and_a_crossref_to_no_entry_are_warnings(tmp_path: Path) -> None:
    """CoLRev's loader sample uses ``articlewriter_firstrandomword_2020`` for two entries and
    names ``crossref = {ICRC2016}``, which no entry holds: both went by in silence (BibTeX
    and biber warn of each). The entries are read all the same."""
    path = WILD / "colrev_loader-bibtex_suffix-last.bib"
    items = list(read_bibtex(path))
    assert len(_records(items)) == 5 and not [i for i in items if isinstance(i, BadItem)]
    twice, missing = [i for i in items if isinstance(i, Notice)]
    assert twice.location == "line 19" and "'articlewriter_firstrandomword_2020'" in twice.message
    assert "(2nd)" in twice.message
    assert missing.location == "line 42" and "crossref 'ICRC2016'" in missing.message
    parent = tmp_path / "icrc2016.bib"  # the parent in another file read with it: no warning
    parent.write_text("@proceedings{ICRC2016,\n  booktitle = {ICRC 2016},\n  year = {2016},\n}\n")
    with Store(tmp_path / "s.db") as store:
        report = import_paths(store, [path, parent])
    assert report.ok and report.added == 5
    assert [str(w) for w in report.warnings] == [f"{path}:line 19: {twice.message}"]
