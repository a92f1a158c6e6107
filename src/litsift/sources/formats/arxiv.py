"""arXiv metadata: OAI-PMH responses (``arXiv``, ``arXivRaw``, ``oai_dc``), API Atom feeds
(the classic layout and the 2026 one), and the Kaggle metadata snapshot (JSON Lines).

XML is parsed with lxml (no network, no DTDs, no entity expansion), elements matched by local
name so either namespace layout reads. :func:`parse_oai_page` and :func:`parse_atom_page` give
one :class:`~litsift.sources.base.Page` per response body, for files and for
``litsift sync`` (:mod:`litsift.sources.online.sync`): records, the resumption token / next start,
the total, the OAI ``<error>`` or the API's error entry, and the newest datestamp. A record is a
preprint (CSL ``article``) unless its ``journal-ref`` names where it was published: then its
container, type, volume and pages are read from it (:mod:`~litsift.sources.formats.journal_refs`).

Formats: OAI-PMH 2.0 (openarchives.org/OAI/openarchivesprotocol.html); arXiv's metadata
formats (arxiv.org/OAI/arXiv.xsd, arXivRaw.xsd); the arXiv API user manual
(info.arxiv.org/help/api/user-manual.html).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from lxml import etree

from litsift.errors import IngestError
from litsift.sources.base import BadItem, Format, Page, SourceRecord, clean_text, year_from
from litsift.sources.formats.journal_refs import journal_ref_facts
from litsift.sources.formats.jsonl import first_object_keys
from litsift.sources.identity.ids import normalize_arxiv, normalize_doi
from litsift.types import Kind

__all__ = ["FORMATS", "parse_atom_page", "parse_oai_page", "read_snapshot"]

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=False)


def _xml(data: bytes, what: str) -> Any:
    try:
        return etree.fromstring(data, parser=_PARSER)
    except etree.XMLSyntaxError as err:
        raise IngestError(
            f"not well-formed {what} XML ({err})"[:300], "the response is cut or not XML"
        ) from None


def _local(el: Any) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _kids(el: Any, name: str) -> list[Any]:
    return [c for c in el if _local(c) == name]


def _kid(el: Any, name: str) -> Any:
    for c in el:
        if _local(c) == name:
            return c
    return None


def _text(el: Any) -> str:
    return clean_text("".join(el.itertext())) if el is not None else ""


def _year_of(date: str) -> int | None:
    if not date:
        return None
    try:
        return parsedate_to_datetime(date).year  # arXivRaw: "Mon, 2 Apr 2007 19:18:42 GMT"
    except (TypeError, ValueError):
        return year_from(date)


def _abs_url(arxiv: str) -> str:
    return f"https://arxiv.org/abs/{arxiv}"


def _family_given(name: str) -> tuple[str, str]:
    if "," in name:
        family, given = (p.strip() for p in name.split(",", 1))
        return family, given
    parts = name.split()
    return (parts[-1] if parts else ""), " ".join(parts[:-1])


def _oai_record(meta: Any, arxiv: str, location: str) -> SourceRecord:
    kind = _local(meta)
    authors: list[str] = []
    families: list[str] = []
    ids = {"arxiv": arxiv}
    if kind == "dc":
        title = _text(_kid(meta, "title"))
        descriptions = [_text(d) for d in _kids(meta, "description")]
        abstract = next((d for d in descriptions if not d.startswith("Comment:")), "")
        for creator in _kids(meta, "creator"):
            family, given = _family_given(_text(creator))
            authors.append(f"{given} {family}".strip())
            families.append(family)
        dates = [_text(d) for d in _kids(meta, "date")]
        year = year_from(dates[0]) if dates else None
        for ident in _kids(meta, "identifier"):
            doi = normalize_doi(_text(ident)) if "doi" in _text(ident).lower() else None
            if doi:
                ids["doi"] = doi
        license_ = _text(_kid(meta, "rights"))
        venue = ""
    else:
        title = _text(_kid(meta, "title"))
        abstract = _text(_kid(meta, "abstract"))
        holder = _kid(meta, "authors")
        if holder is not None and len(holder):  # arXiv: <author><keyname/><forenames/>
            for a in _kids(holder, "author"):
                family = _text(_kid(a, "keyname"))
                given = _text(_kid(a, "forenames"))
                authors.append(f"{given} {family}".strip())
                families.append(family)
        elif holder is not None:  # arXivRaw: "A. One, B. Two and C. Three"
            for name in re.split(r",\s*|\s+and\s+", _text(holder)):
                if name.strip():
                    authors.append(name.strip())
                    families.append(name.strip().split()[-1])
        created = _text(_kid(meta, "created"))
        versions = _kids(meta, "version")
        first_date = _text(_kid(versions[0], "date")) if versions else ""
        year = year_from(created) or _year_of(first_date)
        doi = normalize_doi(_text(_kid(meta, "doi")))
        if doi:
            ids["doi"] = doi
        license_ = _text(_kid(meta, "license"))
        venue = _text(_kid(meta, "journal-ref"))
    venue, facts = journal_ref_facts(venue)
    return SourceRecord(
        location=location,
        title=title,
        abstract=abstract,
        authors=authors,
        family_names=families,
        year=year,
        venue=venue,
        url=_abs_url(arxiv),
        license=license_,
        ids=ids,
        source_key=arxiv,
        biblio=facts,
    )


def parse_oai_page(data: bytes) -> Page:
    """One OAI-PMH response (ListRecords / GetRecord / an ``<error>``) as a page.

    Raises:
        IngestError: the body is not well-formed XML or not an OAI-PMH response.
    """
    root = _xml(data, "OAI-PMH")
    if _local(root) != "OAI-PMH":
        raise IngestError(f"not an OAI-PMH response (root <{_local(root)}>)", "")
    page = Page()
    error = _kid(root, "error")
    if error is not None:
        code = error.get("code", "")
        if code == "noRecordsMatch":
            return page
        page.error = f"{code}: {_text(error)}".strip(": ")
        return page
    body = _kid(root, "ListRecords")
    if body is None:
        body = _kid(root, "GetRecord")
    if body is None:
        verb = next((_local(c) for c in root if _local(c) not in ("responseDate", "request")), "?")
        page.error = f"holds no records (an OAI-PMH {verb} response)"
        return page
    stamps: list[str] = []
    for n, record in enumerate(_kids(body, "record"), start=1):
        header = _kid(record, "header")
        ident = _text(_kid(header, "identifier")) if header is not None else ""
        arxiv = normalize_arxiv(ident) or ident
        location = f"record {n} ({arxiv})" if arxiv else f"record {n}"
        stamp = _text(_kid(header, "datestamp")) if header is not None else ""
        if stamp:
            stamps.append(stamp)
        if header is not None and header.get("status") == "deleted":
            continue
        meta_el = _kid(record, "metadata")
        meta = meta_el[0] if meta_el is not None and len(meta_el) else None
        if meta is None or not normalize_arxiv(ident):
            page.items.append(BadItem(location, "no metadata or no arXiv identifier"))
            continue
        try:
            page.items.append(_oai_record(meta, normalize_arxiv(ident) or "", location))
        except Exception as err:
            page.items.append(BadItem(location, f"{type(err).__name__}: {err}"[:200]))
    token = _kid(body, "resumptionToken")
    if token is not None:
        page.next = (token.text or "").strip() or None
        size = token.get("completeListSize")
        page.total = int(size) if size and size.isdigit() else None
    page.high_water = max(stamps) if stamps else None
    return page


def parse_atom_page(data: bytes) -> Page:
    """One arXiv API Atom feed as a page (``next`` = the next ``start`` while results remain).

    Raises:
        IngestError: the body is not well-formed XML or not an Atom feed.
    """
    root = _xml(data, "Atom")
    if _local(root) != "feed":
        raise IngestError(f"not an Atom feed (root <{_local(root)}>)", "")
    page = Page()
    entries = _kids(root, "entry")
    for n, entry in enumerate(entries, start=1):
        ident = _text(_kid(entry, "id"))
        title = _text(_kid(entry, "title"))
        if "api/errors" in ident or (title == "Error" and not normalize_arxiv(ident)):
            page.error = _text(_kid(entry, "summary")) or "the arXiv API returned an error"
            return page
        arxiv = normalize_arxiv(ident)
        location = f"entry {n} ({arxiv})" if arxiv else f"entry {n}"
        if not arxiv:
            page.items.append(BadItem(location, f"no arXiv id in {ident!r}"[:200]))
            continue
        authors = [_text(_kid(a, "name")) for a in _kids(entry, "author")]
        ids = {"arxiv": arxiv}
        doi = normalize_doi(_text(_kid(entry, "doi")))
        if doi:
            ids["doi"] = doi
        venue, facts = journal_ref_facts(_text(_kid(entry, "journal_ref")))
        page.items.append(
            SourceRecord(
                location=location,
                title=title,
                abstract=_text(_kid(entry, "summary")),
                authors=[a for a in authors if a],
                family_names=[a.split()[-1] for a in authors if a],
                year=year_from(_text(_kid(entry, "published"))),
                venue=venue,
                url=_abs_url(arxiv),
                ids=ids,
                source_key=arxiv,
                biblio=facts,
            )
        )
    total = _text(_kid(root, "totalResults"))
    start = _text(_kid(root, "startIndex"))
    per = _text(_kid(root, "itemsPerPage"))
    if total.isdigit():
        page.total = int(total)
        if start.isdigit() and per.isdigit() and entries:
            following = int(start) + len(entries)
            page.next = str(following) if following < int(total) else None
    stamps = [_text(_kid(e, "updated")) for e in entries]
    page.high_water = max((s for s in stamps if s), default=None)
    return page


def _read_xml(path: Path, parse: Any) -> Iterator[SourceRecord | BadItem]:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise IngestError(f"{path}: cannot be read ({err.strerror})", "check the path") from None
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        page = parse(data)
    except IngestError as err:
        raise IngestError(f"{path}: {err.message}", err.hint) from None
    if page.error:
        raise IngestError(f"{path}: {page.error}", "this response holds no papers")
    yield from page.items


def read_oai(path: Path) -> Iterator[SourceRecord | BadItem]:
    """The records of a saved OAI-PMH response.

    Raises:
        IngestError: unreadable, not OAI-PMH, an OAI error, or a response without records.
    """
    return _read_xml(path, parse_oai_page)


def read_atom(path: Path) -> Iterator[SourceRecord | BadItem]:
    """The entries of a saved arXiv API Atom feed.

    Raises:
        IngestError: unreadable, not Atom, or the API's error feed.
    """
    return _read_xml(path, parse_atom_page)


def _snapshot_record(obj: dict[str, Any], location: str) -> SourceRecord:
    arxiv = normalize_arxiv(obj.get("id"))
    if not arxiv:
        raise ValueError(f"no arXiv id ({obj.get('id')!r})")
    parsed = obj.get("authors_parsed")
    authors, families = [], []
    if isinstance(parsed, list) and parsed:
        for p in parsed:
            if isinstance(p, list) and p:
                family = clean_text(p[0])
                given = clean_text(p[1]) if len(p) > 1 else ""
                authors.append(f"{given} {family}".strip())
                families.append(family)
    elif isinstance(obj.get("authors"), str):
        for name in re.split(r",\s*|\s+and\s+", obj["authors"]):
            if name.strip():
                authors.append(clean_text(name))
                families.append(clean_text(name).split()[-1])
    versions = obj.get("versions") or []
    first = versions[0].get("created", "") if versions and isinstance(versions[0], dict) else ""
    ids = {"arxiv": arxiv}
    doi = normalize_doi(obj.get("doi"))
    if doi:
        ids["doi"] = doi
    venue, facts = journal_ref_facts(obj.get("journal-ref"))
    return SourceRecord(
        location=location,
        title=clean_text(obj.get("title")),
        abstract=clean_text(obj.get("abstract")),
        authors=authors,
        family_names=families,
        year=_year_of(first) or year_from(obj.get("update_date")),
        venue=venue,
        url=_abs_url(arxiv),
        license=clean_text(obj.get("license")),
        ids=ids,
        source_key=arxiv,
        biblio=facts,
    )


def read_snapshot(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every line of Kaggle's ``arxiv-metadata-oai-snapshot.json`` (JSON Lines, maybe .gz).

    Raises:
        IngestError: the file cannot be read.
    """
    try:
        fh = gzip.open(path, "rb") if path.read_bytes()[:2] == b"\x1f\x8b" else path.open("rb")
    except OSError as err:
        raise IngestError(f"{path}: cannot be read ({err.strerror})", "check the path") from None
    with fh:
        for n, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
                if not isinstance(obj, dict):
                    raise ValueError("not a JSON object")
                yield _snapshot_record(obj, f"line {n}")
            except (ValueError, UnicodeDecodeError, RecursionError) as err:
                yield BadItem(f"line {n}", f"{type(err).__name__}: {err}"[:200])


