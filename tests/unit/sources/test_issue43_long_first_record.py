"""A JSON-lines file whose first record is longer than the head detection reads (issue 43,
item 8): a litsift JSONL paper with a 5M-character abstract, an arXiv snapshot line likewise,
are recognised by content -- from the keys before the cut -- without ``--format``."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from litsift.paths import shared_data_dir
from litsift.sources.formats import registry
from litsift.sources.formats.jsonl import cut_object_keys, first_object_keys

PAPERS = shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"
SNAPSHOT = shared_data_dir() / "sources" / "arxiv" / "kaggle-metadata-snapshot"
LONG = 5_000_000


def _rows(path: Path, n: int) -> list[dict[str, object]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(next(f)) for _ in range(n)]


def _padded(row: dict[str, object]) -> dict[str, object]:
    """``row`` with its abstract repeated to 5M characters."""
    text = str(row["abstract"]) + " "
    return {**row, "abstract": (text * (LONG // len(text) + 1))[:LONG]}


def test_a_litsift_jsonl_with_a_5m_character_first_abstract_is_detected_and_ingested(
    tmp_path: Path,
) -> None:
    first, second = _rows(PAPERS, 2)
    path = tmp_path / "papers.jsonl"
    path.write_text(json.dumps(_padded(first)) + "\n" + json.dumps(second) + "\n")
    head = registry.read_head(path)
    assert b"\n" not in head  # the head ends inside the first record
    fmt = registry.detect(path)
    assert fmt is not None and fmt.name == "jsonl"
    args = ["--home", str(tmp_path / "home"), "ingest", "papers", "--json", str(path)]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["added"] == 2


def test_an_arxiv_snapshot_line_with_a_5m_character_abstract_is_detected(tmp_path: Path) -> None:
    source = sorted(SNAPSHOT.glob("*.json*"))[0]
    row = json.loads(source.read_text(encoding="utf-8").splitlines()[0])
    path = tmp_path / "arxiv-metadata-oai-snapshot.json"
    path.write_text(json.dumps(_padded(row)) + "\n")
    fmt = registry.detect(path)
    assert fmt is not None and fmt.name.startswith("arxiv"), fmt


def test_cut_keys_are_read_only_from_the_start_of_a_json_object() -> None:
    assert cut_object_keys('{"id": "x", "title": "T", "abstract": "aa') == {
        "id",
        "title",
        "abstract",
    }
    assert cut_object_keys('{"id": "x", "a": [1, {"b": 2') == {"id", "a"}
    assert cut_object_keys('{"id": "x", "ti') == {"id"}
    for text in ("not json", '{"id": "x"} junk', '{"id": x', '["id", "title"'):
        assert cut_object_keys(text) is None, text
    assert first_object_keys(b'{"id": 1}\n{"id"') == {"id"}  # a whole line is decoded
    assert first_object_keys(b'{"id": 1, oops}\n{"id": 2}\n') is None
