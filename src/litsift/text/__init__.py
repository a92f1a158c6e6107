"""Text handling shared by the CLI and the TUI: sanitising data and model text for terminals."""

from litsift.text.sanitize import (
    for_storage,
    for_storage_in,
    for_terminal,
    for_terminal_draft,
    json_for_terminal,
    shell_word,
    split_escape_sequences,
)

__all__ = [
    "for_storage",
    "for_storage_in",
    "for_terminal",
    "for_terminal_draft",
    "json_for_terminal",
    "shell_word",
    "split_escape_sequences",
]
