"""The part of the service door that walks the citation trail: ``litsift refs fetch``, a
paper's references and citing works, the snowball step from the kept papers, graph export.

Reached as ``LitsiftService.refs``. Works fetched for the trail are written like any import
(matched and merged onto stored papers by identifier; new ones stored, provenance
``refs:openalex`` / ``refs:s2``), so they can be shown, searched after the next index build and
triaged; the edges go to :mod:`litsift.store.citations`. Each walk -- (source, seed,
direction) -- keeps its checkpoint in ``refs_fetches``: a finished one is not fetched again
(unless ``refresh``), an interrupted one resumes at its first unwritten page.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING

from litsift.config import Config
from litsift.errors import LitsiftError
from litsift.service.refs_fetch import RefsError, RefsFetchReport, Walk
from litsift.types import Kind, Label, Query, SearchResult
from litsift.types.citations import (
    DatasetUsers,
    KeptLinks,
    Neighbour,
    Neighbours,
    SnowballCandidate,
    SnowballRound,
    TrailFetch,
)

if TYPE_CHECKING:
    from pathlib import Path

    import networkx as nx

    from litsift.search.datasets.popularity import MentionCounts
    from litsift.sources.formats.s2ag_citations import CitationImportReport
    from litsift.store import Store
    from litsift.store.refs_fetches import Direction

__all__ = ["RefsError", "RefsFetchReport", "RefsService", "Walk"]


class RefsService:
    """Citation trail, snowballing and graph export on one store."""

    def __init__(
        self,
        store: Callable[[], Store],
        changed: Callable[[Kind], None],
        config: Config | None = None,
        search: Callable[[Query], SearchResult] | None = None,
        mentions: Callable[[], MentionCounts] | None = None,
    ) -> None:
        self._store = store
        self._changed = changed
        self._config = config or Config()
        self._search = search
        self._mentions = mentions

    # -- seeds -----------------------------------------------------------------------------
    def seeds(
        self, kept: bool = False, collection: str | None = None, ids: Sequence[str] = ()
    ) -> list[str]:
        """Paper ids to walk from: the kept papers, a collection's papers, or ``ids``.

        Raises:
            RefsError: an id is not a stored paper; nothing is kept; the selection is empty.
            TriageError: no collection of that name.
        """
        from litsift.store.triage import Triage

        store = self._store()
        triage = Triage(store)
        out: list[str] = []
        if kept:
            out += triage.ids_with_label(Kind.PAPER, Label.KEEP)
            if not out:
                raise RefsError(
                    "no paper is kept yet", "keep papers in the TUI (key +), or name ids"
                )
        if collection is not None:
            out += [d for k, d in triage.collection_items(collection) if k is Kind.PAPER]
        for doc_id in ids:
            if store.get(Kind.PAPER, doc_id) is None:
                raise RefsError(
                    f"no stored paper has the id {doc_id!r}",
                    "ids are as `litsift search --json` prints them (doi:…, arxiv:…, key:…)",
                )
            out.append(doc_id)
        if not out and collection is not None:  # the hint below named the option just given
            raise RefsError(
                f"collection {collection!r} holds no paper",
                "add papers to it in the TUI (key c on a result)",
            )
        if not out:
            raise RefsError("no papers to walk from", "name ids, --kept or --collection NAME")
        return list(dict.fromkeys(out))

    # -- fetch -----------------------------------------------------------------------------
    def fetch(
        self,
        doc_ids: Sequence[str],
        directions: Sequence[Direction] = ("backward", "forward"),
        source: str = "openalex",
        *,
        refresh: bool = False,
        max_pages: int | None = None,
        progress: Callable[[str, str, int, int | None], None] | None = None,
        lock: AbstractContextManager[object] | None = None,
    ) -> RefsFetchReport:
        """Fetch the references and/or citing works of each paper from ``source``; arguments,
        return value and resumption as :func:`litsift.service.refs_fetch.fetch_walks`."""
        from litsift.service.refs_fetch import fetch_walks

        return fetch_walks(
            self._store,
            self._changed,
            self._config,
            doc_ids,
            directions,
            source,
            refresh=refresh,
            max_pages=max_pages,
            progress=progress,
            lock=lock,
        )

    def fetch_trail(
        self,
        doc_id: str,
        lock: AbstractContextManager[object] | None = None,
        progress: Callable[[str, int], None] | None = None,
        refresh: bool = False,
    ) -> TrailFetch:
        """Fetch paper ``doc_id``'s references and citing works (the citations screen's
        ``F``; :meth:`fetch` for every option): from OpenAlex, and from Semantic Scholar where
        OpenAlex has no work for it or no identifier it knows (a paper too new for OpenAlex,
        one known by an ACL Anthology id), as ``litsift refs fetch --source s2`` would.

        Args:
            doc_id: the stored paper.
            lock: held around each page's writes, never across a request (the app's
                service lock: its searches go on while the walk waits on the network).
            progress: ``progress(direction, works so far)`` after each page.
            refresh: walk again what was fetched before (new citing works since); else such
                a walk is cached and asks nothing.

        Returns:
            The citation edges added, and whether every walk was cached (nothing asked).

        Raises:
            LitsiftError: why the fetch stopped (a service could not be reached), or what
                each source said when neither had the paper.
        """

        def each_page(_doc: str, direction: str, works: int, _total: int | None) -> None:
            if progress is not None:
                progress(direction, works)

        def cached(walks: Sequence[Walk]) -> bool:
            return bool(walks) and all(w.status == "cached" for w in walks)

        report = self.fetch([doc_id], progress=each_page, lock=lock, refresh=refresh)
        if report.stopped is not None:
            raise report.stopped
        failed = [w for w in report.walks if w.status in ("failed", "no-id")]
        if not failed:
            return TrailFetch(report.edges_added, cached(report.walks))
        if len(failed) < len(report.walks):  # one direction walked: what it found is kept
            raise RefsError(failed[0].problem, "fetch again later: the walk done is kept")
        other = self.fetch([doc_id], source="s2", progress=each_page, lock=lock, refresh=refresh)
        if other.stopped is None and any(w.status not in ("failed", "no-id") for w in other.walks):
            return TrailFetch(report.edges_added + other.edges_added, cached(other.walks))
        theirs = (
            other.stopped.message
            if other.stopped is not None
            else next((w.problem for w in other.walks if w.problem), "no answer")
        )
        ours = failed[0].problem.removeprefix(f"{doc_id}: ")
        raise RefsError(
            f"{doc_id}: neither OpenAlex nor Semantic Scholar has its trail ({ours}; "
            f"{theirs.removeprefix(f'{doc_id}: ')})",
            "check its DOI or arXiv id (the detail pane lists them), or import its references "
            "from a file: litsift refs import FILE",
        )

    # -- importing edge files --------------------------------------------------------------
    def import_citations(
        self, paths: Sequence[Path], progress: Callable[[int], None] | None = None
    ) -> CitationImportReport:
        """Add the edges of S2AG ``citations`` dataset files (``.jsonl`` or ``.jsonl.gz``,
        streamed) as ``corpusid:CITING -> corpusid:CITED`` edges, resolved to the stored
        papers that hold those corpus ids; see
        :func:`litsift.sources.formats.s2ag_citations.import_citation_files` (bad lines and
        unreadable
        files are in the report's ``bad``, never raised).

        Raises:
            StoreLockedError: another process holds the store's write lock.
        """
        from litsift.sources.formats.s2ag_citations import import_citation_files

        report = import_citation_files(self._store(), paths, progress=progress)
        if report.edges_added:
            self._changed(Kind.PAPER)
        return report

    # -- reading the graph -----------------------------------------------------------------
    def _neighbours(self, keys: Collection[str]) -> dict[str, Neighbour]:
        """The works ``keys`` as neighbours: a stored paper with its title, year and label; a
        work not stored with the name its source gave it (``citation_labels``: ``"Title
        (First author, 2019)"``, e.g. a GROBID reference without identifiers), or no title."""
        from litsift.store.repositories import Citations
        from litsift.store.triage import Triage

        store = self._store()
        keys = list(dict.fromkeys(keys))
        labels = Triage(store).labels(Kind.PAPER, keys)
        out: dict[str, Neighbour] = {}
        stubs: list[str] = []
        for key in keys:
            rec = store.get(Kind.PAPER, key)
            if rec is None:
                stubs.append(key)
            else:
                out[key] = Neighbour(
                    key, rec.display_title, getattr(rec, "year", None), True, labels.get(key)
                )
        named = Citations(store).labels(stubs) if stubs else {}
        for key in stubs:
            out[key] = Neighbour(key, named.get(key, ""))
        return {key: out[key] for key in keys}

    @staticmethod
    def _ordered(items: Collection[Neighbour]) -> tuple[Neighbour, ...]:
        return tuple(
            sorted(
                items,
                key=lambda n: (not n.stored, not n.title, -(n.year or 0), n.title.lower(), n.key),
            )
        )

    def neighbours(self, doc_id: str) -> Neighbours:
        """The references and citing works of paper ``doc_id`` in the store's edges, stored
        papers first (newest first), then works not stored: named ones (by name), then bare
        external keys.

        Raises:
            RefsError: no stored paper ``doc_id``.
        """
        from litsift.store.repositories import Citations

        store = self._store()
        rec = store.get(Kind.PAPER, doc_id)
        if rec is None:
            raise RefsError(f"no stored paper has the id {doc_id!r}", "pick a stored paper")
        refs, citing = Citations(store).neighbours(doc_id)
        info = self._neighbours([*refs, *citing])
        return Neighbours(
            doc_id,
            rec.display_title,
            self._ordered([info[k] for k in refs]),
            self._ordered([info[k] for k in citing]),
        )

    def dataset_users(
        self, doc_id: str, query_text: str = "", max_year: int | None = None
    ) -> DatasetUsers:
        """The stored papers that name the dataset ``doc_id``: how many (up to ``max_year``)
        and a few, those ``query_text`` finds first, then the newest
        (:func:`litsift.service.dataset_users.dataset_users`). Reads the store and runs a
        paper search: off the UI thread; no users without mention counts."""
        from litsift.service.dataset_users import dataset_users

        if self._mentions is None:
            return DatasetUsers(doc_id, query=query_text, max_year=max_year)
        mentions = self._mentions()
        return dataset_users(self._store(), mentions, self._search, doc_id, query_text, max_year)

    def kept_links(self, doc_id: str) -> KeptLinks:
        """How paper ``doc_id`` is linked to the kept papers in the store's edges: the kept
        papers it cites and those citing it, with their titles (the detail pane's "linked to k
        of your kept papers"). A paper that is not stored, or nothing kept, gives no links."""
        from litsift.store.repositories import Citations
        from litsift.store.triage import Triage

        store = self._store()
        kept = set(Triage(store).ids_with_label(Kind.PAPER, Label.KEEP)) - {doc_id}
        if not kept:
            return KeptLinks(doc_id)
        refs, cited_by = Citations(store).neighbours(doc_id)
        cites = [k for k in refs if k in kept]
        citing = [k for k in cited_by if k in kept]
        info = self._neighbours([*cites, *citing])
        return KeptLinks(
            doc_id,
            len(kept),
            self._ordered([info[k] for k in cites]),
            self._ordered([info[k] for k in citing]),
        )

    def graph(self, doc_ids: Collection[str] | None = None) -> nx.DiGraph:
        """The citation graph around ``doc_ids`` (one step out; all edges with None), nodes
        carrying ``title``, ``year``, ``stored``, ``triage`` (the label) and ``member`` (in
        ``doc_ids``)."""
        import networkx as nx

        from litsift.store.repositories import Citations

        g = Citations(self._store()).graph(doc_ids)
        info = self._neighbours(list(g.nodes))
        members = set(doc_ids) if doc_ids is not None else set(g.nodes)
        nx.set_node_attributes(
            g,
            {
                k: {
                    "title": n.title,
                    "year": n.year,
                    "stored": n.stored,
                    "triage": n.label.value if n.label else None,
                    "member": k in members,
                }
                for k, n in info.items()
            },
        )
        return g

    def export(self, collection: str | None, fmt: str) -> str:
        """The citation graph of a collection's papers (None: the kept papers) and their
        references and citing works, as ``graphml``, ``dot`` or ``json`` (node-link) text.

        Raises:
            RefsError: nothing kept / an empty collection; an unknown format.
            TriageError: no collection of that name.
        """
        from litsift.graph.export import GRAPH_FORMATS, write_graph

        if fmt not in GRAPH_FORMATS:
            raise RefsError(
                f"unknown graph format {fmt!r}", f"use one of: {', '.join(GRAPH_FORMATS)}"
            )
        try:
            ids = self.seeds(kept=collection is None, collection=collection)
        except RefsError as err:  # seeds' hint named ids, which refs export does not take
            if collection is not None:
                raise
            raise RefsError(
                err.message,
                "keep papers in the TUI (key +), or name a collection: litsift refs export NAME",
            ) from None
        return write_graph(self.graph(ids), fmt)

    # -- snowballing -----------------------------------------------------------------------
    def relevance(self, query_text: str, keys: Collection[str]) -> dict[str, float]:
        """Hybrid relevance of ``keys`` to ``query_text`` in [0, 1]: ``1 - rank / n`` of each
        key among the ``n`` hits of the configured hybrid search (BM25 + dense, ``k = k0``);
        keys it does not return (or every key, without a query or an index) get nothing."""
        if not query_text.strip() or self._search is None or not keys:
            return {}
        k = max(self._config.search.k0, self._config.search.k)
        try:
            result = self._search(Query(query_text, Kind.PAPER, k=k))
        except LitsiftError:
            return {}  # no index yet: the graph alone ranks
        wanted = set(keys)
        n = len(result.hits) or 1
        return {h.docid: 1.0 - i / n for i, h in enumerate(result.hits) if h.docid in wanted}

    def snowball(self, query_text: str = "") -> SnowballRound:
        """One snowball step from the kept papers (:mod:`litsift.graph.rounds`): their
        references and citing works that carry no label yet, ranked. Labelling candidates and
        calling again is the next round; an empty round means nothing new is linked.

        Raises:
            RefsError: no paper is kept.
        """
        from litsift.graph.rounds import candidates_of, rank_candidates
        from litsift.store.repositories import Citations
        from litsift.store.triage import Triage

        store = self._store()
        triage = Triage(store)
        kept = triage.ids_with_label(Kind.PAPER, Label.KEEP)
        if not kept:
            raise RefsError("snowballing starts from kept papers", "keep a few papers first (+)")
        edges = Citations(store)
        labelled = set(triage.labelled_ids(Kind.PAPER))
        near = candidates_of(edges.graph(kept), kept, labelled)
        g = edges.graph({*kept, *near})
        rel = self.relevance(query_text, near)
        ranked = rank_candidates(g, kept, labelled, rel)
        info = self._neighbours([c.neighbour.key for c in ranked])
        out: list[SnowballCandidate] = [replace(c, neighbour=info[c.neighbour.key]) for c in ranked]
        return SnowballRound(len(kept), tuple(out))
