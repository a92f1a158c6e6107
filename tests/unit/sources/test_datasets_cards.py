"""Dataset importers: Hugging Face dataset cards and Papers-with-Code evaluation tables."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.base import BadItem, SourceRecord
from litsift.sources.formats import registry
from litsift.store import Store
from litsift.types import Kind

SRC = shared_data_dir() / "sources"
CARDS = SRC / "huggingface" / "dataset-cards"
PWC = SRC / "paperswithcode" / "evaluation-tables-format"


def test_every_card_is_a_dataset_with_its_paper() -> None:
    fmt = registry.detect(CARDS)
    assert fmt is not None and fmt.kind is Kind.DATASET
    items = list(fmt.read(CARDS))
    assert len(items) == 28 and all(isinstance(i, SourceRecord) and i.dataset for i in items)
    glue = next(
        i.dataset
        for i in items
        if isinstance(i, SourceRecord) and i.dataset and i.dataset["id"] == "glue"
    )
    assert glue["variants"][:2] == [
        "glue",
        "GLUE (General Language Understanding Evaluation benchmark)",
    ]
    assert glue["url"] == "https://nyu-mll.github.io/CoLA/" and glue["year"] == 2019
    assert glue["intro_paper_title"].startswith("GLUE: A Multi-Task Benchmark")
    assert "acceptability-classification" in glue["description"]
    single = registry.detect(CARDS / "scifact" / "README.md")
    assert single is not None and single.name == "hf-card"


def test_pwc_evaluation_tables_one_record_per_dataset() -> None:
    path = PWC / "sota-extractor_nlp-progress.json"
    tasks = json.loads(path.read_text(encoding="utf-8"))

    def names(task: dict) -> list[str]:
        own = [d["dataset"] for d in task.get("datasets", [])]
        return own + [n for s in task.get("subtasks", []) for n in names(s)]

    distinct = {n.strip() for t in tasks for n in names(t)}
    items = list(registry.get("pwc-evaluation-tables").read(path))
    assert len(items) == len(distinct) == 77  # 84 dataset entries, some under several tasks
    squad = list(registry.get("pwc-evaluation-tables").read(PWC / "sota-extractor_squad.json"))
    assert {i.dataset["id"] for i in squad if isinstance(i, SourceRecord) and i.dataset} == {
        "SQuAD1.1",
        "SQuAD2.0",
    }


def test_cli_ingests_cards_and_tables_as_datasets(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = CliRunner().invoke(
        main, ["--home", str(home), "ingest", "datasets", str(CARDS), str(PWC), "--json"]
    )
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    # the tables' X-Sum, SNLI, ... join the cards' xsum, snli, ... (one row per dataset)
    assert report["added"] + report["merged"] == 28 + 77 + 2 and not report["bad"]
    x_sum = f"{PWC / 'sota-extractor_nlp-progress.json'}:dataset X-Sum"
    assert report["merged"] == 4
    assert {"entry": x_sum, "into": "xsum", "by": "name"} in report["merges"]
    with Store(home / "data" / "litsift.sqlite") as store:
        ds = store.get(Kind.DATASET, "scifact")
        assert ds is not None and ds.intro_paper_title.startswith("Fact or Fiction")
    bad = tmp_path / "README.md"
    bad.write_text("---\n: : [\n---\nbody\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["--home", str(home), "ingest", "datasets", str(bad)])
    assert out.exit_code == 1 and "broken YAML front matter" in out.output
    assert not any(isinstance(i, BadItem) for i in [])


def test_card_quirks_config_names_placeholders_and_licences() -> None:
    cards = {
        i.dataset["id"]: i.dataset
        for i in registry.get("hf-cards").read(CARDS)
        if isinstance(i, SourceRecord) and i.dataset
    }
    # sub-datasets stay variants (a search for MNLI finds GLUE); splits, formats and versions
    # do not (LibriSpeech's "clean" / "other" / "all", CNN/DM's "3.0.0", SciTail's formats)
    assert {"mnli", "sst2", "cola"} <= set(cards["glue"]["variants"])
    assert cards["librispeech-1"]["variants"] == ["librispeech_asr", "LibriSpeech"]
    assert cards["cnn-daily-mail-1"]["variants"] == ["cnn_dailymail", "CNN / Daily Mail"]
    assert not any(v.endswith("_format") for v in cards["scitail"]["variants"])
    assert "corpus" not in cards["scifact"]["variants"]
    # a summary left as the template's placeholder, or a licence pasted in, gives way to the
    # description of dataset_infos.json
    assert cards["pubmedqa"]["description"].startswith("PubMedQA is a novel biomedical")
    assert cards["web-of-science-dataset"]["description"].startswith("The Web Of Science (WOS)")
    assert not any("More Information Needed" in d["description"] for d in cards.values())
