"""Bi-encoders for dense retrieval: registry, ONNX export/quantisation, query-time encoder.

Query time needs only onnxruntime, tokenizers and numpy; the export (torch, optimum) runs once
per model and source version and is cached under ``Paths.models_dir``.
"""

from litsift.models_onnx.encoder import Encoder
from litsift.models_onnx.export import build_onnx, onnx_path_for
from litsift.models_onnx.loading import load_encoder
from litsift.models_onnx.registry import DEFAULT_MODEL, ModelSpec, get_spec

__all__ = [
    "DEFAULT_MODEL",
    "Encoder",
    "ModelSpec",
    "build_onnx",
    "get_spec",
    "load_encoder",
    "onnx_path_for",
]
