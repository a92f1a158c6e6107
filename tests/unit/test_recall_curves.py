"""Issue 44, item 6: the recall curve of a review (``litsift review curve``) and the recall
curves of simulated screening (``litsift eval screening --plot``), on a real review (Donners
2021, ``shared/data/eval/screening``: its records and published decisions), a real SQLite store
and real simulation runs; what was drawn is read back from the SVG's group ids and text and
from the plotted series."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.cli.root import main
from litsift.errors import ConfigError, ReviewError
from litsift.paths import get_paths
from litsift.review.measures import CURVE_POINTS
from litsift.service.facade import LitsiftService
from litsift.store.reviews import current_decisions
from tests.conftest import EVAL_DIR

DONNERS = EVAL_DIR / "screening" / "Donners_2021.jsonl.gz"
SVG = "{http://www.w3.org/2000/svg}"

pytestmark = [
    pytest.mark.skipif(not DONNERS.is_file(), reason=f"{DONNERS} not here"),
]


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[LitsiftService]:
    with LitsiftService(get_paths(tmp_path / "home")) as s:
        yield s


def _labels(svc: LitsiftService) -> dict[str, str]:
    """Donners' published decisions by record id (a review of every label as priors)."""
    svc.reviews.create("truth", [DONNERS])
    return {d: v for d, v, _ in current_decisions(svc.store, "truth")}


def _screen(
    svc: LitsiftService,
    name: str,
    labels: dict[str, str],
    limit: int | None = None,
    stage: str = "tiab",
    reviewer: str = "",
) -> list[str]:
    """Screen ``name`` in the session's order as the review decided; the decisions in order."""
    session = svc.reviews.open(name, stage, reviewer)
    done: list[str] = []
    while (paper := session.current_paper()) is not None and (limit is None or len(done) < limit):
        session.decide(labels[paper.id])
        done.append(labels[paper.id])
    return done


def _groups(svg: Path) -> dict[str, ET.Element]:
    return {g.get("id", ""): g for g in ET.parse(svg).getroot().iter(f"{SVG}g")}


def _texts(svg: Path) -> str:
    return "\n".join("".join(t.itertext()) for t in ET.parse(svg).getroot().iter(f"{SVG}text"))


# --- litsift review curve ------------------------------------------------------------------


