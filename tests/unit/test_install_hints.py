"""What litsift says to install is a command that works where it runs: litsift is not on PyPI,
so a literal ``pip install "litsift[plots]"`` fails in a pipx install (README's first way).
Errors give :mod:`litsift.install`'s command for this interpreter; help texts name the extra."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from litsift.cli.root import main


def _commands(cmd: click.Command, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The words after ``litsift`` naming ``cmd`` and every command under it."""
    found = [path]
    if isinstance(cmd, click.Group):
        for name in sorted(cmd.commands):
            found += _commands(cmd.commands[name], (*path, name))
    return found


@pytest.mark.parametrize("path", _commands(main), ids=lambda p: " ".join(p) or "litsift")
def test_no_help_text_gives_a_literal_pip_line(path: tuple[str, ...]) -> None:
    # before: review prisma, review curve and eval --plot said `pip install "litsift[plots]"`
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    assert "pip install" not in result.output
    assert "litsift[" not in result.output
