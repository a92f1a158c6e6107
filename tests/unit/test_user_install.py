"""The user install (issue 45): the wheel carries the default encoder, requires no torch, and
litsift ingests, indexes and searches in an interpreter where torch, transformers and optimum
cannot be imported -- what `pipx install .` gives a person who only wants to search."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.terminal.conftest import papers_file

SHIPPED = REPO / "src" / "litsift" / "models_onnx" / "data" / "all-MiniLM-L6-v2"
#: what only the `export` extra may bring
EXPORT_ONLY = ("torch", "transformers", "optimum", "sentence-transformers", "sentence_transformers")


def test_the_wheel_carries_the_encoder_and_requires_no_torch(tmp_path: Path) -> None:
    pytest.importorskip("build")
    pytest.importorskip("hatchling")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("litsift-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        model = z.read("litsift/models_onnx/data/all-MiniLM-L6-v2/model.onnx")
        tokenizer = z.read("litsift/models_onnx/data/all-MiniLM-L6-v2/tokenizer.json")
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = z.read(meta_name).decode()
    shipped = hashlib.sha256((SHIPPED / "model.onnx").read_bytes()).hexdigest()
    assert hashlib.sha256(model).hexdigest() == shipped
    assert tokenizer == (SHIPPED / "tokenizer.json").read_bytes()
    required = [
        line.split(":", 1)[1].strip()
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    assert required and not [r for r in required if r.lower().startswith(EXPORT_ONLY)]
    assert "litsift/cli/root.py" in names and "litsift/tui/litsift.tcss" in names


_WITHOUT_MODULES = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None  # `import name` raises ImportError, as where it is not installed
from litsift.cli.root import main
sys.argv = ["litsift", *sys.argv[1:]]
main()
"""


def test_ingest_index_and_search_where_torch_cannot_be_imported(tmp_path: Path) -> None:
    code = _WITHOUT_MODULES.format(
        blocked=("torch", "transformers", "optimum", "sentence_transformers")
    )
    env = {**os.environ, "LITSIFT_HOME": str(tmp_path / "home")}
    env.setdefault("LITSIFT_EMBED_CACHE_DIR", str(tmp_path / "cache"))

    def litsift(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert "Warning" not in done.stderr and "Traceback" not in done.stderr, done.stderr
        return done.stdout

    assert litsift("--version").startswith("litsift, version ")
    litsift("ingest", "papers", str(papers_file(tmp_path, 60)))
    litsift("index", "papers", "--quiet")
    hits = json.loads(litsift("search", "machine translation", "--json", "-k", "3"))
    assert len(hits["hits"]) == 3 and hits["signals_used"] == ["bm25", "dense"]


# --- a missing extra says the command that adds it to this install (install audit) ------------

SCALE_NEEDS = "engine.kind = 'milvus' needs pymilvus and milvus-lite, which are not installed"


def _run_without(
    python: str, blocked: tuple[str, ...], args: tuple[str, ...], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``litsift ARGS`` run by ``python`` where the modules ``blocked`` cannot be imported."""
    return subprocess.run(
        [python, "-c", _WITHOUT_MODULES.format(blocked=blocked), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=600,
    )


def _home_with_papers(tmp_path: Path) -> Path:
    """A home holding 5 real papers (an index command on an empty home has nothing to do)."""
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-m", "litsift", "ingest", "papers", str(papers_file(tmp_path, 5))],
        capture_output=True,
        text=True,
        env={**os.environ, "LITSIFT_HOME": str(home)},
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return home


def _reported(done: subprocess.CompletedProcess[str]) -> str:
    """The hint of a command that failed as a user error: exit 1, our two lines, no traceback."""
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "unexpectedly" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-2].startswith("error: ") and lines[-1].startswith("  hint: "), done.stderr
    return lines[-1].removeprefix("  hint: ")


def test_index_to_milvus_without_the_scale_extra_says_so(tmp_path: Path) -> None:
    # before: pymilvus was imported ahead of the engine's own check, and the ImportError came
    # out as "litsift failed unexpectedly" (exit 2), a bug report asked for
    env = {**os.environ, "LITSIFT_HOME": str(_home_with_papers(tmp_path))}
    done = _run_without(
        sys.executable, ("pymilvus",), ("index", "--engine", "milvus", "--quiet"), env
    )
    assert SCALE_NEEDS in done.stderr
    assert '"litsift[scale]"' in _reported(done)


def test_the_install_hint_is_the_command_for_this_install(tmp_path: Path) -> None:
    """In a pipx venv (README's first install) ``pip install "litsift[scale]"`` would ask PyPI
    for litsift, which is not there: the hint is ``pipx inject`` with the extra's packages; in
    the active venv plain pip, in a venv run by path that venv's python -m pip."""
    import tomllib

    scale = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"
    ]["scale"]
    # litsift and its dependencies importable from a venv of its own, as pipx and venv make it
    path = os.pathsep.join(p for p in sys.path if p and Path(p).is_dir())
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env.update(PYTHONPATH=path, LITSIFT_HOME=str(tmp_path / "home"))
    args = ("search", "machine translation", "--engine", "milvus")
    hints = {}
    for name in ("litsift", "plain"):
        venv = tmp_path / name
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        if name == "litsift":  # what `pipx install` leaves at the root of the venv it makes
            (venv / "pipx_metadata.json").write_text("{}", "utf-8")
        python = str(venv / "bin" / "python")
        hints[name] = _reported(_run_without(python, ("pymilvus",), args, env))
        if name == "plain":
            active = {**env, "VIRTUAL_ENV": str(venv)}
            hints["active"] = _reported(_run_without(python, ("pymilvus",), args, active))
    pipx = "install the extra: pipx inject litsift "
    assert hints["litsift"].startswith(pipx)
    assert sorted(shlex.split(hints["litsift"].removeprefix(pipx))) == sorted(scale)
    plain = tmp_path / "plain" / "bin" / "python"
    assert hints["plain"] == f'install the extra: {plain} -m pip install "litsift[scale]"'
    assert hints["active"] == 'install the extra: pip install "litsift[scale]"'


def test_asreview_missing_names_no_extra_that_does_not_exist(tmp_path: Path) -> None:
    # before: "pip install 'litsift[benchmark]'", an extra pyproject.toml does not have (and
    # asreview cannot sit beside litsift: it pins rispy~=0.9)
    env = {k: v for k, v in os.environ.items() if k != "LITSIFT_ASREVIEW_PYTHON"}
    env["LITSIFT_HOME"] = str(tmp_path / "home")
    args = ("eval", "screening", "--systems", "asreview", "--data", str(tmp_path))
    hint = _reported(_run_without(sys.executable, ("asreview",), args, env))
    assert "[benchmark]" not in hint
    assert "pip install asreview" in hint and "LITSIFT_ASREVIEW_PYTHON=" in hint
