"""BibTeX importer on the real .bib files of ../shared/data/sources/reference-managers/bibtex."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.bibtex import read_bibtex

BIB = shared_data_dir() / "sources" / "reference-managers" / "bibtex"

# entries per file, from ../shared/data/sources/README.md, with three documented differences:
# biblatex-examples.bib has 92 entries of which 2 are @set (a set of other entries, not a
# work: not imported) and 1 the @collection westfahl:frontier that westfahl:space names in its
# crossref (a volume whose data its chapter inherits: not a paper), as are 1 @collection of
# bbt-1641 and the 3 @book parents of bbt-3514; bbt-2660 holds a 284th entry commented out
# with "%@ARTICLE{", which BibTeX itself (and bibtexparser) still reads -- "%" is no comment
# outside an entry.
COUNTS = {
    "bbt-1436_journal-abbreviations_month-macros.bib": 506,
    "bbt-1641_jabref-5.1-groups.bib": 19,
    "bbt-2660_plus-in-field-name.bib": 283,  # a 284th, `%@ARTICLE{10.1:18`, is commented out
    "bbt-873_user-library_crossref_duplicate-keys.bib": 988,
    "bbt_mendeley-export_duplicate-keys.bib": 512,
    "biblatex-examples.bib": 89,
    "thesis-psychology_zotero-bbt-export.bib": 584,
    "edge-cases/bbt-3514_crossref-incollection.bib": 3,
    "edge-cases/bbt_endnote-export.bib": 1,
    "edge-cases/bbt-664_chokes.bib": 1,
    "edge-cases/bbt-95-96_percent-sign_preamble.bib": 1,
}


def _read(name: str) -> tuple[list[SourceRecord], list[BadItem]]:
    items = list(read_bibtex(BIB / name))
    return [i for i in items if isinstance(i, SourceRecord)], [
        i for i in items if isinstance(i, BadItem)
    ]


@pytest.mark.parametrize("name,count", sorted(COUNTS.items()))
def test_every_entry_of_the_sample_is_read(name: str, count: int) -> None:
    records, bad = _read(name)
    assert (len(records), bad) == (count, [])
    # 74 entries of bbt-2660 (APA style-test fixtures) really have no title: the import then
    # reports each as "no title" (a 75th, commented out with %, is no entry)
    assert sum(1 for r in records if not r.title) == (74 if "2660" in name else 0)
    assert registry.detect(BIB / name).name == "bibtex"


def test_duplicate_keys_are_all_kept_with_their_ordinal() -> None:
    records, _ = _read("bbt-873_user-library_crossref_duplicate-keys.bib")
    second = [r for r in records if r.location.endswith("(2nd)")]
    assert len(second) == 14  # the 14 duplicate keys of the README
    assert {r.location for r in records if r.source_key == "Schank:80"} == {
        "entry Schank:80",
        "entry Schank:80 (2nd)",
    }


def test_crossref_children_inherit_year_and_booktitle() -> None:
    records, _ = _read("edge-cases/bbt-3514_crossref-incollection.bib")
    child = next(r for r in records if r.source_key == "Hauck_2011")
    assert child.year == 2011
    assert child.venue.startswith("Fronteiras da integração")  # the parent's title


def test_latex_names_tags_groups_and_windows_attachments() -> None:
    records, _ = _read("thesis-psychology_zotero-bbt-export.bib")
    abelson = next(r for r in records if r.source_key == "abelson1981")
    assert abelson.ids == {"doi": "10.1037/0003-066x.36.7.715"}
    assert abelson.attachments == [
        Path(
            "C:\\Users\\s1932788\\Zotero\\storage\\48RKN5V9\\Abelson - 1981 - Psychological "
            "status of the script concept..pdf"
        )
    ]
    groups, _ = _read("bbt-1641_jabref-5.1-groups.bib")
    clark = next(r for r in groups if r.source_key == "Clark2012")
    assert clark.collections == ["MR in UPE", "Periurbanrift", "he2", "Ecology_and_Power"]
    math, _ = _read("edge-cases/bbt-472_math-markup.bib")
    assert math[0].title.startswith("Test Title With 100 μJ, 200 μJ Energy, and ±0.1% Accuracy")
    acl, _ = _read("paper_acl-anthology-entries.bib")
    longformer = next(r for r in acl if "Longformer" in r.title)
    assert longformer.authors[:3] == ["Iz Beltagy", "Matthew E Peters", "Arman Cohan"]
    assert longformer.family_names[0] == "Beltagy"


def test_a_broken_entry_costs_only_itself(tmp_path: Path) -> None:
    good = (BIB / "edge-cases" / "bbt_qiqqa-export.bib").read_text(encoding="utf-8")
    path = tmp_path / "mixed.bib"
    path.write_text(
        good + "\n@article{broken,\n  title = {Unclosed,\n  year = 2020\n\n"
        "@misc{fine, title = {A fine entry}, year = 2021}\n",
        encoding="utf-8",
    )
    items = list(read_bibtex(path))
    records = [i for i in items if isinstance(i, SourceRecord)]
    bad = [i for i in items if isinstance(i, BadItem)]
    assert len(records) == 3 and records[-1].title == "A fine entry"
    assert len(bad) == 1 and bad[0].location.startswith("line ")


def test_not_bibtex_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.bib"
    path.write_text("just some notes, no entries\n", encoding="utf-8")
    with pytest.raises(IngestError, match="holds no BibTeX entries"):
        list(read_bibtex(path))
    assert registry.detect(path) is None
    pdf = tmp_path / "fake.bib"
    pdf.write_bytes(b"%PDF-1.7\n@article{x, title={y}}")
    assert registry.detect(pdf) is None or registry.detect(pdf).name != "bibtex"


def test_string_concatenation_is_resolved(tmp_path: Path) -> None:
    from litsift.sources.formats.bibtex_entries import _parse_string

    # real files concatenate month macros with literals (ACL Anthology: oct # "-" # nov)
    lib = _parse_string((BIB / "thesis-nlp_acl-anthology-heavy.bib").read_text())
    months = {e.fields_dict["month"].value for e in lib.entries if "month" in e.fields_dict}
    assert "October-November" in months and "May 2 - May 7" in months
    assert not any("#" in m for m in months)
    bib = tmp_path / "concat.bib"
    bib.write_text(
        '@string{conf = "Proceedings of the Conference"}\n'
        '@string{deep = "Deep"}\n@string{DeepL = deep # " Learning"}\n'
        '@inproceedings{a1, title = DeepL # " for " # {Search}, booktitle = conf # " on X",\n'
        "  author = {Doe, Jane}, year = 2020}\n"
        '@misc{a2, title = {C# and F# in "quotes"}, note = "a # b", year = 2021,\n'
        "  doi = {10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0}}\n",
        encoding="utf-8",
    )
    a1, a2 = [r for r in read_bibtex(bib) if isinstance(r, SourceRecord)]
    assert a1.title == "Deep Learning for Search"
    assert a1.venue == "Proceedings of the Conference on X"
    assert a2.title == 'C# and F# in "quotes"'
    # a SICI DOI keeps its angle brackets when the field is the DOI alone
    assert a2.ids == {"doi": "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0"}


def test_mendeley_entries_without_a_key_lend_nothing_to_other_entries() -> None:
    # The Mendeley export has 37 entries written "@article{," -- the first is in "Mémoires du
    # livre". An entry without a crossref must not take fields from the key-less one (before
    # the fix 206 of the 512 records got that venue).
    from litsift.sources.formats.bibtex_entries import _parse_string

    path = BIB / "bbt_mendeley-export_duplicate-keys.bib"
    records = [i for i in read_bibtex(path) if isinstance(i, SourceRecord)]
    keyless = [r for r in records if r.location.startswith("entry without a key")]
    assert len(keyless) == 37 and keyless[0].location == "entry without a key, line 114"
    assert keyless[0].venue == "Mémoires du livre"
    lib = _parse_string(path.read_text(encoding="utf-8"))
    own = sum(
        e.fields_dict["journal"].value == "Mémoires du livre"
        for e in lib.entries
        if "journal" in e.fields_dict
    )
    assert sum(r.venue == "Mémoires du livre" for r in records) == own < 6


def test_acl_and_dblp_ids_from_old_links_and_dblp_exports() -> None:
    # aclweb.org/anthology links (93 of the thesis' entries carry only those) and dblp's
    # table-of-contents anchors / biburl fields identify records for de-duplication
    nlp = [
        i
        for i in read_bibtex(BIB / "thesis-nlp_acl-anthology-heavy.bib")
        if isinstance(i, SourceRecord)
    ]
    assert sum("acl" in r.ids for r in nlp) == 123  # 30 from aclanthology.org links alone
    byurl = {r.ids["acl"] for r in nlp if "acl" in r.ids}
    assert {"2020.findings-emnlp.352", "P19-3004"} <= byurl
    planning = [
        i
        for i in read_bibtex(BIB / "bbt-873_user-library_crossref_duplicate-keys.bib")
        if isinstance(i, SourceRecord)
    ]
    keys = {r.ids["dblp"] for r in planning if "dblp" in r.ids}
    assert {"conf/aaai/BaierM06", "journals/jair/Helmert06", "conf/aips/Edelkamp02"} <= keys
    acl = [
        i
        for i in read_bibtex(BIB / "paper_acl-anthology-entries.bib")
        if isinstance(i, SourceRecord)
    ]
    assert [r.ids.get("dblp") for r in acl if "dblp" in r.ids] == ["conf/naacl/PetersNIGCLZ18"]


def test_titles_keep_the_words_inside_latex_macros() -> None:
    """pylatexenc's default context renders \\TeX, \\hyphen, \\texttt{...} and \\mbox{...} as
    nothing: biblatex's own examples were stored as "The book", ": The Program" and
    "methodologyindependent", and 200\\,{\\mbox{$\\mu$}}{J} lost its micro sign."""
    titles = {r.title for r in _read("biblatex-examples.bib")[0]}
    assert {"The TeXbook", "TeX: The Program"} <= titles, sorted(titles)[:5]
    assert any(t.startswith("Computation of methodology-independent ionic") for t in titles)
    assert not any(t.startswith((": ", "The book")) for t in titles)
    math = [r.title for r in read_bibtex(BIB / "edge-cases" / "bbt-472_math-markup.bib")
            if isinstance(r, SourceRecord)]  # fmt: skip
    assert math[0].startswith("Test Title With 100 μJ, 200 μJ Energy"), math[0]


def test_an_entry_kept_apart_is_named_in_the_summary(tmp_path: Path) -> None:
    """The summary said "1 id conflicts": neither which entry nor what happened (it is kept as
    a paper of its own, sharing a DOI with a paper of another title)."""
    from click.testing import CliRunner

    from litsift.cli.root import main

    bib = BIB / "thesis-psychology_zotero-bbt-export.bib"
    got = CliRunner().invoke(main, ["--home", str(tmp_path / "h"), "ingest", "papers", str(bib)])
    assert "id conflicts" not in got.output
    assert ", 1 kept apart (" in got.output
    assert "entry fiske2018a shares doi:10.4324/9781315187280 with a stored paper of another" in (
        got.output
    )
