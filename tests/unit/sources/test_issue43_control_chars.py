"""Issue 43: a bad byte costs only its record. One NUL in one BibTeX title rejected the whole
file ("binary data", every entry lost) while RIS stored the NUL inside the title. Now a file
is binary only when it really is (many NULs / control bytes), and no control character (C0
but tab / line feed / carriage return, DEL, C1) reaches the store in any format: the writer
removes it from the record's text and warns at the record's location.

The files are real exports of ``../shared/data/sources`` (see its README) and of
``tests/data/imports`` with ONE control character inserted by each test, as it says.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import looks_binary
from litsift.store.repo import Store

RM = shared_data_dir() / "sources" / "reference-managers"
BIB = RM / "bibtex" / "paper_acl-anthology-entries.bib"
RIS = RM / "ris" / "asreview_scopus-export.ris"
CSL = RM / "csl-json" / "deep-review_manubot-csl-items.json"
REFER = Path(__file__).parents[2] / "data" / "imports" / "refer" / "colrev_ais-elibrary_enl.txt"


def _insert(src: Path, dest: Path, after: bytes, extra: bytes) -> Path:
    """``src`` with ``extra`` put 5 bytes into the first value after ``after``."""
    raw = src.read_bytes()
    at = raw.index(after) + len(after) + 5
    dest.write_bytes(raw[:at] + extra + raw[at:])
    return dest


def _ingest(home: Path, path: Path) -> tuple[dict[str, object], list[str]]:
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "papers", str(path), "--json"])
    assert "Traceback" not in out.output
    with Store(home / "data" / "litsift.sqlite") as store:
        rows = store._conn.execute("SELECT title, abstract, authors, venue FROM papers")
        texts = [" ".join(str(v) for v in row) for row in rows]
    return {"exit": out.exit_code, **json.loads(out.output)}, texts


def _no_controls(texts: list[str]) -> bool:
    return not any(ch in t for t in texts for ch in ("\x00", "\x01", "\x90", "\x1b"))


def test_one_nul_in_a_bibtex_title_costs_nothing_but_a_warning(tmp_path: Path) -> None:
    """Before: 'not bibtex ...: it holds binary data', 0 of 47 entries read."""
    bib = _insert(BIB, tmp_path / "acl.bib", b"title={", b"\x00")
    report, texts = _ingest(tmp_path / "home", bib)
    assert report["exit"] == 0 and report["bad"] == [], report["bad"]
    assert report["added"] == 47
    assert report["warnings"] == [
        f"{bib}:entry gu2021efficiently: control characters removed from title"
    ]
    assert "Efficiently Modeling Long Sequences with Structured State Spaces" in " ".join(texts)
    assert _no_controls(texts)


def test_a_nul_in_a_ris_title_never_reaches_the_store(tmp_path: Path) -> None:
    """Before: the title was stored with the NUL inside it, and no warning."""
    ris = _insert(RIS, tmp_path / "scopus.ris", b"TI  - ", b"\x00")
    report, texts = _ingest(tmp_path / "home", ris)
    assert report["exit"] == 0 and report["added"] == 6
    assert report["warnings"] == [f"{ris}:record 1: control characters removed from title"]
    assert _no_controls(texts)


def test_escaped_controls_in_csl_json_and_c1_in_refer_are_removed(tmp_path: Path) -> None:
    """JSON's ``\\u0000`` escape (in a title) and a C1 DCS (U+0090, in an abstract of an
    EndNote refer file) are controls too: removed, one warning for each record."""
    csl = _insert(CSL, tmp_path / "items.json", b'"title": "', b"\\u0000\\u001b")
    report, texts = _ingest(tmp_path / "csl", csl)
    assert report["exit"] == 0 and report["bad"] == []
    assert [w.split(": ", 1)[1] for w in report["warnings"]] == [  # type: ignore[union-attr]
        "control characters removed from title"
    ]
    assert _no_controls(texts)
    refer = _insert(REFER, tmp_path / "ais.txt", b"%X ", "\x90".encode())
    report, texts = _ingest(tmp_path / "refer", refer)
    assert report["added"] == 6
    assert report["warnings"] == [f"{refer}:line 1: control characters removed from abstract"]
    assert _no_controls(texts)


def test_binary_means_mostly_not_text() -> None:
    text = BIB.read_bytes()
    assert not looks_binary(text[:100] + b"\x00" + text[100:])
    assert looks_binary(b"\x00\x01\x02\x03" * 500 + text)
    assert looks_binary(
        Path(__file__)
        .parents[2]
        .joinpath("data", "imports", "truncation", "meta-review_thumbnail.png")
        .read_bytes()
    )


def test_escape_sequences_in_a_bibtex_title_leave_no_remnants(tmp_path: Path) -> None:
    """An OSC 8 hyperlink and a CSI in a title: LaTeX decoding ran first and read the link's
    ending ``ESC \\`` as a command, so "8;;http://x8;;" and "1m" stayed in the stored title.
    Now the sequences are removed whole, the link's text kept, and the record warned about."""
    bib = _insert(
        BIB, tmp_path / "acl.bib", b"title={", b"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b[1m"
    )
    report, texts = _ingest(tmp_path / "home", bib)
    assert report["exit"] == 0 and report["added"] == 47
    assert report["warnings"] == [
        f"{bib}:entry gu2021efficiently: control characters removed from title"
    ]
    title = next(t for t in texts if "Structured State Spaces" in t)
    assert "8;;" not in title and "http://x" not in title and "1m" not in title, title
    assert "link" in title
    assert _no_controls(texts)
