"""Import a script of ``benchmarks/`` (research code, not a package) from a test.

``benchmark_module("aspect_calibration")`` imports ``benchmarks/aspect_calibration.py`` as the
top-level module ``aspect_calibration``, as ``python benchmarks/<script>.py`` would.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def benchmark_module(name: str) -> ModuleType:
    """The module ``benchmarks/<name>.py``; ``benchmarks/`` is appended to ``sys.path``."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.append(str(BENCHMARKS))
    return importlib.import_module(name)
