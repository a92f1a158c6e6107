"""Screening: measures against their definitions, stopping rules, simulated screening of real
labelled reviews (``shared/data/eval/screening``) and the ``litsift eval screening`` JSON."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from litsift.errors import EvalError
from litsift.review.data import find_sets, load_review_set
from litsift.review.measures import atd, recall_curve, records_to_recall, rrf, wss
from litsift.review.simulate import asreview_python, draw_priors, run_once
from litsift.review.stopping import consecutive_exclusions, hypergeometric_test, knee, stop_points
from tests.conftest import EVAL_DIR

SCREENING = EVAL_DIR / "screening"
SMALL_SETS = ["Donners_2021", "Cohen_2006_Antihistamines"]
#: the 12 shared reviews' questions (their published titles), for ``eval screening --criteria``
CRITERIA_FILE = Path(__file__).resolve().parents[2] / "benchmarks" / "screening_criteria.json"


# --- measures on hand-checkable sequences -------------------------------------------------


def test_measures_follow_their_definitions() -> None:
    y = [1, 0, 1, 0, 0, 0, 0, 0, 0, 0]  # M = 10, R = 2
    # ceil(0.95 * 2) = 2 includes after 3 records: (10 - 3)/10 - 0.05
    assert records_to_recall(y, 0.95) == 3
    assert wss(y) == pytest.approx(0.65)
    assert rrf(y) == pytest.approx(0.5)  # floor(0.1 * 10) = 1 record: 1 of 2 includes
    assert atd(y) == pytest.approx(2.0)  # positions 1 and 3
    assert recall_curve(y, [0.1, 0.2, 0.3, 1.0]) == [0.5, 0.5, 1.0, 1.0]


def test_wss_uses_ceil_of_95_percent_of_includes() -> None:
    # R = 40: ceil(38.0) = 38 includes; the 38th include is record 38 + 10 = 48 of M = 400
    y = np.zeros(400, dtype=int)
    y[:30] = 1
    y[40:48] = 1  # includes 31..38
    y[398:400] = 1  # the last two found at the very end
    assert records_to_recall(y, 0.95) == 48
    assert wss(y) == pytest.approx((400 - 48) / 400 - 0.05)
    # R = 20: ceil(0.95 * 20) = 19 (no float rounding up to 20)
    z = np.zeros(100, dtype=int)
    z[:19] = 1
    z[-1] = 1
    assert records_to_recall(z, 0.95) == 19


def test_random_order_scores_near_zero_wss_and_half_atd() -> None:
    rng = np.random.default_rng(0)
    wss_values, atd_values = [], []
    for _ in range(200):
        y = np.zeros(1000, dtype=int)
        y[rng.choice(1000, 50, replace=False)] = 1
        wss_values.append(wss(y))
        atd_values.append(atd(y) / 1000)
    assert abs(np.mean(wss_values)) < 0.02
    assert abs(np.mean(atd_values) - 0.5) < 0.02


def test_measures_need_an_include() -> None:
    with pytest.raises(EvalError, match="at least one included"):
        wss([0, 0, 0])


# --- stopping rules ----------------------------------------------------------------------


def test_consecutive_exclusions_fire_after_n_in_a_row() -> None:
    y = [1] + [0] * 9 + [1] + [0] * 30
    assert consecutive_exclusions(y, n=10) == 21  # the 10th exclusion after the 2nd include
    assert consecutive_exclusions(y, n=31) is None


def test_knee_fires_where_the_slope_ratio_reaches_the_threshold() -> None:
    # 100 includes first, then exclusions; with the prior rel(i) = i + 1 up to the knee i = 100.
    # rho(s) = (101/100) / (1/(s - 100)) >= 156 - 101 = 55 first at s = 155.
    y = [1] * 100 + [0] * 400
    assert knee(y) == 155
    assert knee([1] * 100 + [0] * 40) is None  # never before rank 150


def test_hypergeometric_rule_fires_when_the_exclusions_certify_95_percent() -> None:
    # 40 includes first (41 with the prior), then exclusions, of N = 2000 records. Recall < 95 %
    # would leave at least floor(41/0.95 - 41) + 1 = 3 includes among the 1,960 records after
    # them; k exclusions in a row then have probability prod (1957 - j)/(1960 - j), j < k.
    y = np.zeros(2000, dtype=int)
    y[:40] = 1
    p, k = 1.0, 0
    while p >= 0.05:
        p *= (1957 - k) / (1960 - k)
        k += 1
    step = 2000 // 400
    assert hypergeometric_test(y) == math.ceil((40 + k) / step) * step
    # the same first 60 records of a 2,000-record review are no evidence yet
    assert hypergeometric_test(y[:60], n_records=2000) is None


def test_hypergeometric_rule_fires_once_too_few_records_are_left_to_miss_5_percent() -> None:
    # a small review screened to the end, its includes spread through it: the draws gave no
    # evidence, but with every record screened nothing is left to miss (it said "not yet")
    y = np.zeros(30, dtype=int)
    y[::6] = 1  # 5 includes (6 with the prior): recall < 95 % needs 1 unscreened include
    assert hypergeometric_test(y[:29], n_records=30) is None
    assert hypergeometric_test(y) == 30
    # includes found last (the order failed): still none certified until the end
    late = np.array([0] * 20 + [1] * 10)
    assert hypergeometric_test(late[:29], n_records=30) is None
    assert hypergeometric_test(late) == 30


# --- the estimate of includes left -----------------------------------------------------


def test_rate_curve_estimate_reads_the_decay_of_the_includes() -> None:
    from litsift.review.estimate import rate_curve_estimate

    assert rate_curve_estimate([0] * 50, 500) == 0.0  # no include: no rate to fit
    assert rate_curve_estimate([1, 0, 1], 0) == 0.0
    # a flat rate of 1 in 10 over 200 records: about 1 in 10 of the 800 left
    flat = ([0] * 5 + [1] + [0] * 4) * 20  # no decay: each ten has its include mid-way
    assert rate_curve_estimate(flat, 800) == pytest.approx(80.0, rel=0.05)
    # the same 20 includes front-loaded and then none for 150 records: nearly none left
    front = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0] * 2 + [1, 0] * 2 + [0] * 150
    assert sum(front) == 16 and rate_curve_estimate(front, 800) < 1.0
    # the estimate never exceeds the records left
    assert rate_curve_estimate([1] * 10, 5) <= 5.0
    with pytest.raises(ValueError, match="unknown rate shape"):
        rate_curve_estimate(flat, 10, "linear")


def _exponential_sequence(n: int, k: int, u: float) -> np.ndarray:
    """``(n,)`` 0/1 labels with ``k`` includes at the quantiles of a rate ``exp(-u·x/n)``."""
    b = u / n
    q = (np.arange(k) + 0.5) / k
    x = -np.log(1 - q * (1 - np.exp(-b * n))) / b
    seq = np.zeros(n, dtype=np.int64)
    seq[np.minimum(x.astype(np.int64), n - 1)] = 1
    return seq


def test_the_decay_prior_is_read_from_whole_sequences_and_tames_a_flat_start() -> None:
    from litsift.review.estimate import decay_mle, fit_decay_prior, rate_curve_estimate

    # the decay of a whole sequence, relative to its length, is what made it
    assert decay_mle(_exponential_sequence(1000, 50, 8.0)) * 1000 == pytest.approx(8.0, rel=0.1)
    seqs = [
        _exponential_sequence(n, k, u) for n, k, u in ((1000, 50, 8), (2000, 80, 6), (500, 20, 10))
    ]
    mean, sd = fit_decay_prior(seqs)
    assert mean == pytest.approx(np.log(8.0), abs=0.2) and 0 < sd < 0.5
    # 10 includes, one in every ten of the first 100 records of 1,000: no decay seen yet, so
    # the maximum-likelihood fit extrapolates the flat rate (90 more); with the prior, reviews
    # whose includes thinned out as the learner ranked them say far fewer are left
    flat = ([0] * 5 + [1] + [0] * 4) * 10
    assert rate_curve_estimate(flat, 900) == pytest.approx(90.0, rel=0.05)
    assert rate_curve_estimate(flat, 900, prior=(mean, sd)) < 30.0
    # once the decay shows, the data decide: both near the truth
    seq = _exponential_sequence(1000, 50, 8.0)
    truth = int(seq[500:].sum())
    for prior in (None, (mean, sd)):
        assert abs(rate_curve_estimate(seq[:500], 500, prior=prior) - truth) <= 1.5
    with pytest.raises(ValueError, match="two sequences"):
        fit_decay_prior([np.zeros(100, dtype=np.int64)])


# --- real review sets ------------------------------------------------------------------


def test_load_review_set_reports_bad_lines_and_keeps_good(tmp_path: Path) -> None:
    src = find_sets(EVAL_DIR, ["Donners_2021"])[0]
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    bad = tmp_path / "Broken.jsonl.gz"
    with gzip.open(bad, "wt", encoding="utf-8") as fh:
        fh.write("\n".join([*lines[:5], "{not json", '{"title": "x", "label_included": 2}']))
        fh.write("\n" + "\n".join(lines[5:]))
    review = load_review_set(bad)
    assert review.labels.size == 258
    assert review.problems == (
        f"{bad}:6: not a JSON object",
        f"{bad}:7: label_included must be 0 or 1",
    )


def test_unknown_set_names_the_choices() -> None:
    with pytest.raises(EvalError) as err:
        find_sets(EVAL_DIR, ["Nope_2020"])
    assert "Nope_2020" in str(err.value) and "Donners_2021" in err.value.hint


def test_priors_come_from_the_seed_not_file_order() -> None:
    review = load_review_set(find_sets(EVAL_DIR, ["Donners_2021"])[0])
    a, b = draw_priors(review.labels, 0), draw_priors(review.labels, 1)
    assert (a.perm != b.perm).any()
    for p in (a, b):
        assert review.labels[p.perm[p.included]] == 1 and review.labels[p.perm[p.excluded]] == 0
    again = draw_priors(review.labels, 0)
    assert (again.perm == a.perm).all() and again.included == a.included


#: the tests of one module-scoped ``eval screening`` run share a worker (else each of the two
#: workers runs it, ~27 s each)
ON_ONE_WORKER = pytest.mark.xdist_group("screening_json")


@pytest.fixture(scope="module")
def screening_json(encoder) -> dict:  # type: ignore[no-untyped-def]
    """``litsift eval screening`` on the two smallest real sets, one seed, through the CLI."""
    from litsift.cli.root import main

    out = CliRunner().invoke(
        main,
        [
            "eval",
            "screening",
            "--data",
            str(EVAL_DIR.parent),
            "--sets",
            ",".join(SMALL_SETS),
            "--seeds",
            "1",
            "--systems",
            "litsift,litsift-text,tfidf-svm",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


@ON_ONE_WORKER
def test_cli_json_shape(screening_json: dict) -> None:
    data = screening_json
    assert data["benchmark"] == "screening"
    assert data["systems"] == ["litsift", "litsift-text", "tfidf-svm"]
    assert set(data["results"]) == set(SMALL_SETS)
    assert data["sets"]["Donners_2021"] == {"records": 258, "included": 15}
    for name in SMALL_SETS:
        for system in data["systems"]:
            row = data["results"][name][system]
            for m in ("WSS@95", "RRF@10", "ATD/M", "ATD"):
                assert set(row[m]) == {"mean", "std", "n"} and row[m]["n"] == 1
            assert 0.0 <= row["RRF@10"]["mean"] <= 1.0 and -0.05 <= row["WSS@95"]["mean"] < 0.95
            assert len(data["curves"][name][system]) == len(data["curve_points"])
            assert data["curves"][name][system][-1] == 1.0
        assert len(data["priors"][name]["0"]) == 2
    assert set(data["summary"]["litsift"]["WSS@95"]) == {"mean", "median"}
    comp = {(c["other"], c["measure"]): c for c in data["comparisons"]}
    assert comp[("tfidf-svm", "WSS@95")]["n"] == 2
    assert 0.0 <= comp[("tfidf-svm", "WSS@95")]["p_value"] <= 1.0
    atd_row = comp[("tfidf-svm", "ATD")]
    assert atd_row["better"] == "lower"
    ours, theirs = (
        [data["results"][s][sy]["ATD"]["mean"] for s in SMALL_SETS]
        for sy in ("litsift", "tfidf-svm")
    )
    assert atd_row["wins"] == sum(a < b for a, b in zip(ours, theirs, strict=True))
    assert atd_row["diff"] == pytest.approx(np.mean(ours) - np.mean(theirs))


@ON_ONE_WORKER
def test_learning_order_beats_random_on_real_sets(screening_json: dict) -> None:
    """Random order gives WSS@95 ≈ 0, RRF@10 ≈ 0.10 and ATD/M ≈ 0.5."""
    for name in SMALL_SETS:
        row = screening_json["results"][name]["litsift"]
        assert row["RRF@10"]["mean"] > 0.3
        assert row["ATD/M"]["mean"] < 0.35


@ON_ONE_WORKER
def test_litsift_reads_citations_only_where_the_set_has_references(screening_json: dict) -> None:
    """``litsift`` is the app's default order: on Donners (OpenAlex ``referenced_works``) the
    citation signal joins the fit and changes the order; on Antihistamines (no references)
    ``litsift`` is exactly ``litsift-text``."""
    res = screening_json["results"]
    donners = res["Donners_2021"]
    assert donners["litsift"]["ATD"]["mean"] != donners["litsift-text"]["ATD"]["mean"]
    assert (
        screening_json["curves"]["Donners_2021"]["litsift"]
        != (screening_json["curves"]["Donners_2021"]["litsift-text"])
    )
    anti = res["Cohen_2006_Antihistamines"]
    for m in ("WSS@95", "RRF@10", "ATD"):
        assert anti["litsift"][m]["mean"] == anti["litsift-text"][m]["mean"]
    assert (
        screening_json["curves"]["Cohen_2006_Antihistamines"]["litsift"]
        == (screening_json["curves"]["Cohen_2006_Antihistamines"]["litsift-text"])
    )
    (note,) = [n for n in screening_json["notes"] if n.startswith("litsift = ")]
    assert "(Donners_2021)" in note
    # the app's order: bge-small's vectors (the [bge] extra is in the dev install)
    assert note.startswith("litsift = tfidf-stem+bge-0.5-nn0.3-lp0.3 + the citation signal")


@ON_ONE_WORKER
def test_stopping_rules_fire_on_a_real_set(screening_json: dict) -> None:
    row = screening_json["results"]["Donners_2021"]["litsift"]
    assert row["stop.consecutive.fired"]["mean"] == 1.0
    assert row["stop.hypergeometric.fired"]["mean"] == 1.0
    # the statistical rule certifies 95 % recall; here it keeps it
    assert row["stop.hypergeometric.recall"]["mean"] >= 0.95
    assert row["stop.hypergeometric.screened"]["mean"] < 1.0


@ON_ONE_WORKER
def test_eval_screening_reads_the_reviews_criteria(screening_json: dict) -> None:
    """``--criteria`` with the shipped file of the 12 reviews' titles: on Antihistamines the
    app's order reads its criteria as a column (a note says so, and the screening order
    changes from the run without criteria); the other sets of the file are not run, so they
    are ignored."""
    from litsift.cli.root import main

    name = "Cohen_2006_Antihistamines"
    out = CliRunner().invoke(
        main,
        ["eval", "screening", "--data", str(EVAL_DIR.parent), "--sets", name, "--seeds", "1",
         "--systems", "litsift", "--criteria", str(CRITERIA_FILE), "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    (note,) = [n for n in data["notes"] if n.startswith("review criteria given")]
    assert f"1 set(s) ({name})" in note and "asreview" in note
    assert data["curves"][name]["litsift"] != screening_json["curves"][name]["litsift"]


def test_a_bad_criteria_file_is_a_clear_error(tmp_path: Path) -> None:
    """Not JSON, not an object, a set without text, a set name no file has: each is an
    EvalError naming the file or the set, raised before any simulation."""
    from litsift.eval.screening import run_screening
    from litsift.review.data import load_criteria

    shipped = load_criteria(CRITERIA_FILE)
    assert len(shipped) == 12 and set(shipped) == {
        p.name.removesuffix(".jsonl.gz") for p in find_sets(EVAL_DIR)
    }
    assert all(len(text.split()) >= 3 for text in shipped.values())
    bad = tmp_path / "c.json"
    for text, match in [
        ("{not json", "is not JSON"),
        ('["Donners_2021"]', "holds a list, not an object"),
        ('{"Donners_2021": {"source": "x"}}', "set 'Donners_2021' has no criteria text"),
    ]:
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(EvalError, match=match):
            load_criteria(bad)
    with pytest.raises(EvalError, match="cannot read criteria file"):
        load_criteria(tmp_path / "missing.json")
    with pytest.raises(EvalError, match=r"unknown set.*Donners_2012") as err:
        run_screening(EVAL_DIR, ["Donners_2021"], 1, ["tfidf-svm"],
                      criteria={"Donners_2012": "emicizumab"})  # fmt: skip
    assert "Donners_2021" in err.value.hint


def test_unknown_system_is_a_clear_error() -> None:
    from litsift.cli.root import main

    out = CliRunner().invoke(
        main, ["eval", "screening", "--data", str(EVAL_DIR.parent), "--systems", "svm9"]
    )
    assert out.exit_code != 0
    assert "unknown screening system(s): svm9" in out.output and "Traceback" not in out.output
    # each system given with its own --systems counts (click kept the last one alone)
    out = CliRunner().invoke(main, [
        "eval", "screening", "--data", str(EVAL_DIR.parent), "--sets", "Donners_2021",
        "--seeds", "1", "--systems", "svm9", "--systems", "tfidf-svm",
    ])  # fmt: skip
    assert out.exit_code != 0 and "unknown screening system(s): svm9" in out.output, out.output


@pytest.mark.skipif(asreview_python() is None, reason="asreview not installed")
def test_asreview_runs_on_the_same_priors() -> None:
    """ASReview's default (ELAS u4) through its own Simulate loop; our replica of it
    (tfidf-svm) ranks the same records close to it."""
    from litsift.review.learner import ORDERS, LearningOrder

    review = load_review_set(find_sets(EVAL_DIR, ["Donners_2021"])[0])
    theirs = run_once(review, "asreview", 0, None, asreview_python())
    ours = run_once(review, "tfidf-svm", 0, LearningOrder.build(ORDERS["tfidf-svm"], review.texts))
    assert theirs.prior_ids == ours.prior_ids
    assert theirs.notes[0].startswith("asreview ")
    assert theirs.sequence.sum() == 14 and theirs.sequence.size == 256
    assert math.isclose(theirs.measures["WSS@95"], ours.measures["WSS@95"], abs_tol=0.1)
    assert [s.rule for s in stop_points(theirs.sequence)] == [
        "consecutive",
        "knee",
        "hypergeometric",
    ]
