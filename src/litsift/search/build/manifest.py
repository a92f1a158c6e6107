"""The manifest of an index pair (``<index_root>/<kind>/manifest.json``) and its file checks.

The manifest says what the pair was built from (model, ONNX file, dimension, hnswlib
parameters, part versions) and records every file of both parts with its size and sha256
(``files``: ``{"bm25": {"bm25/meta.json": {"size": 1971, "sha256": "..."}, ...},
"dense": {"dense.bin": ..., "dense.json": ...}}``). :func:`verify_files` checks them: sizes
and existence always (cheap: one ``stat`` per file), full checksums on request
(``litsift index --check``, or after a crash recovery) and, when opening for search, for every
part of at most :data:`VERIFY_ON_OPEN_BYTES` (same-size garbage included). A part found
damaged is recorded in ``damaged`` so later opens leave it out too (search uses the other
part) until ``litsift index`` rebuilds it. The same records (:func:`record_tree`) serve the
passage index (:mod:`litsift.search.fulltext.index`).
Manifests written before ``files`` existed have none: their sizes are unknown (nothing is
checked) and the next build records them. The parts are published apart
(:mod:`litsift.search.build.two_phase`: BM25 first, then the dense part in chunks), so each records
the
store revision and the rows it covers (``revisions``, ``counts``); a dense part that is missing
(not in ``parts``) or behind the BM25 part leaves the kind searchable by BM25 alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from litsift.errors import IndexDamagedError, LitsiftError
from litsift.search.retrieval.bm25 import BM25Index
from litsift.search.retrieval.dense import DenseIndex

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder

#: Version of the BM25 part (``bm25/``, tantivy): bump when its schema, analyzer or indexed text
#: changes; the next build (:func:`~litsift.search.build.two_phase.build_in_two_phases`) then
# rebuilds
#: only that part from the store (no re-embedding).
BM25_VERSION = 2
#: Version of the dense part (``dense.bin``/``dense.json``, hnswlib): bump when the embedded text
#: or the graph layout changes; only that part is then re-embedded and rebuilt.
DENSE_VERSION = 2
#: The parts of an index pair, in build order.
PARTS = ("bm25", "dense")
#: Version of the manifest format; 3 added ``parts``, 4 ``files`` and ``damaged``, 5 the
#: per-part ``revisions`` and ``counts`` and ``dense_cursor``.
MANIFEST_VERSION = 5
#: Part versions of manifests from before ``parts``, by ``schema_version`` (one version then
#: covered both parts; v2 is parts v2, v1 predates the BM25 ``all`` field).
LEGACY_PARTS: dict[int, dict[str, int]] = {1: {"bm25": 1, "dense": 1}, 2: {"bm25": 2, "dense": 2}}
MANIFEST = "manifest.json"
#: The files of the dense part, relative to the index directory.
DENSE_FILES = ("dense.bin", "dense.json")
REBUILD_HINT = "run `litsift index` to rebuild it"
#: A part whose recorded files total at most this many bytes has every file's sha256 checked
#: when it is opened for search, so same-size garbage is found before tantivy or hnswlib read
#: it (sha256 runs at ~1 GB/s on a 2-core laptop: <= 0.13 s; the 19.6K-paper sample's paper
#: index is ~50 MB). Larger parts are checked by size and structure on open (hnswlib header,
#: labels and links; tantivy footers) and their library errors are caught at first use.
VERIFY_ON_OPEN_BYTES = 128 * 2**20


class FileRecord(TypedDict):
    """Size (bytes) and sha256 (hex) of one index file."""

    size: int
    sha256: str


#: ``{part: {path relative to the index directory: record}}``.
FileRecords = dict[str, dict[str, FileRecord]]


def current_parts() -> dict[str, int]:
    """The part versions this code builds: ``{"bm25": BM25_VERSION, "dense": DENSE_VERSION}``."""
    return {"bm25": BM25_VERSION, "dense": DENSE_VERSION}


@dataclass(frozen=True)
class Manifest:
    """What an index pair was built from; checked against the running encoder on open.
    ``parts`` (``{"bm25": version, "dense": version}``) lets a stale part be rebuilt alone;
    ``files`` records each file's size and sha256 (empty: written before they were recorded);
    ``damaged`` (``{part: reason}``) marks parts that failed a checksum check.

    ``max_revision`` and ``count`` are those of the BM25 part (what search covers);
    ``revisions``/``counts`` give each part's (empty: written before parts were published apart,
    both parts then cover ``max_revision``). A dense part being built also holds the rows of
    revision in ``(revisions["dense"], revisions["bm25"]]`` with rowid <= ``dense_cursor``
    (0: none), so an interrupted build resumes after them."""

    schema_version: int
    kind: str
    model_id: str
    onnx_sha256: str
    dim: int
    M: int
    ef_construction: int
    seed: int
    count: int
    max_revision: int
    built_at: str
    build_seconds: float
    parts: dict[str, int] = field(default_factory=current_parts)
    files: FileRecords = field(default_factory=dict)
    damaged: dict[str, str] = field(default_factory=dict)
    revisions: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    dense_cursor: int = 0

    def revision(self, part: str) -> int:
        """The store revision ``part`` covers in full (0 when the part is missing)."""
        if part not in self.parts:
            return 0
        return int(self.revisions.get(part, self.max_revision))

    def part_count(self, part: str) -> int:
        """Documents in ``part`` (0 when the part is missing)."""
        return int(self.counts.get(part, self.count)) if part in self.parts else 0

    @property
    def dense_behind(self) -> bool:
        """True when the dense part is missing or covers an older revision than BM25's."""
        return self.revision("dense") < self.revision("bm25") or "dense" not in self.parts

    def encoder_mismatch(self, encoder: Encoder) -> str | None:
        """Why the dense part cannot serve ``encoder`` (one line), or None when it can."""
        if self.model_id != encoder.model_id:
            return f"built with {self.model_id}, the encoder is {encoder.model_id}"
        if self.onnx_sha256 != encoder.onnx_sha256:
            return (
                f"built with ONNX file {self.onnx_sha256[:12]}, "
                f"the encoder's is {encoder.onnx_sha256[:12]}"
            )
        if self.dim != encoder.dim:
            return f"built with dimension {self.dim}, the encoder gives {encoder.dim}"
        return None

    def stale_parts(self, encoder: Encoder) -> tuple[str, ...]:
        """The parts (of :data:`PARTS`) that must be rebuilt before this index can serve
        ``encoder``: an old part version, (dense) another model, ONNX file or dimension, or
        marked ``damaged``."""
        want = current_parts()
        stale = {p for p in PARTS if self.parts.get(p) != want[p] or p in self.damaged}
        if self.encoder_mismatch(encoder) is not None:
            stale.add("dense")
        return tuple(p for p in PARTS if p in stale)

    def mismatch(self, encoder: Encoder) -> str | None:
        """Why this index cannot serve ``encoder`` (one line), or None when it can. A missing
        dense part is not a mismatch: the index then serves BM25 alone."""
        why = self.encoder_mismatch(encoder) if "dense" in self.parts else None
        if why is not None:
            return why
        damaged = [f"{p} ({reason})" for p, reason in self.damaged.items() if p in PARTS]
        if damaged:
            return f"damaged index part: {', '.join(damaged)}"
        want = current_parts()
        stale = [p for p in self.stale_parts(encoder) if p in self.parts]
        old = [f"{p} v{self.parts.get(p)} (needs v{want[p]})" for p in stale]
        return f"stale index part: {', '.join(old)}" if old else None


