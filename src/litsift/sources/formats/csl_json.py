"""CSL-JSON (Zotero "CSL JSON" export, Better BibTeX's "Better CSL JSON", Manubot items).

A JSON array of CSL items (the Citation Style Language's data schema): ``title``,
``abstract``, ``author`` and ``editor`` (``family``/``given`` or ``literal``), ``issued``
(``date-parts`` or ``raw``/``literal``), ``container-title``, ``DOI``, ``URL``, ``PMID``,
``PMCID``, ``keyword``, ``id`` / ``citation-key``, ``annote`` (the user's annotation, what
litsift's export and pandoc's BibTeX ``annote`` write: the record's note). Identifiers are also
read off ``URL`` and ``note`` (Zotero writes its Extra field there, ``arXiv: 2101.00001``;
Manubot its provenance: never read as a note). One JSON file per line (JSON Lines) is accepted
too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import (
    BadItem,
    Format,
    SourceRecord,
    clean_text,
    read_text,
    year_from,
)
from litsift.sources.formats.biblio_types import biblio, csl_type
from litsift.sources.formats.json_items import load_json_items, looks_like_json_lines
from litsift.sources.formats.people import People, byline
from litsift.sources.identity.ids import ids_in_text, normalize_ids
from litsift.types import Kind

__all__ = ["FORMATS", "csl_record", "read_csl_json"]

#: biblio fact -> CSL variable
_BIBLIO_VARIABLES = {
    "genre": "genre",
    "volume": "volume",
    "issue": "issue",
    "pages": "page",
    "publisher": "publisher",
}
_CSL_KEYS = {"issued", "container-title", "citation-key", "author", "type", "URL", "DOI"}


def _year(item: dict[str, Any]) -> int | None:
    issued = item.get("issued") or {}
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            year = year_from(parts[0][0]) or year_from(str(parts[0][0]))
            if year:
                return year
        return year_from(issued.get("raw") or issued.get("literal") or "")
    return year_from(str(issued))


def _people(names: Any) -> People:
    """The persons of a CSL name list, in order. A ``literal`` name (an organisation,
    ``{"literal": "Paderborn University"}``) is one name, its family name its whole name and
    its parts ``(name, "")``, as a BibTeX ``{Org Name}`` is stored, never split."""
    authors: list[str] = []
    families: list[str] = []
    name_parts: list[tuple[str, str]] = []
    for person in names if isinstance(names, list) else []:
        if not isinstance(person, dict):
            continue
        family = clean_text(person.get("family"))
        given = clean_text(person.get("given"))
        literal = clean_text(person.get("literal"))
        # the CSL name parts in reading order: "Gijs van de Kuilen" was read "Gijs Kuilen"
        parts = ("dropping-particle", "non-dropping-particle")
        full = " ".join(p for p in (*(clean_text(person.get(k)) for k in parts), family) if p)
        suffix = clean_text(person.get("suffix"))
        name = " ".join(p for p in (given, full) if p) or literal
        name = f"{name}, {suffix}" if name and suffix else name
        if name:
            authors.append(name)
            if full and not literal:
                families.append(full)
                name_parts.append((full, given))
            elif literal and not full:  # an organisation ("TIME USA"): one name, never split
                families.append(literal)
                name_parts.append((literal, ""))
            else:
                families.append(full or name.split(" ")[-1])
    return People(authors, families, name_parts)


def csl_record(item: dict[str, Any], location: str) -> SourceRecord:
    """A litsift record from one CSL item (raises on a non-object); its ``editor`` are its
    editors (an edited book's, or those of the book a chapter is in)."""
    ids: dict[str, str] = {}
    for key in ("note", "URL"):
        if isinstance(item.get(key), str):
            for line in item[key].splitlines():
                ids.update(ids_in_text(line))
    ids.update(normalize_ids({k: item.get(k) for k in ("DOI", "PMID", "PMCID") if item.get(k)}))
    keywords = item.get("keyword")
    tags = [clean_text(k) for k in keywords.split(",")] if isinstance(keywords, str) else []
    annote = item.get("annote")
    annote = annote.splitlines() if isinstance(annote, str) else []
    note = "\n".join(map(clean_text, annote)).strip()  # its lines cleaned, blank lines kept
    return SourceRecord(
        location=location,
        title=clean_text(item.get("title")),
        abstract=clean_text(item.get("abstract")),
        **byline(_people(item.get("author")), _people(item.get("editor"))),
        year=_year(item),
        venue=clean_text(  # a book's publisher where it has no container, as BibTeX's import
            item.get("container-title") or item.get("event-title") or item.get("publisher")
        ),
        url=clean_text(item.get("URL")),
        license=clean_text(item.get("license")),
        ids=ids,
        tags=[t for t in tags if t],
        notes=[note] if note else [],
        source_key=clean_text(item.get("citation-key") or item.get("id")),
        biblio=biblio(
            csl_type("csl", item.get("type")),
            **{k: clean_text(item.get(v)) for k, v in _BIBLIO_VARIABLES.items()},
        ),
    )


def _read_damaged(text: str) -> tuple[Any, BadItem | None]:
    """JSON Lines of items (a cut line is a bad item), or what a cut array still holds."""
    if not looks_like_json_lines(text):
        return load_json_items(text, [(), ("items",)])
    data: list[Any] = []
    for n, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                data.append(json.loads(line))
            except (ValueError, RecursionError):
                data.append(BadItem(f"line {n}", "not a complete JSON object (a cut line?)"))
    return data, None


def read_csl_json(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every item of a CSL-JSON array (or JSON Lines of items).

    A cut or damaged array keeps its complete items; the cut (or first broken) item is a bad
    item at its line (:func:`~litsift.sources.formats.json_items.load_json_items`).

    Raises:
        IngestError: the file cannot be read, is not JSON, or holds no CSL items.
    """
    text = read_text(path)
    try:
        data, cut = json.loads(text), None
    except (ValueError, RecursionError):
        data, cut = _read_damaged(text)
    if isinstance(data, dict) and "items" in data:
        data = data["items"]
    if not isinstance(data, list) or not (data or cut):
        raise IngestError("holds no CSL-JSON items", "export CSL JSON (an array of items)")
    for n, item in enumerate(data, start=1):
        if isinstance(item, BadItem):
            yield item
        elif not isinstance(item, dict):
            what = "array" if isinstance(item, list) else "value"
            yield BadItem(f"item {n}", f"not a CSL item (a JSON {what}, not an object)")
        else:
            yield csl_record(item, f"item {n}")
    if cut is not None:
        yield cut


def sniff_csl_json(head: bytes, path: Path) -> int:
    """85 for a JSON array whose first object has CSL keys (``issued``, ``container-title``...)."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"["):
        return 0
    start = text.find(b"{")
    sample = text[start : start + 4000]
    hits = sum(1 for k in _CSL_KEYS if f'"{k}"'.encode() in sample)
    return 85 if hits >= 2 and b'"itemType"' not in sample else 0


FORMATS = [
    Format(
        name="csl-json",
        kind=Kind.PAPER,
        read=read_csl_json,
        sniff=sniff_csl_json,
        extensions=(".json", ".csl.json"),
        description="CSL-JSON: Zotero / Better CSL JSON / Manubot exports",
    )
]
