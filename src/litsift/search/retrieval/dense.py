"""Dense kNN over an hnswlib HNSW graph (Malkov & Yashunin 2018), labels = SQLite rowids.

The graph lives in one file (``dense.bin``) with a JSON sidecar of its parameters
(``dense.json``: dim, space, M, ef_construction, seed), written by :meth:`DenseIndex.save`.
Space is ``"cosine"``: hnswlib normalises vectors on insert and returns ``1 - cos``; this
module reports the cosine similarity ``cos = 1 - distance``.

Year filters are pushed into the graph walk with hnswlib's ``filter=`` callable on labels.
Filtered HNSW degrades when few labels pass (the walk must visit most of the graph), so below
:attr:`DenseIndex.brute_force_fraction` of the index or ``brute_force_factor * k0`` allowed
labels, an exact scan over the allowed labels' stored vectors is used instead.
"""

from __future__ import annotations

import json
import os
import struct
import weakref
from dataclasses import dataclass
from pathlib import Path

import hnswlib
import numpy as np
import numpy.typing as npt

from litsift.errors import IndexDamagedError, IndexMissingError
from litsift.search.retrieval.filters import allowed_mask, is_filtering
from litsift.types import YearRange

SPACE = "cosine"
DEFAULT_EF_SEARCH = 128


def _sidecar(path: Path) -> Path:
    return path.with_suffix(".json")


#: hnswlib's file header (``HierarchicalNSW::saveIndex``): offsetLevel0, max_elements,
#: cur_element_count, size_data_per_element, label_offset, offsetData (size_t), maxlevel (int),
#: enterpoint_node (uint32), maxM, maxM0, M (size_t), mult (double), ef_construction (size_t).
_HEADER = struct.Struct("<QQQQQQiIQQQdQ")


#: elements of the level-0 block checked at a time on open (~27 MB at 384 dims) and vectors
#: read at a time (:meth:`DenseIndex.vectors`): neither costs memory that grows with N
_CHUNK = 16_384
_READ_CHUNK = 4_096


@dataclass(frozen=True)
class _Layout:
    """Where each element's vector lies in the graph file (hnswlib's level-0 block).

    Attributes:
        count: elements; per_element: bytes per element; data_at: the vector's offset in one.
        labels: ``(count,)`` int64 labels, ascending; positions: their elements' indexes.
    """

    count: int
    per_element: int
    data_at: int
    labels: npt.NDArray[np.int64]
    positions: npt.NDArray[np.int64]


def _layout(path: Path, dim: int, M: int) -> _Layout:
    """The level-0 layout of the hnswlib file at ``path``, after checking its header
    against ``dim``, ``M`` and the file size, and its level-0 block: every label a rowid
    (< 2**63) and unique, every link count <= ``2 * M``, every neighbour and the entry point
    an element of the graph (hnswlib follows them unchecked: garbage there reads past its
    arrays). The block is read :data:`_CHUNK` elements at a time. Raises ValueError when they
    disagree (same-size garbage included)."""
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise ValueError(f"{size} bytes, shorter than an hnswlib header")
    (
        offset0,
        capacity,
        count,
        per_element,
        label_at,
        data_at,
        level,
        entry,
        m_max,
        m_max0,
        m,
        _,
        _,
    ) = _HEADER.unpack(head)
    links0 = m_max0 * 4 + 4
    expected = (0, links0, links0 + dim * 4, links0 + dim * 4 + 8, M, 2 * M, M)
    if (offset0, data_at, label_at, per_element, m, m_max0, m_max) != expected:
        raise ValueError("its header does not match the graph parameters in dense.json")
    if count > capacity or _HEADER.size + count * per_element > size:
        raise ValueError(f"its header claims {count:,} elements, more than its {size:,} bytes")
    if count and (entry >= count or not 0 <= level < 64):
        raise ValueError(f"its entry point {entry:,} is not one of its {count:,} elements")
    labels = np.zeros(count, dtype=np.uint64)
    with path.open("rb") as f:
        for start in range(0, count, _CHUNK):
            n = min(_CHUNK, count - start)
            f.seek(_HEADER.size + start * per_element)
            rows = np.fromfile(f, dtype=np.uint8, count=n * per_element)
            if len(rows) != n * per_element:
                raise ValueError("its level-0 block is shorter than its header says")
            rows = rows.reshape(n, per_element)
            labels[start : start + n] = rows[:, label_at : label_at + 8].copy().view("<u8")[:, 0]
            n_links = rows[:, 0:2].copy().view("<u2").reshape(-1)
            if int(n_links.max()) > m_max0:
                raise ValueError(f"an element claims more than {m_max0} neighbours")
            links = rows[:, 4:links0].copy().view("<u4").reshape(n, m_max0)
            used = np.arange(m_max0) < n_links[:, None].astype(np.int64)
            if bool((links[used] >= count).any()):
                raise ValueError("a neighbour is not one of its elements")
    if count and int(labels.max()) >= 2**63:
        raise ValueError("its labels are not distinct rowids")
    order = np.argsort(labels, kind="stable")
    ordered = labels[order].astype(np.int64)
    if count and bool((ordered[1:] == ordered[:-1]).any()):
        raise ValueError("its labels are not distinct rowids")
    return _Layout(int(count), int(per_element), int(data_at), ordered, order.astype(np.int64))