def _valid_files(files: object) -> bool:
    if not isinstance(files, dict):
        return False
    for part, records in files.items():
        if part not in PARTS or not isinstance(records, dict):
            return False
        for rel, rec in records.items():
            if not isinstance(rel, str) or not isinstance(rec, dict):
                return False
            if not isinstance(rec.get("size"), int) or not isinstance(rec.get("sha256"), str):
                return False
    return True


def read_manifest(directory: Path) -> Manifest | None:
    """The manifest in ``directory``, or None when there is none. One written before ``parts``
    existed gets the part versions of :data:`LEGACY_PARTS` (a current v2 index keeps working
    without a rebuild); one written before ``files`` has no file records.

    Raises:
        IndexDamagedError: the manifest exists but cannot be read as a :class:`Manifest`
            (hint: ``litsift index``, which then rebuilds the index of that kind).
    """
    path = directory / MANIFEST
    if not path.is_file():
        return None
    names = {f.name for f in fields(Manifest)}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise ValueError("not a JSON object")
        if "parts" not in raw:
            raw["parts"] = dict(LEGACY_PARTS.get(int(raw.get("schema_version", 0)), {}))
        raw.setdefault("files", {})
        raw.setdefault("damaged", {})
        for key, empty in (("revisions", {}), ("counts", {}), ("dense_cursor", 0)):
            raw.setdefault(key, empty)
        if set(raw) != names or not isinstance(raw["parts"], dict):
            raise ValueError("unexpected keys")
        if not all(isinstance(raw[k], dict) for k in ("revisions", "counts")):
            raise ValueError("malformed part revisions")
        if not _valid_files(raw["files"]) or not isinstance(raw["damaged"], dict):
            raise ValueError("malformed file records")
        return Manifest(**raw)
    except (OSError, ValueError, TypeError, RecursionError) as err:
        raise IndexDamagedError(f"unreadable index manifest {path}: {err}", REBUILD_HINT) from err


