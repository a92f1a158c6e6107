"""Sentence spans and sentence vectors of records, kept for aspect scoring.

Aspect scoring (:mod:`litsift.search.aspects.scoring`) compares each aspect with every sentence
of a hit. Splitting 50 abstracts into sentences (pysbd) costs ~200 ms of CPU and embedding their
~400 sentences ~1.9 s on two cores; both depend on the record's text alone (the encoder embeds
one passage per ONNX run, so a vector is a function of its text), so they are computed once and
kept here: a search then embeds only its aspects.

Two ways in. The *phase* (:func:`~litsift.search.aspects.sentence_phase.build_sentences`, after the
dense index) cuts and embeds every
record of a kind ahead of time; its rows are pinned. By default a kind has the phase while it
holds at most 50,000 records (config ``search.sentence_phase``, ``sentence_phase_max_records``:
the sample and the datasets, whose re-ranker reads every candidate's sentences); past that, a
hit is graded at once from its passage vector (*provisional* grades,
:mod:`litsift.search.aspects.scoring`), and its sentences are cut and embedded *on demand*
after that (the TUI's aspect worker, once the provisional grades are shown) and kept in a
bounded cache:
at most ``max_cached`` unpinned rows, the least recently used dropped first (a read refreshes a
row). At 1M papers the
phase would cost ~12 CPU hours (41-47 CPU s per 1,000 papers on this 2-core machine) and ~3.7 GB;
the cache keeps what was shown (``benchmarks/aspect_storage.py``).

The file (``<index dir>/sentences.sqlite``, SQLite in WAL mode, several processes may read and
write it) is derived data: deleted, damaged, written by another encoder or in an older layout, it
is emptied and refilled, never an error. Damage is found on open by SQLite's ``PRAGMA
quick_check`` (~85 ms for 175 MB; a checksum in a manifest cannot serve a file written in place
by several processes) and by any SQLite error of a build, which then starts the file again
(:func:`open_sentence_store` with ``fresh``). Every write is one SQLite transaction, so a process
killed while writing leaves the rows of the last commit. Rows are keyed by ``(kind, doc id)`` and
hold the SHA-1 of the text the sentences were cut from (an edited record is cut and embedded
again), the spans as int32 ``(start, end)`` character offsets, and the vectors as int8 with one
float32 scale per vector (:func:`pack_vectors`; a quarter of float32, half of the float16 used
before; a stored cosine differs from the float32 one by < 0.01, and :func:`sentence_views`
rounds freshly embedded vectors the same way, so a record's grades do not depend on where its
vectors came from). ~8 sentences per abstract x (384 + 4 + 8) bytes: ~3 KB per paper, ~3.7 KB
in the file (a rowid table on 16 KB pages: the rows stay in the B-tree's leaves).
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from litsift.search.retrieval.record_text import passage_text
from litsift.search.retrieval.vector_codec import pack_vectors, unpack_vectors
from litsift.text.sentences import split_sentences
from litsift.types import Kind, Record

__all__ = [
    "MAX_CACHED",
    "MAX_SENTENCES",
    "MAX_SENTENCE_CHARS",
    "SentenceStore",
    "SentenceView",
    "open_sentence_store",
    "sentence_view",
]

log = logging.getLogger(__name__)

#: Sentences embedded per record at most (long dataset descriptions are cut), and characters
#: of one sentence (a text without full stops is one "sentence"; the encoder reads ~1,500
#: characters of it). The text cut is :func:`~litsift.search.retrieval.record_text.passage_text`,
#: itself at
#: most ``MAX_PASSAGE_CHARS`` (8,000) characters, so splitting a huge record costs no more.
MAX_SENTENCES = 64
MAX_SENTENCE_CHARS = 2_000
#: Records cut and embedded between two commits of :func:`build_sentences` (a killed build
#: keeps what it committed).
BUILD_CHUNK = 64
#: Rows kept outside the phase (records scored on demand) by default, least recently used
#: dropped first: ~3.7 KB per paper in the file, ~75 MB.
MAX_CACHED = 20_000
_MAX_PARAMS = 900
FILE_NAME = "sentences.sqlite"
#: The rows' layout; a file written in another one (float16 vectors, no LRU columns) is emptied.
LAYOUT = "int8-scaled/lru-v2"


class SentenceEncoder(Protocol):
    """What the store needs of a bi-encoder (:class:`litsift.models_onnx.Encoder` has it)."""

    @property
    def dim(self) -> int: ...

    @property
    def cache_key(self) -> str: ...

    def encode_passages(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


@dataclass(frozen=True)
class SentenceView:
    """One record cut into sentences: its text, spans, sentence vectors and their text hash.

    Attributes:
        text: the record's passage text (:func:`litsift.search.retrieval.record_text.passage_text`).
        spans: ``(m, 2)`` int32 character offsets into ``text``, ``m <= MAX_SENTENCES``.
        vectors: ``(m, dim)`` float32 sentence vectors, L2-normalised, rounded as stored
            (:func:`round_vectors`).
        text_hash: SHA-1 of ``text`` (20 bytes).
        packed: ``vectors`` as stored (:func:`pack_vectors`), when known: what
            :meth:`SentenceStore.put` writes, so a view read back has the same vectors bit for
            bit (packing rounded vectors again could move a cosine's last digits).
    """

    text: str
    spans: npt.NDArray[np.int32]
    vectors: npt.NDArray[np.float32]
    text_hash: bytes
    packed: bytes | None = field(default=None, compare=False, repr=False)


def text_hash(text: str) -> bytes:
    """SHA-1 of ``text`` (UTF-8, lone surrogates passed through)."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()


def sentence_view(record: Record, encoder: SentenceEncoder) -> SentenceView:
    """Cut ``record``'s passage text into sentences and embed them (one record, one call)."""
    return sentence_views([record], encoder)[0]


def sentence_views(records: Sequence[Record], encoder: SentenceEncoder) -> list[SentenceView]:
    """Cut each record into at most :data:`MAX_SENTENCES` sentences and embed them all.

    Returns:
        One :class:`SentenceView` per record, in order.
    """
    texts = [passage_text(r) for r in records]
    spans = [
        [(s, min(e, s + MAX_SENTENCE_CHARS)) for s, e in split_sentences(t)[:MAX_SENTENCES]]
        for t in texts
    ]
    sentences = [t[s:e] for t, sp in zip(texts, spans, strict=True) for s, e in sp]
    vectors = (
        encoder.encode_passages(sentences)
        if sentences
        else np.zeros((0, encoder.dim), dtype=np.float32)
    )
    vectors = np.asarray(vectors, dtype=np.float32)
    out: list[SentenceView] = []
    at = 0
    for t, sp in zip(texts, spans, strict=True):
        arr = np.asarray(sp, dtype=np.int32).reshape(-1, 2)
        packed = pack_vectors(vectors[at : at + len(sp)].reshape(-1, encoder.dim))
        rounded = unpack_vectors(packed, len(sp), encoder.dim)
        assert rounded is not None
        out.append(SentenceView(t, arr, rounded, text_hash(t), packed))
        at += len(sp)
    return out


class SentenceStore:
    """Stored :class:`SentenceView` rows of one encoder. Thread-safe; one connection.

    Rows written by the phase (:func:`build_sentences`) are pinned; the others (records scored
    on demand) form a cache of at most ``max_cached`` rows, the least recently read or written
    dropped first.

    Args:
        path: the SQLite file (created with its directory).
        encoder_key: the encoder's :attr:`~litsift.models_onnx.Encoder.cache_key`; rows of
            another key, or of another :data:`LAYOUT`, are deleted on open.
        dim: the encoder's dimension.
        max_cached: unpinned rows kept at most (0: none; scoring then keeps them in memory).

    Raises:
        sqlite3.Error, OSError: the file cannot be opened or created (use
        :func:`open_sentence_store`, which recreates a damaged file).
    """

    def __init__(
        self, path: Path, encoder_key: str, dim: int, max_cached: int = MAX_CACHED
    ) -> None:
        self.path = Path(path)
        self.encoder_key = encoder_key
        self.dim = int(dim)
        self.max_cached = max(0, int(max_cached))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        #: why the file was found damaged and started again (set by open_sentence_store)
        self.repaired: str | None = None
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        self._lock = threading.Lock()
        try:
            verdict = self._db.execute("PRAGMA quick_check(1)").fetchone()
            if verdict is None or verdict[0] != "ok":
                raise sqlite3.DatabaseError(str(verdict[0] if verdict else "no verdict"))
            # a new file only: ~3 KB rows fit a 16 KB page's leaves without overflow pages
            self._db.execute("PRAGMA page_size = 16384")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            row = self._db.execute("SELECT value FROM meta WHERE key = 'encoder'").fetchone()
            owner = f"{encoder_key}|{dim}|{LAYOUT}"
            with self._db:
                if row is None or row[0] != owner:  # another encoder or layout: started again
                    self._db.execute("DROP TABLE IF EXISTS sentences")
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('encoder', ?)", (owner,))
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS sentences (kind TEXT NOT NULL, "
                    "doc_id TEXT NOT NULL, text_hash BLOB NOT NULL, spans BLOB NOT NULL, "
                    "vectors BLOB NOT NULL, pinned INTEGER NOT NULL DEFAULT 0, "
                    "used INTEGER NOT NULL DEFAULT 0, UNIQUE (kind, doc_id))"
                )
                self._db.execute(
                    "CREATE INDEX IF NOT EXISTS sentences_lru ON sentences (pinned, used)"
                )
        except sqlite3.Error:
            self._db.close()
            raise

    def get(self, kind: Kind, wanted: Sequence[tuple[str, str]]) -> dict[str, SentenceView]:
        """The stored views of ``wanted = [(doc id, text), ...]`` whose text is unchanged; the
        rows found count as used now (a read-only file is read all the same).

        Returns:
            ``{doc id: view}`` for the ids found with the same text hash.
        """
        by_id = {doc_id: text for doc_id, text in wanted}
        ids = list(by_id)
        found: dict[str, SentenceView] = {}
        with self._lock:
            for start in range(0, len(ids), _MAX_PARAMS):
                chunk = ids[start : start + _MAX_PARAMS]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    "SELECT doc_id, text_hash, spans, vectors FROM sentences "
                    f"WHERE kind = ? AND doc_id IN ({marks})",
                    [kind.value, *chunk],
                ).fetchall()
                for doc_id, digest, spans_blob, vec_blob in rows:
                    text = by_id[doc_id]
                    if bytes(digest) != text_hash(text):
                        continue
                    spans = np.frombuffer(spans_blob, dtype="<i4").reshape(-1, 2)
                    vecs = unpack_vectors(bytes(vec_blob), len(spans), self.dim)
                    if vecs is None:
                        continue  # a torn or foreign row: embedded again
                    found[doc_id] = SentenceView(
                        text, spans.astype(np.int32), vecs, bytes(digest), bytes(vec_blob)
                    )
            if found:
                self._touch(kind, list(found))
        return found

    def _touch(self, kind: Kind, doc_ids: list[str]) -> None:
        """Mark unpinned rows as used now (the lock is held). A write that fails (a read-only
        or busy file) only leaves their age as it was."""
        now = time.time_ns()
        try:
            with self._db:
                for start in range(0, len(doc_ids), _MAX_PARAMS):
                    chunk = doc_ids[start : start + _MAX_PARAMS]
                    marks = ",".join("?" * len(chunk))
                    self._db.execute(
                        f"UPDATE sentences SET used = ? WHERE kind = ? AND pinned = 0 "
                        f"AND doc_id IN ({marks})",
                        [now, kind.value, *chunk],
                    )
        except sqlite3.Error as err:
            log.debug("sentence rows not marked used: %s", err)

    def put(
        self, kind: Kind, rows: Iterable[tuple[str, SentenceView]], pinned: bool = False
    ) -> None:
        """Store ``(doc id, view)`` rows, replacing older rows of the same ids (a pinned row
        stays pinned), and drop the least recently used unpinned rows past ``max_cached``; one
        commit.

        Args:
            pinned: the phase's rows (never dropped to bound the cache).
        """
        now = time.time_ns()
        data = [
            (
                kind.value,
                doc_id,
                view.text_hash,
                np.asarray(view.spans, dtype="<i4").tobytes(),
                view.packed
                if view.packed is not None
                else pack_vectors(np.asarray(view.vectors).reshape(-1, self.dim)),
                int(pinned),
                now,
            )
            for doc_id, view in rows
        ]
        if not data:
            return
        with self._lock:
            with self._db:
                self._db.executemany(
                    "INSERT INTO sentences VALUES (?,?,?,?,?,?,?) ON CONFLICT (kind, doc_id) "
                    "DO UPDATE SET text_hash = excluded.text_hash, spans = excluded.spans, "
                    "vectors = excluded.vectors, pinned = max(pinned, excluded.pinned), "
                    "used = excluded.used",
                    data,
                )
                if not pinned:
                    self._trim()

    def _trim(self) -> None:
        """Drop the least recently used unpinned rows past ``max_cached`` (in the caller's
        transaction)."""
        n = int(self._db.execute("SELECT COUNT(*) FROM sentences WHERE pinned = 0").fetchone()[0])
        if n > self.max_cached:
            self._db.execute(
                "DELETE FROM sentences WHERE rowid IN (SELECT rowid FROM sentences "
                "WHERE pinned = 0 ORDER BY used, kind, doc_id LIMIT ?)",
                (n - self.max_cached,),
            )

    def set_pinned(self, kind: Kind, pinned: bool) -> None:
        """Pin every row of ``kind`` (its phase runs: rows scored on demand are kept), or unpin
        them (no phase for ``kind``: its rows join the bounded cache, which is trimmed)."""
        with self._lock:
            with self._db:
                self._db.execute(
                    "UPDATE sentences SET pinned = ? WHERE kind = ? AND pinned != ?",
                    (int(pinned), kind.value, int(pinned)),
                )
                if not pinned:
                    self._trim()

    def hashes(self, kind: Kind) -> dict[str, bytes]:
        """``{doc id: text hash}`` of every stored row of ``kind``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT doc_id, text_hash FROM sentences WHERE kind = ?", (kind.value,)
            ).fetchall()
        return {doc_id: bytes(h) for doc_id, h in rows}

    def count(self, kind: Kind, pinned: bool | None = None) -> int:
        """Stored rows of ``kind``: all, or only the pinned (True) or unpinned (False) ones."""
        sql = "SELECT COUNT(*) FROM sentences WHERE kind = ?"
        args: list[object] = [kind.value]
        if pinned is not None:
            sql += " AND pinned = ?"
            args.append(int(pinned))
        with self._lock:
            return int(self._db.execute(sql, args).fetchone()[0])

    def delete(self, kind: Kind, doc_ids: Sequence[str]) -> None:
        """Drop the rows of ``doc_ids`` (records no longer in the store)."""
        ids = list(doc_ids)
        with self._lock:
            with self._db:
                for start in range(0, len(ids), _MAX_PARAMS):
                    chunk = ids[start : start + _MAX_PARAMS]
                    marks = ",".join("?" * len(chunk))
                    self._db.execute(
                        f"DELETE FROM sentences WHERE kind = ? AND doc_id IN ({marks})",
                        [kind.value, *chunk],
                    )

    def close(self) -> None:
        with self._lock:
            self._db.close()


def open_sentence_store(
    index_root: Path,
    encoder: SentenceEncoder,
    fresh: str | None = None,
    max_cached: int = MAX_CACHED,
) -> SentenceStore | None:
    """The sentence store under ``index_root`` for ``encoder``; a damaged file (SQLite's
    ``quick_check`` fails, or it is not a database) is deleted and created again (it is derived
    data), and :attr:`SentenceStore.repaired` says why. With ``fresh`` (the reason: a build met
    a SQLite error) the file is started again at once. None when even a new file cannot be
    written (a read-only or full disk): scoring then embeds sentences on every search.
    ``max_cached``: see :class:`SentenceStore`."""
    path = Path(index_root) / FILE_NAME
    repaired = fresh
    if fresh is not None:
        _remove(path)
    for attempt in range(2):
        try:
            store = SentenceStore(path, encoder.cache_key, encoder.dim, max_cached)
            store.repaired = repaired
            return store
        except (sqlite3.Error, OSError) as err:
            from litsift.store.faults import machine_fault

            fault = machine_fault(err, path)  # a full disk, a read-only home: not damage
            if attempt or fault is not None:
                why = fault.message if fault is not None else err
                log.warning("sentence store unusable (%s): aspects are embedded per search", why)
                return None
            log.info("sentence store %s damaged (%s): starting it again", path, err)
            repaired = f"{FILE_NAME}: {err}"
            _remove(path)
    return None


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        except OSError:
            pass
