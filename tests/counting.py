"""A wrapper of the real encoder that counts the passages it embeds (tests of what a build or a
scorer re-embeds). Everything else is the real encoder's."""

from __future__ import annotations

from typing import Any


class CountingEncoder:
    """The real encoder, counting the passages it embeds."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.passages = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.encoder, name)

    def encode_passages(self, texts: Any, **kwargs: Any) -> Any:
        self.passages += len(texts)
        return self.encoder.encode_passages(texts, **kwargs)
