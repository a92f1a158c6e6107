"""Hostile queries never crash the service (issue 14, item 3).

One test per crash class found by fuzzing (lone surrogates in the text, years beyond int64,
``k0 >= 2**31`` from a query or from config.toml, invalid UTF-8 in a command-line argument) and
a property test: random text, years, k and k0 against a tiny real home (50 papers and 50
datasets of ../shared/data, the real encoder) raise nothing but ``LitsiftError``.
``benchmarks/fuzz_queries.py`` runs the same idea at 10,000 queries, by hand.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from litsift.cli.root import main
from litsift.config import load_config, parse_config
from litsift.errors import ConfigError, LitsiftError, QueryError
from litsift.paths import get_paths
from litsift.search.retrieval.query import MAX_QUERY_CHARS, bm25_query_text, clean_query_text
from litsift.service.facade import LitsiftService
from litsift.types import FUSIONS, MAX_K, MAX_K0, Kind, Query, YearRange
from tests.conftest import DATASETS_GZ, PAPERS_GZ

ROWS = 50
SURROGATE_QUERIES = [
    "neural \udcff translation",  # argv byte 0xFF, decoded with surrogateescape
    "x\ud800",
    "\udfff",
    "\ud83d\ude00 emoji as a UTF-16 pair",
    "image \ud83d captioning",  # half a pair
]


def _first_lines(src: Path, n: int, dest: Path) -> Path:
    with gzip.open(src, "rt", encoding="utf-8", newline="\n") as f:
        dest.write_text("".join(next(f) for _ in range(n)), encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def tiny_home(tmp_path_factory: pytest.TempPathFactory, encoder: Any) -> Path:
    """50 real papers and 50 real datasets, ingested and indexed (a few seconds)."""
    home = tmp_path_factory.mktemp("tiny-home")
    with LitsiftService(get_paths(home), encoder=encoder) as svc:
        for kind, src in ((Kind.PAPER, PAPERS_GZ), (Kind.DATASET, DATASETS_GZ)):
            assert svc.ingest(kind, _first_lines(src, ROWS, home / f"{kind}.jsonl")).ok
            svc.build_index(kind)
    return home


@pytest.fixture(scope="module")
def tiny(tiny_home: Path, encoder: Any) -> Iterator[LitsiftService]:
    svc = LitsiftService(get_paths(tiny_home), encoder=encoder)
    yield svc
    svc.close()


# -- query text ------------------------------------------------------------------------------
def test_clean_query_text_makes_any_string_encodable() -> None:
    assert clean_query_text("neural \udcff translation") == "neural \ufffd translation"
    assert clean_query_text("a\ud83d\ude00b") == "a\U0001f600b"  # a pair becomes one character
    assert clean_query_text("x\ud800") == "x\ufffd"
    assert clean_query_text("a\x00b\x1b[31mc\x85d") == "a b [31mc d"
    assert clean_query_text("tab\tand\nnewline") == "tab\tand\nnewline"
    assert clean_query_text("\ufdd0\U0010ffff") == "\ufffd\ufffd"
    assert clean_query_text("cafe\u0301") == "caf\u00e9"  # NFC
    assert len(clean_query_text("x" * (MAX_QUERY_CHARS + 10))) == MAX_QUERY_CHARS
    plain = "BERT for question answering 日本語 🤖"
    assert clean_query_text(plain) == plain
    for text in SURROGATE_QUERIES:
        clean_query_text(text).encode("utf-8")
        # retrievers take the text as the pipeline cleaned it (once per query)
        assert bm25_query_text(clean_query_text(text), "raw").encode("utf-8")


@pytest.mark.parametrize("kind", list(Kind))
@pytest.mark.parametrize("fusion", FUSIONS)
def test_surrogates_in_the_text_still_search(tiny: LitsiftService, kind: Kind, fusion: str) -> None:
    for text in SURROGATE_QUERIES:
        result = tiny.search(Query(text, kind, k=5, fusion=fusion))
        assert len(result.hits) <= 5
    clean = tiny.search(Query("neural translation", kind, k=5, fusion=fusion))
    dirty = tiny.search(Query("neural \udcff translation", kind, k=5, fusion=fusion))
    # the bad byte is a word boundary, nothing more: BM25 sees the same words
    if fusion == "bm25":
        assert [h.docid for h in dirty.hits] == [h.docid for h in clean.hits]


# -- years -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "start,end",
    [(10**20, None), (None, 2**63), (-(2**63) - 1, 2019), (-1, None), (2015, 10_000)],
)
def test_years_out_of_range_are_query_errors(start: int | None, end: int | None) -> None:
    with pytest.raises(QueryError) as err:
        YearRange(start, end)
    assert "0 to 9999" in err.value.hint


@pytest.mark.parametrize("bad", [2015.5, "2015", True, float("nan")])
def test_years_must_be_ints(bad: Any) -> None:
    with pytest.raises(QueryError):
        YearRange(bad, None)


def test_year_range_edges_are_allowed(tiny: LitsiftService) -> None:
    assert YearRange(0, 9999).contains(2020)
    assert YearRange.parse("0000:9999") == YearRange(0, 9999)
    for kind in Kind:
        tiny.search(Query("translation", kind, years=YearRange(0, 9999, include_missing=False)))
    with pytest.raises(QueryError):
        YearRange.parse("99999999999999999999")


# -- k and k0 --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "k,k0", [(None, 2**31), (None, 2**31 - 1), (MAX_K + 1, None), (0, None), (None, -1)]
)
def test_k_and_k0_out_of_range_are_query_errors(
    tiny: LitsiftService, k: int | None, k0: int | None
) -> None:
    q = Query("translation", Kind.DATASET, k=k, k0=k0)
    with pytest.raises(QueryError, match="out of range") as err:
        q.with_defaults(10, 100, "rrf")
    assert "must be from 1 to" in err.value.hint
    with pytest.raises(QueryError):
        tiny.search(q)


def test_k_and_k0_at_the_limits_search(tiny: LitsiftService) -> None:
    for kind in Kind:
        result = tiny.search(Query("translation", kind, k=MAX_K, k0=MAX_K0))
        assert len(result.hits) <= ROWS


def test_retrievers_never_ask_for_more_than_the_index_holds(tiny: LitsiftService) -> None:
    """Defence in depth below Query's check: tantivy allocates its top-k heap up front."""
    for kind in Kind:
        searcher = tiny.searchers.of_kind(kind)
        assert len(searcher.bm25.search("translation dataset", 2**31, YearRange())) <= ROWS
        qvec = searcher.encode("translation")
        for years in (YearRange(), YearRange(2015, 2020)):
            run = searcher.dense.search(qvec, 2**31, years, searcher.year_by_rowid)
            assert len(run) <= ROWS


