"""The screening screen shows an LLM judge's verdict beside the record (``litsift review
judge``), never as a decision, its reason without the escape sequences a model may write (a
real review of Donners 2021, real SQLite)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from litsift.llm.screening import prompt_id
from litsift.store.review_verdicts import save_verdicts
from litsift.tui.app import create_screening_app
from tests.tui.test_screening_screen import DONNERS, SIZE, donners_review, wait_idle


async def test_the_verdict_and_its_reason_are_shown_beside_the_record(tmp_path: Path) -> None:
    with donners_review(tmp_path, criteria="Emicizumab in people with haemophilia A") as svc:
        session = svc.reviews.open("donners")
        reason = "adults on \x1b[31memicizumab\x1b[0m prophylaxis\x07"  # stored as is here
        verdicts = {p.id: (1, reason) for p in session.papers}
        prompt = prompt_id(session.criteria_query())  # given against the criteria as they are
        assert save_verdicts(svc.store, "donners", "test-model", verdicts, prompt) == 257
        app = create_screening_app(svc, "donners", dense=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            assert screen.session is not None and "LLM verdicts" in screen.session.model_name
            shown = str(screen.query_one("#screening-record", Static).render())
            assert "LLM: include — adults on emicizumab prophylaxis" in shown
            assert "\x1b" not in shown and "\x07" not in shown
            decided = screen.session.counts()
        # the verdicts decided nothing: the same records are screened, none excluded
        assert svc.reviews.open("donners").counts() == decided


async def test_at_full_text_the_verdict_says_it_read_the_title_and_abstract(
    tmp_path: Path,
) -> None:
    """The judge reads titles and abstracts only: at the full-text stage its verdict must not
    read as a judgement of the full text."""
    with donners_review(tmp_path, criteria="Emicizumab in people with haemophilia A") as svc:
        svc.reviews.delete("donners")
        svc.reviews.create("donners", [DONNERS], labels="all", criteria="Emicizumab")
        session = svc.reviews.open("donners", stage="fulltext")
        verdicts = {p.id: (-1, "a review article") for p in session.papers}
        prompt = prompt_id(session.criteria_query())
        assert verdicts and save_verdicts(svc.store, "donners", "m", verdicts, prompt)
        app = create_screening_app(svc, "donners", dense=False, stage="fulltext")
        async with app.run_test(size=SIZE) as pilot:
            screen = await wait_idle(pilot)
            shown = str(screen.query_one("#screening-record", Static).render())
            assert "LLM (title/abstract): exclude — a review article" in shown
