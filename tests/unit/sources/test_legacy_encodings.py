"""Files that are neither UTF-8 nor UTF-16/32: a legacy code page of another script (GBK from
CNKI or NoteExpress, Shift_JIS, Big5, Windows-1251, KOI8-R) is detected and reported; a Western
file (Windows-1252 / Latin-1) reads as it always did. Real files:
``tests/data/imports/wild/`` (origin and licence in its README); real exports of
``../shared/data`` re-encoded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import Notice, SourceRecord, decode_text
from litsift.sources.encodings import legacy_encoding, looks_western, noting_guesses
from litsift.sources.formats.bibtex import read_bibtex
from litsift.sources.formats.ris import read_ris

WILD = Path(__file__).parents[2] / "data" / "imports" / "wild"
GBK = WILD / "bibtexparser_gbk_chinese-author-journal.bib"
RM = shared_data_dir() / "sources" / "reference-managers"
MENDELEY = RM / "bibtex" / "bbt_mendeley-export_duplicate-keys.bib"


def _records(items: object) -> list[SourceRecord]:
    return [r for r in items if isinstance(r, SourceRecord)]  # type: ignore[attr-defined]


def _notices(items: object) -> list[str]:
    return [n.message for n in items if isinstance(n, Notice) and n.message]  # type: ignore[attr-defined]


def test_gbk_bibtex_gives_the_chinese_author_journal_and_key_and_says_so() -> None:
    """python-bibtexparser's ``gbk_test.bib`` (104 bytes of GBK): charset-normalizer alone
    reads it as Korean CP949 (``열힁``); the author is 凯撒 and the journal 测试期刊."""
    items = list(read_bibtex(GBK))
    (record,) = _records(items)
    assert record.authors == ["凯撒"] and record.venue == "测试期刊"
    assert record.source_key == "凯撒2013" and (record.title, record.year) == ("Test Title", 2013)
    (note,) = _notices(items)
    assert note.startswith("not UTF-8: read as GB18030")


def test_gbk_text_decodes_as_gb18030_and_the_guess_is_noted() -> None:
    with noting_guesses() as notes:
        text = decode_text(GBK.read_bytes())
    assert "author = {凯撒}" in text and "journal = {测试期刊}" in text
    assert len(notes) == 1 and "GB18030" in notes[0]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("jabref_windows-1252_degree-sign.bib", "25° C"),
        ("jabref_windows-1252_no-break-space.bib", "Test\xa0I. Last"),
    ],
)
def test_jabref_windows_1252_files_read_as_before_without_a_note(name: str, expected: str) -> None:
    raw = (WILD / name).read_bytes()
    assert legacy_encoding(raw) == "cp1252" and legacy_encoding(raw, "latin-1") == "latin-1"
    with noting_guesses() as notes:
        assert expected in decode_text(raw)
    assert notes == []
    items = list(read_bibtex(WILD / name))
    assert _records(items) and _notices(items) == []


def test_a_real_mendeley_export_in_gb18030_reads_as_its_utf8_original(tmp_path: Path) -> None:
    """Mendeley's BibTeX with Chinese authors and journals (耿秀萍, 海外英语(中旬刊)), written
    the way a Chinese Windows tool writes it: every title, author and venue as in UTF-8."""
    text = MENDELEY.read_bytes().decode("utf-8-sig")
    legacy = tmp_path / "mendeley-gbk.bib"
    legacy.write_bytes(text.encode("gb18030"))
    want = _records(read_bibtex(MENDELEY))
    items = list(read_bibtex(legacy))
    got = _records(items)
    assert [(r.title, r.authors, r.venue) for r in got] == [
        (r.title, r.authors, r.venue) for r in want
    ]
    assert any("耿秀萍" in a for r in got for a in r.authors)
    assert any("GB18030" in n for n in _notices(items))


#: one RIS record per legacy code page (a CNKI / CiNii / eLibrary.ru export's fields)
RECORDS = {
    "cp1251": ("Иванов, Иван Петрович", "О свойствах решений уравнений Навье–Стокса"),
    "koi8_r": ("Иванов, Иван Петрович", "О свойствах решений уравнений Навье-Стокса"),
    "gb18030": ("唐伦", "基于深度信念网络资源需求预测的虚拟网络功能动态迁移算法"),
    "big5": ("王小明", "中文資訊檢索的研究方法"),
    "cp932": ("山田, 太郎", "日本語の文献管理に関する研究"),
}


@pytest.mark.parametrize("codec", sorted(RECORDS))
def test_ris_in_a_legacy_code_page_gives_the_title_and_author_in_their_script(
    tmp_path: Path, codec: str
) -> None:
    author, title = RECORDS[codec]
    ris = tmp_path / f"export-{codec}.ris"
    text = f"TY  - JOUR\r\nAU  - {author}\r\nTI  - {title}\r\nPY  - 2015\r\nER  - \r\n"
    ris.write_bytes(text.encode(codec))
    with noting_guesses() as notes:
        (record,) = _records(read_ris(ris))
    assert (record.title, record.authors[0].replace(",", "")) in {
        (title, author.replace(",", "")),
        (title, " ".join(reversed(author.split(", ")))),
    }
    assert len(notes) == 1


@pytest.mark.parametrize(
    "name",
    [
        "ris/asreview_scopus-export.ris",
        "ris/litstudy_ieee-xplore-export.ris",
        "bibtex/thesis-psychology_zotero-bbt-export.bib",
        "bibtex/bbt-1641_jabref-5.1-groups.bib",
    ],
)
def test_real_western_exports_in_windows_1252_stay_windows_1252(name: str) -> None:
    """The accented names of real exports (Scopus, IEEE, Zotero, JabRef) written as
    Windows-1252, whole and as their first 2,000 bytes: never a guess."""
    raw = (RM / name).read_bytes().decode("utf-8-sig").encode("cp1252", "ignore")
    assert not raw.isascii()
    for part in (raw, raw[:2000]):
        assert looks_western(part.decode("cp1252"))
        assert legacy_encoding(part) == "cp1252"


@pytest.mark.parametrize(
    "text",
    ["Müller, Jürgen", "Kääriäinen, Åsa", "Avaliação da educação", "25° C – “best”…", "JosÃ©"],
)
def test_short_western_text_is_never_sent_to_the_detector(text: str) -> None:
    """charset-normalizer reads ``Müller, Jürgen`` in Latin-1 as UTF-16-LE."""
    assert legacy_encoding(text.encode("cp1252")) == "cp1252"


def _ingest(home: Path, path: Path) -> dict[str, Any]:
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(path), "--json"])
    assert "Traceback" not in out.output
    report: dict[str, Any] = json.loads(out.output[out.output.index("{") :])
    return report


def test_ingest_reports_the_guessed_encoding_as_a_warning(tmp_path: Path) -> None:
    bib = tmp_path / "gbk.bib"
    bib.write_bytes(GBK.read_bytes())
    ris = tmp_path / "export.ris"
    author, title = RECORDS["cp1251"]
    ris.write_bytes(f"TY  - JOUR\nAU  - {author}\nTI  - {title}\nER  - \n".encode("cp1251"))
    for path, codec in ((bib, "GB18030"), (ris, "CP1251")):
        report = _ingest(tmp_path / f"home-{path.suffix[1:]}", path)
        assert report["added"] == 1
        assert [w for w in report["warnings"] if "not UTF-8" in w] == [
            f"{path}: not UTF-8: read as {codec}, the encoding it looks like; "
            "if the text is garbled, re-save the file as UTF-8"
        ]


def test_one_stray_byte_in_a_utf8_export_costs_that_byte_not_every_accent(
    tmp_path: Path,
) -> None:
    """A real Scopus RIS (UTF-8: ``©``, ``η``, en dashes) with one Latin-1 ``é`` typed into a
    title: before, the whole file went to the detector and was read as Windows-1256, so
    ``©`` became ``آ©`` and ``η2`` ``خ·2`` in every record, with only a "may be garbled"
    warning. Now the rest reads as UTF-8, the byte as its Windows-1252 ``é``, and the warning
    counts the bytes."""
    raw = (RM / "ris" / "asreview_scopus-export.ris").read_bytes()
    at = raw.index(b"TI  - ") + 6
    path = tmp_path / "stray.ris"
    path.write_bytes(raw[:at] + b"Caf\xe9 " + raw[at:])
    with noting_guesses() as notes:
        text = decode_text(path.read_bytes())
    assert text == (raw[:at] + "Café ".encode() + raw[at:]).decode("utf-8-sig")
    assert notes == [
        "1 byte not UTF-8 in a UTF-8 file: read as Windows-1252 characters, the rest as UTF-8"
    ]
    home = tmp_path / "home"
    result = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 byte not UTF-8" in result.stderr
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    with LitsiftService(get_paths(home)) as svc:
        stored = " ".join(
            f"{r[0]} {r[1]}" for r in svc.store._conn.execute("SELECT title, abstract FROM papers")
        )
    assert "Café Stress" in stored and "©" in stored and "η2" in stored
    assert "آ" not in stored and "خ" not in stored
