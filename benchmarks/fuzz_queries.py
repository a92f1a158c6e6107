"""Fuzz ``LitsiftService.search`` with hostile queries: nothing a user can type may crash it.

Builds (or reuses) a small home of real records (the first ``--records`` papers and datasets of
../shared/data), then runs ``--n`` generated queries, papers and datasets alternately:

- text: words mixed with lone surrogates (and argv bytes decoded with ``surrogateescape``),
  C0/C1 control characters and escape sequences, NUL, noncharacters, emoji (ZWJ sequences,
  flags), right-to-left text and bidi overrides, combining marks, query-parser syntax, random
  code points, empty and whitespace-only text, very long words and huge strings;
- years: ``YearRange(start, end)`` with huge, negative, reversed, non-int and normal years, or
  ``YearRange.parse`` of random text;
- k and k0: None, 0, negative, normal, the limits and past them (2**31, 2**63, 10**30); fusion
  valid or not.

Every 20th case also validates a random ``[search]`` table with ``parse_config`` (config.toml
reaches the same k0). A crash is any exception that is not a ``LitsiftError`` (a QueryError
with its hint is the correct answer to a bad query). Prints the counts and the first failing
inputs; exit code 1 if anything crashed. An abort (SIGABRT) kills the script itself: rerun
with ``--verbose`` to see the case that did it.

Usage::

    python benchmarks/fuzz_queries.py [--n 10000] [--seed 0] [--home DIR] [--records 50]
        [--show 5] [--verbose]
"""

from __future__ import annotations

import argparse
import functools
import gzip
import random
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from litsift.config import parse_config
from litsift.errors import LitsiftError
from litsift.paths import get_paths, shared_data_dir
from litsift.service.facade import LitsiftService
from litsift.types import Kind, Query, YearRange

SHARED = shared_data_dir()
SOURCES = {
    Kind.PAPER: SHARED / "papers" / "ml-nlp-papers.jsonl.gz",
    Kind.DATASET: SHARED / "datasets" / "pwc-datasets.jsonl.gz",
}

WORDS = (
    "neural machine translation dataset for question answering with images speech "
    "graph retrieval benchmark low-resource language model transformer the a of I want"
).split()
PIECES = (
    "\ud800",
    "\udfff",
    "\ud83d",  # a high surrogate without its low half
    "\ud83d\ude00",  # a surrogate pair as two code points
    b"\xff\xfe\xed\xa0\x80".decode("utf-8", "surrogateescape"),
    "\x00",
    "\x07",
    "\x1b[31m",
    "\x1b]0;title\x07",
    "\x1b[2J",
    "\x85",
    "\x9b",
    "\r\n\t",
    "\ufdd0",
    "\ufffe",
    "\U0010ffff",
    "\ufffd",
    "\u200b\u200d\ufeff",
    "\u202e\u2066",
    "👩‍👩‍👧‍👦",
    "🇯🇵",
    "😀" * 5,
    "ترجمة آلية عصبية",
    "תרגום מכונה",
    "机器翻译数据集",
    "e\u0301\u0308\u0323",
    "Ｆｕｌｌｗｉｄｔｈ",
    'title:"x" AND (y OR z*) -w ~2 ^3 [a TO b] {c}',
    "\\",
    "%s %d {0} ${x}",
    "NaN inf -0 1e308",
    "' OR 1=1; --",
    "<script>alert(1)</script>",
)
INTS = (None, -(2**63), -1, 0, 1, 2, 10, 100, 9_999, 10_000, 10_001, 100_000, 100_001)
HUGE_INTS = (2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30)
YEARS = (None, 0, 1, 1900, 2015, 2019, 2024, 9999, 10_000, -1, -2015, *HUGE_INTS, -(10**30))
YEAR_TEXTS = (
    "",
    "2015:2019",
    "2019:2015",
    ":2019",
    "2015:",
    "2018",
    "99999999999999999999",
    "0000:9999",
    "-5:5",
    "２０１５:２０１９",
    "٢٠١٥",
    "2015..2019",
    "\udcff",
    "2015:\x00",
)
FUSIONS = (*(None,) * 12, "rrf", "interpolation", "bm25", "dense", "max", "", "RRF")


def _random_codepoints(rng: random.Random, n: int) -> str:
    return "".join(chr(rng.randrange(0x110000)) for _ in range(n))


