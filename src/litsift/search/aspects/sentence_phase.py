"""The sentence phase and the MaxP reader over stored sentences
(:mod:`litsift.search.aspects.sentences`).

:func:`build_sentences` cuts and embeds every record of a kind ahead of time (pinned rows);
:func:`best_sentence_cosines` reads the best stored sentence cosine of each record for the
dataset re-ranker. Both read and write only through
:class:`~litsift.search.aspects.sentences.SentenceStore`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from litsift.search.aspects.sentences import (
    BUILD_CHUNK,
    SentenceEncoder,
    SentenceStore,
    sentence_views,
    text_hash,
)
from litsift.search.retrieval.record_text import passage_text
from litsift.types import Kind, Record

if TYPE_CHECKING:
    from litsift.store import Store

__all__ = ["SentenceBuild", "best_sentence_cosines", "build_sentences"]

#: times :func:`build_sentences` goes again over the rows ingested while it ran
CATCH_UP_ROUNDS = 3


class SentenceBuild(tuple[int, int]):
    """``(embedded, total)`` of a sentence phase (unpacks as the pair it always was), and
    ``behind``: records changed in the store during the phase that still lack current
    sentences because the store kept moving past its catch-up rounds."""

    behind: int

    def __new__(cls, embedded: int, total: int, behind: int = 0) -> SentenceBuild:
        self = super().__new__(cls, (embedded, total))
        self.behind = behind
        return self


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


def build_sentences(
    store: Store,
    encoder: SentenceEncoder,
    kind: Kind,
    sentences: SentenceStore,
    progress: Callable[[str, int, int], None] | None = None,
    chunk: int = BUILD_CHUNK,
    rounds: int = CATCH_UP_ROUNDS,
) -> SentenceBuild:
    """Cut and embed every record of ``kind`` whose sentences are missing or stale: the phase
    of ``kind``, whose rows are pinned (kept however full the on-demand cache is).

    Commits every ``chunk`` records, so a killed build keeps its work and the next call resumes
    with what is left; rows of records no longer in the store are dropped at the end. Records
    ingested or changed while it runs (another process, the TUI) are cut and embedded too, in
    up to ``rounds`` more passes over the rows newer than the store's revision at the start of
    the pass before; what is still left then is counted in ``behind``.

    Args:
        progress: ``progress("sentences", done, total)`` over the records to do; may raise to
            stop the build (what was committed stays).

    Returns:
        ``(embedded, total)``: records cut and embedded now, records of ``kind`` in the store
        (a :class:`SentenceBuild`, with ``behind``).
    """
    sentences.set_pinned(kind, True)  # rows scored on demand before the phase are kept
    stored = sentences.hashes(kind)
    seen: set[str] = set()
    revision = int(store.max_revision(kind))  # read before the rows: later rows are caught up
    todo = _changed(store, kind, 0, stored, seen)
    done = 0
    for round_ in range(rounds + 1):
        if progress is not None:
            progress("sentences", done, done + len(todo))
        for start in range(0, len(todo), chunk):
            part = todo[start : start + chunk]
            views = sentence_views(part, encoder)
            sentences.put(kind, [(r.id, v) for r, v in zip(part, views, strict=True)], pinned=True)
            stored.update((r.id, v.text_hash) for r, v in zip(part, views, strict=True))
            if progress is not None:
                progress("sentences", done + start + len(part), done + len(todo))
        done += len(todo)
        moved = int(store.max_revision(kind))
        if moved <= revision or round_ == rounds:
            break
        todo, revision = _changed(store, kind, revision, stored, seen), moved
    behind = len(_changed(store, kind, revision, stored, seen))
    gone = [doc_id for doc_id in stored if doc_id not in seen]
    if gone:
        sentences.delete(kind, gone)
    return SentenceBuild(done, len(seen), behind)


def _changed(
    store: Store, kind: Kind, revision: int, stored: dict[str, bytes], seen: set[str]
) -> list[Record]:
    """The records of ``kind`` newer than ``revision`` whose text is not the one their stored
    sentences were cut from (``seen`` gets every id read)."""
    todo: list[Record] = []
    for batch in store.rows_since(kind, revision, batch_size=2000):
        for record in batch:
            seen.add(record.id)
            if stored.get(record.id) != text_hash(passage_text(record)):
                todo.append(record)
    return todo
