"""Structured full text: GROBID TEI XML, PubMed Central JATS (``.nxml``), and S2ORC JSON
(doc2json's per-paper files and the S2ORC 2023 dataset lines with span annotations).

Each gives one record per paper with its title, abstract, authors (a JATS article's editors,
``contrib-type="editor"``, as its editors), identifiers, year, venue and ``sections``
((heading, paragraph) pairs). XML is parsed with lxml without network access,
DTD loading or entity expansion (JATS files name a DTD they do not ship).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lxml import etree

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, SourceRecord, clean_text, labelled, year_from
from litsift.sources.formats.fulltext_refs import (
    jats_references,
    s2orc_2023_references,
    s2orc_references,
    tei_references,
)
from litsift.sources.formats.people import People, byline
from litsift.sources.identity.ids import normalize_ids
from litsift.types import Kind

__all__ = ["FORMATS", "read_jats", "read_s2orc", "read_tei"]

_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=False
)


def _root(path: Path) -> Any:
    try:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        return etree.fromstring(data, parser=_PARSER)
    except (OSError, EOFError) as err:
        raise IngestError(f"{path}: cannot be read ({err})"[:300], "check the file") from None
    except etree.XMLSyntaxError as err:
        raise IngestError(
            f"{path}: not well-formed XML ({err})"[:300], "is the file cut?"
        ) from None


def _x(el: Any, path: str) -> list[Any]:
    return list(el.xpath(path))


#: elements whose text is not the text around them: a formula's LaTeX source (JATS gives it
#: beside its MathML, with a whole ``\\documentclass`` preamble), and the tables and figures
#: that PubMed Central articles set inside a paragraph (their cells ran into its sentences)
_NOT_TEXT = frozenset({"tex-math", "table-wrap", "table-wrap-group", "fig", "fig-group"})


def _text(el: Any) -> str:
    if not hasattr(el, "itertext"):
        return str(el)
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and etree.QName(child).localname not in _NOT_TEXT:
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _t(els: list[Any]) -> str:
    return clean_text(" ".join(_text(e) for e in els))


def _tei_venue(header: Any) -> str:
    """The journal or proceedings of a TEI header: its main title, never joined to its
    abbreviation (GROBID gives both: "Journal of NeuroEngineering and Rehabilitation" and
    "J NeuroEngineering Rehabil")."""
    titles = _x(header, ".//*[local-name()='monogr']/*[local-name()='title']")
    main = [t for t in titles if t.get("type") == "main"]
    full = [t for t in titles if t.get("type") != "abbrev"]
    return _t((main or full or titles)[:1])


def _tei_record(root: Any, path: Path) -> SourceRecord:
    header = (_x(root, "//*[local-name()='teiHeader']") or [root])[0]
    title = _t(_x(header, ".//*[local-name()='titleStmt']/*[local-name()='title']"))
    abstract = _t(_x(header, ".//*[local-name()='abstract']"))
    authors, families = [], []
    for pers in _x(
        header,
        ".//*[local-name()='sourceDesc']//*[local-name()='author']/*[local-name()='persName']",
    ):
        given = _t(_x(pers, "./*[local-name()='forename']"))
        family = _t(_x(pers, "./*[local-name()='surname']"))
        if family or given:
            authors.append(f"{given} {family}".strip())
            families.append(family)
    raw_ids = {el.get("type", ""): _t([el]) for el in _x(header, ".//*[local-name()='idno']")}
    dates = [d.get("when") for d in _x(header, ".//*[local-name()='date'][@when]")]
    sections = []
    for div in _x(root, "//*[local-name()='body']/*[local-name()='div']"):
        head = _t(_x(div, "./*[local-name()='head']"))
        for p in _x(div, "./*[local-name()='p']"):
            if _t([p]):
                sections.append((head, _t([p])))
    return SourceRecord(
        location=path.name,
        title=title,
        abstract=abstract,
        authors=authors,
        family_names=families,
        year=year_from(dates[0]) if dates else None,
        venue=_tei_venue(header),
        ids=normalize_ids(raw_ids),
        sections=sections,
        source_key=path.name,
        references=list(refs := tei_references(root)),
        reference_labels=labelled(refs),
    )


def read_tei(path: Path) -> Iterator[SourceRecord | BadItem]:
    """The paper of a GROBID TEI file.

    Raises:
        IngestError: unreadable or not well-formed XML.
    """
    yield _tei_record(_root(path), path)


def _contribs(meta: etree._Element, role: str) -> People:
    """The persons of the article's ``contrib contrib-type=ROLE`` (``author``, or ``editor``:
    its academic editor, as PLOS and PMC write it), in order."""
    people = People([], [], [])
    for contrib in _x(meta, f".//*[local-name()='contrib'][@contrib-type='{role}']"):
        given = _t(_x(contrib, ".//*[local-name()='given-names']"))
        family = _t(_x(contrib, ".//*[local-name()='surname']"))
        if family or given:
            people.names.append(f"{given} {family}".strip())
            people.families.append(family)
            if family:
                people.parts.append((family, given))
    return people


def read_jats(path: Path) -> Iterator[SourceRecord | BadItem]:
    """The article of a JATS file (PubMed Central ``.nxml``).

    Raises:
        IngestError: unreadable, not well-formed, or no ``<article-meta>``.
    """
    root = _root(path)
    meta = (_x(root, "//*[local-name()='article-meta']") or [None])[0]
    if meta is None:
        raise IngestError(f"{path}: no <article-meta>: not a JATS article", "")
    raw_ids = {
        el.get("pub-id-type", ""): _t([el]) for el in _x(meta, "./*[local-name()='article-id']")
    }
    years = [_t([y]) for y in _x(meta, ".//*[local-name()='pub-date']/*[local-name()='year']")]
    abstracts = [a for a in _x(meta, "./*[local-name()='abstract']") if not a.get("abstract-type")]
    lic = _x(meta, ".//*[local-name()='license']")
    license_ = ""
    if lic:
        license_ = next((v for k, v in lic[0].attrib.items() if k.endswith("href")), "") or _t(lic)
    sections = []
    for sec in _x(root, "//*[local-name()='body']//*[local-name()='sec']"):
        head = _t(_x(sec, "./*[local-name()='title']"))
        for p in _x(sec, "./*[local-name()='p']"):
            if _t([p]):
                sections.append((head, _t([p])))
    yield SourceRecord(
        location=path.name,
        title=_t(_x(meta, ".//*[local-name()='article-title']")[:1]),
        abstract=_t(abstracts or _x(meta, "./*[local-name()='abstract']")[:1]),
        **byline(_contribs(meta, "author"), _contribs(meta, "editor")),
        year=min((y for y in (year_from(v) for v in years) if y), default=None),
        venue=_t(_x(root, "//*[local-name()='journal-title']")[:1]),
        license=clean_text(license_),
        ids=normalize_ids({("pmcid" if k == "pmc" else k): v for k, v in raw_ids.items()}),
        sections=sections,
        source_key=path.name,
        references=list(refs := jats_references(root)),
        reference_labels=labelled(refs),
    )


def _spans(ann: Any) -> list[tuple[int, int]]:
    if isinstance(ann, str):
        try:
            ann = json.loads(ann)
        except ValueError:
            return []
    out = []
    for a in ann or []:
        if (
            isinstance(a, dict)
            and isinstance(a.get("start"), int)
            and isinstance(a.get("end"), int)
        ):
            out.append((int(a["start"]), int(a["end"])))
    return out


def _s2orc_record(obj: dict[str, Any], location: str) -> SourceRecord:
    if "pdf_parse" in obj:  # doc2json
        authors = [
            " ".join(p for p in (a.get("first", ""), *a.get("middle", []), a.get("last", "")) if p)
            for a in obj.get("authors") or []
            if isinstance(a, dict)
        ]
        parse = obj["pdf_parse"] or {}
        sections = [
            (clean_text(p.get("section")), clean_text(p.get("text")))
            for p in parse.get("body_text") or []
            if isinstance(p, dict) and p.get("text")
        ]
        abstract = obj.get("abstract")
        if not isinstance(abstract, str):
            abstract = " ".join(clean_text(p.get("text")) for p in parse.get("abstract") or [])
        return SourceRecord(
            location=location,
            title=clean_text(obj.get("title")),
            abstract=clean_text(abstract),
            authors=[clean_text(a) for a in authors if clean_text(a)],
            family_names=[
                clean_text(a.get("last")) for a in obj.get("authors") or [] if isinstance(a, dict)
            ],
            year=year_from(obj.get("year")),
            sections=sections,
            source_key=str(obj.get("paper_id") or ""),
            references=list(refs := s2orc_references(parse)),
            reference_labels=labelled(refs),
        )
    content = obj.get("content") or {}
    text = content.get("text") or ""
    ann = content.get("annotations") or {}

    def cut(name: str) -> list[str]:
        return [clean_text(text[s:e]) for s, e in _spans(ann.get(name))]

    heads = sorted(_spans(ann.get("sectionheader")))
    sections = []
    for s, e in sorted(_spans(ann.get("paragraph"))):
        head = next((clean_text(text[hs:he]) for hs, he in reversed(heads) if he <= s), "")
        sections.append((head, clean_text(text[s:e])))
    ids = normalize_ids({k: v for k, v in (obj.get("externalids") or {}).items() if v})
    if obj.get("corpusid"):
        ids["corpusid"] = str(obj["corpusid"])
    firsts, lasts = cut("authorfirstname"), cut("authorlastname")
    authors = (
        [f"{f} {la}" for f, la in zip(firsts, lasts, strict=True)]
        if len(firsts) == len(lasts)
        else lasts
    )
    return SourceRecord(
        location=location,
        title=" ".join(cut("title")[:1]),
        abstract=" ".join(cut("abstract")),
        authors=authors,
        family_names=lasts if len(lasts) == len(authors) else [a.split(" ")[-1] for a in authors],
        venue=" ".join(cut("venue")[:1]),
        ids=ids,
        sections=sections,
        source_key=str(obj.get("corpusid") or ""),
        references=list(refs := s2orc_2023_references(text, ann)),
        reference_labels=labelled(refs),
    )


def read_s2orc(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Papers of a doc2json file or of S2ORC dataset lines (JSON Lines, maybe .gz).

    Raises:
        IngestError: unreadable or not JSON.
    """
    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
    except (OSError, EOFError) as err:
        raise IngestError(f"{path}: cannot be read ({err})"[:300], "") from None
    text = raw.decode("utf-8", errors="replace")
    try:
        doc = json.loads(text)
        yield _s2orc_record(doc, path.name)
        return
    except ValueError:
        pass
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield _s2orc_record(json.loads(line), f"line {n}")
        except (ValueError, AttributeError, TypeError) as err:
            yield BadItem(f"line {n}", f"{type(err).__name__}: {err}"[:200])


def _sniff_tei(head: bytes, path: Path) -> int:
    return 95 if b"<TEI" in head[:4000] and b"tei-c.org" in head[:4000] else 0


def _sniff_jats(head: bytes, path: Path) -> int:
    top = head[:4000]
    return (
        95
        if b"<article" in top
        and (b"JATS" in top or b"journalpublishing" in top or b"article-type" in top)
        else 0
    )


def _sniff_s2orc(head: bytes, path: Path) -> int:
    top = head[:65536]
    return 96 if (b'"pdf_parse"' in top or (b'"content"' in top and b'"annotations"' in top)) else 0


FORMATS = [
    Format(
        "grobid-tei",
        Kind.PAPER,
        read_tei,
        _sniff_tei,
        (".tei.xml", ".xml"),
        False,
        "GROBID TEI XML",
    ),
    Format(
        "jats",
        Kind.PAPER,
        read_jats,
        _sniff_jats,
        (".nxml", ".xml"),
        False,
        "JATS XML (PubMed Central)",
    ),
    Format(
        "s2orc",
        Kind.PAPER,
        read_s2orc,
        _sniff_s2orc,
        (".json", ".jsonl"),
        False,
        "S2ORC full text (doc2json files, S2ORC dataset lines)",
    ),
]