def gen_text(rng: random.Random) -> str:
    """A query text: usually words and hostile pieces mixed, sometimes an extreme alone."""
    roll = rng.random()
    if roll < 0.03:
        return rng.choice(("", " ", "\t\n", "\u3000", "\x00" * 3))
    if roll < 0.04:  # huge: the longest pastes
        unit = rng.choice((" ".join(WORDS) + " ", "x", "😀", "\ud800a ", "\u0301"))
        return unit * (rng.randrange(20_000, 300_000) // len(unit))
    if roll < 0.06:
        return "w" * rng.randrange(41, 5000)  # longer than any token the analyzer keeps
    if roll < 0.15:
        return _random_codepoints(rng, rng.randrange(1, 200))
    parts: list[str] = []
    for _ in range(rng.randrange(1, 12)):
        parts.append(rng.choice(WORDS) if rng.random() < 0.6 else rng.choice(PIECES))
    return rng.choice((" ", "", "\n")).join(parts)


def gen_years(rng: random.Random) -> YearRange:
    """A year range, built directly or parsed; may raise QueryError (a correct answer)."""
    include_missing = rng.random() < 0.7
    roll = rng.random()
    if roll < 0.5:
        return YearRange()
    if roll < 0.7:
        lo, hi = sorted(rng.sample(range(1990, 2026), 2))
        return YearRange(rng.choice((lo, None)), rng.choice((hi, None)), include_missing)
    if roll < 0.85:
        return YearRange.parse(rng.choice(YEAR_TEXTS), include_missing=include_missing)
    start: Any = rng.choice(YEARS)
    end: Any = rng.choice(YEARS)
    if rng.random() < 0.1:
        start = rng.choice(("2015", 2015.5, True, float("nan")))
    return YearRange(start, end, include_missing)


def gen_count(rng: random.Random) -> Any:
    """None (the configured default) or a count, hostile one time in five."""
    roll = rng.random()
    if roll < 0.5:
        return None
    if roll < 0.8:
        return rng.choice((1, 3, 10, 50, 100, 1000))
    return rng.choice(HUGE_INTS) if rng.random() < 0.3 else rng.choice(INTS)


def gen_query(rng: random.Random, kind: Kind) -> Query:
    return Query(
        text=gen_text(rng),
        kind=kind,
        years=gen_years(rng),
        k=gen_count(rng),
        k0=gen_count(rng),
        fusion=rng.choice(FUSIONS),
    )


def gen_config(rng: random.Random) -> dict[str, Any]:
    """A random ``[search]`` table of the keys that size allocations."""
    keys = ("k", "tui_k", "k0", "rrf_k", "coverage_pool", "prf_docs", "dataset_prf_docs")
    table: dict[str, Any] = {key: gen_count(rng) for key in rng.sample(keys, rng.randrange(1, 4))}
    if rng.random() < 0.3:
        table["prf_weight"] = rng.choice((float("nan"), float("inf"), -1.0, 0.5))
    return {"search": {k: v for k, v in table.items() if v is not None}}


def first_lines(path: Path, n: int, out: Path) -> Path:
    """Write the first ``n`` lines of a JSONL.gz file to ``out``."""
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        lines = [next(f) for _ in range(n)]
    out.write_text("".join(lines), encoding="utf-8")
    return out


def ensure_home(home: Path, records: int) -> None:
    """Ingest and index ``records`` papers and datasets into ``home`` unless already there."""
    with LitsiftService(get_paths(home)) as svc:
        for kind, source in SOURCES.items():
            if svc.store.count(kind) == 0:
                with tempfile.TemporaryDirectory() as tmp:
                    svc.ingest(kind, first_lines(source, records, Path(tmp) / "rows.jsonl"))
            svc.build_index(kind)


def run_case(case: Callable[[], object]) -> tuple[str, str]:
    """``("ok" | error class name | "CRASH", detail)`` of one case."""
    try:
        case()
    except LitsiftError as e:
        return type(e).__name__, e.message
    except Exception as e:  # the fuzz target: anything else is a crash
        return "CRASH", "".join(traceback.format_exception(e)[-3:])
    return "ok", ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="queries to run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "litsift-fuzz")
    ap.add_argument("--records", type=int, default=50, help="papers and datasets in the home")
    ap.add_argument("--show", type=int, default=5, help="failing inputs to print")
    ap.add_argument("--verbose", action="store_true", help="print each query number first")
    args = ap.parse_args()

    t0 = time.perf_counter()
    ensure_home(args.home, args.records)
    print(f"home {args.home} ready in {time.perf_counter() - t0:.1f} s", flush=True)
    rng = random.Random(args.seed)
    outcomes: Counter[str] = Counter()
    crashes: list[tuple[str, str]] = []
    seconds: list[float] = []

    def check(case: Callable[[], object], describe: Callable[[], str]) -> None:
        t = time.perf_counter()
        outcome, detail = run_case(case)
        if outcome == "ok":
            seconds.append(time.perf_counter() - t)
        outcomes[outcome] += 1
        if outcome == "CRASH":
            crashes.append((describe()[:300], detail))

    with LitsiftService(get_paths(args.home)) as svc:
        for i in range(args.n):
            kind = Kind.PAPER if i % 2 == 0 else Kind.DATASET
            if args.verbose:
                print(f"query {i} (seed {args.seed})", flush=True)
            made: list[Query] = []

            def search(kind: Kind = kind, made: list[Query] = made) -> object:
                made.append(gen_query(rng, kind))  # may raise QueryError: a bad year range
                return svc.search(made[0])

            def describe(i: int = i, made: list[Query] = made) -> str:
                return f"query {i}: {made[0]!r}" if made else f"query {i}: building it"

            check(search, describe)
            if i % 20 == 19:
                raw = gen_config(rng)

                def validate(raw: dict[str, Any] = raw) -> object:
                    return parse_config(raw)

                check(validate, functools.partial("config {!r}".format, raw))
            if (i + 1) % 1000 == 0:
                print(f"{i + 1} queries, {outcomes['CRASH']} crashes", flush=True)

    total = sum(outcomes.values())
    print(
        f"\n{args.n} queries + {total - args.n} configs (seed {args.seed}) in "
        f"{time.perf_counter() - t0:.0f} s"
    )
    if seconds:
        median_ms = statistics.median(seconds) * 1000
        print(f"cases that ran: median {median_ms:.1f} ms, max {max(seconds):.2f} s")
    for outcome, count in outcomes.most_common():
        print(f"  {outcome:<20} {count}")
    print(f"crashes: {len(crashes)}")
    for shown, detail in crashes[: args.show]:
        print(f"\n{shown}\n{detail}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
