"""BibTeX / arXiv values without LaTeX-active characters skip pylatexenc (1.4 ms a value on the
snapshot sample): the text must be exactly what pylatexenc gives."""

from __future__ import annotations

import json

from litsift.paths import shared_data_dir
from litsift.sources.base import clean_text
from litsift.sources.formats.bibtex_entries import _L2T, _LATEX_RE, latex

SRC = shared_data_dir() / "sources"


def test_latex_fast_path_gives_what_pylatexenc_gives() -> None:
    values = [
        "Plain title with numbers 3.5 and (parentheses)",
        "Quotes \"double\" and 'single' - hyphen",
        "Ellipsis... and slash a/b, colon: semi; question?",
        "Angle < less and > greater",
    ]
    for path in sorted((SRC / "arxiv" / "kaggle-metadata-snapshot").glob("*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            values += [str(obj.get("title", "")), str(obj.get("abstract", ""))]
    fast = [v for v in values if v and _LATEX_RE.search(v) is None]
    assert len(fast) >= 50  # most snapshot values take the fast path
    for v in fast:
        assert latex(v) == clean_text(_L2T.latex_to_text(v)), v
    slow = [v for v in values if v and _LATEX_RE.search(v) is not None]
    assert slow and all(latex(v) == clean_text(_L2T.latex_to_text(v)) for v in slow[:50])
