"""A file that names its encoding is read in it: JabRef's ``% Encoding: NAME`` line atop a
``.bib`` (Java's names too: ``Cp1250``, ``ISO8859_2``, ``MacRoman``, ``x-MacRoman``), an XML
declaration's ``encoding="windows-1250"`` in the records after a break. Before, such a file
went to the detector, which reads short Czech, Polish and Turkish text and Mac Roman as
Windows-1252 (``Ondøej`` for ``Ondřej``, ``ƒmile`` for ``Émile``).

No real JabRef file in a Central European, Turkish or Mac code page was found in public
repositories (the code search does not index ``.bib`` files), so these tests take a real
JabRef 5.1 file (``bbt-1641_jabref-5.1-groups.bib`` of ``../shared/data``: ``% Encoding:
UTF-8``, ``@Comment{jabref-meta: ...}`` groups, ``Émile Zola``), put in real entries with
Czech, Polish and Turkish names (ACL Anthology's WMT19 paper by Ondřej Bojar, Mendeley's
record of Ewa Klęczaj-Siara, a Scopus reference to Özoğul et al.), set the encoding line
to the code page's name as JabRef writes it, and re-encode the file in that code page. The
real JabRef Windows-1252 file of ``tests/data/imports/wild/`` is read as it declares.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.base import Notice, SourceRecord, decode_text
from litsift.sources.encodings import (
    codec_name,
    declared_encoding,
    noting_guesses,
    xml_declared_encoding,
)
from litsift.sources.formats import registry
from litsift.sources.formats.bibtex import read_bibtex
from litsift.sources.formats.bibtex_stream import text_encoding

TESTS = Path(__file__).parents[2]
WILD = TESTS / "data" / "imports" / "wild"
ENDNOTE = TESTS / "data" / "imports" / "endnote-xml" / "jabref_endnote15_3-records.xml"
BIBTEX = shared_data_dir() / "sources" / "reference-managers" / "bibtex"
JABREF51 = BIBTEX / "bbt-1641_jabref-5.1-groups.bib"
ACL = BIBTEX / "thesis-nlp_acl-anthology-heavy.bib"
MENDELEY = BIBTEX / "bbt_mendeley-export_duplicate-keys.bib"

#: the reference of ``asreview_scopus-export.ris`` (line 892), as a BibTeX entry
TURKISH = """@Article{Ozogul2012,
  author  = {Özoğul, F. and Kuley, E. and Özoğul, Y. and Özoğul, İ.},
  title   = {The function of lactic acid bacteria on biogenic amines production by food-borne
             pathogens in arginine decarboxylase broth},
  journal = {Food Sci Technol Res},
  year    = {2012},
  volume  = {18},
  number  = {6},
  pages   = {795--804},
}
"""


def _entry(path: Path, marker: str) -> str:
    """The entry of the real file ``path`` that holds ``marker``."""
    text = path.read_text(encoding="utf-8-sig")
    (entry,) = [b for b in re.split(r"\n(?=@)", text) if marker in b]
    return entry.strip() + "\n"


def _czech_polish() -> str:
    return _entry(ACL, "WMT19-metrics-proceedings,") + "\n" + _entry(MENDELEY, "Klęczaj-Siara")


def _jabref_file(tmp_path: Path, name: str, codec: str, entries: str) -> tuple[Path, Path]:
    """The real JabRef 5.1 file with ``entries`` put first, as UTF-8 and in ``codec`` with
    ``% Encoding: name``."""
    text = JABREF51.read_text(encoding="utf-8")
    assert text.startswith("% Encoding: UTF-8\n\n")
    body = entries + "\n" + text.removeprefix("% Encoding: UTF-8\n\n")
    utf8 = tmp_path / "utf8.bib"
    utf8.write_text("% Encoding: UTF-8\n\n" + body, encoding="utf-8")
    legacy = tmp_path / f"{codec}.bib"
    legacy.write_bytes(f"% Encoding: {name}\n\n{body}".encode(codec))
    return utf8, legacy


def _read(path: Path) -> tuple[list[tuple[str, list[str], str]], list[str]]:
    items = list(read_bibtex(path))
    records = [(r.title, r.authors, r.venue) for r in items if isinstance(r, SourceRecord)]
    return records, [n.message for n in items if isinstance(n, Notice) and n.message]


@pytest.mark.parametrize(
    ("name", "codec", "entries", "expected"),
    [
        ("windows-1250", "cp1250", _czech_polish(), ["Ondřej Bojar", "Ewa Klęczaj-Siara"]),
        ("Cp1250", "cp1250", _czech_polish(), ["Ondřej Bojar", "Ewa Klęczaj-Siara"]),
        ("ISO8859_2", "iso8859_2", _entry(ACL, "WMT19-metrics-proceedings,"), ["Ondřej Bojar"]),
        ("windows-1254", "cp1254", TURKISH, ["F. Özoğul", "İ. Özoğul"]),
        ("x-MacRoman", "mac_roman", "", []),
        ("MacRoman", "mac_roman", "", []),
    ],
)
def test_a_jabref_bib_in_the_code_page_it_names_reads_as_its_utf8_original(
    tmp_path: Path, name: str, codec: str, entries: str, expected: list[str]
) -> None:
    """The old detector read each of these as Windows-1252 (Latin-1 for a ``.bib``):
    ``Ondøej``, ``Klêczaj``, ``Özoðul``, ``ƒmile Zola``. Named, nothing is guessed."""
    utf8, legacy = _jabref_file(tmp_path, name, codec, entries)
    assert not legacy.read_bytes().isascii()
    want, _ = _read(utf8)
    got, notices = _read(legacy)
    assert got == want and notices == []
    authors = [a for _, names, _ in got for a in names]
    assert all(a in authors for a in expected)
    assert any(
        "Émile Zola" in r.abstract for r in read_bibtex(legacy) if isinstance(r, SourceRecord)
    )


@pytest.mark.parametrize(
    ("name", "codec", "author"),
    [
        ("windows-1250", "cp1250", "Dvořák, Antonín"),
        ("windows-1250", "cp1250", "Łukasiewicz, Jan"),
        ("windows-1254", "cp1254", "Çöltekin, Çağrı"),
        ("windows-1253", "cp1253", "Παπαδόπουλος, Γιώργος"),
        ("ISO8859_7", "iso8859_7", "Παπαδόπουλος, Γιώργος"),
        ("x-MacCentralEurope", "mac_latin2", "Dvořák, Antonín"),
    ],
)
def test_one_short_name_in_a_named_code_page(
    tmp_path: Path, name: str, codec: str, author: str
) -> None:
    """The known misses of the detector, one name each (constructed, under the real JabRef
    header line): Czech and Polish as Windows-1252, Greek as Windows-1251."""
    path = tmp_path / "short.bib"
    entry = f"@Article{{k,\n  author = {{{author}}},\n  title = {{T}},\n  year = {{2001}},\n}}\n"
    path.write_bytes(f"% Encoding: {name}\n\n{entry}".encode(codec))
    assert text_encoding(path) == (codec_name(name), "replace")
    got, notices = _read(path)
    family, given = author.split(", ")
    assert got[0][1] == [f"{given} {family}"] and notices == []


def test_the_real_jabref_windows_1252_file_is_read_as_it_declares() -> None:
    path = WILD / "jabref_windows-1252_degree-sign.bib"
    assert declared_encoding(path.read_bytes()) == "cp1252"
    assert text_encoding(path) == ("cp1252", "replace")


@pytest.mark.parametrize(
    ("head", "why"),
    [
        (b"% Encoding: windows-1250\n\n@Article{k, author = {Dvo\xc5\x99\xc3\xa1k}}\n", "utf-8"),
        (b"% Encoding: US-ASCII\n\n@Article{k, author = {M\xfcller}}\n", "does not decode"),
        (b"% Encoding: x-Klingon\n\n@Article{k, author = {M\xfcller}}\n", "unknown name"),
        (b"@Article{k, author = {M\xfcller}}\n% Encoding: cp1250\n", "not at the top"),
    ],
)
def test_the_line_gives_way_to_the_bytes(tmp_path: Path, head: bytes, why: str) -> None:
    """Valid UTF-8 stays UTF-8 (a line left from before the file was converted); a name
    the bytes do not decode in, or one Python does not know, leaves the file to the
    detector (Latin-1 for this Western ``.bib``)."""
    path = tmp_path / "x.bib"
    path.write_bytes(head)
    enc, _ = text_encoding(path)
    assert enc == ("utf-8-sig" if why == "utf-8" else "latin-1"), why
    with noting_guesses() as notes:
        text = decode_text(head, declared=declared_encoding(head))
    assert ("Dvořák" if why == "utf-8" else "Müller") in text and notes == []


@pytest.mark.parametrize(
    ("name", "codec"),
    [
        ("windows-1250", "cp1250"),
        ("Cp1250", "cp1250"),
        ("ISO8859_2", "iso8859-2"),
        ("ISO-8859-2", "iso8859-2"),
        ("MacRoman", "mac-roman"),
        ("x-MacRoman", "mac-roman"),
        ("x-MacCentralEurope", "mac-latin2"),
        ("windows-31j", "cp932"),
        ("x-windows-949", "cp949"),
        ("GBK", "gbk"),
        ("UTF-8", None),
        ("UTF8", None),
        ("UTF-16BE", None),
        ("base64", None),
        ("x-Klingon", None),
    ],
)
def test_java_and_iana_charset_names(name: str, codec: str | None) -> None:
    assert codec_name(name) == codec


def test_the_encoding_line_after_jabref_2s_signature_and_before_an_at() -> None:
    """JabRef 2 put its signature first (``% This file was created with JabRef 2.10.``);
    JabRef's own tests have the line run into ``@preamble``."""
    assert (
        declared_encoding(
            b"% This file was created with JabRef 2.10.\r\n% Encoding: Cp1250\r\n\r\n@ARTICLE{x,"
        )
        == "cp1250"
    )
    assert declared_encoding(b"\xef\xbb\xbf% Encoding: ISO8859_7@preamble{x}") == "iso8859-7"
    assert declared_encoding(b"% Encoding: UTF-8\n\n@Article{x,") is None


def test_a_broken_xml_file_reads_its_later_records_in_the_declared_encoding(
    tmp_path: Path,
) -> None:
    """A real EndNote XML export declared ``windows-1250``, with a bare ``&`` in record 2
    and a Czech title in record 3: lxml reads record 1 by the declaration; after the break
    the file is cut into pieces decoded in Python, which now read the declaration too
    (before: the detector, ``Dvoøák``)."""
    text = ENDNOTE.read_text(encoding="utf-8")
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    text = text.replace('encoding="UTF-8"', 'encoding="windows-1250"', 1)
    text = text.replace("soil temperatures in", "soil temperatures & in", 1)
    text = text.replace("A demographic study", "Dvořák: a demographic study", 1)
    path = tmp_path / "endnote-1250.xml"
    path.write_bytes(text.encode("cp1250"))
    assert xml_declared_encoding(path.read_bytes()) == "cp1250"
    fmt = registry.get("endnote-xml")
    items = list(fmt.read(path))
    assert [type(i).__name__ for i in items] == ["SourceRecord", "BadItem", "SourceRecord"]
    last = items[2]
    assert isinstance(last, SourceRecord) and last.title.startswith("Dvořák: a demographic")
