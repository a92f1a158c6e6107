"""``litsift eval snowball`` through the CLI on a slice of a real review set with references
(Donners_2021: its 15 included records and the first 45 excluded ones), one seed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from litsift.paths import shared_data_dir

SCREENING = shared_data_dir() / "eval" / "screening"


def _slice(src: Path, dest: Path, excluded: int) -> None:
    rows = [json.loads(line) for line in gzip.open(src, "rt", encoding="utf-8")]
    keep = [r for r in rows if r["label_included"]] + [r for r in rows if not r["label_included"]][
        :excluded
    ]
    with gzip.open(dest, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in keep)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("snowball-sets")
    _slice(SCREENING / "Donners_2021.jsonl.gz", d / "Donners_slice.jsonl.gz", 45)
    _slice(SCREENING / "Cohen_2006_Antihistamines.jsonl.gz", d / "Cohen_slice.jsonl.gz", 40)
    return d


def _run(*args: str) -> tuple[int, str]:
    from litsift.cli.root import main

    out = CliRunner().invoke(main, ["eval", "snowball", *args])
    return out.exit_code, out.output


def test_cli_json(data_dir: Path) -> None:
    code, output = _run("--data", str(data_dir), "--seeds", "1", "--systems", "tfidf-svm", "--json")
    assert code == 0, output
    data = json.loads(output[output.index("{") :])
    # the set without references (Cohen) is left out; the sliced Donners set is measured
    assert list(data["results"]) == ["Donners_slice"]
    assert data["sets"]["Donners_slice"]["records"] == 60
    assert data["sets"]["Donners_slice"]["included"] == 15
    assert data["sets"]["Donners_slice"]["edges_inside"] > 0
    assert data["order"] == "tfidf-svm" and data["seeds"] == 1
    for group, measure in [
        ("snowball", "recall"),
        ("snowball", "screened_frac"),
        ("litsift", "WSS@95"),
        ("litsift", "RRF@10"),
        ("litsift+citations", "WSS@95"),
        ("litsift+citations", "RRF@10"),
    ]:
        value = data["summary"][group][measure]["mean"]
        assert 0.0 <= value <= 1.0 if measure != "WSS@95" else -0.05 <= value <= 1.0
        assert data["results"]["Donners_slice"][group][measure]["n"] == 1
    run = data["runs"][0]
    assert len(run["start"]) == 3
    # the start set is included and counted: recall is at least 3 of 15
    assert run["snowball"]["recall"] >= 3 / 15
    measures = {c["measure"] for c in data["comparisons"]}
    assert measures == {"WSS@95", "RRF@10", "recall@snowball"}
    assert all(c["n"] == 1 and 0.0 <= c["p_value"] <= 1.0 for c in data["comparisons"])


def test_named_set_without_references_is_a_clear_error(data_dir: Path) -> None:
    code, output = _run("--data", str(data_dir), "--sets", "Cohen_slice", "--seeds", "1")
    assert code != 0
    assert "carries no references" in output and "Traceback" not in output