def write_manifest(directory: Path, manifest: Manifest) -> None:
    """Write ``manifest`` into ``directory`` atomically (temp file + rename)."""
    tmp = directory / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(asdict(manifest), indent=2), encoding="utf-8")
    os.replace(tmp, directory / MANIFEST)


def _is_lock(name: str) -> bool:
    return name.startswith(".tantivy-") and name.endswith(".lock")


def part_files(directory: Path, part: str) -> list[str]:
    """The files of ``part`` present in ``directory``, relative to it, sorted (tantivy's lock
    files left out: they are empty and recreated at will)."""
    if part == "dense":
        return [name for name in DENSE_FILES if (directory / name).is_file()]
    bm25 = directory / "bm25"
    if not bm25.is_dir():
        return []
    names = (p.name for p in bm25.iterdir() if p.is_file() and not _is_lock(p.name))
    return sorted(f"bm25/{name}" for name in names)


#: digests computed by this process, by ``(path, inode, size, mtime ns)``: a searcher reopened
#: after a build (the TUI) does not hash the files it already verified. A file modified in the
#: last 2 s is not remembered (file system clocks tick coarsely: a write right after the hash
#: could keep the same mtime; git's "racily clean" rule)
_DIGESTS: dict[tuple[str, int, int, int], str] = {}


def sha256_file(path: Path) -> str:
    """The hex sha256 of the file at ``path`` (remembered while the file is unchanged).

    Raises:
        OSError: the file cannot be read.
    """
    st = path.stat()
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    digest = _DIGESTS.get(key)
    if digest is None:
        with path.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        if len(_DIGESTS) > 4096:
            _DIGESTS.clear()
        if time.time_ns() - st.st_mtime_ns > 2_000_000_000:
            _DIGESTS[key] = digest
    return digest


def record_part(directory: Path, part: str) -> dict[str, FileRecord]:
    """Size and sha256 of every file of ``part`` in ``directory``."""
    records: dict[str, FileRecord] = {}
    for rel in part_files(directory, part):
        path = directory / rel
        records[rel] = FileRecord(size=path.stat().st_size, sha256=sha256_file(path))
    return records


def record_tree(directory: Path, skip: frozenset[str] = frozenset()) -> dict[str, FileRecord]:
    """Size and sha256 of every file under ``directory`` (relative paths; tantivy's lock files
    and the names in ``skip`` left out): the records of a part that is a whole directory."""
    records: dict[str, FileRecord] = {}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        rel = path.relative_to(directory).as_posix()
        if not _is_lock(path.name) and rel not in skip:
            records[rel] = FileRecord(size=path.stat().st_size, sha256=sha256_file(path))
    return records


def cheap_to_verify(records: dict[str, FileRecord]) -> bool:
    """True when the recorded files total at most :data:`VERIFY_ON_OPEN_BYTES`."""
    return sum(rec["size"] for rec in records.values()) <= VERIFY_ON_OPEN_BYTES


def record_files(directory: Path) -> FileRecords:
    """Size and sha256 of every file of both parts in ``directory``."""
    return {part: record_part(directory, part) for part in PARTS}


