"""The TUI builds what the indexes lack in the background (issue 15, item 1): search works at
once on BM25 and the status line says so, with the dense build's progress; when the dense part
lands the query runs again, hybrid."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_app
from litsift.tui.widgets import StatusLine
from litsift.types import Kind
from tests.conftest import DATASETS_GZ, read_jsonl_gz

N_ROWS = 60
SIZE = (140, 40)


class GatedEncoder:
    """The real encoder; the index build's passage calls (``N_ROWS`` texts) wait for ``gate``
    so the test sees the app while the dense part is being built."""

    def __init__(self, encoder: Any, gate: threading.Event) -> None:
        self.encoder = encoder
        self.gate = gate

    def __getattr__(self, name: str) -> Any:
        return getattr(self.encoder, name)

    def encode_passages(self, texts: Any, **kwargs: Any) -> Any:
        if len(texts) == N_ROWS:
            assert self.gate.wait(120), "the test never opened the gate"
        return self.encoder.encode_passages(texts, **kwargs)


async def wait_for(pilot: Pilot[object], ok: Callable[[], bool], what: str) -> None:
    """Poll ``ok`` between pauses (a background build is running: no waiting on workers)."""
    for _ in range(1200):
        await pilot.pause(0.05)
        if ok() and not pilot.app.busy:  # type: ignore[attr-defined]
            return
    raise AssertionError(f"timed out waiting for {what}")


async def test_bm25_first_then_hybrid_when_the_background_build_lands(
    tmp_path: Path, encoder: Any
) -> None:
    rows = list({r["id"]: r for r in read_jsonl_gz(DATASETS_GZ)[: N_ROWS + 5]}.values())
    src = tmp_path / "datasets.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows[:N_ROWS]), encoding="utf-8")
    gate = threading.Event()
    with LitsiftService(get_paths(tmp_path / "home"), encoder=GatedEncoder(encoder, gate)) as svc:
        assert svc.ingest(Kind.DATASET, src).ok  # nothing indexed yet
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=SIZE) as pilot:
            status = app.query_one("#status", StatusLine)
            try:
                await wait_for(pilot, lambda: "building dataset dense 0/60" in status.text, "BM25")
                screen = app.search_screen
                screen.action_show_kind(Kind.DATASET.value)
                query = app.query_one("#query", Input)
                query.value = rows[3]["id"]
                await pilot.press("enter")
                await wait_for(pilot, lambda: screen.tab(Kind.DATASET).result is not None, "hits")
                result = screen.tab(Kind.DATASET).result
                assert result is not None and result.hits
                assert result.signals_used == ("bm25",)
                # the query is a dataset's name: that hit also carries the "named" stage
                assert all(set(h.signals) <= {"bm25", "named"} for h in result.hits)
                assert any("named" in h.signals for h in result.hits)
                # one counter, short: the result says BM25 only, with the build's progress
                assert "BM25 only, dataset dense 0/60" in status.text
                assert "embedded" not in status.text and status.text.count("0/60") == 1
            finally:
                gate.set()

            def hybrid() -> bool:
                r = screen.tab(Kind.DATASET).result
                return r is not None and r.signals_used == ("bm25", "dense")

            await wait_for(pilot, hybrid, "the hybrid result")
            result = screen.tab(Kind.DATASET).result
            assert result is not None and result.partial is None
            assert any("dense" in h.signals for h in result.hits)
            assert "BM25 only" not in status.text and "dataset dense" not in status.text
            await app.workers.wait_for_complete()
            # then the third phase stored every dataset's sentences, and nothing is pending
            assert svc.sentence_store is not None
            assert svc.sentence_store.count(Kind.DATASET) == N_ROWS
            assert not svc.sentences_pending(Kind.DATASET)


async def test_an_unfinished_sentence_phase_resumes_at_start(tmp_path: Path, encoder: Any) -> None:
    """Quitting during the sentence phase leaves it pending; the next start finishes it in the
    background (the indexes themselves are complete, so nothing else is built)."""
    rows = list({r["id"]: r for r in read_jsonl_gz(DATASETS_GZ)[: N_ROWS + 5]}.values())
    src = tmp_path / "datasets.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows[:N_ROWS]), encoding="utf-8")

    class Quit(Exception):
        pass

    def quit_early(stage: str, done: int, total: int) -> None:
        if done > 0:
            raise Quit

    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        assert svc.ingest(Kind.DATASET, src).ok
        svc.build_index(Kind.DATASET)
        try:
            svc.build_sentences(Kind.DATASET, progress=quit_early, chunk=16)
        except Quit:
            pass
        assert svc.sentences_pending(Kind.DATASET)
        stored = svc.sentence_store
        assert stored is not None and 0 < stored.count(Kind.DATASET) < N_ROWS
        assert not svc.needs_index(Kind.DATASET)
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(
                pilot, lambda: not svc.sentences_pending(Kind.DATASET), "the sentence phase"
            )
            await app.workers.wait_for_complete()
        assert stored.count(Kind.DATASET) == N_ROWS


async def test_imported_full_text_is_indexed_in_the_background(
    tmp_path: Path, encoder: Any
) -> None:
    """PDFs / TEI imported from the shell: the TUI builds the papers' indexes, then the passage
    index, and a full-text search finds the passage."""
    from litsift.paths import shared_data_dir
    from litsift.types import Query

    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:
        svc.sources.import_paths(Kind.PAPER, [shared_data_dir() / "sources" / "fulltext" / "jats"])
        assert svc.needs_index(Kind.PAPER) and svc.passage_index is None
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: (svc.paths.index_dir / "passages").is_dir(), "passages")
            await app.workers.wait_for_complete()
        result = svc.search(Query("electrospun graphene nanofibers", Kind.PAPER, fulltext=True))
        assert result.hits and result.hits[0].passage is not None


async def test_the_build_embeds_in_one_process_when_no_worker_can_start_and_says_so(
    tmp_path: Path, encoder: Any, monkeypatch: Any
) -> None:
    """Issue 45 item 1: where worker processes cannot be started (here: no interpreter to
    spawn), the app's build embeds in-process -- the results still turn hybrid -- and its
    status line says "one process"; never BM25 only forever."""
    import multiprocessing
    import multiprocessing.spawn

    from litsift.models_onnx import Encoder
    from tests.conftest import PAPERS_GZ

    rows = read_jsonl_gz(PAPERS_GZ)[:300]  # over the pool's minimum batch
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setenv("LITSIFT_EMBED_WORKERS", "2")
    monkeypatch.setenv("LITSIFT_EMBED_CACHE_DIR", str(tmp_path / "cache"))  # really embedded
    fresh = Encoder(encoder.spec, encoder.onnx_path, encoder.tokenizer_path)
    executable = multiprocessing.spawn.get_executable()
    multiprocessing.set_executable(str(tmp_path / "no-python-here"))
    seen: list[str] = []
    try:
        with LitsiftService(get_paths(tmp_path / "home"), encoder=fresh) as svc:
            assert svc.ingest(Kind.PAPER, src).ok
            app = create_app(svc, show_timings=False)
            async with app.run_test(size=SIZE) as pilot:
                status = app.query_one("#status", StatusLine)

                def one_process() -> bool:
                    seen.append(status.text)
                    return "one process" in status.text

                await wait_for(pilot, one_process, "the one-process note")
                assert "building dense" in seen[-1]
                query = app.query_one("#query", Input)
                query.value = "neural machine translation"
                await pilot.press("enter")
                screen = app.search_screen
                await wait_for(
                    pilot,
                    lambda: (r := screen.tab().result) is not None and "dense" in r.signals_used,
                    "a hybrid result",
                )
                app.exit()
            assert svc.embedding_note is not None and "one process" in svc.embedding_note
    finally:
        multiprocessing.set_executable(executable)


async def test_datasets_imported_while_the_app_runs_are_indexed_when_searched(
    tmp_path: Path, encoder: Any
) -> None:
    """Datasets imported from a shell while the app runs (its start found none, so built
    nothing for them): a search of the Datasets tab builds their index and runs again when
    BM25 lands. It said "building the BM25 index — this search runs when it is ready" while
    no build ran, for good (found in a tmux pane)."""
    from tests.tui.conftest import MARKUP_PAPERS

    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps(r) + "\n" for r in MARKUP_PAPERS), encoding="utf-8")
    rows = list({r["id"]: r for r in read_jsonl_gz(DATASETS_GZ)[: N_ROWS + 5]}.values())
    src = tmp_path / "datasets.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows[:N_ROWS]), encoding="utf-8")
    home = get_paths(tmp_path / "home")
    with LitsiftService(home, encoder=encoder) as svc:
        assert svc.ingest(Kind.PAPER, papers).ok
        svc.build_index(Kind.PAPER)
        app = create_app(svc, show_timings=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.workers.wait_for_complete()  # the start's store check and its builds
            with LitsiftService(home, encoder=encoder) as shell:  # `litsift ingest datasets`
                assert shell.ingest(Kind.DATASET, src).ok
            screen = app.search_screen
            screen.action_show_kind(Kind.DATASET.value)
            app.query_one("#query", Input).value = rows[3]["id"]
            await pilot.press("enter")

            def found() -> bool:
                result = screen.tab(Kind.DATASET).result
                return result is not None and bool(result.hits)

            await wait_for(pilot, found, "the imported datasets' hits")
            result = screen.tab(Kind.DATASET).result
            assert result is not None and result.hits[0].docid == rows[3]["id"]
            # the status line counts them too (it kept the start's "0 datasets")
            status = app.query_one("#status", StatusLine)
            assert f"{len(MARKUP_PAPERS)} papers, {N_ROWS} datasets" in status.text
            await app.workers.wait_for_complete()
        assert not svc.needs_index(Kind.DATASET)
