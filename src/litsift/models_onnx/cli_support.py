"""Plain-data helpers behind ``litsift models build`` and ``litsift models info``.

They return dicts of JSON-friendly values; the CLI decides how to print them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from litsift.install import pip_command
from litsift.models_onnx.export import (
    build_onnx,
    find_built,
    model_root,
    onnx_path_for,
    read_manifest,
)
from litsift.models_onnx.registry import DEFAULT_MODEL, get_spec, known_models
from litsift.models_onnx.source import export_available, missing_export_modules, sha256_file


def describe(model_id: str = DEFAULT_MODEL, models_dir: Path | None = None) -> dict[str, Any]:
    """What litsift knows about ``model_id`` and its build on this machine.

    Keys: ``model_id``, ``source``, ``pooling``, ``max_length``, ``dim``, ``normalize``,
    ``query_prefix``, ``passage_prefix``, ``models_dir``, ``onnx_path``, ``built`` (bool),
    ``onnx_sha256`` and ``onnx_bytes`` (None unless built), ``fp32_path`` (None unless built),
    ``export_available`` (bool), ``missing_for_export`` (module names), ``manifest`` (dict).
    A model shipped ready in a package is never exported: False and ``[]``.

    Raises:
        ModelError: unknown model id.
    """
    spec = get_spec(model_id)
    models_dir = _models_dir(models_dir)
    path = onnx_path_for(spec, models_dir)
    built = path.is_file()
    fp32 = path.with_name("model_fp32.onnx")
    return {
        "model_id": spec.model_id,
        "source": spec.source,
        "pooling": spec.pooling,
        "max_length": spec.max_length,
        "dim": spec.dim,
        "normalize": spec.normalize,
        "query_prefix": spec.query_prefix,
        "passage_prefix": spec.passage_prefix,
        "license": spec.license,
        "models_dir": str(models_dir),
        "onnx_path": str(path),
        "built": built,
        "onnx_sha256": sha256_file(path) if built else None,
        "onnx_bytes": path.stat().st_size if built else None,
        "fp32_path": str(fp32) if fp32.is_file() else None,
        "export_available": export_available(spec),
        "missing_for_export": missing_export_modules(spec),
        "manifest": read_manifest(path) if built else {},
    }


def build(
    model_id: str = DEFAULT_MODEL,
    models_dir: Path | None = None,
    force: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Build (export + quantise) ``model_id`` and return :func:`describe` of the result.

    Raises:
        ModelNotBuiltError: the ``export`` extra is not installed.
        ModelError: unknown model id, or the export failed.
    """
    spec = get_spec(model_id)
    models_dir = _models_dir(models_dir)
    build_onnx(spec, models_dir, quantize=True, progress=progress, force=force)
    return describe(model_id, models_dir)


def list_models(models_dir: Path | None = None) -> list[dict[str, Any]]:
    """One row per registered model: ``model_id``, ``source``, ``license``, ``pooling``,
    ``max_length``, ``dim``, ``query_prefix``, ``built`` (an ONNX file is ready to load:
    exported here, or shipped in an installed package), ``installable`` (how to get it)."""
    from litsift.models_onnx.source import packaged_onnx

    models_dir = _models_dir(models_dir)
    rows = []
    for s in known_models():
        if s.source_kind == "onnx":
            path = packaged_onnx(s)
            built, where = path is not None, str(path.parent) if path else ""
            how = pip_command(s.package_pin) if s.package_pin else ""
        else:
            built = find_built(s, models_dir) is not None
            where = str(model_root(s, models_dir))
            how = f"litsift models build --model {s.model_id}"
        rows.append(
            {
                "model_id": s.model_id,
                "source": s.source,
                "license": s.license,
                "pooling": s.pooling,
                "max_length": s.max_length,
                "dim": s.dim,
                "query_prefix": s.query_prefix,
                "built": built,
                "dir": where,
                "installable": how,
            }
        )
    return rows


def _models_dir(models_dir: Path | None) -> Path:
    if models_dir is not None:
        return models_dir
    from litsift.paths import get_paths

    return get_paths().models_dir
