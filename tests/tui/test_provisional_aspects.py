"""The aspect column of never-seen hits (issue 32): in a kind without the sentence phase the
column fills at once with provisional grades from the hits' passage vectors (dimmed), while the
hits' sentences are still being embedded; the screen stays usable meanwhile; then the sentence
grades replace them. The sentence embedding is held at a gate so the test sees both states."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from textual.widgets import Input

from litsift.paths import get_paths
from litsift.search.aspects.decompose import decompose
from litsift.search.aspects.scoring import AspectScorer
from litsift.search.retrieval.record_text import passage_text
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.widgets import DetailPane
from litsift.types import Kind, Query
from tests.tui.conftest import settle

SIZE = (140, 40)
QUERY = (
    "Unsupervised word alignment for low-resource machine translation. "
    "We evaluate transformer models on parallel corpora."
)


class GatedSentences:
    """The real encoder; embedding anything but whole records' passages (their sentences)
    waits for ``gate``."""

    def __init__(self, encoder: Any, passages: set[str], gate: threading.Event) -> None:
        self.encoder = encoder
        self.passages = passages
        self.gate = gate

    def __getattr__(self, name: str) -> Any:
        return getattr(self.encoder, name)

    def encode_passages(self, texts: Any, **kwargs: Any) -> Any:
        if not set(texts) <= self.passages:
            assert self.gate.wait(120), "the test never opened the gate"
        return self.encoder.encode_passages(texts, **kwargs)


async def test_the_column_fills_with_provisional_grades_then_the_sentence_grades(
    tmp_path: Path, paper_slice_rows: list[dict], encoder: Any
) -> None:
    rows = paper_slice_rows[:12]
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    paths = get_paths(tmp_path / "home")
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text("[search]\nsentence_phase_max_records = 10\n", encoding="utf-8")
    with LitsiftService(paths, encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER)  # no sentence phase: more than 10 papers
    gate = threading.Event()
    passages = {passage_text(r) for batch in _records(paths, encoder) for r in batch}
    gated = GatedSentences(encoder, passages, gate)
    with LitsiftService(paths, encoder=gated) as svc:  # type: ignore[arg-type]
        svc.search(Query("warm up", Kind.PAPER))  # the dense graph is in memory already
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.search_screen
            table, tab = screen.table(Kind.PAPER), screen.tab(Kind.PAPER)
            try:
                await pilot.pause()
                query = app.query_one("#query", Input)
                query.focus()
                query.value = QUERY
                await pilot.press("enter")
                for _ in range(400):  # the column fills while the sentences wait at the gate
                    await pilot.pause(0.05)
                    if table.coverages:
                        break
                hits = list(table.hits)
                assert hits and set(table.coverages) == {h.docid for h in hits}
                assert all(c.provisional for c in table.coverages.values())
                assert tab.scoring is not None and app.busy  # refining
                cell = table.get_cell(hits[0].docid, "coverage")
                assert cell.plain.strip() and all(s.style == "dim" for s in cell.spans)
                # the screen answers meanwhile: the next row's detail with its provisional grades
                await pilot.press("down")
                await pilot.pause()
                assert screen.detail.hit is not None
                assert screen.detail.hit.docid == hits[1].docid
                assert "(provisional" in app.query_one(DetailPane).text
            finally:
                gate.set()
            await settle(pilot)
            assert tab.scoring is None and set(table.coverages) == {h.docid for h in hits}
            assert not any(c.provisional for c in table.coverages.values())
            expected = AspectScorer(encoder).score(decompose(QUERY), [h.record for h in hits])
            assert [table.coverages[h.docid] for h in hits] == expected
            assert "(provisional" not in app.query_one(DetailPane).text


def _records(paths: Any, encoder: Any) -> Any:
    with LitsiftService(paths, encoder=encoder) as svc:
        return list(svc.store.rows_since(Kind.PAPER))
