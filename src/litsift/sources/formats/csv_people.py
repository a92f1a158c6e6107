"""The author cells of bibliographic database CSV exports
(:mod:`litsift.sources.formats.csv_exports`)
as persons, per database style:

* **Scopus**: ``Author full names`` (``Surname, Given (author id); ...``) when the export has
  it, else ``Authors`` as ``Surname I.; Surname I.`` (since ~2022) or ``Surname I., Surname I.``
  (older exports); the count of ``Author(s) ID`` decides between them when a name holds a comma
  (``Vaccaro M., Jr.``).
* **IEEE Xplore**: ``Given Family; Given Family`` (full export) or ``Given Family, Given
  Family`` (short export).
* **SpringerLink**: names run together (``Araz R. AlievNigar T. Ismayilova``), split where a
  lower-case letter meets an upper-case one inside a name that already has a given and a family
  part, except after the name prefixes ``Mc``, ``Mac``, ``De``, ... (``McDonald``); honorifics
  (``Prof.``, ``Dr.``) are dropped.
"""

from __future__ import annotations

import re

from litsift.sources.base import clean_text

__all__ = ["people"]

#: a name suffix that a comma separates from the name (``Vaccaro M., Jr.``)
_SUFFIX_RE = re.compile(r"^(?:Jr|Sr|II|III|IV|2nd|3rd)\.?$", re.IGNORECASE)
#: Scopus initials: ``J.``, ``M.A.``, ``K.-L.``, ``Ch.``
_INITIALS_RE = re.compile(r"^(?:[^\W\d_]{1,2}\.-?)+$")
#: the author id Scopus appends in ``Author full names``: ``Liu, Fengyuan (60410297700)``
_SCOPUS_ID_RE = re.compile(r"\s*\(\d+\)\s*$")
_HONORIFIC_RE = re.compile(
    r"^(?:(?:Prof|Dr|Professor|Assoc|Asst|PD|Ph\.\s?D|PhD)\.?(?:-Ing\.)?\s+)+"
)
#: lower-case words that belong to the family name after them (``Ugo Dal Lago``)
_PARTICLES = frozenset(
    "van von der den de da dal del della di du dos das la le ten ter bin al".split()
)
#: word starts after which an upper-case letter continues the same family name (``McDonald``)
_NAME_PREFIXES = frozenset(
    {"Mc", "Mac", "Fitz", "De", "Di", "Da", "Du", "Del", "Della", "La", "Le", "Van", "Von", "St"}
)
#: the end of a cut author list (PubMed's CSV of 2019: ``..., Borgeat A, et al.``)
_ET_AL_RE = re.compile(r"^et\.?\s*al\.?$", re.IGNORECASE)
_NO_AUTHOR = frozenset({"[no author name available]", "[no authors found]", "anonymous"})


def _given_family(given: str, family: str) -> tuple[str, str]:
    given, family = clean_text(given), clean_text(family)
    return " ".join(p for p in (given, family) if p), family


def _surname_initials(name: str) -> tuple[str, str]:
    """``Edwin Raja Dhas J.`` -> (``J. Edwin Raja Dhas``, ``Edwin Raja Dhas``)."""
    suffix = ""
    if "," in name:  # "Vaccaro M., Jr."
        name, suffix = (p.strip() for p in name.rsplit(",", 1))
        if not _SUFFIX_RE.match(suffix):  # "Surname, I." written the BibTeX way
            return _given_family(suffix, name)
    words = name.split()
    cut = len(words)
    while cut > 1 and _INITIALS_RE.match(words[cut - 1]):
        cut -= 1
    display, family = _given_family(" ".join(words[cut:]), " ".join(words[:cut]))
    return (f"{display} {suffix}" if suffix else display), family


def _full_name(entry: str) -> tuple[str, str]:
    """``Unnikrishnan, M.A. (57197735070)`` -> (``M.A. Unnikrishnan``, ``Unnikrishnan``)."""
    entry = _SCOPUS_ID_RE.sub("", entry)
    if "," not in entry:  # a group author
        return clean_text(entry), clean_text(entry)
    family, given = entry.split(",", 1)
    return _given_family(given, family)


def _given_first(name: str) -> tuple[str, str]:
    """``Rafik A. Aliev`` -> (``Rafik A. Aliev``, ``Aliev``); ``Ugo Dal Lago`` -> family ``Dal
    Lago``; a ``Jr.`` is not the family; honorifics (``Prof. Dr.``, ``Ph.D.``) are dropped."""
    name = clean_text(_HONORIFIC_RE.sub("", clean_text(name)))
    words = name.replace(",", " ").split()
    while len(words) > 1 and _SUFFIX_RE.match(words[-1]):
        words = words[:-1]
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in _PARTICLES:
        start -= 1
    return name, " ".join(words[max(start, 0) :])


def _given_first_or_inverted(name: str, sep: str) -> tuple[str, str]:
    """A ``;``-separated name as :func:`_given_first`, or ``Family, Given`` when it holds a
    comma that is not a suffix's (IEEE Xplore exports of ~2015: ``Vancea, F.; Vancea, C.``)."""
    if sep == ";" and name.count(",") == 1:
        family, given = (p.strip() for p in name.split(","))
        if family and given and not _SUFFIX_RE.match(given):
            return _given_family(given, family)
    return _given_first(name)


def _glue_suffixes(parts: list[str]) -> list[str]:
    """``["Vaccaro M.", "Jr.", "Zaghi A.E."]`` -> ``["Vaccaro M., Jr.", "Zaghi A.E."]``."""
    out: list[str] = []
    for part in (clean_text(p) for p in parts):
        if not part:
            continue
        if out and _SUFFIX_RE.match(part):
            out[-1] = f"{out[-1]}, {part}"
        else:
            out.append(part)
    return out


