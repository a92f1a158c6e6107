"""Config validation, year-range parsing and path resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from litsift.config import load_config, parse_config
from litsift.errors import ConfigError, QueryError
from litsift.paths import get_paths
from litsift.types import YearRange


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2015:2019", 2015, 2019),
        ("2015-2019", 2015, 2019),
        (" 2015 .. 2019 ", 2015, 2019),
        (":2019", None, 2019),
        ("2015:", 2015, None),
        ("2018", 2018, 2018),
        ("", None, None),
    ],
)
def test_year_range_parse(text: str, start: int | None, end: int | None) -> None:
    yr = YearRange.parse(text)
    assert (yr.start, yr.end) == (start, end)


@pytest.mark.parametrize("text", ["abc", "2019:2015", "15:19", "2015:2016:2017"])
def test_year_range_rejects_bad_text(text: str) -> None:
    with pytest.raises(QueryError) as e:
        YearRange.parse(text)
    assert e.value.hint


def test_year_range_contains_and_missing_years() -> None:
    yr = YearRange(2015, 2019)
    assert yr.contains(2015) and yr.contains(2019) and not yr.contains(2020)
    assert yr.contains(None)
    assert not YearRange(2015, 2019, include_missing=False).contains(None)


def test_config_defaults_when_missing(tmp_path: Path) -> None:
    cfg = load_config(tmp_path / "nope.toml")
    assert cfg.search.fusion in {"rrf", "interpolation"}
    assert cfg.search.k0 >= cfg.search.k


def test_config_reads_and_validates(tmp_path: Path) -> None:
    f = tmp_path / "config.toml"
    f.write_text('[search]\nk = 20\nbm25_weight = 1\n[keymap]\nkeep = "K"\n', encoding="utf-8")
    cfg = load_config(f)
    assert cfg.search.k == 20 and cfg.search.bm25_weight == 1.0
    assert cfg.keymap == {"keep": "K"}


@pytest.mark.parametrize(
    "raw",
    [
        {"search": {"kk": 1}},
        {"search": {"k": "ten"}},
        {"search": {"fusion": "max"}},
        {"search": {"k": 50, "k0": 10}},
        {"search": {"bm25_weight": 2.0}},
        {"search": {"dataset_ranker_pool": 0}},
        {"search": {"dataset_ranker_pool": 10**9}},
        {"nope": {}},
        {"llm": {"timeout_s": True}},
    ],
)
def test_config_rejects_bad_values(raw: dict) -> None:
    with pytest.raises(ConfigError):
        parse_config(raw)


def test_bad_toml_is_a_config_error(tmp_path: Path) -> None:
    f = tmp_path / "config.toml"
    f.write_text("[search\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(f)


def test_litsift_home_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITSIFT_HOME", str(tmp_path))
    p = get_paths()
    assert p.store_file.is_relative_to(tmp_path)
    assert p.index_dir.is_relative_to(tmp_path)


def test_readme_config_block_is_valid_and_shows_the_search_defaults() -> None:
    """The ``config.toml`` examples in README.md (Configuration, and the [llm] one of the LLM
    section) parse, and the [search] values shown are the defaults (so the documented defaults
    cannot drift from the code)."""
    import re
    import tomllib
    from dataclasses import asdict

    from litsift.config import Config

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(\[search\].*?)```", readme, re.S)
    assert block is not None, "README lost its config.toml example"
    llm = re.search(r"```toml\n(\[llm\].*?)```", readme, re.S)
    assert llm is not None, "README lost its [llm] example"
    raw = tomllib.loads(block.group(1))
    parsed = parse_config({**raw, **tomllib.loads(llm.group(1))})
    assert raw["search"] == {k: v for k, v in asdict(Config().search).items() if k in raw["search"]}
    assert set(raw["search"]) >= {"fusion", "bm25_weight", "dataset_bm25_weight", "tui_k"}
    assert parsed.llm.configured


def test_configuration_doc_blocks_are_valid_and_show_every_search_default() -> None:
    """docs/CONFIGURATION.md (every key, moved from README.md): each ``toml`` block parses,
    and its [search] block lists every search setting with its default value."""
    import re
    import tomllib
    from dataclasses import asdict

    from litsift.config import Config

    doc = (Path(__file__).parents[2] / "docs" / "CONFIGURATION.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", doc, re.S)
    assert len(blocks) >= 3
    for block in blocks:
        parse_config(tomllib.loads(block))
    raw = tomllib.loads(next(b for b in blocks if b.startswith("[search]")))
    defaults = asdict(Config().search)
    assert raw["search"] == defaults  # every key, each at its default
    assert parse_config(raw).llm.configured
