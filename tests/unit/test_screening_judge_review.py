"""``litsift review judge`` where the review changes around it: criteria edited after a run
(the verdicts given against the old ones no longer read), another model judging too (the
configured one's verdicts read), another run (a second terminal, ``J`` in the app) judging
the same records at the same time, the review deleted mid-run, a home that cannot be written;
and its verdicts in the review's CSV export (the use of automation on record). Real scripted
server on 127.0.0.1, real SQLite homes, the real Donners 2021 review (258 records)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.config import load_config
from litsift.errors import ReadOnlyHomeError
from litsift.llm.session import LLMSession
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.service.screening import ScreeningSession
from litsift.service.screening_judge import judge_review
from litsift.store import Store
from litsift.store.review_verdicts import stored_verdicts
from litsift.store.reviews import get_review
from tests.llm_server import Reply, chat_reply
from tests.unit.test_screening_judge import DONNERS, donners, home, judge, oracle

__all__ = ["donners", "home"]  # the fixtures: the review set, a home with review "don"


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in got.output, got.output
    return got


def test_records_judged_against_criteria_since_edited_are_asked_again(
    home: Path, srv: Any, donners: Any
) -> None:
    """Was: the second run said "every record judged before" and kept verdicts given against
    criteria the reviewer had since rewritten (the app's J: "nothing to ask")."""
    srv.responder = oracle(donners)
    assert judge(home).exit_code == 0
    srv.requests.clear()
    assert "0 records judged" in judge(home).output and not srv.requests  # same criteria
    new = "Emicizumab in children with haemophilia A: bleeding rates"
    assert _cli(home, "review", "criteria", "don", new).exit_code == 0
    got = judge(home)
    assert got.exit_code == 0, got.output
    assert "257 records judged" in got.output and "judged before" not in got.output
    assert new in srv.requests[0].body["messages"][-1]["content"]


def test_verdicts_given_against_earlier_criteria_are_not_read(
    home: Path, srv: Any, donners: Any
) -> None:
    """Was: once the criteria were edited, the screen still showed each record's verdict on
    the old criteria as its verdict and the learning order read them, until the next run."""
    srv.responder = oracle(donners)
    assert judge(home, "--limit", "16").exit_code == 0
    with LitsiftService(get_paths(home)) as svc:
        judged = stored_verdicts(svc.store, "don")
        session = svc.reviews.open("don")
        assert "LLM verdicts" in session.retrain()[2]
        assert all(session.verdict_of(d) is not None for d in judged) and len(judged) == 16
    new = "Emicizumab in children with haemophilia A: bleeding rates"
    assert _cli(home, "review", "criteria", "don", new).exit_code == 0
    with LitsiftService(get_paths(home)) as svc:
        session = svc.reviews.open("don")
        _, _, model = session.retrain()
        assert "LLM" not in model and not session.verdicts  # the order reads none
        assert all(session.verdict_of(d) is None for d in judged)  # the screen shows none
    show = _cli(home, "review", "show", "don")
    assert "16 verdicts from earlier criteria: run `litsift review judge don` again" in show.output
    assert "LLM verdicts (" not in show.output
    data = json.loads(_cli(home, "review", "show", "don", "--json").stdout)["verdicts"]
    assert (data["records"], data["stale"]) == (0, 16)
    assert judge(home).exit_code == 0  # judged again: read again, nothing stale
    show = _cli(home, "review", "show", "don").output
    assert "LLM verdicts (test-model): 257 records" in show and "earlier criteria" not in show


def _model(home: Path, model: str) -> None:
    """Point the home's ``[llm]`` at ``model`` (the scripted server answers to any)."""
    config = get_paths(home).config_file
    config.write_text(re.sub(r'model = "[^"]*"', f'model = "{model}"', config.read_text()))


def test_the_configured_models_verdicts_are_read_where_several_judged(
    home: Path, srv: Any, donners: Any
) -> None:
    """Was: each record's newest verdict of any model was read: a model tried once after the
    configured one replaced its verdicts on the screen and in the order."""
    right = oracle(donners)

    def wrong(body: Any) -> Reply:  # every label the other way round
        text = right(body).body["choices"][0]["message"]["content"]
        swap = {'"include"': '"exclude"', '"exclude"': '"include"'}
        return chat_reply(re.sub(r'"(?:in|ex)clude"', lambda m: swap[m.group(0)], text))

    srv.responder = right
    assert judge(home).exit_code == 0
    _model(home, "other-model")
    srv.responder = wrong
    assert judge(home).exit_code == 0  # newer than test-model's, on every record
    with LitsiftService(get_paths(home)) as svc:
        ours = stored_verdicts(svc.store, "don", "test-model")
        theirs = stored_verdicts(svc.store, "don", "other-model")
    assert ours.keys() == theirs.keys() and all(ours[d].value == -theirs[d].value for d in ours)
    for configured, read in (("test-model", ours), ("other-model", theirs), ("none", theirs)):
        _model(home, configured)  # "none" judged nothing: the newest is read
        with LitsiftService(get_paths(home)) as svc:
            session = svc.reviews.open("don")
            session.retrain()
            assert {d: v.model for d, v in session.verdicts.items()} == {
                d: v.model for d, v in read.items()
            }, configured
            assert all(session.verdict_of(d) == (v.label, v.reason) for d, v in read.items())
            summary = svc.reviews.verdicts("don")
        assert summary.labels["include"] == sum(v.value == 1 for v in read.values())


def test_a_second_run_on_the_same_review_is_not_paid_for_twice(
    home: Path, srv: Any, donners: Any
) -> None:
    """Two runs at once (``J`` in the app while ``review judge`` runs): records the other
    judged meanwhile are not sent again. Was: the first run sent every one of them again, in
    batches of its own order (the other's read the decisions made since), so uncached."""
    srv.responder = oracle(donners)
    other: list[Any] = []

    def meanwhile(report: Any, total: int) -> None:  # after this run's first call is stored
        if not other and report.judged:  # the app: 3 screened, then J, before the next call
            with LitsiftService(get_paths(home)) as svc:
                session = svc.reviews.open("don")
                for _ in range(3):
                    session.decide("exclude")
                other.append(session.judge())
                other.append(len(srv.requests))

    with LitsiftService(get_paths(home)) as svc:
        got = svc.reviews.judge("don", progress=meanwhile)
    (there, sent) = other
    assert there.judged == 249 and there.skipped == 8 and there.error is None
    assert len(srv.requests) == sent  # nothing sent after the other run ended
    assert got.judged == 8 and got.skipped == 249 and got.error is None
    with LitsiftService(get_paths(home)) as svc:
        assert len(stored_verdicts(svc.store, "don")) == 257


def test_a_review_deleted_while_judged_ends_the_run(home: Path, srv: Any, donners: Any) -> None:
    """Was: the run went on, paid for every call, stored nothing (the records were no longer
    a review's) and said "257 records judged"."""
    judge_all = oracle(donners)

    def respond(body: Any) -> Reply:
        if len(srv.requests) == 2:  # another terminal: litsift review delete don
            with LitsiftService(get_paths(home)) as other:
                other.reviews.delete("don")
        return judge_all(body)

    srv.responder = respond
    got = judge(home)
    assert got.exit_code != 0 and "Traceback" not in got.output
    assert "no review named 'don': it was deleted while its records were judged" in got.output
    assert len(srv.requests) == 2


def test_a_home_that_cannot_be_written_is_told_before_any_call(
    home: Path, srv: Any, donners: Any
) -> None:
    """Was: the first call was sent (and paid for), then its verdicts could not be stored."""
    paths = get_paths(home)
    with LitsiftService(paths) as svc:
        records = svc.reviews.records("don")
    srv.responder = oracle(donners)
    with Store(paths.store_file, readonly=True) as store:
        session = ScreeningSession(store, get_review(store, "don"), records)
        llm = LLMSession(load_config(paths.config_file).llm, paths)
        with pytest.raises(ReadOnlyHomeError, match="read-only"):
            judge_review(session, llm)
    assert not srv.requests


@pytest.mark.parametrize("made", [False, True], ids=["no-cache-yet", "cache-in-use"])
def test_an_unwritable_response_cache_leaves_the_calls_uncached(
    home: Path, srv: Any, donners: Any, made: bool
) -> None:
    """Was: a cache folder litsift may not write (left by a `sudo litsift`) stopped the run
    before any call with "<home>/data cannot be written", the wrong folder, though the store
    was writable; with the cache open elsewhere, the call was paid for, then its verdicts lost
    to "attempt to write a readonly database". The response cache is a cache, as the
    embeddings' is: the calls go uncached.
    A real process run as a root that obeys permission bits (setpriv)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run the CLI without CAP_DAC_OVERRIDE")
    srv.responder = oracle(donners)
    cache = get_paths(home).cache_dir
    cache.mkdir(parents=True, exist_ok=True)
    if made:  # the cache is made (its WAL left by this process's open client), then read-only
        assert judge(home, "--limit", "8").exit_code == 0
    locked = [cache, *cache.iterdir()]
    for path in locked:
        path.chmod(path.stat().st_mode & ~0o222)
    env = {k: v for k, v in os.environ.items() if k not in ("LITSIFT_HOME",)}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).parents[2] / "src"), env.get("PYTHONPATH", "")]
    )
    drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
    run = [sys.executable, "-m", "litsift", "--home", str(home), "review", "judge", "don"]
    try:
        got = subprocess.run(
            [*drop, *run, "--limit", "16"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    finally:
        for path in locked:
            path.chmod(path.stat().st_mode | 0o200)
    assert got.returncode == 0, got.stderr
    assert "16 records judged by test-model" in got.stdout and "Traceback" not in got.stderr
    with LitsiftService(get_paths(home)) as svc:
        assert len(stored_verdicts(svc.store, "don")) == (24 if made else 16)


def test_a_hint_names_a_review_with_a_space_as_a_shell_word(tmp_path: Path) -> None:
    if not DONNERS.is_file():
        pytest.skip(f"{DONNERS} not here")
    home = tmp_path / "home"
    with LitsiftService(get_paths(home)) as svc:
        svc.reviews.create("don 2", [DONNERS], labels=1)
    got = _cli(home, "review", "judge", "don 2")
    assert got.exit_code != 0 and "litsift review criteria 'don 2' '" in got.output, got.output


def test_the_csv_export_says_which_records_an_llm_judged_and_how(
    home: Path, srv: Any, donners: Any, tmp_path: Path
) -> None:
    srv.responder = oracle(donners)
    assert judge(home, "--limit", "16").exit_code == 0
    out = tmp_path / "don.csv"
    assert _cli(home, "review", "export", "don", "-o", str(out)).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    judged = [r for r in rows if r["llm_verdict"]]
    assert len(judged) == 16 and {r["llm_model"] for r in judged} == {"test-model"}
    assert {(r["llm_verdict"], r["llm_reason"]) for r in judged} <= {
        ("include", "emicizumab in people"),
        ("exclude", "off topic"),
    }
    assert not any(r["llm_reason"] or r["llm_model"] for r in rows if not r["llm_verdict"])
    # the file read back: its decisions as before, no verdict taken for a decision or a note
    assert _cli(home, "review", "new", "back", "--from", str(out)).exit_code == 0
    with LitsiftService(get_paths(home)) as svc:
        back = svc.reviews.records("back")
        assert not stored_verdicts(svc.store, "back")
    assert not any(r.note for r, _ in back)
    assert sum(r.decision is not None for r, _ in back) == sum(bool(r["decision"]) for r in rows)
