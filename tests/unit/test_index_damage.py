"""Damaged index files (issue 14, item 4): every kind of damage is reported as
IndexDamagedError / IndexMissingError with the fix, and ``build_index`` performs that fix,
rebuilding the damaged part from the store so the same queries give the same hits."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from litsift.errors import IndexDamagedError, IndexMissingError
from litsift.search.build.index_pair import check_index, index_status, open_indexes
from litsift.search.build.layout import index_dir_for
from litsift.search.build.manifest import MANIFEST
from litsift.search.build.two_phase import build_in_two_phases
from litsift.search.kind_searcher import KindSearcher
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind, Query
from tests.conftest import DATASETS_GZ, copy_home, read_jsonl_gz

N_ROWS = 50
KIND = Kind.DATASET
QUERIES = ("image classification", "question answering", "speech")
HINT = "run `litsift index` to rebuild it"

Hits = list[list[tuple[str, float]]]
Damage = Callable[[Path], None]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def hits(root: Path, store: Store, encoder) -> Hits:  # type: ignore[no-untyped-def]
    """The fused top 10 of each query, as (docid, rounded score), over the index in root."""
    bm25, dense, _ = open_indexes(root, KIND, encoder)
    searcher = KindSearcher(KIND, bm25, dense, store.year_by_rowid(KIND), encoder)
    return [
        [(str(f.docid), round(float(f.score), 5)) for f in searcher.search(Query(q, KIND, k=10))]
        for q in QUERIES
    ]


class MemoEncoder:
    """The real encoder, remembering the vector of each passage it embedded: a repair
    re-embeds the same N_ROWS texts many times here, and gets the very same vectors."""

    def __init__(self, encoder) -> None:  # type: ignore[no-untyped-def]
        self.encoder = encoder
        self.memo: dict[str, np.ndarray] = {}

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.encoder, name)

    def encode_passages(self, texts, progress=None, **kwargs):  # type: ignore[no-untyped-def]
        new = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if new:
            self.memo.update(zip(new, self.encoder.encode_passages(new, **kwargs), strict=True))
        if progress is not None:
            progress(len(texts), len(texts))
        return np.stack([self.memo[t] for t in texts])


@pytest.fixture(scope="module")
def memo_encoder(encoder) -> MemoEncoder:  # type: ignore[no-untyped-def]
    return MemoEncoder(encoder)


@pytest.fixture(scope="module")
def pristine(  # type: ignore[no-untyped-def]
    tmp_path_factory: pytest.TempPathFactory, memo_encoder
) -> Iterator[tuple[Path, Store, Hits]]:
    """A store of N_ROWS datasets (read-only), its index and the hits of QUERIES over it."""
    encoder = memo_encoder
    home = tmp_path_factory.mktemp("damage")
    rows = read_jsonl_gz(DATASETS_GZ)[:N_ROWS]
    store = Store(home / "store.sqlite")
    ingest_jsonl(store, KIND, write_jsonl(home / "a.jsonl", rows))
    root = home / "indexes"
    assert build_in_two_phases(store, encoder, KIND, root).mode == "full"
    before = hits(root, store, encoder)
    assert all(before)
    yield root, store, before
    store.close()


@pytest.fixture
def copy(pristine, tmp_path: Path) -> tuple[Path, Store, Hits]:  # type: ignore[no-untyped-def]
    """A private copy of the pristine index (the store is shared: builds only read it)."""
    root, store, before = pristine
    copy_home(root, tmp_path / "indexes")
    return tmp_path / "indexes", store, before


# -- kinds of damage -----------------------------------------------------------------------
def _segment(directory: Path, ext: str) -> Path:
    return next((directory / "bm25").glob(f"*.{ext}"))


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def garbage_same_size(path: Path) -> None:
    path.write_bytes(random.Random(14).randbytes(path.stat().st_size))


def flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[300] ^= 0x01  # in the first stored vector: invisible to hnswlib, not to a checksum
    path.write_bytes(bytes(data))


DAMAGE: dict[str, Damage] = {
    "truncate dense.bin": lambda d: truncate(d / "dense.bin"),
    "garbage dense.bin, same size": lambda d: garbage_same_size(d / "dense.bin"),
    "flipped byte in dense.bin": lambda d: flip_byte(d / "dense.bin"),
    "garbage dense.json": lambda d: (d / "dense.json").write_bytes(b"\xff\x00not json"),
    "delete dense.bin": lambda d: (d / "dense.bin").unlink(),
    "delete dense.json": lambda d: (d / "dense.json").unlink(),
    "delete a tantivy segment file": lambda d: _segment(d, "term").unlink(),
    "truncate a tantivy segment file": lambda d: truncate(_segment(d, "idx")),
    "garbage tantivy meta.json": lambda d: (d / "bm25" / "meta.json").write_text("{garbage"),
    "delete the bm25 directory": lambda d: shutil.rmtree(d / "bm25"),
    "delete manifest": lambda d: (d / MANIFEST).unlink(),
    "garbage manifest": lambda d: (d / MANIFEST).write_bytes(b"\x00{not json"),
}
#: damage that a size check cannot see: found by the checksums (`litsift index --check`)
NEEDS_CHECK = {"garbage dense.bin, same size", "flipped byte in dense.bin"}
#: the part rebuilt to repair each damage (both for a lost manifest)
PART = {name: "dense" if "dense" in name else "bm25" for name in DAMAGE}
PART.update({"delete manifest": "both", "garbage manifest": "both"})


def assert_refused(root: Path, encoder) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises((IndexDamagedError, IndexMissingError)) as err:
        open_indexes(root, KIND, encoder)
    assert "litsift index" in err.value.hint and "--rebuild" not in err.value.hint


@pytest.mark.parametrize("name", list(DAMAGE))
def test_damage_is_reported_and_litsift_index_repairs_it(copy, memo_encoder, name: str) -> None:  # type: ignore[no-untyped-def]
    root, store, before = copy
    encoder = memo_encoder
    directory = index_dir_for(root, KIND)
    DAMAGE[name](directory)
    if name in NEEDS_CHECK:
        damage = check_index(root, KIND)  # `litsift index --check`, then the build
        assert set(damage) == {"dense"} and "dense.bin" in damage["dense"]
    assert_refused(root, encoder)
    if PART[name] in ("bm25", "dense"):
        with pytest.raises(IndexDamagedError) as err:
            open_indexes(root, KIND, encoder)
        assert f"the {PART[name]} part" in err.value.message and err.value.hint == HINT

    report = build_in_two_phases(store, encoder, KIND, root)
    assert report.mode != "unchanged"
    expected = ("bm25", "dense") if PART[name] == "both" else (PART[name],)
    assert report.rebuilt == expected
    assert hits(root, store, encoder) == before
    assert build_in_two_phases(store, encoder, KIND, root, check=True).mode == "unchanged"


@pytest.mark.parametrize("name", sorted(NEEDS_CHECK))
def test_build_with_check_finds_and_repairs_what_sizes_miss(copy, memo_encoder, name: str) -> None:  # type: ignore[no-untyped-def]
    root, store, before = copy
    encoder = memo_encoder
    DAMAGE[name](index_dir_for(root, KIND))
    report = build_in_two_phases(store, encoder, KIND, root, check=True)
    assert report.rebuilt == ("dense",) and "dense.bin" in report.repaired["dense"]
    assert report.summary().startswith("repaired dense: dense.bin")
    assert hits(root, store, encoder) == before


def test_a_damaged_file_found_by_opening_is_repaired_without_check(copy, memo_encoder) -> None:  # type: ignore[no-untyped-def]
    """hnswlib refusing a same-size garbage file marks the part, so `litsift index` repairs
    it even without --check (instead of answering "up to date")."""
    root, store, before = copy
    encoder = memo_encoder
    garbage_same_size(index_dir_for(root, KIND) / "dense.bin")
    with pytest.raises(IndexDamagedError) as err:
        open_indexes(root, KIND, encoder)
    assert "dense.bin" in err.value.message and err.value.hint == HINT
    report = build_in_two_phases(store, encoder, KIND, root)
    assert report.rebuilt == ("dense",)
    assert hits(root, store, encoder) == before


LEGACY_DAMAGE = [
    "truncate dense.bin",
    "garbage dense.json",
    "delete dense.bin",
    "delete a tantivy segment file",
    "truncate a tantivy segment file",
    "garbage tantivy meta.json",
]


@pytest.mark.parametrize("name", LEGACY_DAMAGE)
def test_a_manifest_without_file_records_still_finds_damage(copy, memo_encoder, name: str) -> None:  # type: ignore[no-untyped-def]
    """Sizes unknown (a manifest from before ``files``): tantivy/hnswlib errors on open are
    still IndexDamagedError, and the build finds the part that does not open."""
    root, store, before = copy
    encoder = memo_encoder
    directory = index_dir_for(root, KIND)
    data = json.loads((directory / MANIFEST).read_text())
    del data["files"], data["damaged"]
    data["schema_version"] = 3
    (directory / MANIFEST).write_text(json.dumps(data))
    DAMAGE[name](directory)
    assert_refused(root, encoder)
    report = build_in_two_phases(store, encoder, KIND, root)
    assert report.rebuilt == (PART[name],)
    assert set(report.manifest.files) == {"bm25", "dense"}  # recorded by this build
    assert hits(root, store, encoder) == before


def test_a_manifest_without_file_records_gets_them_on_the_next_build(copy, memo_encoder) -> None:  # type: ignore[no-untyped-def]
    root, store, before = copy
    encoder = memo_encoder
    path = index_dir_for(root, KIND) / MANIFEST
    recorded = json.loads(path.read_text())
    data = {k: v for k, v in recorded.items() if k not in ("files", "damaged")}
    path.write_text(json.dumps(data))
    assert hits(root, store, encoder) == before  # unknown sizes: not an error
    report = build_in_two_phases(store, encoder, KIND, root)
    assert report.mode == "unchanged"
    assert json.loads(path.read_text())["files"] == recorded["files"]
    flip_byte(index_dir_for(root, KIND) / "dense.bin")
    assert check_index(root, KIND).keys() == {"dense"}


def test_a_crash_recovery_verifies_checksums(copy, memo_encoder) -> None:  # type: ignore[no-untyped-def]
    """An index put back after a swap interrupted between its renames is checked in full."""
    root, store, before = copy
    encoder = memo_encoder
    directory = index_dir_for(root, KIND)
    flip_byte(directory / "dense.bin")
    directory.rename(root / f".{KIND.value}.old")
    with pytest.raises(IndexDamagedError) as err:
        open_indexes(root, KIND, encoder)
    assert "checksum" in err.value.message and "dense.bin" in err.value.message
    # the damage is recorded: callers asking "is this index usable?" see it too
    manifest = index_status(root, KIND)
    assert manifest is not None and "damaged index part: dense" in str(manifest.mismatch(encoder))
    assert build_in_two_phases(store, encoder, KIND, root).rebuilt == ("dense",)
    assert hits(root, store, encoder) == before


def test_search_through_the_service_and_cli_index_check(tmp_path: Path, memo_encoder) -> None:  # type: ignore[no-untyped-def]
    """`LitsiftService.search` on a damaged BM25 part answers from the dense part and says
    so, and `litsift index --check` finds a flipped byte and repairs it."""
    from litsift.cli.root import main
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    rows = read_jsonl_gz(DATASETS_GZ)[:N_ROWS]
    home = tmp_path / "home"
    query = Query("image classification", KIND, k=10)
    with LitsiftService(get_paths(home), encoder=memo_encoder) as svc:
        svc.ingest(KIND, write_jsonl(tmp_path / "a.jsonl", rows))
        svc.build_index(KIND)
        before = [h.record.rowid for h in svc.search(query).hits]
    # damaged while no searcher has it open (tantivy mmaps its files: truncating a file
    # under a live searcher is a SIGBUS; builds never write in place, they swap directories)
    directory = index_dir_for(get_paths(home).index_dir, KIND)
    truncate(_segment(directory, "term"))
    with LitsiftService(get_paths(home), encoder=memo_encoder) as svc:
        result = svc.search(query)  # issue 34: the intact dense part answers, and says so
        assert result.signals_used == ("dense",) and result.hits
        assert result.partial is not None and "BM25 index damaged" in result.partial
        assert "run `litsift index`" in result.partial
        assert svc.build_index(KIND).rebuilt == ("bm25",)
        assert [h.record.rowid for h in svc.search(query).hits] == before
    flip_byte(directory / "dense.bin")

    result = CliRunner().invoke(main, ["--home", str(home), "index", "datasets", "--check"])
    assert result.exit_code == 0, result.output
    assert "damaged dense: dense.bin does not match its checksum" in result.output
    assert "repaired dense" in result.output
    with LitsiftService(get_paths(home), encoder=memo_encoder) as svc:
        assert [h.record.rowid for h in svc.search(query).hits] == before


def _level0_garbage(path: Path) -> None:
    """Same-size garbage over the elements of an hnswlib file, its header and upper levels
    kept: hnswlib loads it (labels past 2**63 made numpy raise OverflowError, links past the
    graph make it read out of bounds)."""
    from litsift.search.retrieval.dense import _HEADER

    data = bytearray(path.read_bytes())
    head = _HEADER.unpack(data[: _HEADER.size])
    end = _HEADER.size + head[2] * head[3]  # cur_element_count * size_data_per_element
    data[_HEADER.size : end] = random.Random(34).randbytes(end - _HEADER.size)
    path.write_bytes(bytes(data))


def test_a_large_part_is_checked_by_its_structure_on_open(  # type: ignore[no-untyped-def]
    copy, memo_encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts too large to checksum on open (issue 34): same-size garbage in the elements of
    dense.bin is found by the structure check (labels, links), search answers with BM25 and
    says so, and `litsift index` rebuilds the dense part alone."""
    import litsift.search.build.manifest as manifest_module

    monkeypatch.setattr(manifest_module, "VERIFY_ON_OPEN_BYTES", 0, raising=False)
    root, store, before = copy
    _level0_garbage(index_dir_for(root, KIND) / "dense.bin")
    searcher = KindSearcher.open(root, KIND, memo_encoder, store.year_by_rowid(KIND))
    assert searcher.dense is None and searcher.partial is not None
    assert searcher.partial.startswith("dense index damaged (dense.bin")
    assert searcher.search(Query(QUERIES[0], KIND, k=10))
    assert build_in_two_phases(store, memo_encoder, KIND, root).rebuilt == ("dense",)
    assert hits(root, store, memo_encoder) == before


