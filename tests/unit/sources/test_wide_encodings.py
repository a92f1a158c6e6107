"""UTF-16 / UTF-32 exports (EndNote's "Unicode", PowerShell's ``>``, Notepad) import like UTF-8.

Each real export of ../shared/data/sources is re-encoded and imported through format detection;
the records must equal those of the original file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord, decode_text
from litsift.sources.formats import registry
from litsift.store.jsonl import wide_encoding

RM = shared_data_dir() / "sources" / "reference-managers"
FILES = (
    "ris/asreview_scopus-export.ris",
    "ris/asreview_baseline_100-records_bom.ris",
    "bibtex/thesis-psychology_zotero-bbt-export.bib",
    "csl-json/thesis-psychology_zotero-csl-json-export.json",
    "database-exports/litstudy_scopus-export.csv",
    "bbt-json/zot-package_betterbibtex-json-library.json",
)
#: (codec name for the bytes, what wide_encoding must report)
ENCODINGS = (
    ("utf-16", "utf-16"),  # BOM, little-endian on this machine
    ("utf-16-be", "utf-16-be"),  # no BOM
    ("utf-16-le", "utf-16-le"),  # no BOM
    ("utf-32", "utf-32"),  # BOM
)


def records(path: Path) -> tuple[str, list[tuple[str, tuple[str, ...], int | None, str]]]:
    fmt = registry.detect(path)
    assert fmt is not None, path
    items = [i for i in fmt.read(path) if isinstance(i, SourceRecord)]
    return fmt.name, [(i.title, tuple(i.authors), i.year, i.abstract) for i in items]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("codec,reported", ENCODINGS)
def test_wide_export_reads_like_utf8(name: str, codec: str, reported: str, tmp_path: Path) -> None:
    original = RM / name
    text = decode_text(original.read_bytes())
    wide = tmp_path / original.name
    wide.write_bytes(text.encode(codec))
    assert wide_encoding(wide.read_bytes()) == reported
    fmt, want = records(original)
    got_fmt, got = records(wide)
    assert got_fmt == fmt and want and got == want


def test_byte_wide_text_is_not_taken_for_utf16() -> None:
    for name in FILES:
        assert wide_encoding((RM / name).read_bytes()) is None, name
    # Latin-1 and binary-ish bytes with a few NULs stay byte-wide
    assert wide_encoding("Müller, Jürgen".encode("latin-1")) is None
    assert wide_encoding(b"%PDF-1.7\x00\x00\x01binary\x00") is None
    assert decode_text("Müller".encode("latin-1")) == "Müller"
    assert decode_text("\ufeffMüller".encode()) == "Müller"