def test_the_review_curve_counts_the_includes_in_screening_order(
    svc: LitsiftService, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    labels = _labels(svc)
    svc.reviews.create("don", [DONNERS], labels="none")
    done = _screen(svc, "don", labels, limit=120)  # 138 records left: the total is unknown
    s = svc.reviews.recall_series("don")
    assert (s["screened"], s["to_screen"], s["priors"]) == (120, 257, {})
    want = [0]
    for d in done:
        want.append(want[-1] + (d == "include"))
    assert s["found"] == want and s["includes"] == want[-1] > 0
    assert s["total_known"] is False and s["random"] == [[0, 0], [257, want[-1]]]

    home = str(tmp_path / "home")
    svc.close()
    runner = CliRunner()
    out = tmp_path / "curve.svg"
    got = runner.invoke(main, ["--home", home, "review", "curve", "don", "-o", str(out), "--json"])
    assert got.exit_code == 0, got.output
    printed = json.loads(got.output)
    assert printed["output"] == str(out) and printed["found"] == want
    assert printed["review"] == "don" and printed["stage"] == "tiab"
    groups = _groups(out)
    assert {"curve-found", "random"} <= set(groups)
    text = _texts(out)
    assert "total is unknown (137 of 257 records not yet screened)" in text
    assert f"includes found ({want[-1]} in 120 screened)" in text
    png = tmp_path / "curve.png"
    made = runner.invoke(main, ["--home", home, "review", "curve", "don", "-o", str(png)])
    assert made.exit_code == 0 and made.output.strip() == f"wrote {png}"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_review_curve_leaves_priors_out_and_knows_the_total_once_all_are_screened(
    svc: LitsiftService, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    labels = _labels(svc)
    svc.reviews.create("pri", [DONNERS], labels=2)  # 2 included + 2 excluded as priors
    with pytest.raises(ReviewError, match=r"its 4 decisions .* are all prior decisions"):
        svc.reviews.recall_diagram("pri", tmp_path / "none.svg")
    done = _screen(svc, "pri", labels)
    s = svc.reviews.recall_series("pri")
    assert s["priors"] == {"include": 2, "exclude": 2}
    assert s["screened"] == s["to_screen"] == 253 == len(done) and s["total_known"] is True
    assert s["includes"] == 15 - 2 == sum(d == "include" for d in done)
    out = svc.reviews.recall_diagram("pri", tmp_path / "pri.svg")
    assert "all 253 records screened: 13 includes" in _texts(out)
    assert "total is unknown" not in _texts(out)

    # full text: the 15 included records, none decided yet, then three
    full = _screen(svc, "pri", labels, limit=3, stage="fulltext")
    f = svc.reviews.recall_series("pri", "fulltext")
    assert (f["stage"], f["to_screen"], f["screened"], f["priors"]) == ("fulltext", 15, 3, {})
    assert f["found"][-1] == sum(d == "include" for d in full)
    assert "full text" in _texts(svc.reviews.recall_diagram("pri", tmp_path / "f.svg", "fulltext"))
    # one reviewer's own decisions (blind: the priors and hers)
    _screen(svc, "pri", labels, limit=5, reviewer="alice")
    a = svc.reviews.recall_series("pri", reviewer="alice")
    assert (a["screened"], a["reviewer"], a["priors"]) == (5, "alice", s["priors"])
    with pytest.raises(ReviewError, match="unknown stage"):
        svc.reviews.recall_series("pri", "abstract")


def test_the_curve_of_a_reviewer_who_decided_nothing_names_the_reviewers(
    svc: LitsiftService, tmp_path: Path
) -> None:
    """``review curve NAME --reviewer alcie`` (alice mistyped) said "no record screened yet at
    title/abstract by alcie" and told them to screen as alcie; it names the review's reviewers.
    A reviewer who screened title/abstract only still gets the (empty) full-text series."""
    labels = _labels(svc)
    svc.reviews.create("don", [DONNERS], labels="none")
    _screen(svc, "don", labels, limit=4, reviewer="alice")
    _screen(svc, "don", labels, limit=2, reviewer="bob")
    assert svc.reviews.recall_series("don", "fulltext", "alice")["screened"] == 0
    svc.close()
    args = ["review", "curve", "don", "--reviewer", "alcie", "-o", str(tmp_path / "c.svg")]
    got = CliRunner().invoke(main, ["--home", str(tmp_path / "home"), *args])
    assert got.exit_code == 1 and "Traceback" not in got.output, got.output
    assert "review 'don' has no decision of reviewer 'alcie'" in got.output
    assert "hint: its reviewers: 'alice', 'bob'" in got.output
    assert not (tmp_path / "c.svg").exists()


def test_the_review_curve_ticks_are_whole_records_with_two_includes_found(
    svc: LitsiftService, tmp_path: Path
) -> None:
    """A curve of a few includes (2 in 7 screened: matplotlib's own ticks were 0, 0.25, ...,
    1.75, 2 includes found) counts whole records on both axes."""
    pytest.importorskip("matplotlib")
    labels = _labels(svc)
    svc.reviews.create("few", [DONNERS], labels="none")
    session = svc.reviews.open("few")
    found = 0
    while found < 2:  # the order's first records until two of Donners' includes are found
        paper = session.current_paper()
        assert paper is not None
        session.decide(labels[paper.id])
        found += labels[paper.id] == "include"
    out = svc.reviews.recall_diagram("few", tmp_path / "few.svg")
    groups = _groups(out)
    for axis in ("xtick", "ytick"):
        ticks = [
            "".join(groups[gid].itertext()).strip()
            for gid in groups
            if gid.startswith(f"{axis}_") and "".join(groups[gid].itertext()).strip()
        ]
        assert len(ticks) >= 2, (axis, ticks)
        assert all(t.lstrip("\N{MINUS SIGN}-").replace(",", "").isdigit() for t in ticks), ticks
    assert svc.reviews.recall_series("few")["includes"] == 2


def test_the_review_curve_without_matplotlib_says_what_to_install(
    svc: LitsiftService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc.reviews.create("don", [DONNERS], labels=1)
    session = svc.reviews.open("don")
    session.decide("exclude")
    with pytest.raises(ConfigError, match="cannot draw"):
        svc.reviews.recall_diagram("don", tmp_path / "c.txt")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the extra were not installed
    with pytest.raises(ConfigError, match="needs matplotlib") as err:
        svc.reviews.recall_diagram("don", tmp_path / "c.svg")
    assert 'pip install "litsift[plots]"' in err.value.hint


# --- litsift eval screening --plot ---------------------------------------------------------


def test_eval_screening_plot_draws_each_systems_mean_curve_with_its_band(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plots = tmp_path / "plots"
    got = CliRunner().invoke(
        main,
        ["eval", "screening", "--data", str(EVAL_DIR.parent), "--sets", "Donners_2021",
         "--seeds", "2", "--systems", "litsift,litsift-text", "--plot", str(plots), "--json"],
    )  # fmt: skip
    assert got.exit_code == 0, got.output
    data = json.loads(got.stdout)
    files = [plots / f"Donners_2021{x}" for x in (".svg", ".png", ".json")]
    assert data["plots"] == {"Donners_2021": [str(f) for f in files]}
    assert all(f.is_file() for f in files)
    series = json.loads(files[2].read_text(encoding="utf-8"))["systems"]
    assert list(series) == ["litsift", "litsift-text"]  # asreview did not run: no curve
    m = 258 - 2  # the priors are not screened (the simulation reads the set file as published)
    for system, s in series.items():
        assert (s["seeds"], s["points"]) == (2, m + 1)
        assert s["fraction"][0] == 0.0 and s["fraction"][-1] == 1.0
        assert s["mean"][0] == 0.0 and s["mean"][-1] == 1.0
        bounds = zip(s["min"], s["mean"], s["max"], strict=True)
        assert all(lo <= mu <= hi for lo, mu, hi in bounds)
        # the plotted mean is the report's recall curve where that one has points
        at = [s["mean"][math.floor(round(p * m, 9))] for p in CURVE_POINTS]
        assert at == pytest.approx(data["curves"]["Donners_2021"][system], abs=1e-5)
    groups = _groups(files[0])
    for system in series:
        assert {f"curve-{system}", f"band-{system}"} <= set(groups)
    assert {"random", "recall-95"} <= set(groups)
    assert not any("asreview" in g for g in groups)
    text = _texts(files[0])
    assert "litsift (mean of 2 seeds)" in text and "litsift-text (mean of 2 seeds)" in text
    assert "95% recall" in text and "random order" in text
    assert files[1].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_systems_curve_appears_when_it_has_runs(tmp_path: Path) -> None:
    """ASReview is not installed here: its runs are stand-ins (a real tfidf-svm run renamed),
    to show the plot draws whatever systems ran, one seed without a band."""
    pytest.importorskip("matplotlib")
    from litsift.eval.screening import run_screening
    from litsift.review.recall_plots import draw_simulation_curves

    report = run_screening(EVAL_DIR, ["Donners_2021"], 1, ["tfidf-svm"])
    runs = [*report.runs, *(dataclasses.replace(r, system="asreview") for r in report.runs)]
    svg, data = draw_simulation_curves("Donners_2021", runs, tmp_path, png=False)
    assert [f.name for f in (svg, data)] == ["Donners_2021.svg", "Donners_2021.json"]
    groups = _groups(svg)
    assert {"curve-tfidf-svm", "curve-asreview"} <= set(groups)
    assert not any(g.startswith("band-") for g in groups)  # one seed: no band
    assert "asreview (mean of 1 seed)" in _texts(svg)


def test_plot_is_for_eval_screening_only(tmp_path: Path) -> None:
    got = CliRunner().invoke(main, ["eval", "scifact", "--plot", str(tmp_path)])
    assert got.exit_code == 1 and "error: --plot does nothing in eval scifact" in got.output
    assert "hint: drop it; --plot is read by eval screening" in got.output
