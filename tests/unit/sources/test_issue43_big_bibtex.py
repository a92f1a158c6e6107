"""A 200 MB BibTeX file (issue 43, item 8): read a chunk of blocks at a time, whatever its size,
with the same records as one whole read, and progress on stderr while ``--json`` keeps stdout
for the report. The time and memory figures are ``benchmarks/bibtex_ingest.py``'s (docs/
BENCHMARKS.md); here only what makes them hold: chunks, and what one chunk holds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli import sources as cli_sources
from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources import importer
from litsift.sources.base import SourceRecord
from litsift.sources.formats import bibtex_stream
from litsift.sources.formats.bibtex_db import load

BIBTEX = shared_data_dir() / "sources" / "reference-managers" / "bibtex"
#: crossref parents, duplicate keys, entries without a key, macros (BBT issue 873's library)
CROSSREF = BIBTEX / "bbt-873_user-library_crossref_duplicate-keys.bib"


def _blocks(path: Path) -> int:
    return sum(
        1
        for line in path.read_text(encoding="utf-8", errors="replace").split("\n")
        if bibtex_stream._BLOCK_START_RE.match(line.lstrip())
    )


def _items(path: Path, size: int | None) -> tuple[list[str], int, list[int]]:
    """``(repr of every item, chunks read, chunks read when each record came)``."""
    database, unusable = load([path], size)
    assert not unusable
    items, when = [], []
    for _, item in database.records():
        items.append(repr(item))
        if isinstance(item, SourceRecord):
            when.append(database.chunks_read)
    return items, database.chunks_read, when


def test_a_file_of_n_blocks_is_read_in_ceil_n_over_size_chunks_with_the_same_records() -> None:
    whole, chunks, _ = _items(CROSSREF, None)
    assert chunks == 1  # 1,018 blocks: one chunk of the default size
    blocks = _blocks(CROSSREF)
    for size in (7, 250):
        items, chunks, when = _items(CROSSREF, size)
        assert chunks == math.ceil(blocks / size)
        assert items == whole  # crossref parents, 2nd entries of a key, macros: as one read
        assert when[0] == 1 and when == sorted(when)  # records come while the file is read


def test_a_chunk_holds_at_most_size_blocks_and_starts_a_block(tmp_path: Path) -> None:
    text = CROSSREF.read_text(encoding="utf-8")
    path = tmp_path / "x.bib"
    path.write_text(text * 3, encoding="utf-8")
    enc = bibtex_stream.text_encoding(path)
    seen = 0
    for chunk in bibtex_stream.chunks(path, enc, 100):
        assert chunk.blocks <= 100
        assert chunk.first_line == seen
        first = next((line for line in chunk.text.split("\n") if line.strip()), "@")
        assert seen == 0 or first.lstrip().startswith("@")
        seen += chunk.text.count("\n") + 1
    assert seen == (text * 3).rstrip("\n").count("\n") + 1


def test_ingest_json_shows_progress_on_stderr_and_keeps_stdout_for_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bibtex_stream, "CHUNK_BLOCKS", 100)
    monkeypatch.setattr(importer, "PROGRESS_ITEMS", 200)
    monkeypatch.setattr(cli_sources, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(cli_sources, "PROGRESS_EVERY_S_LOGGED", 0.0)
    args = ["--home", str(tmp_path / "home"), "ingest", "papers", "--json", str(CROSSREF)]
    out = CliRunner().invoke(main, args)
    report = json.loads(out.stdout)
    assert report["added"] > 800
    lines = out.stderr.splitlines()
    assert len(lines) >= 4, out.stderr  # 989 items, a line every 200
    assert all(" entries (" in line and "entries/s)" in line for line in lines), lines
    quiet = CliRunner().invoke(main, [*args[:4], "--quiet", *args[4:]])
    assert quiet.stderr == "" and json.loads(quiet.stdout)["added"] == 0


def test_a_writer_that_starts_its_identity_index_afresh_merges_as_one_that_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the writer holds stays bounded (INDEX_RECORDS): duplicates within one import are
    then found in the store's key tables, and merge as before."""
    from litsift.sources import writer
    from litsift.sources.importer import import_paths
    from litsift.store import Store

    files = [CROSSREF]  # 989 records, duplicate keys among them

    def stored(home: Path) -> tuple[tuple[int, int, int], set[tuple[str, str]]]:
        with Store(home / "litsift.sqlite") as store:
            report = import_paths(store, files)
            rows = set(store._conn.execute("SELECT id, title FROM papers"))
        return (report.added, report.merged, len(report.bad)), rows

    whole = stored(tmp_path / "a")
    monkeypatch.setattr(writer, "INDEX_RECORDS", 50)
    assert stored(tmp_path / "b") == whole
    assert whole[0][1] > 0  # the files hold duplicates