def check_records(directory: Path, records: dict[str, FileRecord], full: bool) -> str | None:
    """Why the files of ``records`` under ``directory`` are damaged (the first missing file,
    of another size, or with ``full`` failing its sha256; one line naming it), or None."""
    for rel, rec in sorted(records.items()):
        path = directory / rel
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return f"{rel} is missing"
        except OSError as err:
            return f"{rel} cannot be read: {err.strerror or err}"
        if size != rec["size"]:
            return f"{rel} has {size:,} bytes, {rec['size']:,} were written"
    if not full:
        return None
    for rel, rec in sorted(records.items()):
        try:
            if sha256_file(directory / rel) != rec["sha256"]:
                return f"{rel} does not match its checksum"
        except OSError as err:
            return f"{rel} cannot be read: {err.strerror or err}"
    return None


def verify_files(
    directory: Path, manifest: Manifest, full: bool = False, cheap: bool = False
) -> dict[str, str]:
    """The damaged parts of the index in ``directory``, ``{part: reason}`` (reason names the
    file, e.g. ``"dense.bin has 42,184 bytes, 84,368 were written"``); empty when sound.

    Checks that every recorded file exists with its recorded size, and with ``full`` its
    sha256 too (with ``cheap``, that of every part small enough: :func:`cheap_to_verify`, what
    opening for search does); parts already marked ``damaged`` in the manifest stay damaged. A
    part without file records (a manifest from before they existed) is not checked here.
    """
    damage = {p: why for p, why in manifest.damaged.items() if p in PARTS}
    for part in PARTS:
        records = manifest.files.get(part)
        if part not in damage and records:
            why = check_records(directory, records, full or (cheap and cheap_to_verify(records)))
            if why is not None:
                damage[part] = why
    return {p: damage[p] for p in PARTS if p in damage}


def unrecorded_parts(manifest: Manifest) -> tuple[str, ...]:
    """The parts whose files the manifest does not record (written before ``files``); a
    part that is missing (not built yet) has no files to record."""
    return tuple(p for p in PARTS if p in manifest.parts and not manifest.files.get(p))


def mark_damaged(directory: Path, manifest: Manifest, damage: dict[str, str]) -> None:
    """Record ``damage`` (``{part: reason}``) in ``directory``'s manifest, so that the next
    open refuses the part and the next build rebuilds it. Best effort: nothing is written when
    the manifest on disk is no longer ``manifest`` (a build swapped in a new index meanwhile)
    or cannot be written (the error that found the damage is what matters)."""
    marked = replace(manifest, damaged={**manifest.damaged, **damage})
    if marked == manifest:
        return
    try:
        if read_manifest(directory) == manifest:
            write_manifest(directory, marked)
    except (OSError, IndexDamagedError):
        pass


def _probe(directory: Path, part: str) -> str | None:
    """Why ``part`` of the index in ``directory`` cannot be opened, or None when it can."""
    try:
        if part == "bm25":
            BM25Index.open(directory / "bm25")
        else:
            DenseIndex.open(directory / "dense.bin")
    except LitsiftError as err:
        return err.message
    return None


def find_damage(directory: Path, manifest: Manifest, full: bool) -> dict[str, str]:
    """:func:`verify_files`, and for a part without file records (an older manifest): it
    must at least open (tantivy / hnswlib read it). ``{part: reason}``, in :data:`PARTS`
    order."""
    damage = verify_files(directory, manifest, full)
    for part in unrecorded_parts(manifest):
        if part not in damage and (why := _probe(directory, part)) is not None:
            damage[part] = why
    return {p: damage[p] for p in PARTS if p in damage}


def check_files(directory: Path, mark: bool = True) -> dict[str, str]:
    """Verify every file of the index in ``directory`` in full (sizes and sha256; parts
    without records must open) and, with ``mark``, mark the damaged parts in its manifest.

    Returns:
        ``{part: reason}``; ``{"manifest": reason}`` when the manifest is unreadable; empty
        when all is well or there is no index.
    """
    try:
        manifest = read_manifest(directory)
    except IndexDamagedError as err:
        return {"manifest": err.message}
    if manifest is None:
        return {}
    damage = find_damage(directory, manifest, full=True)
    if mark:
        mark_damaged(directory, manifest, damage)
    return damage
