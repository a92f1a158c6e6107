"""The dense part of a searcher loaded in the background (the TUI, issue 32) lands even when
another kind's indexes change meanwhile.

Seen in ``litsift demo`` in a real terminal: the paper dense index landed, the app reopened the
paper searcher (BM25 at once, the graph loading in a thread), and the dataset build published
its BM25 part at that moment (``invalidate(Kind.DATASET)``). The paper load was then thrown
away as stale, and the app said "BM25 only — dense index loading" until it was restarted.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from litsift.errors import LitsiftError
from litsift.paths import get_paths
from litsift.search.retrieval.dense import DenseIndex
from litsift.service.facade import LitsiftService
from litsift.types import Kind


def test_a_paper_dense_load_survives_a_dataset_invalidation(
    tmp_path: Path,
    encoder: Any,
    paper_slice_rows: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:30]), encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER)
        svc.invalidate()
        gate, landed = threading.Event(), threading.Event()
        calls: list[tuple[Kind, LitsiftError | None]] = []
        real_open = DenseIndex.open.__func__  # type: ignore[attr-defined]

        def gated_open(cls: type[DenseIndex], path: Path) -> DenseIndex:
            assert gate.wait(60), "the test never opened the gate"
            return real_open(cls, path)  # type: ignore[no-any-return]

        def on_loaded(kind: Kind, error: LitsiftError | None) -> None:
            calls.append((kind, error))
            landed.set()

        monkeypatch.setattr(DenseIndex, "open", classmethod(gated_open))
        svc.load_dense_in_background(on_loaded)
        first = svc.searchers.of_kind(Kind.PAPER)
        assert first.dense is None and first.dense_pending  # BM25 now, the graph loading
        svc.invalidate(Kind.DATASET)  # the other kind's build publishes a part meanwhile
        gate.set()
        assert landed.wait(30), "the paper dense load was dropped: BM25 only for good"
        assert calls == [(Kind.PAPER, None)]
        assert svc.searchers.of_kind(Kind.PAPER).dense is not None
        assert Kind.PAPER not in svc.searchers.loading


def test_a_load_of_an_invalidated_kind_is_still_dropped(
    tmp_path: Path,
    encoder: Any,
    paper_slice_rows: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The other side: the paper indexes changed while their old graph loaded; that graph is
    not installed (the next open loads the new one)."""
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in paper_slice_rows[:30]), encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER)
        svc.invalidate()
        gate, opened = threading.Event(), threading.Event()
        calls: list[Kind] = []
        real_open = DenseIndex.open.__func__  # type: ignore[attr-defined]

        def gated_open(cls: type[DenseIndex], path: Path) -> DenseIndex:
            assert gate.wait(60), "the test never opened the gate"
            index = real_open(cls, path)
            opened.set()
            return index  # type: ignore[no-any-return]

        monkeypatch.setattr(DenseIndex, "open", classmethod(gated_open))
        svc.load_dense_in_background(lambda kind, _error: calls.append(kind))
        svc.searchers.of_kind(Kind.PAPER)
        svc.invalidate(Kind.PAPER)
        svc.load_dense_in_background(None)  # the next open loads every part at once
        gate.set()
        assert opened.wait(60)
        for _ in range(200):
            if Kind.PAPER not in svc.searchers.loading:
                break
            threading.Event().wait(0.05)
        assert calls == []