def test_bm25_damage_found_by_the_first_query_is_searched_around(  # type: ignore[no-untyped-def]
    copy, memo_encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Garbage inside a large BM25 segment (footer intact: tantivy opens it) surfaces at the
    first query as a tantivy error: the searcher drops BM25, answers from dense, says so and
    marks the part for `litsift index`."""
    import litsift.search.build.manifest as manifest_module

    monkeypatch.setattr(manifest_module, "VERIFY_ON_OPEN_BYTES", 0, raising=False)
    root, store, before = copy
    term = _segment(index_dir_for(root, KIND), "term")
    data = bytearray(term.read_bytes())
    lo, hi = len(data) // 4, 3 * len(data) // 4  # tantivy: "Fst data is corrupted" at query
    data[lo:hi] = random.Random(34).randbytes(hi - lo)
    term.write_bytes(bytes(data))
    searcher = KindSearcher.open(root, KIND, memo_encoder, store.year_by_rowid(KIND))
    assert searcher.bm25 is not None  # opens: only a query reads the term dictionary
    found = [searcher.search(Query(q, KIND, k=10)) for q in QUERIES]
    assert all(found) and searcher.bm25 is None
    assert searcher.partial is not None and "BM25 index damaged" in searcher.partial
    manifest = index_status(root, KIND)
    assert manifest is not None and "bm25" in manifest.damaged
    assert build_in_two_phases(store, memo_encoder, KIND, root).rebuilt == ("bm25",)
    assert hits(root, store, memo_encoder) == before
