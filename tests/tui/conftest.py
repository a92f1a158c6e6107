"""TUI fixtures and helpers: settle the app by waiting on its workers, small writable homes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerCancelled

from tests.conftest import copy_home

#: a paper whose text looks like Rich/Textual markup; it must render literally
MARKUP_PAPERS = [
    {
        "id": "markup-1",
        "title": "Literal [red]brackets[/red] in titles",
        "abstract": "We keep [bold]not bold[/bold] and [link=x]y[/link] as typed text.",
        "authors": ["A. [i]Author[/i]"],
        "year": 2020,
        "venue": "TestConf",
    },
    {
        "id": "markup-2",
        "title": "Dialogue state tracking across domains",
        "abstract": "A study of multi-domain dialogue state tracking.",
        "authors": ["B. Author"],
        "year": 2019,
        "venue": "TestConf",
    },
]


async def settle(pilot: Pilot[object]) -> None:
    """Wait until no search is debouncing, running, or waiting to be shown.

    Polls the app's ``busy`` flag between worker waits; a short pause lets the debounce timer
    fire (it is not a synchronisation sleep: the loop exits as soon as the app is idle).
    """
    app = pilot.app
    for _ in range(1200):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # a newer request cancelled a stale exclusive worker: what should happen
        await pilot.pause()
        if not app.busy:  # type: ignore[attr-defined]
            return
        await pilot.pause(0.05)
    raise AssertionError("the app never finished searching")


async def search(pilot: Pilot[object], text: str, years: tuple[str, str] = ("", "")) -> None:
    """Put ``text`` (and years) in the query bar like a paste, press Enter and settle."""
    app = pilot.app
    await pilot.pause()  # let the screen finish composing (snapshot apps start un-waited)
    for side, value in zip(("from", "to"), years, strict=True):
        app.query_one(f"#year-{side}", Input).value = value
    query = app.query_one("#query", Input)
    query.focus()
    query.value = text
    await pilot.press("enter")
    await settle(pilot)


def key_events(*items: str) -> list[events.Key]:
    """Key events for tmux-like items: a key name (``ctrl+a``, ``backspace``) or literal text."""
    out: list[events.Key] = []
    for item in items:
        if item in (
            "ctrl+a",
            "ctrl+k",
            "backspace",
            "left",
            "right",
            "home",
            "end",
            "down",
            "up",
            "tab",
            "enter",
            "escape",
        ) or item.startswith("ctrl+"):
            out.append(events.Key(item, None))
        else:
            names = {" ": "space", "+": "plus", "/": "slash"}
            out.extend(events.Key(names.get(ch, ch), ch) for ch in item)
    return out


async def burst(app: App[Any], *items: str) -> None:
    """Post the key events of ``items`` to ``app`` with no wait between them, as the terminal
    driver delivers a fast typist's keys (``pilot.press`` waits after each key)."""
    for key in key_events(*items):
        app.post_message(key)


@pytest.fixture
def empty_service(tmp_path: Path) -> Iterator[object]:
    """A service over a fresh, empty home (no encoder is loaded unless a search runs)."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService

    with LitsiftService(get_paths(tmp_path / "home")) as svc:
        yield svc


@pytest.fixture(scope="session")
def markup_service(tmp_path_factory: pytest.TempPathFactory, encoder: object) -> Iterator[object]:
    """A tiny indexed home whose papers contain markup-like text."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    root = tmp_path_factory.mktemp("markup")
    src = root / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in MARKUP_PAPERS), encoding="utf-8")
    with LitsiftService(get_paths(root / "home"), encoder=encoder) as svc:  # type: ignore[arg-type]
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER)
        yield svc


@pytest.fixture
def tiny_service(tmp_path: Path, encoder: object) -> Iterator[object]:
    """A writable home of the two :data:`MARKUP_PAPERS`, indexed (labels, history and exports
    are written: a home of the test's own)."""
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from litsift.types import Kind

    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in MARKUP_PAPERS), encoding="utf-8")
    with LitsiftService(get_paths(tmp_path / "home"), encoder=encoder) as svc:  # type: ignore[arg-type]
        assert svc.ingest(Kind.PAPER, src).ok
        svc.build_index(Kind.PAPER)
        yield svc


async def written_answer(pilot: Pilot[object]) -> Any:
    """Press ``w`` (answer with citations) on the results and wait until the answer screen
    is done (written or failed); returns that :class:`AnswerScreen`."""
    from litsift.tui.screens.answer import AnswerScreen

    await pilot.press("w")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, AnswerScreen)
    for _ in range(400):
        await settle(pilot)
        if screen.done:
            break
        await pilot.pause(0.02)
    return screen


@contextmanager
def llm_home_service(
    built_home: Path, tmp_path: Path, encoder: object, llm_server: Any, **llm: Any
) -> Iterator[Any]:
    """A service over a copy of the session's home whose LLM endpoint is the scripted server
    on 127.0.0.1 (``llm``: settings of :func:`tests.llm_server.llm_settings`); the server's
    script is reset first."""

    from litsift.config import Config
    from litsift.paths import get_paths
    from litsift.service.facade import LitsiftService
    from tests.llm_server import llm_settings

    llm_server.reset()
    home = tmp_path / "home"
    copy_home(built_home, home)
    config = Config(llm=llm_settings(llm_server, **llm))
    with LitsiftService(get_paths(home), config=config, encoder=encoder) as svc:
        yield svc
