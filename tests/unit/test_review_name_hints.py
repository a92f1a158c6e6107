"""Every command a review command hints at, pasted into a shell, names the review it was
about, when the review's name has a space (``Tinea update 2021``): ``review new`` printed
``screen it: litsift review screen Tinea update 2021`` (``screen`` on review ``Tinea``, and two
extra arguments), ``review show`` / ``merge`` / ``conflicts`` and the errors of ``resolve``
the same.

Real file: the Rayyan export of ``tests/data/imports/rayyan`` (two reviewers, one conflict).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from litsift.cli.root import main
from tests.unit.test_review_csv_copy import TINEA

NAME = "Tinéa update 2021"


def _run(home: Path, *args: str, code: int = 0) -> str:
    got = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in got.output, got.output
    assert got.exit_code == code, got.output
    return got.output


def _hinted(output: str) -> list[list[str]]:
    """The ``litsift review VERB NAME ...`` commands in ``output``, split as a shell would."""
    found = []
    for m in re.finditer(r"litsift review \w+ [^\n;()]*", output):
        found.append(shlex.split(m.group(0).split(" ID ")[0].split(" lists ")[0]))
    return found


def test_hinted_commands_quote_a_review_name_with_spaces(tmp_path: Path) -> None:
    home = tmp_path / "home"
    said = _run(home, "review", "new", NAME, "--from", str(TINEA))
    said += _run(home, "review", "show", NAME)
    said += _run(home, "review", "conflicts", NAME)
    said += _run(home, "review", "criteria", NAME)
    said += _run(home, "review", "new", NAME, "--from", str(TINEA), code=1)  # exists
    said += _run(home, "review", "resolve", NAME, "pmid:1", "include", code=1)
    commands = _hinted(said)
    assert len(commands) >= 5, said
    for argv in commands:
        assert argv[3] == NAME, (argv, said)