def _sniff_oai(head: bytes, path: Path) -> int:
    return 95 if b"<OAI-PMH" in head[:2000] else 0


def _sniff_atom(head: bytes, path: Path) -> int:
    top = head[:3000]
    return 95 if b"<feed" in top and (b"arxiv" in top.lower()) else 0


#: the snapshot's keys before ``abstract``, all a first line cut inside its abstract shows
_SNAPSHOT_HEAD_KEYS = {"id", "submitter", "authors", "title", "categories", "abstract"}


def _sniff_snapshot(head: bytes, path: Path) -> int:
    line = head.split(b"\n", 1)[0]
    if line.startswith(b"{") and b'"authors_parsed"' in line and b'"versions"' in line:
        return 95
    if b"\n" not in head and line.startswith(b"{"):  # the head ends inside a long first line
        keys = first_object_keys(head)
        return 95 if keys is not None and _SNAPSHOT_HEAD_KEYS <= keys else 0
    return 0


FORMATS = [
    Format(
        "arxiv-oai",
        Kind.PAPER,
        read_oai,
        _sniff_oai,
        (".xml",),
        False,
        "arXiv OAI-PMH response (arXiv, arXivRaw, oai_dc)",
    ),
    Format(
        "arxiv-atom",
        Kind.PAPER,
        read_atom,
        _sniff_atom,
        (".xml", ".atom"),
        False,
        "arXiv API Atom feed",
    ),
    Format(
        "arxiv-snapshot",
        Kind.PAPER,
        read_snapshot,
        _sniff_snapshot,
        (".json", ".jsonl"),
        False,
        "arXiv metadata snapshot (Kaggle JSON Lines)",
    ),
]
