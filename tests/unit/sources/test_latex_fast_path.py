"""BibTeX / arXiv values without LaTeX-active characters skip pylatexenc (1.4 ms a value on the
snapshot sample): the text must be exactly what pylatexenc gives once the unescaped ``&`` and
``%`` that exporters write as text are escaped (:func:`_literal_specials`)."""

from __future__ import annotations

import json

from litsift.paths import shared_data_dir
from litsift.sources.base import clean_text
from litsift.sources.formats.bibtex_latex import _L2T, _LATEX_RE, _literal_specials, latex

SRC = shared_data_dir() / "sources"


def _pylatexenc(value: str) -> str:
    return clean_text(_L2T.latex_to_text(_literal_specials(value)))


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
        assert latex(v) == _pylatexenc(v), v
    slow = [v for v in values if v and _LATEX_RE.search(v) is not None]
    assert slow and all(latex(v) == _pylatexenc(v) for v in slow[:50])


def test_braces_and_escaped_specials_skip_pylatexenc_and_give_what_it_gives() -> None:
    """The second fast path (issue 43, item 8: 120K entries in 10 minutes): values whose only
    LaTeX is balanced braces and ``\\%``-style escapes, as Zotero / Better BibTeX and JabRef
    export most titles, on the real exports."""
    from bibtexparser import parse_string

    from litsift.sources.formats.bibtex_latex import _plain

    values: set[str] = {"50\\% of {R\\&D} in {{GaAs}}", "a {b {c}} d", "x\\_y \\#1 \\$5"}
    for name in ("thesis-psychology_zotero-bbt-export.bib", "bbt-1641_jabref-5.1-groups.bib"):
        text = (SRC / "reference-managers" / "bibtex" / name).read_text(encoding="utf-8")
        for entry in parse_string(text).entries:
            values.update(f.value for f in entry.fields if isinstance(f.value, str))
    plain = sorted(v for v in values if _LATEX_RE.search(v) and _plain(v) is not None)
    assert len(plain) >= 300
    for v in plain:
        assert latex(v) == _pylatexenc(v), v
    for v in ("{unbalanced", "closing} {first", "\\emph{x}", "a\\\\%b", "$x^2$", "a--b"):
        assert _plain(v) is None, v
