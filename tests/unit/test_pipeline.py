"""The search pipeline (issue 28): one query is cleaned and defaulted once, whatever searcher
its kind goes to, and the TUI sees the service through one Protocol only.

Runs on the session store (tests/conftest.py: 2,000 real papers + the PwC datasets); the
full-text cases live in test_fulltext.py, on its home with imported full text.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import litsift.tui
from litsift.search.retrieval import query as query_module
from litsift.service import api
from litsift.service.api import LitsiftAPI
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query, YearRange

DIRTY = "neural \udcff machine translation \x00 with cafe\u0301 attention"


@pytest.fixture
def cleaner_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every call of ``clean_query_text``, wherever a litsift module bound it (the real
    function runs; each call's input is recorded)."""
    for name in (
        "litsift.search.pipeline",
        "litsift.search.kind_searcher",
        "litsift.cli.root",
    ):
        try:  # modules imported on first use bind the real function before it is patched
            importlib.import_module(name)
        except ImportError:
            pass
    real = query_module.clean_query_text
    calls: list[str] = []

    def counting(text: str) -> str:
        calls.append(text)
        return real(text)

    for name, module in list(sys.modules.items()):
        if name.startswith("litsift") and getattr(module, "clean_query_text", None) is real:
            monkeypatch.setattr(module, "clean_query_text", counting)
    yield calls


@pytest.mark.parametrize(
    ("kind", "fusion"),
    [(Kind.PAPER, None), (Kind.PAPER, "rrf"), (Kind.PAPER, "bm25"), (Kind.DATASET, None)],
)
def test_a_search_cleans_its_query_once(
    service: LitsiftService, cleaner_calls: list[str], kind: Kind, fusion: str | None
) -> None:
    result = service.search(Query(DIRTY, kind, YearRange(2015, None), k=5, fusion=fusion))
    assert cleaner_calls == [DIRTY]  # once, on the text as typed
    assert result.hits  # and the cleaned text found something
    assert "\udcff" not in result.query.text and "\x00" not in result.query.text
    assert "caf\u00e9" in result.query.text  # NFC, once
    s = service.config.search
    assert (result.query.k, result.query.fusion) == (5, fusion or s.fusion)
    assert result.query.k0 == max(s.k0, 5)  # the k0 rule, filled in the same place


def test_the_resolved_query_is_what_the_searcher_and_history_see(
    service: LitsiftService, cleaner_calls: list[str]
) -> None:
    """More like this reranks with the result's (already clean) text: nothing is cleaned
    again after the search."""
    result = service.search(Query(DIRTY, Kind.PAPER, k=10))
    assert len(cleaner_calls) == 1
    feedback = result.hits[0]
    from litsift.types import Label

    previous = service.set_label(Kind.PAPER, feedback.docid, Label.KEEP)
    try:
        again = service.more_like_this(result)
    finally:
        service.set_label(Kind.PAPER, feedback.docid, previous)
    assert {h.docid for h in again.hits} == {h.docid for h in result.hits}
    assert len(cleaner_calls) == 1


#: the door's members that hand out a sub-door, and its Protocol
SUB_DOORS = {
    "indexes": api.IndexesAPI,
    "aspects": api.AspectsAPI,
    "llm": api.LLMAPI,
    "refs": api.TrailAPI,
    "reviews": api.ReviewsAPI,
}


def _protocol_members(protocol: type = LitsiftAPI) -> set[str]:
    members = {n for n, _ in inspect.getmembers(protocol) if not n.startswith("_")}
    return members | set(getattr(protocol, "__annotations__", {}))


def _has_members_of(ours: object, protocol: type, skip: frozenset[str] = frozenset()) -> list[str]:
    """The members of ``protocol`` that ``ours`` lacks, or whose parameters it does not take."""
    missing = []
    for name in sorted(_protocol_members(protocol) - skip):
        theirs = getattr(protocol, name)
        if not hasattr(ours, name):
            missing.append(name)
        elif callable(theirs):
            wanted = set(inspect.signature(theirs).parameters)
            if not wanted <= set(inspect.signature(getattr(ours, name)).parameters) | {"self"}:
                missing.append(f"{name}(...)")
    return missing


def test_the_service_has_every_member_of_the_protocol(service: LitsiftService) -> None:
    members = _protocol_members()
    assert {"search", "annotate", "history", "extract_rq", "indexes", "calls_lock"} <= members
    assert set(SUB_DOORS) <= members
    assert not _has_members_of(LitsiftService, LitsiftAPI, frozenset({"calls_lock", "config"}))
    assert not [m for m in members if not hasattr(service, m)]
    for name, protocol in SUB_DOORS.items():
        assert not _has_members_of(getattr(service, name), protocol), name


