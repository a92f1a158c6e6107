"""Subject headings as databases mark them in keyword fields, read as plain tags.

MEDLINE-indexed records carry their MeSH headings with NLM's marks: ``*`` before a major topic
and ``/`` before each subheading (qualifier), as PubMed writes them and EndNote, Zotero and Ovid
copy them into their exports (``*Phytotherapy/adverse effects``, ``Crohn Disease/*drug
therapy``); Cochrane CENTRAL writes the qualifiers in brackets (``Conduct Disorder
[*prevention & control, psychology]``); Embase (Emtree) and APA PsycInfo mark major topics
with ``*`` (``*athlete``, ``*Body Image``). :func:`subject_heading` keeps the heading alone, so
one topic is one tag whichever export it came from.

Only NLM's subheadings are cut off (:data:`MESH_QUALIFIERS`, the list of "MeSH Qualifiers with
Scope Notes", with those retired since 1990): an author keyword with a slash (``client/server``,
``HIV/AIDS``, ``input/output``) is kept whole.
"""

from __future__ import annotations

import re

from litsift.sources.base import clean_text

__all__ = ["MESH_QUALIFIERS", "subject_heading"]

#: NLM's MeSH subheadings, lower case as PubMed writes them after ``/``
MESH_QUALIFIERS = frozenset(
    {
        "abnormalities", "administration & dosage", "adverse effects", "agonists",
        "analogs & derivatives", "analysis", "anatomy & histology", "antagonists & inhibitors",
        "biosynthesis", "blood", "blood supply", "cerebrospinal fluid", "chemical synthesis",
        "chemically induced", "chemistry", "classification", "complications", "congenital",
        "contraindications", "cytology", "deficiency", "diagnosis", "diagnostic imaging",
        "diagnostic use", "diet therapy", "drug effects", "drug therapy", "economics",
        "education", "embryology", "enzymology", "epidemiology", "ethics", "ethnology",
        "etiology", "genetics", "growth & development", "history", "immunology", "injuries",
        "innervation", "instrumentation", "isolation & purification",
        "legislation & jurisprudence", "manpower", "metabolism", "methods", "microbiology",
        "mortality", "nursing", "organization & administration", "parasitology",
        "pathogenicity", "pathology", "pharmacokinetics", "pharmacology", "physiology",
        "physiopathology", "poisoning", "prevention & control", "psychology",
        "radiation effects", "radiography", "radionuclide imaging", "radiotherapy",
        "rehabilitation", "secondary", "standards", "statistics & numerical data",
        "supply & distribution", "surgery", "therapeutic use", "therapy", "toxicity",
        "transmission", "transplantation", "trends", "ultrasonography", "ultrastructure",
        "urine", "utilization", "veterinary", "virology",
    }
)  # fmt: skip
_BRACKETED_RE = re.compile(r"^(.+?)\s*\[([^\[\]]+)\]$")


def _qualifier(text: str) -> bool:
    return " ".join(text.lstrip("*").split()).lower() in MESH_QUALIFIERS


def subject_heading(value: object) -> str:
    """The heading of a keyword (one line of text, whitespace collapsed): the major-topic
    ``*`` and any MeSH subheadings (after ``/`` or in a trailing ``[...]``) removed; any other
    keyword as it is. ``""`` for None or non-strings."""
    text = clean_text(value)
    bracketed = _BRACKETED_RE.match(text)
    if bracketed and all(_qualifier(q) for q in bracketed.group(2).split(",")):
        text = bracketed.group(1)
    parts = text.split("/")
    while len(parts) > 1 and _qualifier(parts[-1]):
        parts.pop()
    return "/".join(parts).lstrip("*").strip()
