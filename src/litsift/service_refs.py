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

import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from litsift.config import Config
from litsift.errors import LitsiftError
from litsift.types import Kind, Label, Query, SearchResult
from litsift.types.citations import (
    Neighbour,
    Neighbours,
    SnowballCandidate,
    SnowballRound,
)

if TYPE_CHECKING:
    import networkx as nx

    from litsift.sources.trail import Direction
    from litsift.store import Store
    from litsift.store.report import IngestReport

__all__ = ["RefsError", "RefsFetchReport", "RefsService", "Walk"]


class RefsError(LitsiftError):
    """A citation-trail request that cannot run (unknown paper or collection, nothing kept)."""


@dataclass
class Walk:
    """One (seed, direction) of a fetch: ``status`` is ``fetched``, ``resumed``, ``cached``
    (done before; not fetched again), ``partial`` (``max_pages`` reached), ``no-id`` or
    ``failed`` (``problem`` says why)."""

    doc_id: str
    direction: str
    status: str
    pages: int = 0
    records: int = 0
    problem: str = ""


@dataclass
class RefsFetchReport:
    """What ``refs fetch`` did: the walks, the works written (as an import counts them), the
    edges added, and -- when the service could not be reached -- why it stopped."""

    source: str
    counts: IngestReport
    walks: list[Walk] = field(default_factory=list)
    edges_added: int = 0
    stopped: LitsiftError | None = None

    @property
    def ok(self) -> bool:
        return self.stopped is None and not any(w.status in ("failed", "no-id") for w in self.walks)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "walks": [vars(w) for w in self.walks],
            **self.counts.to_json(),
            "edges_added": self.edges_added,
            "stopped": None
            if self.stopped is None
            else {"message": self.stopped.message, "hint": self.stopped.hint},
        }


