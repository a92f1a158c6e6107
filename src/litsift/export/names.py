"""Author names split into given / particle / family / suffix, for citation formats.

Names are split with BibTeX's own rules, as implemented by bibtexparser 2
(``parse_single_name_into_parts``): ``First von Last`` or ``von Last, Jr, First``; the
``von`` particle is the run of lower-case words (``Rob van der Goot`` -> family ``Goot``,
particle ``van der``). BibTeX's first-last form has no suffix, so a trailing ``Jr.``/``Sr.``/
``II``-``IV`` is split off first (``Antonio Laverghetta Jr.`` -> family ``Laverghetta``).
An organisation (three or more words, one of them ``Committee``, ``Institute``, ``Group``...)
is one literal name: split, ``Institute of Medicine (US) Committee on ... Sex and Gender
Differences`` was written ``of Medicine (US) Committee ..., Institute`` and read back as two
people (its " and ").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from anyascii import anyascii
from bibtexparser.middlewares.names import parse_single_name_into_parts

from litsift.export.latex import latex
from litsift.store.biblio import name_key

_SUFFIX_RE = re.compile(r"^(?:jr|sr|jnr|snr)\.?$|^(?:ii|iii|iv)$", re.IGNORECASE)
#: given-name initials written after the family name (MEDLINE / Vancouver: ``"Iyer V"``,
#: ``"Smith JW"``, Scopus: ``"Unnikrishnan M.A."``)
_INITIALS_RE = re.compile(r"^(?:[A-Z]\.?-?){1,3}$")
#: an organisation as author (``Institute of Medicine (US) Committee on ...``, ``WHO
#: Collaborating Group``): one literal name, never split into given and family names
_CORPORATE_RE = re.compile(
    r"\b(?:committee|institute|consortium|collaboration|collaborative|group|organi[sz]ation|"
    r"association|council|society|agency|university|foundation|department|ministry|centre|"
    r"center|office|network|working party|task force|investigators|team)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Person:
    """One author. ``text`` is the name as stored; the other fields may be empty."""

    text: str
    given: str = ""
    particle: str = ""
    family: str = ""
    suffix: str = ""
    #: an organisation: ``text`` is its whole name (BibTeX braces it, CSL writes ``literal``)
    corporate: bool = False

    @property
    def family_with_particle(self) -> str:
        """``"van der Goot"``: the particle and the family name."""
        return " ".join(p for p in (self.particle, self.family) if p)

    @property
    def inverted(self) -> str:
        """``"van der Goot, Jr., Rob"`` -- BibTeX's and RIS's unambiguous comma form."""
        return ", ".join(p for p in (self.family_with_particle, self.suffix, self.given) if p)

    def csl(self) -> dict[str, str]:
        """The CSL-JSON name object (``family``, ``given``, ``non-dropping-particle``, ``suffix``).

        Source: CSL-JSON schema, ``name-variable`` (citation-style-language/schema).
        """
        if not self.family or self.corporate:
            return {"literal": self.text}
        out = {"family": self.family}
        if self.given:
            out["given"] = self.given
        if self.particle:
            out["non-dropping-particle"] = self.particle
        if self.suffix:
            out["suffix"] = self.suffix
        return out


def split_name(name: str) -> Person:
    """Split one author name (``"First Middle von Last Jr."``, ``"von Last, Jr, First"`` or
    ``"Last FM"``, initials after the family name as MEDLINE writes them).

    Never raises: a name BibTeX cannot parse keeps its text as the family name.
    """
    text = " ".join(name.split())
    if not text:
        return Person(text="")
    if "," not in text and len(text.split()) >= 3 and _CORPORATE_RE.search(text):
        return Person(text=text, corporate=True)
    suffix = ""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 2 and _SUFFIX_RE.match(parts[1]):  # "Antonio Laverghetta, Jr."
        text_to_parse, suffix = parts[0], parts[1]
    elif "," not in text and len(tokens := text.split()) > 2 and _SUFFIX_RE.match(tokens[-1]):
        text_to_parse, suffix = " ".join(tokens[:-1]), tokens[-1]
    else:
        text_to_parse = text
    words = text_to_parse.split()
    if "," not in text_to_parse and len(words) >= 2 and not _INITIALS_RE.match(words[0]):
        cut = len(words)
        while cut > 1 and _INITIALS_RE.match(words[cut - 1]):
            cut -= 1
        if cut < len(words):  # "Iyer V": family first, initials after it
            text_to_parse = f"{' '.join(words[:cut])}, {' '.join(words[cut:])}"
    try:
        np = parse_single_name_into_parts(text_to_parse, strict=False)
    except Exception:  # bibtexparser raises bare errors on odd braces; keep the text
        return Person(text=text, family=text_to_parse)
    family = " ".join(np.last) or " ".join(np.first)
    given = " ".join(np.first) if np.last else ""
    return Person(
        text=text,
        given=given,
        particle=" ".join(np.von),
        family=family,
        suffix=suffix or " ".join(np.jr),
    )


#: a word BibTeX splits an ``author`` list at (any case, between spaces)
_AND_RE = re.compile(r"(?:^|\s)and(?:\s|$)", re.IGNORECASE)


def bibtex_name(p: Person) -> str:
    """One name of a BibTeX ``author`` or ``editor`` list: ``von Last, Jr, First``, or braced
    whole (an organisation, or a name whose words hold an ``and``: unbraced, BibTeX reads two
    names there); LaTeX-encoded."""
    if p.corporate or _AND_RE.search(p.inverted):
        return f"{{{latex(p.text)}}}"
    return latex(p.inverted)


def _is_lumped(entry: str) -> bool:
    """Whether one author string holds several ``First Last`` names joined by commas."""
    parts = [p.strip() for p in entry.split(",")]
    return len(parts) >= 2 and all(len(p.split()) >= 2 and not _SUFFIX_RE.match(p) for p in parts)


def split_authors(
    authors: Iterable[str], parts: Mapping[str, tuple[str, str]] | None = None
) -> list[Person]:
    """Split a record's author list into people.

    Some source rows put a whole list in one string (``"Martín Abadi, David G. Andersen"``);
    an entry whose comma-separated parts all have at least two words is read as several
    ``First Last`` names. ``"van der Goot, Rob"`` (a one-word part) stays one inverted name.

    Args:
        authors: the stored display names (``"Given Family"``).
        parts: ``{name_key: (family, given)}`` as the sources split the names
            (:meth:`litsift.store.biblio.Biblio.name_parts`): a name found there keeps that
            split (``"Ricardo Pérez-de la Fuente"`` -> family ``Pérez-de la Fuente``, which
            BibTeX's rules would make ``la Fuente``; a family name of several words without a
            given name, ``{World Bank}``, stays one literal name); the others are split by the
            rules above.
    """
    out: list[Person] = []
    for entry in authors:
        whole = parts.get(name_key("", entry)) if parts else None  # "Council on X, Y and Z"
        pieces = entry.split(",") if whole is None and _is_lumped(entry) else [entry]
        for x in pieces:
            known = parts.get(name_key("", x)) if parts else None
            person = split_name(x)
            if known is not None and person.text and not person.corporate:
                family, given = known
                literal = not given and len(family.split()) > 1  # "{World Bank}": one name
                person = Person(person.text, given=given, family=family, corporate=literal)
            if person.text:
                out.append(person)
    return out


def ascii_fold(text: str) -> str:
    """Transliterate to ASCII (``"Søgaard"`` -> ``"Sogaard"``, ``"Łukasz"`` -> ``"Lukasz"``).

    Uses ``anyascii`` (per-character transliteration tables), as Better BibTeX's ``fold``
    does with its own tables.
    """
    return str(anyascii(text))
