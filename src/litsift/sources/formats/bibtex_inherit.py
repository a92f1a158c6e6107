"""Data inheritance between BibTeX entries: ``crossref`` parents and ``@xdata`` containers.

The rules are biblatex's defaults as biber applies them (biblatex manual, "Cross-referencing"
and appendix "Default Inheritance Setup"; ``\\DefaultInheritance{all=true,override=false}`` and
the ``\\DeclareDataInheritance`` table of ``biblatex.def``):

* a child takes every field it lacks from its parent, under the same name, except the fields
  no entry inherits (``ids``, ``crossref``, ``xref``, ``label``, ``shorthand``, ...);
* for the pairs of the table the parent's ``title`` (``subtitle``, ``titleaddon``) becomes the
  child's ``booktitle`` (``@proceedings`` -> ``@inproceedings``, ``@collection`` ->
  ``@incollection``, ``@book`` -> ``@inbook``), ``maintitle`` (from a multi-volume
  ``@mv*``) or ``journaltitle`` (``@periodical`` -> ``@article``), and is not inherited as
  the child's ``title``; a ``@book``'s ``author`` is also the ``@inbook``'s ``bookauthor``;
* ``@xdata`` entries lend all their fields, cascading (an ``@xdata`` may name others).

Two choices of litsift's own, because a record here is a work to find, not a line to print:
the parent's identifiers (``doi``, ``eprint``, ``pmid``, DBLP's ``biburl``), links, abstract,
keywords, files and notes are not inherited (the DOI of a proceedings volume is not its
papers' DOI, and would merge them all into one); and a
parent's own ``booktitle`` (classic BibTeX's way to name a volume in its papers' references,
as DBLP and group bibliographies write it) comes before its ``title`` mapped to ``booktitle``.
"""

from __future__ import annotations

__all__ = ["CONTAINER_TYPES", "NOT_INHERITED", "inherit_crossref", "inherit_xdata"]

#: fields no entry inherits (biblatex's ``\DeclareDataInheritance{*}{*}``)
_NEVER = frozenset(
    {
        "ids",
        "crossref",
        "xref",
        "xdata",
        "entryset",
        "entrysubtype",
        "execute",
        "label",
        "options",
        "presort",
        "related",
        "relatedoptions",
        "relatedstring",
        "relatedtype",
        "shorthand",
        "shorthandintro",
        "sortkey",
    }
)
#: what a crossref child never takes: :data:`_NEVER` and the parent's identity as a work of its
#: own (see the module docstring)
NOT_INHERITED = _NEVER | frozenset(
    {
        "keywords",
        "file",
        "abstract",
        "doi",
        "url",
        "eprint",
        "eprinttype",
        "archiveprefix",
        "primaryclass",
        "pmid",
        "pmcid",
        "biburl",
        "bibsource",
        "groups",
        "annote",
        "annotation",
    }
)

#: the volumes of the inheritance table: a parent of one of these types is a container of
#: its children (a venue), not a work of its own
CONTAINER_TYPES = frozenset(
    {
        "book",
        "mvbook",
        "collection",
        "mvcollection",
        "reference",
        "mvreference",
        "proceedings",
        "mvproceedings",
        "periodical",
    }
)

_TITLES = ("title", "subtitle", "titleaddon")
_NOT_AS_TITLE = ("shorttitle", "sorttitle", "indextitle", "indexsorttitle")


def _table() -> dict[tuple[str, str], dict[str, str]]:
    """``(parent type, child type) -> {parent field: child field}`` of ``biblatex.def``."""
    rules: dict[tuple[str, str], dict[str, str]] = {}

    def declare(parents: str, children: str, prefix: str) -> None:
        mapping = {t: prefix + t for t in _TITLES} | {f: "" for f in _NOT_AS_TITLE}
        for parent in parents.split(","):
            for child in children.split(","):
                rules.setdefault((parent, child), {}).update(mapping)

    declare("mvbook", "book,inbook,bookinbook,suppbook", "main")
    declare("mvcollection,mvreference", "collection,reference,incollection,inreference", "main")
    declare("mvcollection,mvreference", "suppcollection", "main")
    declare("mvproceedings", "proceedings,inproceedings", "main")
    declare("book", "inbook,bookinbook,suppbook", "book")
    declare("collection,reference", "incollection,inreference,suppcollection", "book")
    declare("proceedings", "inproceedings", "book")
    declare("periodical", "article,suppperiodical", "journal")
    for parent in ("mvbook", "book"):
        for child in ("inbook", "bookinbook", "suppbook"):
            rules[(parent, child)]["author"] = "author+bookauthor"
    return rules


_RULES = _table()


def inherit_crossref(
    fields: dict[str, str], parent: dict[str, str], child_type: str, parent_type: str
) -> set[str]:
    """Fill ``fields`` (a child entry's, lower-case names) from its ``crossref`` parent.

    Args:
        fields: the child's fields; changed in place. A field the child has is never replaced.
        parent: the parent's fields (already holding what the parent itself inherited).
        child_type, parent_type: lower-case entry types (``inproceedings``, ``proceedings``).

    Returns:
        The names of the fields the child took from the parent.
    """
    rule = _RULES.get((parent_type, child_type), {})
    taken: set[str] = set()
    # the parent's own booktitle first: it is what BibTeX styles print for the volume
    ordered = sorted(parent.items(), key=lambda kv: kv[0] not in ("booktitle", "maintitle"))
    for key, value in ordered:
        if key.startswith("_") or key in NOT_INHERITED or not value:
            continue
        targets = rule.get(key, key)
        for target in filter(None, targets.split("+")):
            if target not in fields:
                fields[target] = value
                taken.add(target)
    return taken


def inherit_xdata(fields: dict[str, str], containers: list[dict[str, str]]) -> set[str]:
    """Fill ``fields`` from the ``@xdata`` entries its ``xdata`` field names, in that order
    (each already holding what it took from the ``@xdata`` it names itself).

    Returns:
        The names of the fields taken.
    """
    taken: set[str] = set()
    for container in containers:
        for key, value in container.items():
            if key.startswith("_") or key in _NEVER or not value or key in fields:
                continue
            fields[key] = value
            taken.add(key)
    return taken
