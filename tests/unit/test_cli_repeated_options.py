"""A single-value option given twice is refused, on every command: click keeps the last value
alone without a word, so ``review export NAME --which include --which exclude`` wrote the
excludes only and ``review new --reasons A --reasons B`` made a review with one reason (that
option is repeatable now). Repeatable options, flags and comma lists still work. Real store,
real Donners 2021 review."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from litsift.cli.common import OneValueGroup
from litsift.cli.root import main
from tests.unit.test_review_rounds import DONNERS

pytestmark = pytest.mark.skipif(not DONNERS.is_file(), reason=f"{DONNERS} not here")


def _groups(group: click.Group) -> list[click.Group]:
    found = [group]
    for cmd in group.commands.values():
        if isinstance(cmd, click.Group):
            found += _groups(cmd)
    return found


def test_every_group_refuses_repeats_and_repeatable_options_still_repeat(tmp_path: Path) -> None:
    assert all(isinstance(g, OneValueGroup) for g in _groups(main))  # a new group too
    home = ["--home", str(tmp_path / "home")]
    runner = CliRunner()
    made = runner.invoke(main, [*home, "review", "new", "don", "--from", str(DONNERS),
                                "--labels", "all", "--reasons", "a", "--reasons", "b"])  # fmt: skip
    assert made.exit_code == 0, made.output
    for args, option, command in [
        (["review", "export", "don", "--which", "include", "--which", "exclude"], "--which",
         "review export"),
        (["review", "export", "don", "--format=csv", "--format", "ris"], "--format",
         "review export"),
        (["search", "bert", "--years", "2019", "--years=2020"], "--years", "search"),
        (["eval", "screening", "--seeds", "1", "--seeds", "2"], "--seeds", "eval"),
    ]:  # fmt: skip
        got = runner.invoke(main, [*home, *args])
        assert got.exit_code == 2, (args, got.output)
        assert f"{option} was given 2 times; it takes one value" in got.output, got.output
        usage = got.output.splitlines()[0]  # the command's own usage line, not its group's
        assert usage.startswith("Usage: ") and f" {command} [OPTIONS]" in usage, usage
        assert "Traceback" not in got.output
    got = runner.invoke(main, [*home, "review", "export", "don", "--which", "include"])
    rows = list(csv.DictReader(io.StringIO(got.stdout)))
    assert got.exit_code == 0 and rows and {r["decision"] for r in rows} == {"include"}
    reasons = runner.invoke(main, [*home, "review", "reasons", "don"])
    assert reasons.output.splitlines() == ["1  a", "2  b"]  # repeatable: both kept
