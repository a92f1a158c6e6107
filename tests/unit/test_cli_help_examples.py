"""Every ``litsift`` command's ``--help`` shows how to call it: an "Example" paragraph with at
least one ``litsift ...`` line, and each example names only options the command has."""

from __future__ import annotations

import re
import shlex

import click
import pytest
from click.testing import CliRunner

from litsift.cli.root import main


def _commands(
    cmd: click.Command, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], click.Command]]:
    """``cmd`` and every command under it, with the words that name it after ``litsift``."""
    found = [(path, cmd)]
    if isinstance(cmd, click.Group):
        for name in sorted(cmd.commands):
            found += _commands(cmd.commands[name], (*path, name))
    return found


COMMANDS = _commands(main)


def test_every_command_is_walked() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "search", "ingest", "review new", "refs fetch", "models build", "rq similar"} <= (
        names
    )


def _example_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("litsift ")]


@pytest.mark.parametrize(
    ("path", "cmd"), COMMANDS, ids=[" ".join(p) or "litsift" for p, _ in COMMANDS]
)
def test_help_has_an_example(path: tuple[str, ...], cmd: click.Command) -> None:
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    assert "Example" in result.output, f"litsift {' '.join(path)} --help has no example"
    examples = _example_lines(result.output)
    assert examples, f"litsift {' '.join(path)} --help shows no `litsift ...` line"
    if path:  # an example of a subcommand calls that subcommand
        assert any(line.split()[1 : 1 + len(path)] == list(path) for line in examples)


@pytest.mark.parametrize(
    ("path", "cmd"), COMMANDS, ids=[" ".join(p) or "litsift" for p, _ in COMMANDS]
)
def test_examples_use_options_that_exist(path: tuple[str, ...], cmd: click.Command) -> None:
    """The options an example of this command passes are options of the command it calls."""
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=100)
    for line in _example_lines(result.output):
        words = shlex.split(line.split("#", 1)[0])[1:]
        target: click.Command = main
        ctx_words = []
        while isinstance(target, click.Group) and words and words[0] in target.commands:
            ctx_words.append(words[0])
            target = target.commands[words.pop(0)]
        known = {opt for p in target.params for opt in (*p.opts, *p.secondary_opts)}
        known |= {"--help", "--home"} if target is main else {"--help"}
        used = {re.split("=", w, maxsplit=1)[0] for w in words if w.startswith("-")}
        assert used <= known, f"{line!r}: {sorted(used - known)} not options of {ctx_words}"


@pytest.mark.parametrize(
    ("path", "cmd"), COMMANDS, ids=[" ".join(p) or "litsift" for p, _ in COMMANDS]
)
def test_help_fits_a_60_column_terminal_with_every_word(
    path: tuple[str, ...], cmd: click.Command
) -> None:
    """Examples are kept as written (click's ``\\b`` blocks): 26 commands had lines wider than
    60 columns, which a 60-column terminal wrapped at its column 0. Now a long one is wrapped
    with its continuation indented under it, and no word is lost or cut."""
    narrow = CliRunner().invoke(main, [*path, "--help"], terminal_width=60)
    wide = CliRunner().invoke(main, [*path, "--help"], terminal_width=200)
    assert narrow.exit_code == 0, narrow.output
    too_wide = [line for line in narrow.output.splitlines() if len(line) > 60]
    assert too_wide == [], "\n".join(too_wide)
    said = f" {' '.join(narrow.output.split())} "
    examples = _example_lines(wide.output)  # at 200 columns each is one line, as written
    assert examples and [e for e in examples if f" {' '.join(e.split())} " not in said] == []