class DenseIndex:
    """An hnswlib index of unit vectors keyed by rowid.

    Attributes:
        path: the graph file (``dense.bin``).
        dim, M, ef_construction, seed: hnswlib parameters.
        ef_search: hnswlib ``ef`` at query time (raised to ``k0`` when smaller).
        brute_force_fraction, brute_force_factor: when the allowed labels are fewer than
            ``brute_force_fraction * count()`` or ``brute_force_factor * k0``, search is exact.
        num_threads: threads used by :meth:`add` (1 keeps builds reproducible for a seed).
    """

    brute_force_fraction = 0.02
    brute_force_factor = 2

    def __init__(
        self, path: Path, index: hnswlib.Index, M: int, ef_construction: int, seed: int
    ) -> None:
        self.path = path
        self.dim = int(index.dim)
        self.M = M
        self.ef_construction = ef_construction
        self.seed = seed
        self.ef_search = DEFAULT_EF_SEARCH
        self.num_threads = 1
        self._index = index
        self._labels = self._read_labels()
        #: the graph file's layout, and the file open since the load (a build that swaps in
        #: a new ``dense.bin`` does not change what is read), while the graph in memory is the
        #: file's (None once :meth:`add` changed it, or for a new index): :meth:`vectors`
        #: then reads the file
        self._layout: _Layout | None = None
        self._fd: int | None = None
        self._close_fd: weakref.finalize[[int], DenseIndex] | None = None

    @classmethod
    def create(
        cls,
        path: Path,
        dim: int,
        capacity: int,
        M: int = 16,
        ef_construction: int = 200,
        seed: int = 100,
    ) -> DenseIndex:
        """A new empty index that will be saved at ``path`` (nothing is written until save).

        Args:
            path: the graph file to write, e.g. ``<index dir>/dense.bin``.
            dim: vector dimension (384 for all-MiniLM-L6-v2).
            capacity: initial number of elements; :meth:`add` grows it as needed.
            M, ef_construction, seed: hnswlib build parameters.
        """
        index = hnswlib.Index(space=SPACE, dim=dim)
        index.init_index(
            max_elements=max(capacity, 1), M=M, ef_construction=ef_construction, random_seed=seed
        )
        return cls(Path(path), index, M, ef_construction, seed)

    @classmethod
    def open(cls, path: Path) -> DenseIndex:
        """Load an index saved by :meth:`save`.

        The graph file's header is checked against the sidecar and the file size first, so
        hnswlib never allocates more than the file holds (a damaged header cannot ask for
        gigabytes), and it is loaded with room for exactly its elements (:meth:`add` grows it).

        Raises:
            IndexMissingError: the graph file or its sidecar is missing.
            IndexDamagedError: the sidecar or the graph file cannot be read or is inconsistent.
        """
        path = Path(path)
        side = _sidecar(path)
        if not path.is_file() or not side.is_file():
            raise IndexMissingError(f"no dense index at {path}", "run `litsift index`")
        try:
            params = json.loads(side.read_text(encoding="utf-8"))
            space, dim, M = str(params["space"]), int(params["dim"]), int(params["M"])
            ef_construction, seed = int(params["ef_construction"]), int(params["seed"])
            fd = os.open(path, os.O_RDONLY)
            try:
                layout = _layout(path, dim, M)
                index = hnswlib.Index(space=space, dim=dim)
                index.load_index(str(path), max_elements=max(layout.count, 1))
                held, now = os.fstat(fd), os.stat(path)
            except BaseException:
                os.close(fd)
                raise
        except (
            OSError,
            ValueError,
            TypeError,
            KeyError,
            RuntimeError,
            MemoryError,
            OverflowError,
        ) as err:
            raise IndexDamagedError(
                f"the dense part is damaged: {path}: {err}", "run `litsift index` to rebuild it"
            ) from err
        dense = cls(path, index, M, ef_construction, seed)
        dense._fd, dense._close_fd = fd, weakref.finalize(dense, os.close, fd)
        same_file = (held.st_ino, held.st_dev) == (now.st_ino, now.st_dev)
        if same_file and np.array_equal(layout.labels, dense._labels):
            dense._layout = layout
            dense._labels = layout.labels  # one copy of the sorted labels, not two
        else:  # replaced while it loaded: read through hnswlib
            dense._forget_file()
        return dense

    def _forget_file(self) -> None:
        """Read vectors through hnswlib from now on (the graph is no longer the file's)."""
        self._layout, self._fd = None, None
        if self._close_fd is not None:
            self._close_fd()  # closes it
            self._close_fd = None

    def _read_labels(self) -> npt.NDArray[np.int64]:
        return np.sort(np.asarray(self._index.get_ids_list(), dtype=np.int64))

    def add(self, rowids: npt.NDArray[np.integer], vectors: npt.NDArray[np.floating]) -> None:
        """Insert or update vectors; a rowid already in the index gets its new vector.

        Args:
            rowids: ``(n,)`` non-negative ints, the labels.
            vectors: ``(n, dim)`` float32 (normalised or not; cosine space normalises).

        Raises:
            ValueError: shapes disagree or the dimension is not :attr:`dim`.
        """
        rowids = np.asarray(rowids, dtype=np.int64).reshape(-1)
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.dim or len(vectors) != len(rowids):
            raise ValueError(f"expected ({len(rowids)}, {self.dim}) vectors, got {vectors.shape}")
        if len(rowids) == 0:
            return
        new = int(np.count_nonzero(~np.isin(rowids, self._labels)))
        needed = int(self._index.element_count) + new
        capacity = int(self._index.max_elements)
        if needed > capacity:
            self._index.resize_index(max(needed, 2 * capacity))
        self._index.add_items(vectors, rowids.astype(np.uint64), num_threads=self.num_threads)
        self._labels = self._read_labels()
        self._forget_file()  # the graph in memory is no longer the file's

    def save(self) -> None:
        """Write the graph to :attr:`path` and its parameters to the sidecar JSON."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._index.save_index(str(self.path))
        self._forget_file()  # written anew: read back through hnswlib until reopened
        params = {
            "space": SPACE,
            "dim": self.dim,
            "M": self.M,
            "ef_construction": self.ef_construction,
            "seed": self.seed,
            "count": self.count(),
        }
        _sidecar(self.path).write_text(json.dumps(params, indent=2), encoding="utf-8")

    def count(self) -> int:
        """Number of vectors in the index."""
        return int(self._index.element_count)

    def vector(self, rowid: int) -> npt.NDArray[np.float32] | None:
        """The stored ``(dim,)`` float32 unit vector of ``rowid``, or None if not indexed.

        Used by "more like this" (Rocchio) so kept papers are not re-encoded.
        """
        pos = int(np.searchsorted(self._labels, rowid))
        if pos >= len(self._labels) or int(self._labels[pos]) != rowid:
            return None
        vec: npt.NDArray[np.float32] = self._vectors_of(np.asarray([rowid], dtype=np.int64))[0]
        return vec

    def vectors(
        self, rowids: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The stored unit vectors of those ``rowids`` that are indexed.

        Returns:
            ``(m,)`` int64 rowids found (in the order given) and their ``(m, dim)`` float32
            vectors.
        """
        want = np.asarray(rowids, dtype=np.int64).reshape(-1)
        pos = np.searchsorted(self._labels, want)
        ok = pos < len(self._labels)
        ok[ok] = self._labels[pos[ok]] == want[ok]
        found = want[ok]
        return found, self._vectors_of(found)

    def _vectors_of(self, labels: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """``(m, dim)`` float32: the stored vectors of ``labels`` (all in the index), read
        :data:`_READ_CHUNK` at a time. While the graph is the file's they are read from the file
        (the very bytes hnswlib loaded), one ``pread`` a vector: hnswlib's ``get_items``
        builds a Python float per component (~16 KB and ~0.1 ms a vector: 50K vectors took
        0.8 GB and 6.5 s), and a memory map would count every page it faults in (with the
        kernel's fault-around, most of the file) in this process's RSS."""
        out = np.zeros((len(labels), self.dim), dtype=np.float32)
        nbytes = self.dim * 4
        for start in range(0, len(labels), _READ_CHUNK):
            part = labels[start : start + _READ_CHUNK]
            layout, fd = self._layout, self._fd
            blob = b""
            if layout is not None and fd is not None:
                pos = layout.positions[np.searchsorted(layout.labels, part)]
                offsets = (_HEADER.size + pos * layout.per_element + layout.data_at).tolist()
                blob = b"".join(os.pread(fd, nbytes, off) for off in offsets)
            if len(blob) == nbytes * len(part):
                out[start : start + len(part)] = np.frombuffer(blob, "<f4").reshape(-1, self.dim)
            else:
                got = self._index.get_items(part.astype(np.uint64), return_type="numpy")
                out[start : start + len(part)] = np.asarray(got, dtype=np.float32)
        return out

    def labels(self) -> npt.NDArray[np.int64]:
        """``(count,)`` int64, the rowids in the index, ascending."""
        return self._labels.copy()

    def allowed_labels(
        self, years: YearRange, year_by_rowid: npt.NDArray[np.int32]
    ) -> npt.NDArray[np.int64]:
        """``(m,)`` int64: the rowids of the index that ``years`` keeps, ascending."""
        if not is_filtering(years) or len(self._labels) == 0:
            return self._labels.copy()
        mask = allowed_mask(year_by_rowid, years, size=int(self._labels[-1]) + 1)
        return self._labels[mask[self._labels]]

    def search(
        self,
        qvec: npt.NDArray[np.floating],
        k0: int,
        years: YearRange,
        year_by_rowid: npt.NDArray[np.int32],
    ) -> list[tuple[int, float]]:
        """Top-``k0`` by cosine similarity among the rowids ``years`` keeps.

        Args:
            qvec: ``(dim,)`` or ``(1, dim)`` float32 query vector.
            k0: number of candidates wanted (more than :meth:`count` is asked as :meth:`count`).
            years: the year range, pushed into the search as a label filter.
            year_by_rowid: ``(n,)`` int32 ``Store.year_by_rowid`` (year or -1 by rowid).

        Returns:
            Up to ``k0`` ``(rowid, cosine similarity)`` pairs, best first, ties by rowid.
        """
        q = np.asarray(qvec, dtype=np.float32).reshape(1, -1)
        if q.shape[1] != self.dim:
            raise ValueError(f"query vector has dim {q.shape[1]}, index has {self.dim}")
        n = self.count()
        if k0 <= 0 or n == 0:
            return []
        k0 = min(k0, n)  # never ask hnswlib (or the exact scan) for more than the index holds
        if not is_filtering(years):
            try:
                return self._hnsw(q, min(k0, n), None)
            except RuntimeError:  # hnswlib returned fewer than k (tiny or sparse graph)
                return self.exact_search(q, k0, self._labels)
        mask = allowed_mask(year_by_rowid, years, size=int(self._labels[-1]) + 1)
        allowed = self._labels[mask[self._labels]]  # as allowed_labels, the mask built once
        m = len(allowed)
        if m == 0:
            return []
        if m < self.brute_force_fraction * n or m < self.brute_force_factor * k0:
            return self.exact_search(q, k0, allowed)
        allowed_bytes = mask.tobytes()
        size = len(allowed_bytes)

        def keep(label: int) -> bool:
            return label < size and allowed_bytes[label] == 1

        try:
            return self._hnsw(q, min(k0, m), keep)
        except RuntimeError:  # hnswlib found fewer than k allowed neighbours
            return self.exact_search(q, k0, allowed)

    def nearest(self, qvec: npt.NDArray[np.floating], k: int) -> list[tuple[int, float]]:
        """Approximate top-``k`` by cosine over every label, no filter (``k`` is capped at
        :meth:`count`): ``(label, cosine)``, best first, ties by label."""
        k = min(k, self.count())
        if k <= 0:
            return []
        q = np.asarray(qvec, dtype=np.float32).reshape(1, -1)
        return self._hnsw(q, k, None)

    def _hnsw(
        self, q: npt.NDArray[np.float32], k: int, keep: object | None
    ) -> list[tuple[int, float]]:
        self._index.set_ef(max(self.ef_search, k))
        labels, dists = self._index.knn_query(q, k=k, num_threads=1, filter=keep)
        pairs = [(int(lab), float(1.0 - d)) for lab, d in zip(labels[0], dists[0], strict=True)]
        return sorted(pairs, key=lambda x: (-x[1], x[0]))

    def exact_search(
        self, qvec: npt.NDArray[np.floating], k0: int, labels: npt.NDArray[np.int64]
    ) -> list[tuple[int, float]]:
        """Exact cosine top-``k0`` over the stored vectors of ``labels`` (a brute-force scan).

        Args:
            qvec: ``(dim,)`` or ``(1, dim)`` float32 query.
            k0: number of results.
            labels: ``(m,)`` rowids present in the index.

        Returns:
            Up to ``k0`` ``(rowid, cosine similarity)``, best first, ties by rowid.
        """
        if len(labels) == 0 or k0 <= 0:
            return []
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(q))
        if norm > 0:
            q = q / norm
        vecs = self._vectors_of(np.asarray(labels, dtype=np.int64))
        sims = (vecs @ q).astype(np.float32)
        order = np.lexsort((labels, -sims))[:k0]
        return [(int(labels[i]), float(sims[i])) for i in order]
