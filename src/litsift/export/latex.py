"""Text for a BibTeX field: LaTeX-encoded with pylatexenc (``&`` -> ``{\\&}``, ``ø`` ->
``{\\o}``) except ``$...$`` math with balanced braces, which is kept; title words with an
inner capital (``BERT``, ``DuReader``) are braced so bibliography styles keep their case.
"""

from __future__ import annotations

import re

from pylatexenc.latexencode import UnicodeToLatexEncoder

__all__ = ["latex"]

_MATH_RE = re.compile(r"(?<!\\)\$[^$]+?(?<!\\)\$")
_INNER_CAP_RE = re.compile(r"\w[^\s]*[A-Z]")
_LIGATURE_RE = re.compile(r"([-`'])(?=\1)")

#: Characters written otherwise than pylatexenc does: a straight double quote as ``{"}`` (as
#: BibTeX files have it; pylatexenc's ``''`` read back as two apostrophes), and a brace as a
#: command: BibTeX counts ``\{`` as a brace, so a lone one (``{\{}``) left the entry's braces
#: unbalanced and the file unreadable from there on.
_OWN = {'"': '{"}', "{": r"{\textbraceleft}", "}": r"{\textbraceright}"}
_OWN_RE = re.compile(r'(["{}])')

_ENCODER = UnicodeToLatexEncoder(
    non_ascii_only=False,
    replacement_latex_protection="braces-all",
    unknown_char_policy="keep",
    unknown_char_warning=False,
)


def latex(text: str, protect_case: bool = False) -> str:
    """LaTeX-encode text for a BibTeX field, keeping ``$...$`` math with balanced braces.

    Args:
        text: plain Unicode text.
        protect_case: brace words with an inner capital (titles), e.g. ``{BERT}``.
    """
    out, last = [], 0
    for m in _MATH_RE.finditer(text):
        math = m.group(0)
        if math.count("{") != math.count("}"):
            continue
        out.append(_encode_text(text[last : m.start()], protect_case))
        out.append(math)
        last = m.end()
    out.append(_encode_text(text[last:], protect_case))
    return "".join(out)


def _encode_plain(text: str) -> str:
    """pylatexenc's encoding, with TeX ligatures (``--``, quote pairs) broken by ``{}``, except
    for the characters of :data:`_OWN` (see there)."""
    return "".join(
        _OWN[part]
        if part in _OWN
        else _LIGATURE_RE.sub(r"\1{}", str(_ENCODER.unicode_to_latex(part)))
        for part in _OWN_RE.split(text)
        if part
    )


def _encode_text(text: str, protect_case: bool) -> str:
    if not protect_case:
        return _encode_plain(text)
    parts = re.split(r"(\s+)", text)
    return "".join(
        ("{" + _encode_plain(p) + "}")
        if p and not p.isspace() and _INNER_CAP_RE.match(p)
        else _encode_plain(p)
        for p in parts
    )
