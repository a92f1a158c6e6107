"""Tagged exports (MEDLINE / ERIC ``.nbib``, RIS) as writers other than PubMed and Zotero write
them: tags padded otherwise, longer tags, a last line without its break, ``A1`` beside ``AU``,
subject headings with their database's marks.

Files: ``tests/data/imports/wild/`` (CoLRev's anonymised ERIC and APA PsycInfo exports; origin
and licence in its README) and ``tests/data/imports/ris-medline/`` (PubMed's and Ovid's own
exports); a variant of one is written to ``tmp_path`` as the writer named in each test writes
it.
"""

from __future__ import annotations

import re
from pathlib import Path

from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.endnote_xml import read_endnote_xml
from litsift.sources.formats.medline import read_medline
from litsift.sources.formats.ris import read_ris
from litsift.sources.formats.subject_terms import subject_heading

DATA = Path(__file__).parents[2] / "data" / "imports"
WILD = DATA / "wild"
NBIB = DATA / "ris-medline" / "telemonitoring_pubmed_7-records.nbib"


def _records(items: object) -> list[SourceRecord]:
    return [r for r in items if isinstance(r, SourceRecord)]  # type: ignore[attr-defined]


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")


def test_eric_isbn_and_issn_lines_do_not_run_into_the_abstract() -> None:
    """ERIC pads its four-letter tags with a space (``ISSN - ISSN-1234-4567``, ``ISBN -
    ...``): the line was read as more abstract, so every ERIC abstract ended in "ISSN -
    ISSN-..."."""
    (record,) = _records(read_medline(WILD / "colrev_eric-nbib.nbib"))
    assert record.abstract == "Abstract ..."
    assert record.tags == ["Keyword 1", "Keyword 2"]


def test_medline_tags_padded_with_two_spaces_are_read(tmp_path: Path) -> None:
    """Some writers pad every tag with two spaces (``PMID  - 21730035``, ``AID  - ...``, as
    bibliograpy's MEDLINE reader notes): the file was not even detected as MEDLINE, and its
    ``PMID``/``FAU``/``AID`` lines ran on into the field above."""
    padded = re.sub(r"^([A-Z][A-Z0-9]{1,3}) *- ", r"\1  - ", _text(NBIB), flags=re.M)
    assert "PMID  - " in padded and "FAU  - " in padded
    path = tmp_path / "padded.nbib"
    path.write_text(padded, encoding="utf-8")
    assert registry.detect(path) is registry.get("medline")
    assert _records(read_medline(path)) == _records(read_medline(NBIB))


def test_a_pubmed_file_without_its_last_line_break_keeps_its_last_record(
    tmp_path: Path,
) -> None:
    """A record copied out of PubMed's page, or a file written without a final line break,
    ends on its whole ``SO`` line: the last record was reported as cut and dropped. A file cut
    inside that line is still reported."""
    text = _text(NBIB).rstrip("\n")
    path = tmp_path / "no-break.nbib"
    path.write_text(text, encoding="utf-8")
    items = list(read_medline(path))
    assert _records(items) == _records(read_medline(NBIB)) and len(items) == 7
    path.write_text(text[: text.rindex(";24(3)")], encoding="utf-8")  # "...2024 Jan 31"
    items = list(read_medline(path))
    assert len(_records(items)) == 6
    (cut,) = [i for i in items if isinstance(i, BadItem)]
    assert cut.reason.startswith("record cut short")


def test_apa_psycinfo_ris_long_tags_keep_the_type_and_give_the_pubmed_id() -> None:
    """APA PsycInfo writes ``PMID  - 33355555`` right after ``TY  - JOUR`` (and
    ``DESCRIPTORS  - ...`` elsewhere): the line ran on into ``TY``, so the record lost its
    type, and the PubMed id was not read. Its ``*`` major-topic keywords are tags without the
    mark."""
    (record,) = _records(read_ris(WILD / "colrev_apa-psycinfo-ris_long-tags.ris"))
    assert record.biblio["type"] == "article-journal"
    assert record.ids == {"doi": "10.1011/hea0004444", "pmid": "33355555"}
    assert record.tags[0] == "Keyword one" and record.tags[-1] == "Keyword eight without asterisk"
    assert len(record.authors) == 5 and record.title == "Primary Title"


def test_an_ris_first_author_under_a1_and_the_others_under_au_are_all_authors(
    tmp_path: Path,
) -> None:
    """A record may name its first author ``A1`` and the others ``AU`` (Zotero's RIS import
    reads both, in that order): the ``A1`` author was dropped."""
    source = DATA / "ris-medline" / "telemonitoring_embase-export_13-records.ris"
    lines = _text(source).split("\n")  # Embase names every author A1: all but the first AU
    mixed = "\n".join(
        "AU" + line[2:] if line.startswith("A1") and lines[n - 1].startswith("A") else line
        for n, line in enumerate(lines)
    )
    assert mixed.count("A1  - ") == 13 and mixed.count("AU  - ") > 13
    path = tmp_path / "mixed.ris"
    path.write_text(mixed, encoding="utf-8")
    assert [r.authors for r in _records(read_ris(path))] == [
        r.authors for r in _records(read_ris(source))
    ]


def test_subject_headings_lose_their_marks_and_author_keywords_keep_their_slash() -> None:
    """NLM's marks as exports carry them (Zotero's RIS of PubMed items, Cochrane CENTRAL,
    Embase, PsycInfo) are removed; a keyword's own slash is no subheading."""
    assert subject_heading("*Phytotherapy/adverse effects") == "Phytotherapy"
    assert subject_heading("Plant Extracts/adverse effects/*therapeutic use") == "Plant Extracts"
    assert subject_heading("Conduct Disorder [*prevention & control, psychology]") == (
        "Conduct Disorder"
    )
    assert subject_heading(" *school health service") == "school health service"
    for keyword in ("HIV/AIDS", "client/server", "input/output", "Neural networks [cs.LG]"):
        assert subject_heading(keyword) == keyword


def test_endnote_xml_keywords_with_a_slash_of_their_own_are_kept(tmp_path: Path) -> None:
    """EndNote XML cut every keyword at a slash before lower-case words, as if a MeSH
    subheading followed: ``client/server`` became "client". The Bookends export's MeSH
    headings (``Neoplasms/*epidemiology``) still lose their subheadings."""
    source = DATA / "endnote-xml" / "jabref_bookends_pdf-urls.xml"
    text = _text(source).replace(">Age Factors<", ">client/server<", 1)
    path = tmp_path / "keywords.xml"
    path.write_text(text, encoding="utf-8")
    tags = [t for r in _records(read_endnote_xml(path)) for t in r.tags]
    assert "client/server" in tags and "Neoplasms" in tags
    assert not any(t.startswith("Neoplasms/") or "*" in t for t in tags)


def test_pubmed_author_keywords_keep_their_own_slash(tmp_path: Path) -> None:
    """``OT`` lines are the authors' keywords, not MeSH: ``OT  - HIV/AIDS`` came in as "HIV"
    (the ``MH`` rule cut every ``OT`` at its first slash)."""
    text = _text(NBIB).replace("OT  - AI\n", "OT  - AI/ML\nOT  - HIV/AIDS\n", 1)
    path = tmp_path / "ot.nbib"
    path.write_text(text, encoding="utf-8")
    tags = [t for r in _records(read_medline(path)) for t in r.tags]
    assert {"AI/ML", "HIV/AIDS", "clinical-decision support system"} <= set(tags)
