"""Loading the encoder of a model id: the shipped file, or a built export (built on demand).

One :class:`~litsift.models_onnx.encoder.Encoder` per (model, file, threads) in a process.
"""

from __future__ import annotations

import threading
from pathlib import Path

from litsift.errors import ModelNotBuiltError
from litsift.models_onnx.encoder import Encoder
from litsift.models_onnx.export import build_onnx, onnx_path_for
from litsift.models_onnx.registry import DEFAULT_MODEL, get_spec
from litsift.models_onnx.source import (
    export_available,
    export_hint,
    missing_export_modules,
    package_hint,
)

_cache_lock = threading.Lock()
_cache: dict[tuple[str, str, int | None, int], Encoder] = {}


def load_encoder(
    model_id: str = DEFAULT_MODEL,
    models_dir: Path | None = None,
    build_if_missing: bool = True,
    threads: int | None = None,
) -> Encoder:
    """The int8 ONNX encoder of ``model_id``, building it first if needed and possible.

    Repeat calls in one process return the same :class:`Encoder` while the file is unchanged.

    Args:
        model_id: A registry id (:func:`litsift.models_onnx.registry.get_spec`).
        models_dir: Root of the model cache; default ``get_paths().models_dir``
            (``$LITSIFT_MODELS_DIR`` overrides).
        build_if_missing: Export and quantise the model when its file is missing (needs the
            ``export`` extra; about half a minute).
        threads: ONNX Runtime intra-op threads; default ``os.cpu_count()``.

    Raises:
        ModelNotBuiltError: the file is missing and cannot (or may not) be built here.
        ModelError: unknown model id, or the file is corrupt.
    """
    spec = get_spec(model_id)
    if models_dir is None:
        from litsift.paths import get_paths

        models_dir = get_paths().models_dir
    if spec.source_kind == "onnx":  # shipped ready in a package: load it where it is
        from litsift.models_onnx.source import packaged_onnx

        packaged = packaged_onnx(spec)
        if packaged is None:
            raise ModelNotBuiltError(
                f"{model_id} ships in the package {spec.package_pin or spec.source_name}, "
                "which is not installed",
                hint=package_hint(spec),
            )
        path = packaged
    else:
        path = onnx_path_for(spec, models_dir)
    if not path.is_file():
        if not build_if_missing or not export_available(spec):
            missing = missing_export_modules(spec)
            why = f"the export extra is not installed (missing: {', '.join(missing)})"
            raise ModelNotBuiltError(
                f"the ONNX file of {model_id} is not built in {models_dir}"
                + (f" and {why}" if missing else ""),
                hint=(
                    export_hint(model_id)
                    if missing
                    else f"run: litsift models build --model {model_id}"
                ),
            )
        path = build_onnx(spec, models_dir)
    key = (model_id, str(path.resolve()), threads, path.stat().st_mtime_ns)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None:
        return cached
    encoder = Encoder(spec, path, threads=threads)
    with _cache_lock:
        return _cache.setdefault(key, encoder)
