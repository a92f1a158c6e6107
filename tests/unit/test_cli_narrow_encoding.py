"""litsift where the terminal's encoding is not UTF-8 (a Latin-1 locale, ``LANG=de_DE.ISO-8859-1``;
here ``PYTHONIOENCODING=latin-1``, which sets the same stream encoding). A dash or a CJK title in
the output ended ``search``, ``search --json`` and ``review export`` with "litsift failed
unexpectedly (UnicodeEncodeError ...) -- this is a bug"; the app drew every border as
``\\u2594`` escapes. Now a command writes ``?`` for what the encoding lacks, ``--json`` escapes
it (the same strings again), and the app says what to set instead of drawing garbage."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.terminal.conftest import papers_file, run_litsift

TITLE = "Neural machine translation — “naïve” baselines for 日本語 𝔘"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home of 30 real papers and one whose title Latin-1 cannot write, BM25 built, and a
    review of a record with that title."""
    root = tmp_path_factory.mktemp("latin1")
    rows = papers_file(root, 30).read_text("utf-8")
    odd = {"id": "odd-1", "title": TITLE, "abstract": "Translation.", "year": 2021}
    (root / "papers.jsonl").write_text(rows + json.dumps(odd, ensure_ascii=False) + "\n", "utf-8")
    home = root / "home"
    run_litsift(home, "ingest", "papers", str(root / "papers.jsonl"))
    ris = root / "search.ris"  # a review's search export holding the same title
    ris.write_text(f"TY  - JOUR\nTI  - {TITLE}\nAB  - Translation.\nPY  - 2021\nER  - \n", "utf-8")
    run_litsift(home, "review", "new", "mt", "--from", str(ris))
    run_litsift(home, "search", "--json", "translation")  # builds BM25
    return home


def _latin1(home: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "litsift", *args],
        capture_output=True,
        env={**os.environ, "LITSIFT_HOME": str(home), "PYTHONIOENCODING": "latin-1"},
        check=False,
        timeout=120,
    )


def test_a_table_and_an_export_write_what_latin_1_lacks_as_a_question_mark(home: Path) -> None:
    table = _latin1(home, "search", "naïve baselines neural machine translation", "-k", "3")
    assert table.returncode == 0, table.stderr.decode("latin-1")
    shown = table.stdout.decode("latin-1")
    assert "Neural machine translation ? ?naïve? baselines" in shown, shown
    export = _latin1(home, "review", "export", "mt")
    assert export.returncode == 0, export.stderr.decode("latin-1")
    assert "Neural machine translation ? ?naïve? baselines for ??? ?" in export.stdout.decode(
        "latin-1"
    )


def test_json_escapes_what_latin_1_lacks_and_reads_back_the_same(home: Path) -> None:
    done = _latin1(home, "search", "--json", "naïve baselines neural machine translation")
    assert done.returncode == 0, done.stderr.decode("latin-1")
    hits = json.loads(done.stdout.decode("ascii"))["hits"]
    assert TITLE in [h["title"] for h in hits]


def test_the_app_asks_for_a_utf_8_terminal_instead_of_drawing_escapes(home: Path) -> None:
    """In a real pseudo-terminal whose program's encoding is Latin-1."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "litsift"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "LITSIFT_HOME": str(home), "PYTHONIOENCODING": "latin-1"},
    )
    os.close(slave)
    try:
        proc.wait(timeout=30)  # the old app drew escapes and waited for keys
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    time.sleep(0.1)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side is closed and everything was read
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    text = shown.decode("latin-1")
    assert proc.returncode == 1, text
    assert "error: the app draws with Unicode characters, and this terminal's encoding is " in text
    assert "LANG=C.UTF-8" in text and "\\u2594" not in text and "\x1b[?1049h" not in text, text