def _split_run_together(text: str) -> list[str]:
    """SpringerLink's ``Justice Opara-MartinsReza SahandiFeng Tian`` -> three names."""
    names: list[str] = []
    start = 0
    for i in range(1, len(text)):
        if not (text[i].isupper() and text[i - 1].islower()):
            continue
        current = text[start:i]
        word = re.split(r"[\s\-'’]", current)[-1]
        if " " not in current.strip() or word in _NAME_PREFIXES:
            continue
        names.append(current)
        start = i
    names.append(text[start:])
    return [n for n in (clean_text(n) for n in names) if n]


#: initials written without dots, as PubMed does (``SM``, ``CWC``)
_BARE_INITIALS_RE = re.compile(r"^[A-Z]{1,4}$")


def _family_initials(name: str) -> tuple[str, str]:
    """``Larrimore Ouellette L`` -> (``L Larrimore Ouellette``, ``Larrimore Ouellette``); a
    name without trailing initials (a group) is its own family name."""
    words = name.split()
    suffixes: list[str] = []
    while len(words) > 2 and _SUFFIX_RE.match(words[-1]):  # ``Peterson JE Jr``, ``Pearse RV 2nd``
        suffixes.insert(0, words.pop())
    if len(words) > 1 and _BARE_INITIALS_RE.match(words[-1]):
        display, family = _given_family(words[-1], " ".join(words[:-1]))
        return " ".join([display, *suffixes]), family
    return clean_text(name), clean_text(name)


def _any_style(text: str) -> list[tuple[str, str]]:
    """Persons of a cell of unknown style: ``;`` (or `` and ``) between people, each
    ``Family, Given`` or ``Given Family``; else ``,`` between people written ``Family I``
    (PubMed), ``Family I.`` (Scopus) or ``Given Family``; ``Family, Given, Family, Given``
    when every second part is initials."""
    for sep in (";", " and "):
        if sep in text:
            return [_given_first_or_inverted(p, ";") for p in _glue_suffixes(text.split(sep))]
    parts = _glue_suffixes(text.rstrip(".").split(","))
    if (
        len(parts) > 1
        and len(parts) % 2 == 0
        and all(
            _INITIALS_RE.match(g.replace(" ", "")) or _BARE_INITIALS_RE.match(g)
            for g in parts[1::2]
        )
    ):  # "Smith, J., Doe, A."
        return [_given_family(g, f) for f, g in zip(parts[::2], parts[1::2], strict=True)]
    if len(parts) == 2 and " " not in parts[0].strip():  # one "Family, Given"
        return [_given_family(parts[1], parts[0])]
    if all(_BARE_INITIALS_RE.match(p.split()[-1]) for p in parts if len(p.split()) > 1):
        return [_family_initials(p) for p in parts]
    if all(_INITIALS_RE.match(p.split()[-1]) for p in parts if len(p.split()) > 1):
        return [_surname_initials(p) for p in parts]
    return [_given_first(p) for p in parts]


def _scopus_short(text: str, n_ids: int) -> list[str]:
    semi = _glue_suffixes(text.split(";"))
    comma = _glue_suffixes(text.split(","))
    if ";" in text:
        # ";" is the separator since ~2022; old exports used ", " and never a ";"
        return comma if n_ids and len(comma) == n_ids and len(semi) != n_ids else semi
    return comma


def people(
    text: str, names: str, full_names: str = "", author_ids: str = ""
) -> tuple[list[str], list[str]]:
    """The persons of one export cell as ``(display names, family names)``.

    Args:
        text: the ``Authors`` cell.
        names: how ``text`` writes people: ``scopus`` (``Surname I.`` separated by ``;`` or, in
            older exports, ``,``), ``given-family;`` / ``given-family,`` (``Given Family``
            separated by ``;`` / ``,``; ``Family, Given`` too when ``;`` separates them),
            ``run-together`` (SpringerLink: no separator), ``family-initials,`` (PubMed:
            ``Lim SM, Lau Y.``), ``any`` (a table of records: told from the cell).
        full_names: Scopus ``Author full names`` (``Surname, Given (id); ...``); used instead
            of ``text`` when given.
        author_ids: Scopus ``Author(s) ID`` (``id;id;`` or ``id; id``): its count tells the two
            Scopus separators apart.

    Returns:
        Display names in ``Given Family`` order and the family names, in author order; empty
        lists for Scopus's ``[No author name available]``.
    """
    text = clean_text(text)
    if not text or text.lower() in _NO_AUTHOR:
        return [], []
    pairs: list[tuple[str, str]]
    if names == "scopus":
        entries = [e for e in (clean_text(e) for e in full_names.split(";")) if e]
        if entries:
            pairs = [_full_name(e) for e in entries]
        else:
            n_ids = len([i for i in author_ids.split(";") if i.strip()])
            pairs = [_surname_initials(p) for p in _scopus_short(text, n_ids)]
    elif names == "family-initials,":  # PubMed: "Lim SM, Larrimore Ouellette L."
        pairs = [_family_initials(p) for p in _glue_suffixes(text.rstrip(".").split(","))]
    elif names == "any":  # a table of records: whichever way the cell writes them
        pairs = _any_style(text)
    elif names == "run-together":
        pairs = [_given_first(p) for p in _split_run_together(text)]
    else:
        sep = names[-1]
        pairs = [_given_first_or_inverted(p, sep) for p in _glue_suffixes(text.split(sep))]
    pairs = [(d, f) for d, f in pairs if d and not _ET_AL_RE.match(d)]
    return [d for d, _ in pairs], [f for _, f in pairs]
