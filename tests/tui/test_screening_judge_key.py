"""``J`` on the screening screen runs ``litsift review judge`` without leaving it: in a worker
thread, its progress in the progress line, the model retrained as the verdicts are stored;
``J`` again, Esc or quitting closes the call in flight; no endpoint or no criteria says what
to set. Against the real scripted server on 127.0.0.1 (a judge that knows Donners 2021's
decisions), real SQLite."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from litsift.paths import get_paths
from litsift.review.data import load_review_set
from litsift.service.facade import LitsiftService
from litsift.store.review_verdicts import stored_verdicts
from litsift.tui.app import create_screening_app
from litsift.tui.screens.screening import ScreeningScreen
from tests.llm_server import Reply, ScriptedLLMServer, configured_home
from tests.tui.test_screening_screen import DONNERS, SIZE, wait_idle
from tests.unit.test_screening_judge import CRITERIA, oracle


@contextmanager
def review_home(
    tmp_path: Path, srv: ScriptedLLMServer | None, criteria: str = CRITERIA
) -> Iterator[LitsiftService]:
    """Review ``donners`` (Donners 2021, one prior include) in a home whose ``[llm]`` points
    at ``srv`` (None: no ``[llm]``)."""
    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as svc:
        svc.reviews.create("donners", [DONNERS], labels=1, criteria=criteria)
    if srv is None:
        with LitsiftService(get_paths(home)) as svc:
            yield svc
        return
    with configured_home(home, srv), LitsiftService(get_paths(home)) as svc:
        yield svc


async def wait_for(pilot: Any, ok: Callable[[], object], what: str) -> None:
    for _ in range(1500):
        if ok():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def progress_text(screen: ScreeningScreen) -> str:
    return str(screen.query_one("#screening-progress", Static).render())


def toasts(app: Any) -> list[str]:
    return [n.message for n in app._notifications if n.title == "LLM judge"]


def slow(srv: ScriptedLLMServer) -> None:
    """Every reply waits 30 s (a model still reading the prompt): only a hang-up ends it."""

    def respond(body: Any) -> Reply:
        return Reply(500, "never sent", delay_s=30.0)

    srv.responder = respond


async def test_j_judges_the_records_and_the_screen_reads_the_verdicts(
    tmp_path: Path, srv: ScriptedLLMServer
) -> None:
    donners = load_review_set(DONNERS)
    judge, second = oracle(donners), threading.Event()

    def respond(body: Any) -> Reply:  # the second call waits until the first is on screen
        if len(srv.requests) == 2:
            second.wait(30)
        return judge(body)

    srv.responder = respond
    with review_home(tmp_path, srv) as svc:
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            session = screen.session
            assert session is not None and "LLM" not in session.model_name
            retrains = screen.retrains
            await pilot.press("J")
            assert screen.judging.running
            await wait_for(pilot, lambda: "LLM judging 8 of 257…" in progress_text(screen), "8")
            await wait_for(pilot, lambda: screen.retrains > retrains, "a retraining")
            await wait_idle(pilot)
            assert screen.judging.running and "LLM judging 8 of 257…" in progress_text(screen)
            # the first call judged the record on screen: its verdict shows under it at once
            paper = session.current_paper()
            assert paper is not None
            label, reason = session.verdict_of(paper.id) or ("", "")
            shown = str(screen.query_one("#screening-record", Static).render())
            assert label and f"LLM: {label} — {reason}" in shown
            second.set()
            await wait_for(pilot, lambda: not screen.judging.running, "the judge's end")
            await wait_idle(pilot)
            assert "LLM judging" not in progress_text(screen)
            assert "LLM verdicts" in session.model_name and "LLM verdicts" in progress_text(screen)
            assert any("257 records judged by test-model: include" in t for t in toasts(app))
            await pilot.press("J")  # again: nothing left to ask, no call made
            await wait_for(pilot, lambda: not screen.judging.running, "the second run's end")
            assert "every record was judged by test-model before" in toasts(app)[-1]
            await pilot.press("x")  # still screening as before
        verdicts = stored_verdicts(svc.store, "donners")
        assert len(verdicts) == 257 and len(srv.requests) == 33
        assert sum(v.value == 1 for v in verdicts.values()) == int(donners.labels.sum())


async def test_j_again_stops_the_judge_and_closes_its_call(
    tmp_path: Path, srv: ScriptedLLMServer
) -> None:
    slow(srv)
    with review_home(tmp_path, srv) as svc:
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            await pilot.press("J")
            await wait_for(pilot, lambda: srv.requests, "the first call")
            await pilot.press("J")
            await wait_for(pilot, lambda: srv.hangups, "the call closed")  # else left open
            assert not screen.judging.running and "LLM judging" not in progress_text(screen)
            assert any("LLM judge stopped" in t for t in toasts(app))
            session = screen.session
            assert session is not None
            screened = session.counts()[0]
            await pilot.press("x")  # the app is still usable
            assert session.counts()[0] == screened + 1
        assert stored_verdicts(svc.store, "donners") == {} and len(srv.requests) == 1


async def test_esc_leaves_the_screen_and_closes_the_judges_call(
    tmp_path: Path, srv: ScriptedLLMServer
) -> None:
    slow(srv)
    with review_home(tmp_path, srv) as svc:
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            first = await wait_idle(pilot)
            app.push_screen(ScreeningScreen(svc, "donners", dense=False))  # as F4 does
            second = await wait_idle(pilot)
            assert second is not first
            await pilot.press("J")
            await wait_for(pilot, lambda: srv.requests, "the first call")
            await pilot.press("escape")
            await wait_for(pilot, lambda: srv.hangups, "the call closed")  # else left open
            assert app.screen is first
            await pilot.press("J")  # the screen below judges in turn
            await wait_for(pilot, lambda: len(srv.requests) == 2, "the second run's call")
            assert first.judging.running
            await pilot.press("J")  # no call left open for the next test's server to count
            await wait_for(pilot, lambda: srv.hangups == 2, "the second call closed")


async def test_quitting_closes_the_judges_call(tmp_path: Path, srv: ScriptedLLMServer) -> None:
    slow(srv)
    with review_home(tmp_path, srv) as svc:
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot)
            await pilot.press("J")
            await wait_for(pilot, lambda: srv.requests, "the first call")
            (worker,) = [w for w in app.workers if w.group == "screening-judge"]
            await pilot.press("q")
        # a real process waits here for its worker threads (as in test_screening_quit): 30 s
        # for the reply, had the call been left open
        await asyncio.get_running_loop().shutdown_default_executor()
        for _ in range(500):  # the server sees the hang-up a moment later
            if srv.hangups:
                break
            time.sleep(0.02)
        assert worker.is_finished and srv.hangups == 1


@pytest.mark.parametrize("case", ["no endpoint", "no criteria"])
async def test_j_without_an_endpoint_or_criteria_says_what_to_set(
    tmp_path: Path, srv: ScriptedLLMServer, case: str
) -> None:
    home = srv if case == "no criteria" else None
    with review_home(tmp_path, home, criteria="" if case == "no criteria" else CRITERIA) as svc:
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            assert screen.session is not None
            screened = screen.session.counts()[0]
            await pilot.press("J")
            await wait_for(pilot, lambda: not screen.judging.running, "the judge's end")
            (said,) = toasts(app)
            if case == "no endpoint":
                assert "no LLM endpoint configured; set [llm] base_url and model in" in said
            else:
                assert "has no criteria" in said and "litsift review criteria donners" in said
            assert "Traceback" not in said and "LLM judging" not in progress_text(screen)
            await pilot.press("x")  # still screening
            assert screen.session.counts()[0] == screened + 1
    assert not srv.requests


def test_a_bug_in_the_judge_is_named_as_the_judges_not_the_screenings() -> None:
    from litsift.errors import ReviewError
    from litsift.tui.screens.screening_judge import error_message

    said = error_message(KeyError(3), "the LLM judge")
    assert said.startswith("the LLM judge failed unexpectedly (KeyError)")
    assert "log file" in said and error_message(KeyError(3)).startswith("screening failed")
    ours = ReviewError("review 'x' has no criteria", "litsift review criteria x '...'")
    assert error_message(ours, "the LLM judge") == ours.message + "; " + ours.hint


async def test_a_rate_limited_call_says_its_wait_in_a_toast(
    tmp_path: Path, srv: ScriptedLLMServer
) -> None:
    """A 429 with ``Retry-After`` held the judge (and answers, reranks) silent for as long as
    the server asked; the app now says the wait, the host and the attempt, and goes on."""
    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    judge = oracle(load_review_set(DONNERS))

    def respond(body: Any) -> Reply:  # the first call is rate limited, the rest answered
        if len(srv.requests) == 1:
            limited = {"error": {"message": "Rate limit reached", "type": "requests"}}
            return Reply(429, limited, headers={"Retry-After": "1"})
        return judge(body)

    srv.responder = respond
    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as svc:
        svc.reviews.create("donners", [DONNERS], labels=1, criteria=CRITERIA)
    with configured_home(home, srv):
        config = get_paths(home).config_file
        config.write_text(config.read_text().replace("max_retries = 0", "max_retries = 2"))
        with LitsiftService(get_paths(home)) as svc:
            app = create_screening_app(svc, "donners", dense=False)
            async with app.run_test(size=SIZE) as pilot:
                screen = await wait_idle(pilot)
                await pilot.press("J")
                host = srv.url.split("//")[1].split("/")[0]
                said = f"rate limited by {host}: waiting 1 s (attempt 2 of 3)"

                def waits() -> list[str]:
                    return [n.message for n in app._notifications if n.title == "LLM"]

                await wait_for(pilot, lambda: said in waits(), "the wait's toast")
                await wait_for(pilot, lambda: not screen.judging.running, "the judge's end")
                errors = [n.message for n in app._notifications if n.severity == "error"]
                assert not errors, (errors, toasts(app), waits())
                # the retried call and the rest answered: every record has its verdict
                judged = stored_verdicts(svc.store, "donners")
                assert len(judged) == 257, (len(judged), toasts(app), waits())
