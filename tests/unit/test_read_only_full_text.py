"""A read-only home with full text (issue 43, item B): the passage index is searched from a
private copy of its tantivy files, as the paper index is, and ``litsift index --check`` checks
every file without writing.

Was: search said "the passage index is damaged: Failed to acquire Lockfile ... Read-only file
system", advised ``litsift index`` (which cannot run there) and left full text out; ``index
--check`` exited 1 with "cannot be written". Real mounts and permission bits, as in
``test_environment_faults.py`` (each case skips where the machine forbids it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.types import Kind
from tests.conftest import PAPERS_GZ, copy_home, read_jsonl_gz
from tests.unit.test_environment_faults import (
    assert_no_bug_no_loss,
    litsift,
    read_only_view,
    told,
    unwritable,
)

TEI = shared_data_dir() / "sources" / "fulltext" / "grobid-tei"
#: a question the SPECTER paper's body answers
QUERY = "citation-informed transformers document embeddings"


@pytest.fixture(scope="module")
def fulltext_home(tmp_path_factory: pytest.TempPathFactory, encoder) -> Path:  # type: ignore[no-untyped-def]
    """20 papers of the shared sample and one GROBID TEI paper, with every index built."""
    root = tmp_path_factory.mktemp("rofull")
    src = root / "papers.jsonl"
    rows = read_jsonl_gz(PAPERS_GZ)[:20]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with LitsiftService(get_paths(root / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        assert not svc.sources.import_paths(Kind.PAPER, [TEI]).bad
        svc.build_index(Kind.PAPER)
        assert svc.build_passages().passages > 10
    return root / "home"


def _says_no_damage(done) -> None:  # type: ignore[no-untyped-def]
    out = told(done).lower()
    assert_no_bug_no_loss(done)
    assert "damaged" not in out and "lockfile" not in out and "rebuild" not in out, out


def test_read_only_mount_searches_full_text_and_checks_without_writing(
    fulltext_home: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    copy_home(fulltext_home, home)
    writable = litsift(home, "search", QUERY, "-k", "5", "--json")
    assert "passages" in json.loads(writable.stdout)["signals_used"], told(writable)
    before = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    with read_only_view(home, tmp_path / "ro") as view:
        found = litsift(view, "search", QUERY, "-k", "5", "--json")
        check = litsift(view, "index", "papers", "--check", "--quiet")
    _says_no_damage(found)
    result = json.loads(found.stdout)
    assert result["signals_used"] == ["bm25", "dense", "passages"], told(found)
    assert result["partial"] is None
    assert [h["id"] for h in result["hits"]] == [
        h["id"] for h in json.loads(writable.stdout)["hits"]
    ]
    _says_no_damage(check)
    assert check.returncode == 0, told(check)
    assert "papers: every index file matches its checksum" in check.stdout
    assert "full text: every index file matches its checksum" in check.stdout
    assert "checked, nothing rebuilt" in check.stderr
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == before


def test_read_only_check_names_real_damage_and_writes_nothing(
    fulltext_home: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    copy_home(fulltext_home, home)
    dense = home / "data" / "indexes" / "passages" / "dense.bin"
    data = bytearray(dense.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, another checksum
    dense.write_bytes(bytes(data))
    with read_only_view(home, tmp_path / "ro") as view:
        check = litsift(view, "index", "papers", "--check", "--quiet")
    assert_no_bug_no_loss(check)
    assert check.returncode == 1, told(check)
    assert "full text: damaged: dense.bin" in check.stderr, told(check)
    assert "error:" not in check.stderr  # checked, not refused
    assert dense.read_bytes() == bytes(data)


def test_unwritable_directory_searches_full_text_as_a_user_bound_by_permissions(
    fulltext_home: Path, tmp_path: Path
) -> None:
    copy_home(fulltext_home, tmp_path / "home")
    with unwritable(tmp_path / "home") as home:
        found = litsift(home, "search", QUERY, "-k", "5", "--json", drop_dac=True)
        check = litsift(home, "index", "papers", "--check", "--quiet", drop_dac=True)
    _says_no_damage(found)
    assert json.loads(found.stdout)["signals_used"] == ["bm25", "dense", "passages"]
    _says_no_damage(check)
    assert check.returncode == 0, told(check)
    assert "full text: every index file matches its checksum" in check.stdout
