"""Zotero (zotero.sqlite, data directory, Better BibTeX JSON) and CSL-JSON importers on the
real files of ../shared/data/sources/reference-managers."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.errors import IngestError
from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.formats import registry
from litsift.sources.formats.zotero import read_zotero

RM = shared_data_dir() / "sources" / "reference-managers"
ZOTERO9 = RM / "zotero-sqlite" / "better-bibtex-test-profile_zotero9_54items.sqlite"
ZOTERO6 = RM / "zotero-sqlite" / "papis-zotero_zotero6_5items.sqlite"
COUNTS = {  # regular items per file (README; the BBT JSON's 244 items include 2 attachments;
    # 5 of the Zotero 9 file's 54 sit in an RSS feed library (podcast episodes): not imported)
    "zotero-sqlite/better-bibtex-test-profile_zotero9_54items.sqlite": ("zotero", 49),
    "zotero-sqlite/papis-zotero_zotero6_5items.sqlite": ("zotero", 5),
    "bbt-json/zot-package_betterbibtex-json-library.json": ("bbt-json", 242),
    "csl-json/bbt-1400_better-csl-json.json": ("csl-json", 26),
    "csl-json/bbt-811_better-csl-json_dates.json": ("csl-json", 15),
    "csl-json/deep-review_manubot-csl-items.json": ("csl-json", 602),
    "csl-json/thesis-psychology_zotero-csl-json-export.json": ("csl-json", 646),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_every_item_is_read(name: str) -> None:
    fmt_name, count = COUNTS[name]
    fmt = registry.detect(RM / name)
    assert fmt is not None and fmt.name == fmt_name
    items = list(fmt.read(RM / name))
    assert len(items) == count and all(isinstance(i, SourceRecord) for i in items)


def test_zotero_fields_notes_and_attachments() -> None:
    z6 = [i for i in read_zotero(ZOTERO6) if isinstance(i, SourceRecord)]
    first = z6[0]
    assert first.title.startswith("Efficient spherical harmonic transforms")
    assert first.authors == ["Nathanaël Schaeffer"] and first.year == 2013
    assert first.ids == {"doi": "10.1002/ggge.20071"}
    assert sum(1 for r in z6 if r.attachments) == 4  # the 4 PDF attachments (files not included)
    assert all(str(p).endswith(".pdf") for r in z6 for p in r.attachments)
    z9 = [i for i in read_zotero(ZOTERO9) if isinstance(i, SourceRecord)]
    assert sum(1 for r in z9 if r.notes) == 48 and z9[0].authors == ["Saharon Shelah"]
    assert not any("The Apology Line" in r.title for r in z9)  # the feed's episodes


def test_zotero_data_directory_and_a_locked_database(tmp_path: Path) -> None:
    data_dir = tmp_path / "Zotero"
    data_dir.mkdir()
    shutil.copy(ZOTERO6, data_dir / "zotero.sqlite")
    locker = sqlite3.connect(data_dir / "zotero.sqlite")
    locker.execute("BEGIN EXCLUSIVE")  # Zotero running holds its database like this
    try:
        fmt = registry.detect(data_dir)
        assert fmt is not None and fmt.name == "zotero-dir"
        records = list(fmt.read(data_dir))
    finally:
        locker.rollback()
        locker.close()
    assert len(records) == 5
    pdfs = [p for r in records if isinstance(r, SourceRecord) for p in r.attachments]
    assert all(str(p).startswith(str(data_dir / "storage")) for p in pdfs)


def test_bbt_json_collections_and_tags() -> None:
    items = [
        i
        for i in registry.get("bbt-json").read(
            RM / "bbt-json/zot-package_betterbibtex-json-library.json"
        )
    ]
    records = [i for i in items if isinstance(i, SourceRecord)]
    assert sum(1 for r in records if r.collections) == 123
    assert any("/" in c for r in records for c in r.collections)  # nested collections
    assert records[0].tags[:2] == ["Family support", "Formative evaluation"]


def test_a_broken_gzip_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "library.bib.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + b"not deflate data at all" * 4)
    from litsift.sources.formats.bibtex import read_bibtex

    with pytest.raises(IngestError, match="broken gzip"):
        list(read_bibtex(bad))


def test_not_zotero(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(IngestError, match="not Zotero"):
        list(read_zotero(other))


def test_cli_imports_a_zotero_library_with_its_collections(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = CliRunner().invoke(
        main, ["--home", str(home), "ingest", "papers", str(ZOTERO9), "--json"]
    )
    assert out.exit_code == 0, out.output
    assert '"added": 49' in out.output
    again = CliRunner().invoke(
        main, ["--home", str(home), "ingest", "papers", str(ZOTERO9), "--json"]
    )
    assert '"unchanged": 49' in again.output and '"added": 0' in again.output


def test_changes_still_in_the_write_ahead_log_are_read(tmp_path: Path) -> None:
    # A running Zotero in WAL mode: an edit and a new title sit in zotero.sqlite-wal until the
    # next checkpoint; reading the main file alone would import the old title.
    db = tmp_path / "zotero.sqlite"
    shutil.copy(ZOTERO6, db)
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        before = [i.title for i in read_zotero(db) if isinstance(i, SourceRecord)]
        writer.execute(
            "UPDATE itemDataValues SET value = 'Edited while Zotero runs' WHERE value = ?",
            (before[0],),
        )
        writer.commit()
        wal = tmp_path / "zotero.sqlite-wal"
        assert wal.stat().st_size > 0  # the edit is only in the log
        after = [i.title for i in read_zotero(db) if isinstance(i, SourceRecord)]
        assert after[0] == "Edited while Zotero runs" and after[1:] == before[1:]
        assert wal.stat().st_size > 0 and sorted(p.name for p in tmp_path.iterdir()) == [
            "zotero.sqlite",
            "zotero.sqlite-shm",
            "zotero.sqlite-wal",
        ]  # the originals untouched, no copies left behind
    finally:
        writer.close()


def test_csl_names_keep_their_particles_in_reading_order() -> None:
    """A real Zotero CSL-JSON export of a psychology thesis names 10 authors with a particle
    ("family": "Kuilen", "given": "Gijs", "non-dropping-particle": "van de"): they were stored
    as "Gijs Kuilen". Now the name reads as written, and its family name keeps the particle."""
    from litsift.sources.formats.csl_json import read_csl_json

    path = (
        shared_data_dir() / "sources" / "reference-managers" / "csl-json"
        / "thesis-psychology_zotero-csl-json-export.json"
    )  # fmt: skip
    records = [r for r in read_csl_json(path) if not hasattr(r, "reason")]
    authors = {a for r in records for a in r.authors}
    assert "Gijs van de Kuilen" in authors and "Gijs Kuilen" not in authors
    with_particle = [
        (a, f) for r in records for a, f in zip(r.authors, r.family_names, strict=True)
        if " van de" in f" {f}" or f.startswith(("de ", "van der "))
    ]  # fmt: skip
    assert len({a for a, _ in with_particle}) >= 5, with_particle


def test_a_csl_literal_name_is_its_own_family_name(tmp_path: Path) -> None:
    """A CSL ``literal`` (an organisation) is stored as a BibTeX ``{Org Name}`` is: its family
    name was its last word ("University", "USA"), what author search and dedup keys read."""
    from litsift.sources.formats.csl_json import read_csl_json

    path = tmp_path / "org.json"
    path.write_text(
        '[{"id": "a", "title": "Digital platforms", "author": [{"literal": "Paderborn '
        'University"}, {"family": "Beverungen", "given": "Daniel"}]}]',
        "utf-8",
    )
    (record,) = read_csl_json(path)
    assert isinstance(record, SourceRecord)
    assert record.authors == ["Paderborn University", "Daniel Beverungen"]
    assert record.family_names == ["Paderborn University", "Beverungen"]
    assert record.name_parts == [("Paderborn University", ""), ("Beverungen", "Daniel")]
    real = [r for r in read_csl_json(RM / "csl-json" / "bbt-1400_better-csl-json.json")]
    timed = [r for r in real if isinstance(r, SourceRecord) and r.authors == ["TIME USA"]]
    assert timed and all(r.family_names == ["TIME USA"] for r in timed)
