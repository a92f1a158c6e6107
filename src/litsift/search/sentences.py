"""Sentence spans and sentence vectors of every record, stored once for aspect scoring.

Aspect scoring (:mod:`litsift.search.aspect_scoring`) compares each aspect with every sentence
of a hit. Splitting 50 abstracts into sentences (pysbd) costs ~200 ms of CPU and embedding their
~400 sentences ~1.9 s on two cores; both depend on the record's text alone (the encoder embeds
one passage per ONNX run, so a vector is a function of its text), so they are computed once --
by :func:`build_sentences` after the dense index, or the first time a record is scored -- and
kept here. A search then embeds only its aspects.

The file (``<index dir>/sentences.sqlite``, SQLite in WAL mode, several processes may read and
write it) is derived data: deleted, damaged or written by another encoder, it is emptied and
refilled, never an error. Damage is found on open by SQLite's ``PRAGMA quick_check`` (~85 ms
for 175 MB; a checksum in a manifest cannot serve a file written in place by several processes)
and by any SQLite error of a build, which then starts the file again
(:func:`open_sentence_store` with ``fresh``). Rows are keyed by ``(kind, doc id)`` and hold the
SHA-1 of the text the sentences were cut from (an edited record is cut and embedded again), the
spans as int32 ``(start, end)`` character offsets, and the vectors as float16 (half the disk of
float32; a stored cosine differs from the float32 one by < 1e-3, and :class:`SentenceView`
rounds freshly embedded vectors the same way, so a record's grades do not depend on where its
vectors came from). ~8 sentences per abstract × 384 dims × 2 bytes: ~6 KB per paper, ~120 MB
for the 19.6K papers of the sample.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from litsift.search.aspects import split_sentences
from litsift.search.text import passage_text
from litsift.types import Kind, Record

if TYPE_CHECKING:
    from litsift.store import Store

__all__ = [
    "MAX_SENTENCES",
    "SentenceStore",
    "SentenceView",
    "best_sentence_cosines",
    "build_sentences",
    "open_sentence_store",
    "sentence_view",
]

log = logging.getLogger(__name__)

#: Sentences embedded per record at most (long dataset descriptions are cut).
MAX_SENTENCES = 64
#: Records cut and embedded between two commits of :func:`build_sentences` (a killed build
#: keeps what it committed).
BUILD_CHUNK = 64
_MAX_PARAMS = 900
FILE_NAME = "sentences.sqlite"


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
        text: the record's passage text (:func:`litsift.search.text.passage_text`).
        spans: ``(m, 2)`` int32 character offsets into ``text``, ``m <= MAX_SENTENCES``.
        vectors: ``(m, dim)`` float32 sentence vectors (float16-rounded), L2-normalised.
        text_hash: SHA-1 of ``text`` (20 bytes).
    """

    text: str
    spans: npt.NDArray[np.int32]
    vectors: npt.NDArray[np.float32]
    text_hash: bytes


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
    spans = [split_sentences(t)[:MAX_SENTENCES] for t in texts]
    sentences = [t[s:e] for t, sp in zip(texts, spans, strict=True) for s, e in sp]
    vectors = (
        encoder.encode_passages(sentences)
        if sentences
        else np.zeros((0, encoder.dim), dtype=np.float32)
    )
    vectors = np.asarray(vectors, dtype=np.float16).astype(np.float32)
    out: list[SentenceView] = []
    at = 0
    for t, sp in zip(texts, spans, strict=True):
        arr = np.asarray(sp, dtype=np.int32).reshape(-1, 2)
        out.append(SentenceView(t, arr, vectors[at : at + len(sp)], text_hash(t)))
        at += len(sp)
    return out


class SentenceStore:
    """Stored :class:`SentenceView` rows of one encoder. Thread-safe; one connection.

    Args:
        path: the SQLite file (created with its directory).
        encoder_key: the encoder's :attr:`~litsift.models_onnx.Encoder.cache_key`; rows of
            another key are deleted on open.
        dim: the encoder's dimension.

    Raises:
        sqlite3.Error, OSError: the file cannot be opened or created (use
        :func:`open_sentence_store`, which recreates a damaged file).
    """

    def __init__(self, path: Path, encoder_key: str, dim: int) -> None:
        self.path = Path(path)
        self.encoder_key = encoder_key
        self.dim = int(dim)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        #: why the file was found damaged and started again (set by open_sentence_store)
        self.repaired: str | None = None
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        self._lock = threading.Lock()
        try:
            verdict = self._db.execute("PRAGMA quick_check(1)").fetchone()
            if verdict is None or verdict[0] != "ok":
                raise sqlite3.DatabaseError(str(verdict[0] if verdict else "no verdict"))
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS sentences (kind TEXT NOT NULL, doc_id TEXT NOT NULL, "
                "text_hash BLOB NOT NULL, spans BLOB NOT NULL, vectors BLOB NOT NULL, "
                "PRIMARY KEY (kind, doc_id)) WITHOUT ROWID"
            )
            row = self._db.execute("SELECT value FROM meta WHERE key = 'encoder'").fetchone()
            owner = f"{encoder_key}|{dim}"
            if row is None or row[0] != owner:
                with self._db:
                    self._db.execute("DELETE FROM sentences")
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('encoder', ?)", (owner,))
            self._db.commit()
        except sqlite3.Error:
            self._db.close()
            raise

    def get(self, kind: Kind, wanted: Sequence[tuple[str, str]]) -> dict[str, SentenceView]:
        """The stored views of ``wanted = [(doc id, text), ...]`` whose text is unchanged.

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
                    vecs = np.frombuffer(vec_blob, dtype="<f2")
                    if vecs.size != len(spans) * self.dim:
                        continue  # a torn or foreign row: embedded again
                    found[doc_id] = SentenceView(
                        text,
                        spans.astype(np.int32),
                        vecs.reshape(len(spans), self.dim).astype(np.float32),
                        bytes(digest),
                    )
        return found

    def put(self, kind: Kind, rows: Iterable[tuple[str, SentenceView]]) -> None:
        """Store ``(doc id, view)`` rows (replacing older rows of the same ids), one commit."""
        data = [
            (
                kind.value,
                doc_id,
                view.text_hash,
                np.asarray(view.spans, dtype="<i4").tobytes(),
                np.asarray(view.vectors, dtype="<f2").tobytes(),
            )
            for doc_id, view in rows
        ]
        if not data:
            return
        with self._lock:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO sentences VALUES (?,?,?,?,?)", data)

    def hashes(self, kind: Kind) -> dict[str, bytes]:
        """``{doc id: text hash}`` of every stored row of ``kind``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT doc_id, text_hash FROM sentences WHERE kind = ?", (kind.value,)
            ).fetchall()
        return {doc_id: bytes(h) for doc_id, h in rows}

    def count(self, kind: Kind) -> int:
        """Stored rows of ``kind``."""
        with self._lock:
            sql = "SELECT COUNT(*) FROM sentences WHERE kind = ?"
            return int(self._db.execute(sql, (kind.value,)).fetchone()[0])

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


