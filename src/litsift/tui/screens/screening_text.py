"""The screening screen's texts (:mod:`litsift.tui.screens.screening`): the record with the
review's keywords and criteria words highlighted, and what to do once a stage is done."""

from __future__ import annotations

import re
import shlex

from litsift.tui.widgets.safe_text import Part

__all__ = ["CRITERIA_STYLE", "KEYWORD_STYLE", "done_lines", "highlighted"]

KEYWORD_STYLE = "bold black on yellow"
CRITERIA_STYLE = "bold underline"


def highlighted(text: str, keywords: list[str], terms: list[str]) -> list[Part]:
    """``text`` cut into plain parts and ``(word, style)`` parts for each keyword (whole
    words, any case) and criteria term (word starts)."""
    pats = [(k, KEYWORD_STYLE, r"\b") for k in keywords]
    pats += [(t, CRITERIA_STYLE, r"\w*") for t in terms]
    if not pats or not text:
        return [text]
    alts = "|".join(
        f"(?P<g{i}>" + r"\b" + re.escape(w) + end + ")" for i, (w, _, end) in enumerate(pats)
    )
    regex = re.compile(alts, re.IGNORECASE)
    parts: list[Part] = []
    at = 0
    for m in regex.finditer(text):
        style = pats[int(str(m.lastgroup)[1:])][1]
        parts.extend([text[at : m.start()], (m.group(0), style)])
        at = m.end()
    parts.append(text[at:])
    return parts


def done_lines(review: str, stage: str, reviewer: str, records: int | None) -> list[Part]:
    """What to do once every record of the stage has a decision: the next stage, the export
    of this stage's includes (or, screening blind, of this reviewer's decisions for ``review
    merge``) and the PRISMA diagram -- each a command to paste. A full-text stage that no
    record reached yet (``records`` 0) says so: it read "Every report has a decision"."""
    name = shlex.quote(review)
    if stage != "tiab" and records == 0:
        return [
            ("No record has reached the full text yet.", "bold"),
            "\nInclude (or mark maybe) records at title/abstract first: litsift review screen "
            f"{name}" + (f" --reviewer {shlex.quote(reviewer)}" if reviewer else ""),
        ]
    if reviewer:
        who, out = shlex.quote(reviewer), shlex.quote(f"{reviewer}.jsonl")
        return [
            (f"Every record has your decision, {reviewer}.", "bold"),
            "\nFor the one who merges: litsift review export "
            f"{name} --format decisions --reviewer {who} -o {out}",
        ]
    if stage == "tiab":
        return [
            ("Every record has a decision at title/abstract.", "bold"),
            f"\nNext, the full text: litsift review screen {name} --stage fulltext",
            f"\nThe includes so far: litsift review export {name} --format ris --which include",
        ]
    return [
        ("Every report has a decision at full text.", "bold"),
        "\nThe included studies: litsift review export "
        f"{name} --stage fulltext --format ris --which include",
        f"\nThe PRISMA 2020 diagram: litsift review prisma {name} -o prisma.svg",
    ]
