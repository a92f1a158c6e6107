"""The engine seam: where a kind's BM25 and dense retrieval run (``[engine] kind``).

A :class:`SearchEngine` gives the searchers their retrievers and nothing else: a
:class:`~litsift.search.kind_searcher.KindSearcher` over a sparse retriever (BM25 hits for
a query
text, the year filter pushed down) and a dense retriever (nearest vectors for a query vector,
the year filter pushed down, stored vectors by rowid). Fusion, pseudo-relevance feedback,
aspects, the dataset re-ranker, triage and the store stay litsift's, whichever engine answers:
the corpus can be shared, the judgments stay in the user's SQLite.

- :class:`LocalEngine` (``kind = "local"``, the default): tantivy + hnswlib under the home's
  index dir (:mod:`litsift.search.retrieval.bm25`, :mod:`litsift.search.retrieval.dense`).
- :class:`~litsift.search.engines.milvus.MilvusEngine` (``kind = "milvus"``): collections on a
  Milvus server or in a Milvus Lite file, reached with pymilvus (the ``scale`` extra); the same
  client code talks to Milvus Lite, Standalone and Distributed (the URI decides).

The shape follows harlequin's adapter (``src/harlequin/adapter.py``): a narrow door the app
talks to, one implementation per backend.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from litsift.errors import ConfigError
from litsift.install import extra_hint
from litsift.types import Kind

if TYPE_CHECKING:
    from litsift.config import EngineSettings
    from litsift.models_onnx import Encoder
    from litsift.search.fulltext.index import PassageHit
    from litsift.search.kind_searcher import KindSearcher
    from litsift.search.retrieval.hybrid_stages import Ranking
    from litsift.store import Store

__all__ = [
    "LocalEngine",
    "PassageSearch",
    "SearchEngine",
    "open_engine",
]


class SearchEngine(Protocol):
    """Opens the searcher of a kind over this engine's retrievers."""

    #: ``"local"`` or ``"milvus"``
    name: str

    @property
    def where(self) -> str:
        """Where its retrievers run: the index directory, or the Milvus URI."""
        ...

    def searcher(
        self,
        kind: Kind,
        encoder: Encoder,
        year_by_rowid: npt.NDArray[np.int32],
        ranking: Ranking,
    ) -> KindSearcher:
        """The kind's searcher. Raises IndexMissingError / IndexMismatchError /
        IndexDamagedError when the engine holds no usable index of ``kind``."""
        ...

    def has_index(self, kind: Kind) -> bool:
        """Whether an index of ``kind`` exists in this engine (cheap; nothing is opened)."""
        ...

    def passages(self, store: Store, encoder: Encoder) -> PassageSearch | None:
        """The full-text passage index, or None when none was built or pushed.
        Raises IndexDamagedError / IndexMismatchError when it cannot serve."""
        ...

    def has_passages(self) -> bool:
        """Whether full text is indexed in this engine (cheap)."""
        ...


class PassageSearch(Protocol):
    """What a search asks of a passage index (``PassageIndex`` locally)."""

    @property
    def count(self) -> int: ...

    def search(self, text: str, k: int = 20, k0: int = 100) -> list[PassageHit]:
        """The top ``k`` passages for ``text``, BM25 and dense fused."""
        ...


class LocalEngine:
    """tantivy + hnswlib under ``index_root`` (the default, embedded engine)."""

    name = "local"

    def __init__(self, index_root: Path) -> None:
        self.index_root = Path(index_root)

    @property
    def where(self) -> str:
        """The index directory."""
        return str(self.index_root)

    def searcher(
        self,
        kind: Kind,
        encoder: Encoder,
        year_by_rowid: npt.NDArray[np.int32],
        ranking: Ranking,
        load_dense: bool = True,
    ) -> KindSearcher:
        """See :meth:`SearchEngine.searcher`; ``load_dense=False`` opens BM25 alone and leaves a
        built dense part to load later (:attr:`KindSearcher.dense_pending`)."""
        from litsift.search.kind_searcher import KindSearcher

        return KindSearcher.open(
            self.index_root, kind, encoder, year_by_rowid, ranking, load_dense=load_dense
        )

    def has_index(self, kind: Kind) -> bool:
        from litsift.search.build.index_pair import index_status

        return index_status(self.index_root, kind) is not None

    def passages(self, store: Store, encoder: Encoder) -> PassageSearch | None:
        from litsift.search.fulltext.index import PassageIndex

        return PassageIndex.open(self.index_root, store, encoder)

    def has_passages(self) -> bool:
        from litsift.search.fulltext.files import passages_built

        return passages_built(self.index_root)


def open_engine(settings: EngineSettings, index_root: Path) -> SearchEngine:
    """The engine ``settings`` name, over ``index_root`` (local indexes; a relative Milvus Lite
    file lives there too).

    Raises:
        ConfigError: ``kind = "milvus"`` without the ``scale`` extra installed, or
            ``token_env`` naming an unset variable.
        IndexMissingError: the Milvus server cannot be reached (with the URI and a hint).
    """
    if settings.kind == "local":
        return LocalEngine(index_root)
    try:
        from litsift.search.engines.milvus import MilvusEngine
    except ImportError as err:
        raise ConfigError(
            "engine.kind = 'milvus' needs pymilvus and milvus-lite, which are not installed",
            extra_hint("scale"),
        ) from err
    token = ""
    if settings.token_env:
        token = os.environ.get(settings.token_env, "")
        if not token:
            raise ConfigError(
                f"engine.token_env names {settings.token_env}, which is not set",
                f"export {settings.token_env}=user:password (or the server's API key)",
            )
    return MilvusEngine(
        milvus_uri(settings.uri, index_root), token, settings.collection_prefix, index_root
    )


def milvus_uri(uri: str, index_root: Path) -> str:
    """The URI pymilvus is given: ``http(s)://`` and ``tcp://`` as they are, a ``.db`` path
    (Milvus Lite) made absolute under ``index_root``; empty: ``<index_root>/milvus.db``.

    Raises:
        ConfigError: a path that does not end in ``.db`` (Milvus Lite's rule).
    """
    if uri.startswith(("http://", "https://", "tcp://", "grpc://")):
        return uri
    path = Path(uri or "milvus.db").expanduser()
    if path.suffix != ".db":
        raise ConfigError(
            f"engine.uri {uri!r} is neither a server URL nor a Milvus Lite file",
            'use "http://host:19530" for a server, or a path ending in .db for Milvus Lite',
        )
    if not path.is_absolute():
        path = Path(index_root) / path
    path.parent.mkdir(parents=True, exist_ok=True)
    return str(path)