def best_sentence_cosines(
    store: Store,
    sentences: SentenceStore | None,
    kind: Kind,
    rowids: Sequence[int],
    qvec: npt.NDArray[np.float32],
) -> dict[int, float]:
    """The best cosine between ``qvec`` and one stored sentence of each record (MaxP at
    sentence granularity; Dai & Callan 2019, "Deeper Text Understanding for IR with Contextual
    Neural Language Modeling", SIGIR).

    Only stored sentences are used (nothing is embedded here): a record whose sentences are
    missing or stale (its text changed since they were cut) is left out, and so is every record
    when ``sentences`` is None.

    Args:
        store: the record store (``rowids`` are its rowids of ``kind``).
        sentences: the sentence store, or None.
        kind: the records' kind.
        rowids: the records to score.
        qvec: the ``(dim,)`` L2-normalised query vector of the encoder that embedded them.

    Returns:
        ``{rowid: cosine}`` for the records with stored sentences.
    """
    if sentences is None or not rowids:
        return {}
    records = store.get_by_rowids(kind, rowids)
    views = sentences.get(kind, [(r.id, passage_text(r)) for r in records.values()])
    out: dict[int, float] = {}
    for rowid, record in records.items():
        view = views.get(record.id)
        if view is not None and len(view.vectors):
            out[rowid] = float((view.vectors @ qvec).max())
    return out


def open_sentence_store(
    index_root: Path, encoder: SentenceEncoder, fresh: str | None = None
) -> SentenceStore | None:
    """The sentence store under ``index_root`` for ``encoder``; a damaged file (SQLite's
    ``quick_check`` fails, or it is not a database) is deleted and created again (it is derived
    data), and :attr:`SentenceStore.repaired` says why. With ``fresh`` (the reason: a build met
    a SQLite error) the file is started again at once. None when even a new file cannot be
    written (a read-only or full disk): scoring then embeds sentences on every search."""
    path = Path(index_root) / FILE_NAME
    repaired = fresh
    if fresh is not None:
        _remove(path)
    for attempt in range(2):
        try:
            store = SentenceStore(path, encoder.cache_key, encoder.dim)
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


def build_sentences(
    store: Store,
    encoder: SentenceEncoder,
    kind: Kind,
    sentences: SentenceStore,
    progress: Callable[[str, int, int], None] | None = None,
    chunk: int = BUILD_CHUNK,
) -> tuple[int, int]:
    """Cut and embed every record of ``kind`` whose sentences are missing or stale.

    Commits every ``chunk`` records, so a killed build keeps its work and the next call resumes
    with what is left; rows of records no longer in the store are dropped at the end.

    Args:
        progress: ``progress("sentences", done, total)`` over the records to do; may raise to
            stop the build (what was committed stays).

    Returns:
        ``(embedded, total)``: records cut and embedded now, records of ``kind`` in the store.
    """
    stored = sentences.hashes(kind)
    todo: list[Record] = []
    seen: set[str] = set()
    for batch in store.rows_since(kind, 0, batch_size=2000):
        for record in batch:
            seen.add(record.id)
            if stored.get(record.id) != text_hash(passage_text(record)):
                todo.append(record)
    if progress is not None:
        progress("sentences", 0, len(todo))
    for start in range(0, len(todo), chunk):
        part = todo[start : start + chunk]
        views = sentence_views(part, encoder)
        sentences.put(kind, [(r.id, v) for r, v in zip(part, views, strict=True)])
        if progress is not None:
            progress("sentences", start + len(part), len(todo))
    gone = [doc_id for doc_id in stored if doc_id not in seen]
    if gone:
        sentences.delete(kind, gone)
    return len(todo), len(seen)
