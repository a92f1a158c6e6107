"""Citation export: persisted Better-BibTeX-style keys; BibTeX, RIS, CSL-JSON and Markdown.

``select_records`` resolves what the user asked for (the kept records, another label, or a
collection); ``export_records`` writes records in a format; ``export_command_impl`` does both
for ``litsift export`` and the TUI. This package reads the store; it never imports search/
or tui/.
"""

from __future__ import annotations

from litsift.export.citekeys import ExportError, assign_citekeys, citekey_base, citekey_for
from litsift.export.formats import export_records, to_bibtex, to_csl_json, to_markdown, to_ris
from litsift.export.select import LABEL_SELECTORS, export_command_impl, select_records
from litsift.types import EXPORT_FORMATS, FORMAT_SUFFIX, ExportFormat

__all__ = [
    "EXPORT_FORMATS",
    "FORMAT_SUFFIX",
    "LABEL_SELECTORS",
    "ExportError",
    "ExportFormat",
    "assign_citekeys",
    "citekey_base",
    "citekey_for",
    "export_command_impl",
    "export_records",
    "select_records",
    "to_bibtex",
    "to_csl_json",
    "to_markdown",
    "to_ris",
]