def test_the_tuis_glance_never_waits_for_a_load(service: LitsiftService) -> None:
    """``glance()`` is read on the UI thread: it answers while another thread holds the
    encoder's lock (a load) and the searchers' lock (a searcher being opened)."""
    import threading
    import time

    from litsift.types import Glance

    searchers = service.searchers
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with service._encoder_lock, searchers._lock:
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(5)
        start = time.perf_counter()
        seen = service.glance()
        waited = time.perf_counter() - start
    finally:
        release.set()
        thread.join()
    assert waited < 1.0
    assert seen == Glance(
        passages=service.has_passages(),
        log_path=service.log_path,
        embedding_note=service.embedding_note,
        llm_configured=service.config.llm.configured,
        dense_loading=service.dense_loading(),
    )


def _is_service(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "service") or (
        isinstance(node, ast.Attribute) and node.attr == "service"
    )


def _service_attributes(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``(line, attribute)`` of every ``<...>.service.X`` / ``service.X`` in a module, and
    ``(line, "X.Y")`` of every ``service.X.Y``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        base = node.value
        if _is_service(base):
            yield node.lineno, node.attr
        elif isinstance(base, ast.Attribute) and _is_service(base.value):
            yield node.lineno, f"{base.attr}.{node.attr}"


def test_the_tui_uses_the_service_only_through_the_protocol() -> None:
    """No ``service.triage.*``, ``service.searchers.*``, ``service.rq``, ``service.sources``:
    every attribute the TUI reads of its service is a member of ``LitsiftAPI``, and every
    one it reads of a sub-door (``service.aspects.order``) a member of that sub-door."""
    members = _protocol_members()
    inside = {f"{name}.{m}" for name, p in SUB_DOORS.items() for m in _protocol_members(p)}
    root = Path(litsift.tui.__file__).parent
    outside: list[str] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, attr in _service_attributes(tree):
            head = attr.split(".")[0]
            if head not in members or (head in SUB_DOORS and "." in attr and attr not in inside):
                outside.append(f"{path.relative_to(root)}:{line}: service.{attr}")
    assert not outside, outside


def test_the_service_owns_the_lock_the_tui_serialises_calls_with(
    service: LitsiftService,
) -> None:
    from litsift.tui.app import create_app

    app = create_app(service)
    assert app.search_screen.calls.lock is service.calls_lock


def test_a_stage_runs_over_the_ranked_results_of_the_ones_before(service: LitsiftService) -> None:
    """Stages compose with ``>>`` over one ranked-results type, without the service: here the
    cross-encoder stage re-scores the first retrieval's top 5 with a real bi-encoder's cosine
    as its scorer (weight 1: the re-scorer's order alone)."""
    from litsift.search.pipeline import KindRetrieval, LoadRows, resolve_query
    from litsift.search.retrieval.stages import CrossEncoderStage, Ranked

    encoder = service.encoder

    def cosine(text: str, passages: Sequence[str]) -> npt.NDArray[np.float32]:
        vectors = encoder.encode_passages(list(passages))
        return np.asarray(vectors @ encoder.encode_queries([text])[0], dtype=np.float32)

    query = Query("graph neural networks for molecules", Kind.PAPER, k=10)
    query = resolve_query(query, service.config.search)
    first = KindRetrieval(service.searchers) >> LoadRows(service.store)
    base = first(Ranked(query))
    assert base.runs == {} and len(base.fused) == len(base.candidates) == len(base.hits) == 10
    staged = (first >> CrossEncoderStage(top=5, weight=1.0, score=cosine))(Ranked(query))
    assert staged.signals_used == (*base.signals_used, "cross_encoder")
    assert [h.docid for h in staged.hits[5:]] == [h.docid for h in base.hits[5:]]
    assert {h.docid for h in staged.hits[:5]} == {h.docid for h in base.hits[:5]}
    logits = [h.signals["cross_encoder"].score for h in staged.hits[:5]]
    assert logits == sorted(logits, reverse=True)
    assert [h.rank for h in staged.hits] == list(range(1, len(base.hits) + 1))


def test_bm25_dense_and_fusion_are_stages_of_the_kind_searcher(service: LitsiftService) -> None:
    """``KindSearcher.search`` is ``BM25Run >> DenseRun >> Fusion``: the runs it fuses are
    those of :meth:`KindSearcher.runs`, and each stage alone fills only its field."""
    from litsift.search.kind_searcher import BM25Run, DenseRun, Fusion
    from litsift.search.pipeline import resolve_query
    from litsift.search.retrieval.stages import Ranked

    searcher = service.searchers.of_kind(Kind.PAPER)
    query = resolve_query(
        Query("contrastive learning of sentence embeddings", Kind.PAPER), service.config.search
    )
    bm25 = BM25Run(searcher)(Ranked(query))
    assert set(bm25.runs) == {"bm25"} and bm25.qvec is None and bm25.fused == []
    chained = (BM25Run(searcher) >> DenseRun(searcher) >> Fusion(searcher))(Ranked(query))
    assert chained.runs == searcher.runs(query) and chained.qvec is not None
    assert [(f.docid, f.score) for f in chained.fused] == [
        (f.docid, f.score) for f in searcher.search(query)
    ]