@pytest.mark.parametrize(
    "search",
    [
        {"k0": 2**31},
        {"k0": 2**31 - 1},
        {"k": 2**31, "k0": 2**31},
        {"tui_k": 10**9, "k0": 10**9},
        {"rrf_k": -60},
        {"coverage_pool": 10**7},
        {"prf_docs": 2**40},
        {"prf_weight": float("inf")},
        {"dataset_popularity_weight": float("nan")},
    ],
)
def test_config_bounds(search: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match=r"out of range|finite"):
        parse_config({"search": search})


def test_config_toml_with_huge_k0_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "config.toml"
    f.write_text("[search]\nk0 = 2147483648\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(f)
    assert "search.k0" in err.value.message and "100,000" in err.value.hint
    f.write_text(f"[search]\nk0 = {MAX_K0}\nrrf_k = 0\n", encoding="utf-8")
    assert load_config(f).search.k0 == MAX_K0


# -- the command line ------------------------------------------------------------------------
def _no_traceback(result: Any) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output


def test_cli_invalid_utf8_argument_searches(tiny_home: Path) -> None:
    runner = CliRunner()
    for extra in ([], ["--datasets", "--json"]):
        args = ["--home", str(tiny_home), "search", "neural \udcff translation", "-k", "3"]
        result = runner.invoke(main, args + extra)
        _no_traceback(result)
        assert result.exit_code == 0, result.output
    assert '"query": "neural \ufffd translation"' in result.output


@pytest.mark.parametrize(
    "years,message",
    [("99999999999999999999", "not a year range"), ("2019:2015", "is empty"), ("\udcff", "not")],
)
def test_cli_bad_years_are_messages(tiny_home: Path, years: str, message: str) -> None:
    result = CliRunner().invoke(main, ["--home", str(tiny_home), "search", "--years", years, "x"])
    _no_traceback(result)
    assert result.exit_code == 1
    assert "error: " in result.output and message in result.output
    assert "hint: " in result.output


def test_cli_k_is_range_checked(tiny_home: Path) -> None:
    for opt, value in (("-k", "0"), ("-k", str(2**31)), ("--k0", str(2**31))):
        result = CliRunner().invoke(main, ["--home", str(tiny_home), "search", opt, value, "x"])
        _no_traceback(result)
        assert result.exit_code == 2 and "Invalid value" in result.output


def test_real_argv_with_invalid_utf8(tiny_home: Path) -> None:
    """The real process: bytes in argv, decoded by Python with surrogateescape."""
    cmd = [sys.executable, "-c", "from litsift.cli.root import main; main()"]
    args = ["--home", str(tiny_home), "search", "-k", "2", "--json"]
    out = subprocess.run(
        [*cmd, *args, os.fsencode("neural \udcff translation")],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        timeout=120,
    )
    assert b"Traceback" not in out.stderr, out.stderr.decode(errors="replace")
    assert out.returncode == 0
    assert "neural \ufffd translation" in out.stdout.decode("utf-8")


# -- property: only LitsiftError, ever -------------------------------------------------------
CHARS = st.one_of(st.characters(), st.characters(categories=["Cs", "Cc", "Cf", "Co", "Cn"]))
WORDS = st.sampled_from(["neural", " translation ", "dataset", "\x1b[2J", "👩‍👧", "ترجمة"])
TEXT = st.lists(st.one_of(st.text(CHARS, max_size=8), WORDS), max_size=8).map("".join)
YEAR = st.one_of(st.none(), st.integers(1990, 2025), st.integers())
COUNT = st.one_of(st.none(), st.integers(1, 200), st.integers())


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    text=TEXT,
    kind=st.sampled_from(list(Kind)),
    start=YEAR,
    end=YEAR,
    include_missing=st.booleans(),
    k=COUNT,
    k0=COUNT,
    fusion=st.sampled_from([None, *FUSIONS, "max"]),
)
def test_random_queries_raise_only_litsift_errors(
    tiny: LitsiftService,
    text: str,
    kind: Kind,
    start: int | None,
    end: int | None,
    include_missing: bool,
    k: int | None,
    k0: int | None,
    fusion: str | None,
) -> None:
    try:
        years = YearRange(start, end, include_missing)
        result = tiny.search(Query(text, kind, years, k=k, k0=k0, fusion=fusion))
    except LitsiftError:
        return
    assert result.query.k is not None and 1 <= result.query.k <= MAX_K
    assert len(result.hits) <= result.query.k
    assert all(years.contains(h.record.year) for h in result.hits)
