"""Index builds and their state, the service's group of methods for them: BM25 + dense
(:mod:`litsift.search.build.two_phase`), full-text passages, the sentence store, and what a home
still needs (``litsift index``, the TUI's background builds, ``litsift config``)."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litsift.errors import ConfigError, IndexDamagedError, IndexMismatchError
from litsift.service.parts import Progress, ServiceParts
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.search.aspects.sentence_phase import SentenceBuild
    from litsift.search.aspects.sentences import SentenceStore
    from litsift.search.build.index_pair import IndexReport
    from litsift.search.build.manifest import Manifest
    from litsift.search.datasets.popularity import MentionCounts
    from litsift.search.engines.milvus_push import PushReport
    from litsift.search.engines.ray_embed import RayEmbedReport
    from litsift.search.fulltext.build import PassageBuild

log = logging.getLogger(__name__)

__all__ = ["IndexCommands"]


class IndexCommands(ServiceParts):
    """Builds and index state of one home (mixed into
    :class:`litsift.service.facade.LitsiftService`)."""

    def build_index(
        self,
        kind: Kind,
        rebuild: bool = False,
        progress: Progress | None = None,
        *,
        dense: bool = True,
        on_bm25: Callable[[IndexReport], None] | None = None,
    ) -> IndexReport:
        """Index rows new since the last build (all with ``rebuild``) in two phases
        (:mod:`litsift.search.build.two_phase`): BM25 published first, searchable at once (then
        ``on_bm25(report)``), then the dense part (skipped with ``dense=False``: searches stay
        BM25-only), then the rows ingested meanwhile
        (:func:`~litsift.search.build.two_phase.catch_up`;
        ``report.behind`` counts what is still not in BM25). Raises LitsiftError when another
        build of ``kind`` is running."""
        from litsift.search.build.two_phase import build_in_two_phases

        def bm25_published(first: IndexReport) -> None:
            self.searchers.invalidate(kind)
            if self.store.count(Kind.PAPER) and self.store.count(Kind.DATASET):
                self.dataset_mentions()  # counted now, so the first dataset search doesn't wait
            if on_bm25 is not None:
                on_bm25(first)

        report = build_in_two_phases(
            self.store,
            self.encoder,
            kind,
            self.paths.index_dir,
            rebuild,
            progress,
            on_bm25=bm25_published,
            dense=dense,
        )
        self.searchers.invalidate(kind)
        return report

    def push_index(
        self, kind: Kind, rebuild: bool = False, progress: Progress | None = None
    ) -> PushReport:
        """Push the rows of ``kind`` changed since the last push to the Milvus engine
        (``litsift index --engine milvus``; :meth:`MilvusEngine.push`: batched, resumable).

        Raises:
            ConfigError: the engine is not Milvus, or the ``scale`` extra is not installed.
            IndexMissingError: Milvus cannot be reached or refuses a write.
        """
        engine = self.engine  # first: says which extra is missing where pymilvus is
        from litsift.search.engines.milvus import MilvusEngine

        if not isinstance(engine, MilvusEngine):
            raise ConfigError(
                f"the engine is {engine.name!r}: there is no Milvus collection to push to",
                'set [engine] kind = "milvus" in config.toml, or pass --engine milvus',
            )
        report = engine.push(self.store, self.encoder, kind, rebuild=rebuild, progress=progress)
        self.searchers.invalidate(kind)
        return report

    def push_passages(self, rebuild: bool = False, progress: Progress | None = None) -> PushReport:
        """Push the stored full-text passages to the Milvus engine's passages collection
        (:func:`~litsift.search.engines.milvus_passages.push_passages`; skipped when unchanged).

        Raises:
            ConfigError: the engine is not Milvus, or the ``scale`` extra is not installed.
            IndexMissingError: Milvus cannot be reached or refuses a write.
        """
        engine = self.engine  # first: says which extra is missing where pymilvus is
        from litsift.search.engines.milvus import MilvusEngine
        from litsift.search.engines.milvus_passages import push_passages

        if not isinstance(engine, MilvusEngine):
            raise ConfigError(f"the engine is {engine.name!r}: there is nothing to push to")
        with self._lock:
            self._passages = None
        report = push_passages(engine, self.store, self.encoder, rebuild, progress)
        engine._has_passages = None
        return report

    def embed_with_ray(
        self, kind: Kind, address: str, progress: Progress | None = None
    ) -> RayEmbedReport:
        """Embed the rows of ``kind`` missing from the embedding cache in Ray Data actors
        (``litsift index --ray``; :func:`litsift.search.engines.ray_embed.embed_with_ray`)."""
        from litsift.search.engines.ray_embed import embed_with_ray

        return embed_with_ray(self.store, self.encoder, kind, address, progress=progress)

    def check_index(self, kind: Kind, mark: bool = True) -> dict[str, str]:
        """Verify every index file's checksum (``litsift index --check``); with ``mark``
        damaged parts are marked so the next :meth:`build_index` rebuilds them (without, as
        on a read-only home, nothing is written). Returns ``{part: reason}``."""
        from litsift.search.build.index_pair import check_index

        self.searchers.invalidate(kind)
        return check_index(self.paths.index_dir, kind, mark)

    def check_passages(self) -> str | None:
        """Why the full-text passage index is damaged (every file's sha256 verified, nothing
        written), or None when it is intact or absent."""
        from litsift.search.fulltext.files import DIR_NAME, passage_damage

        directory = self.paths.index_dir / DIR_NAME
        return passage_damage(directory, full=True) if directory.is_dir() else None

    def index_status(self, kind: Kind) -> Manifest | None:
        from litsift.search.build.index_pair import index_status

        return index_status(self.paths.index_dir, kind)

    def index_mismatch(self, kind: Kind) -> str | None:
        """Why the index of ``kind`` cannot serve this home's encoder as it is (another
        encoder, a stale or damaged part, an unreadable manifest), in one line; None when it
        can or there is no index."""
        try:
            manifest = self.index_status(kind)
        except IndexMismatchError as err:
            return err.message
        return manifest.mismatch(self.encoder) if manifest is not None else None

    def needs_index(self, kind: Kind) -> bool:
        """True if the store has rows the index (either part) does not cover, there is no
        index, or a part is damaged: marked so, a recorded file missing or of another size, or
        the manifest unreadable (one ``stat`` per file; the TUI builds such kinds at start).
        Always False on a Milvus engine: its collections are pushed by ``litsift index``."""
        if self.config.engine.kind != "local":
            return False
        from litsift.search.build.layout import index_dir_for
        from litsift.search.build.manifest import verify_files

        if self.store.count(kind) == 0:
            return False
        try:
            m = self.index_status(kind)
        except IndexDamagedError:
            return True
        if m is not None and verify_files(index_dir_for(self.paths.index_dir, kind), m):
            return True
        covered = min(m.revision("bm25"), m.revision("dense")) if m is not None else -1
        return covered < self.store.max_revision(kind)

    def bm25_behind(self, kind: Kind) -> tuple[int, int] | None:
        """``(rows, rows the BM25 part covers)`` when the store has rows of ``kind`` that its
        BM25 part does not cover (or there is no BM25 part); None when BM25 is up to date.
        A missing part covers 0 rows."""
        rows = self.store.count(kind)
        if rows == 0:
            return None
        m = self.index_status(kind)
        if m is not None and m.revision("bm25") >= self.store.max_revision(kind):
            return None
        return rows, (m.part_count("bm25") if m is not None else 0)

    def rows_behind(self, kind: Kind) -> int:
        """Rows of ``kind`` changed in the store since its BM25 part's revision (0 with no
        index): what a build that ran meanwhile did not index."""
        m = self.index_status(kind)
        if m is None or self.store.max_revision(kind) <= m.revision("bm25"):
            return 0
        return sum(len(b) for b in self.store.rows_since(kind, m.revision("bm25")))

    def dataset_mentions(self) -> MentionCounts:
        """How many papers of the store name each dataset, cached on disk."""
        return self.searchers.mentions()

    def has_passages(self) -> bool:
        """True when papers' full text is indexed (a passage index that is not empty; a
        damaged one counts, so a search says what to run): then full-text search is the
        default (TUI, ``litsift search``, ``litsift answer``). Cheap (a ``stat`` while the
        index is unchanged; nothing is opened or encoded)."""
        return self.engine.has_passages()

    def build_passages(
        self, progress: Progress | None = None, rebuild: bool = False, check: bool = False
    ) -> PassageBuild:
        """Index the stored full-text passages (BM25 + dense; skipped when unchanged and
        intact, see :func:`litsift.search.fulltext.build.build_passage_index`)."""
        from litsift.search.fulltext.build import build_passage_index

        with self._lock:
            self._passages = None  # closed before its directory is swapped
        root = self.paths.index_dir
        report = build_passage_index(self.store, self.encoder, root, progress, rebuild, check)
        with self._lock:
            self._passages = None
        return report

    def sentence_phase(self, kind: Kind) -> bool:
        """True when ``kind``'s sentences are computed ahead of time by :meth:`build_sentences`
        (config ``search.sentence_phase``; with "auto", while ``kind`` has at most
        ``search.sentence_phase_max_records`` records); otherwise a hit's sentences are embedded
        when it is first scored and kept in a bounded cache."""
        settings = self.config.search
        phase = settings.sentence_phase
        if phase == "auto":
            return self.store.count(kind) <= settings.sentence_phase_max_records
        return phase == "all" or (phase == "datasets" and kind is Kind.DATASET)

    def build_sentences(
        self, kind: Kind, progress: Progress | None = None, chunk: int | None = None
    ) -> SentenceBuild:
        """Cut and embed the sentences of every record of ``kind`` that lacks them, for aspect
        scoring (the third index phase, after BM25 and dense; resumable, see
        :func:`litsift.search.aspects.sentence_phase.build_sentences`). A kind without the phase
        (:meth:`sentence_phase`) embeds nothing: rows an earlier phase pinned join the bounded
        cache instead.

        Returns:
            ``(embedded now, records of kind)``; ``(0, n)`` when the store cannot be opened or
            ``kind`` has no phase. Its ``behind`` counts the records changed during the phase
            that still lack sentences (the store kept moving).
        """
        from litsift.search.aspects.sentence_phase import SentenceBuild, build_sentences
        from litsift.search.aspects.sentences import BUILD_CHUNK as SENTENCE_CHUNK

        sentences = self.sentence_store
        if sentences is None:
            return SentenceBuild(0, self.store.count(kind))
        marker = self._sentences_marker(kind)
        if not self.sentence_phase(kind):
            marker.unlink(missing_ok=True)
            try:
                sentences.set_pinned(kind, False)
            except sqlite3.Error as err:  # derived data: the rows stay as they are
                log.warning("sentence rows of %s not unpinned: %s", kind.table, err)
            return SentenceBuild(0, self.store.count(kind))
        try:
            marker.touch()
        except OSError:
            pass
        try:
            done = build_sentences(
                self.store, self.encoder, kind, sentences, progress, chunk or SENTENCE_CHUNK
            )
        except sqlite3.DatabaseError as err:  # damaged under a quick_check: started again
            sentences = self._reopen_sentences(f"{sentences.path.name}: {err}")
            if sentences is None:
                return SentenceBuild(0, self.store.count(kind))
            done = build_sentences(
                self.store, self.encoder, kind, sentences, progress, chunk or SENTENCE_CHUNK
            )
        marker.unlink(missing_ok=True)  # finished: nothing to resume
        return done

    def _reopen_sentences(self, why: str) -> SentenceStore | None:
        """Start the sentence store again (it is derived data) because of ``why``."""
        from litsift.search.aspects.sentences import open_sentence_store

        with self._lock:
            if self._sentences is not None:
                self._sentences.close()
            self._sentences = open_sentence_store(
                self.paths.index_dir,
                self.encoder,
                fresh=why,
                max_cached=self.config.search.sentence_cache_records,
            )
            self._aspect_scorer = None
            return self._sentences

    def sentences_repaired(self) -> str | None:
        """Why the sentence store was found damaged and started again by this service (on
        open or during :meth:`build_sentences`), or None."""
        with self._lock:
            return self._sentences.repaired if self._sentences is not None else None

    def _sentences_marker(self, kind: Kind) -> Path:
        return self.paths.index_dir / f"sentences-pending-{kind.value}"

    def sentences_pending(self, kind: Kind) -> bool:
        """True when a sentence phase of ``kind`` was started and did not finish (the TUI
        resumes it at start)."""
        return self._sentences_marker(kind).is_file()

    def needs_sentences(self, kind: Kind) -> bool:
        """True when ``kind`` has the sentence phase and fewer of its records have stored
        sentences than the store holds."""
        if not self.sentence_phase(kind):
            return False
        sentences = self.sentence_store
        if sentences is None:
            return False
        return sentences.count(kind) < self.store.count(kind)

    def describe(self) -> dict[str, Any]:
        """Counts, index manifests and paths, for ``litsift config`` and the TUI status."""
        out: dict[str, Any] = {
            "home": str(self.paths.data_dir),
            "store": str(self.paths.store_file),
            "models_dir": str(self.paths.models_dir),
            #: errors of background work with tracebacks, and third-party warnings
            "log_file": str(self.log_path or self.paths.log_file),
        }
        for kind in Kind:
            m = self.index_status(kind)
            out[kind.table] = {
                "rows": self.store.count(kind),
                "indexed": m.count if m else 0,
                "embedded": m.part_count("dense") if m else 0,
                "model": m.model_id if m else None,
            }
        #: None, or why nothing can be saved here (a read-only home, a full disk)
        out["read_only"] = self.read_only_reason
        #: None, or how a read-only store was opened (immutable, a private copy of its WAL)
        out["store_opened"] = self.store.read_note
        return out
