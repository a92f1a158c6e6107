"""Reference lists of structured full text as ``{citation key: label}``, in order (keys by
:func:`litsift.sources.identity.matcher.reference_key`, labels by ``reference_label``): GROBID TEI
``listBibl/biblStruct``, JATS ``ref-list/ref``, S2ORC doc2json ``bib_entries`` and the S2ORC
2023 ``bibentry`` annotations.

A reference with an identifier (DOI, arXiv, PubMed, PMC, S2 corpus id) is keyed by it; one
without by its title and first author (``title:...``); one with neither (a bare URL, a footnote)
names no work and is left out.
"""

from __future__ import annotations

import json
from typing import Any

from litsift.sources.base import clean_text, year_from
from litsift.sources.identity.ids import normalize_corpusid, normalize_ids
from litsift.sources.identity.matcher import reference_key, reference_label

__all__ = ["jats_references", "s2orc_2023_references", "s2orc_references", "tei_references"]


def _x(el: Any, path: str) -> list[Any]:
    return list(el.xpath(path))


def _t(els: list[Any]) -> str:
    return clean_text(" ".join("".join(e.itertext()) for e in els))


def _add(keys: dict[str, str], key: str | None, label: str = "") -> None:
    if key and (key not in keys or not keys[key]):
        keys[key] = label


def _person(pers: Any, given_tag: str, family_tag: str) -> str:
    given = _t(_x(pers, f"./*[local-name()='{given_tag}']"))
    family = _t(_x(pers, f"./*[local-name()='{family_tag}']"))
    return f"{given} {family}".strip()


def tei_references(root: Any) -> dict[str, str]:
    """Keys of the ``biblStruct`` entries of a GROBID TEI document's ``listBibl``, in order."""
    keys: dict[str, str] = {}
    for bib in _x(root, "//*[local-name()='listBibl']/*[local-name()='biblStruct']"):
        analytic = _x(bib, "./*[local-name()='analytic']")
        part = analytic[0] if analytic else bib
        title = _t(_x(part, "./*[local-name()='title'][@type='main']")[:1]) or _t(
            _x(part, "./*[local-name()='title']")[:1]
        )
        if not analytic:  # a book: its monograph title, never a journal's
            title = _t(_x(bib, "./*[local-name()='monogr']/*[local-name()='title'][@level='m']"))
        authors = [
            _person(p, "forename", "surname")
            for p in _x(
                part if analytic else bib, ".//*[local-name()='author']/*[local-name()='persName']"
            )
        ]
        raw = {el.get("type", ""): _t([el]) for el in _x(bib, ".//*[local-name()='idno']")}
        authors = [a for a in authors if a]
        dates = _x(bib, ".//*[local-name()='imprint']/*[local-name()='date'][@when]")
        year = year_from(dates[0].get("when")) if dates else None
        label = reference_label(title, authors, year)
        _add(keys, reference_key(normalize_ids(raw), title, authors), label)
    return keys


def jats_references(root: Any) -> dict[str, str]:
    """Keys of the ``ref`` entries of a JATS article's ``ref-list``, in order."""
    keys: dict[str, str] = {}
    for ref in _x(root, "//*[local-name()='back']//*[local-name()='ref']"):
        raw = {
            ("pmcid" if el.get("pub-id-type") == "pmc" else el.get("pub-id-type", "")): _t([el])
            for el in _x(ref, ".//*[local-name()='pub-id']")
        }
        title = _t(_x(ref, ".//*[local-name()='article-title']")[:1]) or _t(
            _x(ref, ".//*[local-name()='chapter-title']")[:1]
        )
        if not title:
            title = _t(_x(ref, ".//*[local-name()='source']")[:1])
        names = _x(ref, ".//*[local-name()='name']")
        authors = [a for a in (_person(n, "given-names", "surname") for n in names) if a]
        year = year_from(_t(_x(ref, ".//*[local-name()='year']")[:1]))
        label = reference_label(title, authors, year)
        _add(keys, reference_key(normalize_ids(raw), title, authors[:1]), label)
    return keys


def s2orc_references(parse: Any) -> dict[str, str]:
    """Keys of doc2json's ``pdf_parse.bib_entries`` (``other_ids`` {DOI: [...], arXiv: [...]})."""
    keys: dict[str, str] = {}
    entries = parse.get("bib_entries") if isinstance(parse, dict) else None
    for entry in (entries or {}).values() if isinstance(entries, dict) else []:
        if not isinstance(entry, dict):
            continue
        other: dict[str, Any] = (
            entry["other_ids"] if isinstance(entry.get("other_ids"), dict) else {}
        )
        raw = {k: (v[0] if isinstance(v, list) and v else v) for k, v in other.items() if v}
        authors = [
            " ".join(p for p in (a.get("first", ""), a.get("last", "")) if p)
            for a in entry.get("authors") or []
            if isinstance(a, dict)
        ]
        title = clean_text(entry.get("title"))
        label = reference_label(title, authors, year_from(entry.get("year")))
        _add(keys, reference_key(normalize_ids(raw), title, authors), label)
    return keys


def _spans(ann: Any) -> list[tuple[int, int, dict[str, Any]]]:
    if isinstance(ann, str):
        try:
            ann = json.loads(ann)
        except ValueError:
            return []
    out = []
    for a in ann if isinstance(ann, list) else []:
        if (
            isinstance(a, dict)
            and isinstance(a.get("start"), int)
            and isinstance(a.get("end"), int)
        ):
            attrs: dict[str, Any] = a["attributes"] if isinstance(a.get("attributes"), dict) else {}
            out.append((int(a["start"]), int(a["end"]), attrs))
    return out


def s2orc_2023_references(text: str, annotations: Any) -> dict[str, str]:
    """Keys of the S2ORC 2023 ``bibentry`` annotations: the S2 corpus id S2 matched
    (``matched_paper_id``), else the ``bibtitle`` and first ``bibauthorlastname`` inside it."""
    if not isinstance(annotations, dict):
        return {}
    titles = _spans(annotations.get("bibtitle"))
    lasts = _spans(annotations.get("bibauthorlastname"))
    keys: dict[str, str] = {}
    for start, end, attrs in _spans(annotations.get("bibentry")):
        title = clean_text(next((text[s:e] for s, e, _ in titles if start <= s and e <= end), ""))
        last = clean_text(next((text[s:e] for s, e, _ in lasts if start <= s and e <= end), ""))
        names = [last] if last else []
        corpus = normalize_corpusid(attrs.get("matched_paper_id"))
        key = f"corpusid:{corpus}" if corpus else reference_key({}, title, names)
        _add(keys, key, reference_label(title, names))
    return keys