class RefsService:
    """Citation trail, snowballing and graph export on one store."""

    def __init__(
        self,
        store: Callable[[], Store],
        changed: Callable[[Kind], None],
        config: Config | None = None,
        search: Callable[[Query], SearchResult] | None = None,
    ) -> None:
        self._store = store
        self._changed = changed
        self._config = config or Config()
        self._search = search

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
        if not out:
            raise RefsError("no papers to walk from", "name ids, --kept or --collection NAME")
        return list(dict.fromkeys(out))

    def _ids_of(self, doc_id: str) -> dict[str, str]:
        from litsift.sources.ids import SCHEMES
        from litsift.store import identities

        store = self._store()
        with store.lock:
            ids = identities.ids_of_docs(store.conn, Kind.PAPER, [doc_id]).get(doc_id, {})
        scheme, _, value = doc_id.partition(":")
        if scheme in SCHEMES and value:
            ids.setdefault(scheme, value)
        return ids

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
    ) -> RefsFetchReport:
        """Fetch the references and/or citing works of each paper from ``source``.

        Args:
            doc_ids: stored paper ids (:meth:`seeds`).
            directions: ``backward`` (references) and/or ``forward`` (citing works).
            source: ``openalex`` or ``s2`` (base URL, delay, retries under ``[sources.NAME]``).
            refresh: walk again the seeds fetched before (else they count as ``cached``).
            max_pages: at most this many pages per walk (the rest on the next run).
            progress: ``progress(doc_id, direction, works so far, total or None)`` per page.

        Returns:
            The report; when the service cannot be reached it stops at that walk and says
            so in ``stopped`` (what was written stays, and the next run resumes there).
        """
        from litsift import __version__
        from litsift.sources.base import BadItem, SourceRecord
        from litsift.sources.http import FetchError, PoliteClient
        from litsift.sources.ids import preferred
        from litsift.sources.trail import (
            TRAIL_SOURCES,
            Checkpoint,
            TrailError,
            fetch_trail,
            load_checkpoint,
            save_checkpoint,
            seed_key,
        )
        from litsift.sources.writer import RecordWriter
        from litsift.store import citations
        from litsift.store.history import now_iso
        from litsift.store.report import IngestReport

        if source not in TRAIL_SOURCES:
            raise RefsError(f"unknown source {source!r}", f"use one of: {', '.join(TRAIL_SOURCES)}")
        store = self._store()
        store.require_writable()
        cfg = self._config.sources
        settings = cfg.service(source)
        agent = f"litsift/{__version__}" + (f" (mailto:{cfg.mailto})" if cfg.mailto else "")
        client = PoliteClient(
            delay_s=settings.delay_s,
            timeout_s=settings.timeout_s,
            max_response_bytes=int(settings.max_response_mb * 1_000_000),
            max_retries=settings.max_retries,
            user_agent=agent,
        )
        api_key = os.environ.get(cfg.s2_api_key_env) if cfg.s2_api_key_env else None
        report = RefsFetchReport(source, IngestReport())
        with store.lock:
            edges_before = citations.count(store.conn)
        label = f"refs:{source}"
        try:
            for doc_id in doc_ids:
                for direction in directions:
                    # per walk: a lookup by DOI in the first one stores the seed's OpenAlex id
                    key = seed_key(source, self._ids_of(doc_id))
                    with store.lock:
                        state = load_checkpoint(store.conn, source, doc_id, direction)
                    if state.done and not refresh:
                        report.walks.append(Walk(doc_id, direction, "cached", state.pages))
                        continue
                    if key is None:
                        report.walks.append(
                            Walk(
                                doc_id,
                                direction,
                                "no-id",
                                problem=f"{doc_id}: no identifier {source} knows "
                                "(DOI, arXiv, PMID, OpenAlex or S2 id)",
                            )
                        )
                        continue
                    if state.done:  # refresh: walk again from the start
                        state = Checkpoint()
                    writer = RecordWriter(store, Kind.PAPER)
                    walk = Walk(doc_id, direction, "resumed" if state.token else "fetched")

                    def sink(
                        records: list[SourceRecord],
                        bad: list[BadItem],
                        page_no: int,
                        writer: RecordWriter = writer,
                        doc_id: str = doc_id,
                        direction: Direction = direction,
                        walk: Walk = walk,
                    ) -> None:
                        orphans: list[tuple[str, str]] = []
                        for rec in records:
                            rec.location = rec.source_key or (
                                f"{doc_id} {direction} page {page_no} {rec.location}"
                            )
                            if direction == "backward":
                                rec.cited_by = [*rec.cited_by, doc_id]
                            else:
                                rec.references = [*rec.references, doc_id]
                            other = preferred(rec.ids)
                            if not rec.title.strip() and other:  # an edge without a stub
                                orphans.append(
                                    (doc_id, other) if direction == "backward" else (other, doc_id)
                                )
                                continue
                            writer.add(source, label, rec)
                        for item in bad:
                            where = f"{doc_id} {direction} page {page_no} {item.location}"
                            writer.add(source, label, BadItem(where, item.reason))
                        writer.flush()
                        if orphans:
                            with store.write_transaction() as conn:
                                citations.add_edges(conn, orphans, source)
                        walk.pages += 1
                        walk.records += len(records)
                        if progress is not None:
                            progress(doc_id, direction, walk.records, None)

                    def checkpoint(
                        token: str | None,
                        doc_id: str = doc_id,
                        direction: Direction = direction,
                        state: Checkpoint = state,
                    ) -> None:
                        state.token, state.done = token, token is None
                        state.pages += 1
                        state.fetched_at = now_iso()
                        with store.write_transaction() as conn:
                            save_checkpoint(conn, source, doc_id, direction, state)

                    def seed_found(
                        rec: SourceRecord, writer: RecordWriter = writer, doc_id: str = doc_id
                    ) -> None:
                        rec.location = rec.source_key  # the seed's own Work: its OpenAlex id
                        writer.add(source, label, rec)  # merges onto the seed (same DOI)

                    try:
                        result = fetch_trail(
                            source,
                            settings.base_url,
                            client,
                            key,
                            direction,
                            sink,
                            mailto=cfg.mailto,
                            api_key=api_key,
                            resume_token=state.token,
                            max_pages=max_pages,
                            checkpoint=checkpoint,
                            seed_found=seed_found,
                        )
                    except TrailError as err:
                        walk.status, walk.problem = "failed", f"{doc_id}: {err.message}"
                        report.walks.append(walk)
                        continue
                    finally:
                        writer.flush()
                        report.counts.fold(writer.counts)
                    if result.restarted:
                        walk.status = "fetched"
                    if not result.complete:
                        walk.status = "partial"
                    report.walks.append(walk)
        except FetchError as err:
            report.walks.append(Walk(doc_id, direction, "failed", problem=err.message))
            report.stopped = LitsiftError(
                err.message,
                "what was fetched is kept; run the same command again to go on from the page "
                "it stopped at",
            )
        finally:
            client.close()
            self._changed(Kind.PAPER)
            with store.lock:
                report.edges_added = citations.count(store.conn) - edges_before
        return report

    # -- reading the graph -----------------------------------------------------------------
    def _neighbours(self, keys: Collection[str]) -> dict[str, Neighbour]:
        from litsift.store.triage import Triage

        store = self._store()
        keys = list(dict.fromkeys(keys))
        labels = Triage(store).labels(Kind.PAPER, keys)
        out: dict[str, Neighbour] = {}
        for key in keys:
            rec = store.get(Kind.PAPER, key)
            if rec is None:
                out[key] = Neighbour(key)
            else:
                out[key] = Neighbour(
                    key, rec.display_title, getattr(rec, "year", None), True, labels.get(key)
                )
        return out

    @staticmethod
    def _ordered(items: Collection[Neighbour]) -> tuple[Neighbour, ...]:
        return tuple(
            sorted(items, key=lambda n: (not n.stored, -(n.year or 0), n.title.lower(), n.key))
        )

    def neighbours(self, doc_id: str) -> Neighbours:
        """The references and citing works of paper ``doc_id`` in the store's edges, stored
        papers first (newest first), then external keys.

        Raises:
            RefsError: no stored paper ``doc_id``.
        """
        from litsift.store import citations

        store = self._store()
        rec = store.get(Kind.PAPER, doc_id)
        if rec is None:
            raise RefsError(f"no stored paper has the id {doc_id!r}", "pick a stored paper")
        with store.lock:
            refs = citations.references(store.conn, doc_id)
            citing = citations.cited_by(store.conn, doc_id)
        info = self._neighbours([*refs, *citing])
        return Neighbours(
            doc_id,
            rec.display_title,
            self._ordered([info[k] for k in refs]),
            self._ordered([info[k] for k in citing]),
        )

    def graph(self, doc_ids: Collection[str] | None = None) -> nx.DiGraph:
        """The citation graph around ``doc_ids`` (one step out; all edges with None), nodes
        carrying ``title``, ``year``, ``stored``, ``triage`` (the label) and ``member`` (in
        ``doc_ids``)."""
        import networkx as nx

        from litsift.store import citations

        store = self._store()
        with store.lock:
            g = citations.graph(store.conn, doc_ids)
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
        ids = self.seeds(kept=collection is None, collection=collection)
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
        from litsift.store import citations
        from litsift.store.triage import Triage

        store = self._store()
        triage = Triage(store)
        kept = triage.ids_with_label(Kind.PAPER, Label.KEEP)
        if not kept:
            raise RefsError("snowballing starts from kept papers", "keep a few papers first (+)")
        with store.lock:
            labelled = set(triage.labelled_ids(Kind.PAPER))
            near = candidates_of(citations.graph(store.conn, kept), kept, labelled)
            g = citations.graph(store.conn, {*kept, *near})
        rel = self.relevance(query_text, near)
        ranked = rank_candidates(g, kept, labelled, rel)
        info = self._neighbours([c.neighbour.key for c in ranked])
        out: list[SnowballCandidate] = [replace(c, neighbour=info[c.neighbour.key]) for c in ranked]
        return SnowballRound(len(kept), tuple(out))
