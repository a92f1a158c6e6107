"""The review CSV export's ``llm_verdict`` / ``llm_reason`` / ``llm_model`` columns give the
verdict the screen shows (given against the review's criteria as they are now, the
configured model's first), so the report matches what the reviewer saw. They gave each
record's newest verdict of any model or criteria: a verdict of another model where the
configured one had judged too, and verdicts given against criteria edited since.

Real file: the Rayyan export of ``tests/data/imports/rayyan``; the CLI runs on a real store
in a temporary home whose ``[llm]`` names the configured model (no call is made).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.llm.screening import prompt_id
from litsift.paths import get_paths
from litsift.service.facade import LitsiftService
from litsift.service.screening import review_query
from litsift.store.history import now_iso
from litsift.store.review_verdicts import save_verdicts, stored_verdicts

TINEA = Path(__file__).resolve().parents[1] / "data" / "imports" / "rayyan"
TINEA = TINEA / "rayyanr_tinea-update_two-reviewers.ris"
CONFIGURED, OTHER = "configured-model", "other-model"


def _cli(home: Path, *args: str) -> Any:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in got.output, got.output
    assert got.exit_code == 0, got.output
    return got


def _save(store: Any, model: str, verdicts: dict[str, tuple[int, str]], prompt: str) -> None:
    """Store ``verdicts`` of ``model``, newer than every verdict stored before (ms clock)."""
    before = max((v.judged_at for v in stored_verdicts(store, "tinea").values()), default="")
    while now_iso() <= before:
        pass
    assert save_verdicts(store, "tinea", model, verdicts, prompt) == len(verdicts)


def test_the_csv_gives_the_verdict_the_screen_shows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _cli(home, "review", "new", "tinea", "--from", str(TINEA))
    get_paths(home).config_file.write_text(
        f'[llm]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "{CONFIGURED}"\n', encoding="utf-8"
    )
    with LitsiftService(get_paths(home)) as svc:
        a, b, c, *_ = [r.doc_id for r, _ in svc.reviews.records("tinea")]
        earlier = prompt_id(review_query(svc.reviews.info("tinea")))
        _save(svc.store, CONFIGURED, {a: (1, "an antifungal trial"), b: (1, "on tinea")}, earlier)
    _cli(home, "review", "criteria", "tinea", "topical antifungals for tinea; RCTs only")
    with LitsiftService(get_paths(home)) as svc:
        now = prompt_id(review_query(svc.reviews.info("tinea")))
        assert now != earlier
        _save(svc.store, CONFIGURED, {a: (-1, "not an RCT")}, now)
        _save(svc.store, OTHER, {a: (1, "a trial"), c: (0, "unclear design")}, now)  # newest
        seen = svc.reviews.open("tinea").read_verdicts()
        shown = {d: (v.label, v.reason, v.model) for d, v in seen.items()}
    out = tmp_path / "tinea.csv"
    _cli(home, "review", "export", "tinea", "-o", str(out))
    with open(out, encoding="utf-8-sig", newline="") as fh:
        cells = [
            (r["id"], r["llm_verdict"], r["llm_reason"], r["llm_model"]) for r in csv.DictReader(fh)
        ]
        rows = {d: (v, why, m) for d, v, why, m in cells}
    assert rows[a] == ("exclude", "not an RCT", CONFIGURED)  # the configured model's, not newest
    assert rows[b] == ("", "", "")  # judged only against the earlier criteria
    assert rows[c] == ("unsure", "unclear design", OTHER)  # the one verdict on the criteria
    assert {d: v for d, v in rows.items() if any(v)} == shown  # what the screen shows
