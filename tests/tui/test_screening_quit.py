"""Quitting the screening screen while the records are being embedded.

``litsift review screen`` embeds the review's records in a worker thread (seconds to minutes
on a CPU). ``q`` cleared the screen at once, but the process only ended once every record was
embedded: the app's shutdown waits for its worker threads (found in tmux: 7.7 s for Donners'
257 records on a 2-core machine, over 10 s under load). The embedding now stops at the next
record once the worker is cancelled; the vectors already embedded stay in the cache.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.tui.app import create_screening_app
from litsift.tui.screens.screening import ScreeningScreen
from tests.tui.test_screening_screen import DONNERS, SIZE


async def test_quitting_while_the_records_are_embedded_stops_the_embedding(
    tmp_path: Path, encoder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from litsift.models_onnx import Encoder

    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    monkeypatch.setenv("LITSIFT_EMBED_CACHE_DIR", str(tmp_path / "cache"))  # really embedded
    fresh = Encoder(encoder.spec, encoder.onnx_path, encoder.tokenizer_path)
    with LitsiftService(get_paths(tmp_path / "home"), encoder=fresh) as svc:
        svc.reviews.create("donners", [DONNERS], labels=1)
        app = create_screening_app(svc, "donners")
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(500):
                await pilot.pause(0.02)
                screen = app.screen
                if isinstance(screen, ScreeningScreen) and screen.embedding:
                    break
            assert isinstance(screen, ScreeningScreen) and screen.embedding
            session = screen.session
            assert session is not None
            await pilot.pause(0.3)  # the worker is embedding the 257 records
            (worker,) = [w for w in app.workers if w.group == "screening-embed"]
            await pilot.press("q")
        # a real process waits here for its worker threads before it exits: asyncio.run's
        # shutdown of the loop's default executor, where Textual runs thread workers
        await asyncio.get_running_loop().shutdown_default_executor()
        assert worker.is_finished
        # it stopped part way: no vectors handed to the session (before, it embedded every
        # record and only then let the process end)
        assert session._dense is None
        assert screen.embedding  # _embedded never ran
