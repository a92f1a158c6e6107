"""The core never imports textual; dependencies point one way (import-linter contracts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_import_linter_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(lint), "--config", str(REPO / "pyproject.toml")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Contracts: " in proc.stdout and " broken" in proc.stdout


def test_importing_litsift_and_core_is_cheap() -> None:
    code = (
        "import sys, litsift, litsift.service.facade, litsift.cli.root;"
        "heavy={'textual','numpy','onnxruntime','tantivy','hnswlib','torch'};"
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("module", ["litsift", "litsift.cli.root"])
def test_python_dash_m_runs_the_command_line(module: str) -> None:
    """``python -m litsift`` (and ``-m litsift.cli.root``) is the ``litsift`` script, not
    silence."""
    out = subprocess.run(
        [sys.executable, "-m", module, "formats"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "medline" in out.stdout and "bibtex" in out.stdout


def test_every_module_is_in_a_layer_and_under_the_ui_library_contracts() -> None:
    """Each top-level module and package of litsift sits in the layers contract, and the
    textual / rich contracts watch every module (``litsift.**``), so a new module cannot slip
    past them (``cli/output.py`` and the ``cli_*`` modules once did)."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c["type"] == "layers" and "containers" not in c]
    layered = {m.strip() for layer in layers["layers"] for m in layer.split("|")}
    src = REPO / "src" / "litsift"
    modules = {
        f"litsift.{p.stem}"
        for p in src.iterdir()
        if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
        or (p.is_dir() and (p / "__init__.py").is_file())
    }
    assert modules - layered == set()
    for library in ("textual", "rich"):
        (contract,) = [c for c in contracts if c.get("forbidden_modules") == [library]]
        assert contract["source_modules"] == ["litsift.**"]
