"""Zotero libraries: the ``zotero.sqlite`` database (Zotero 5-9), a Zotero data directory, and
Better BibTeX's JSON export of a library.

``zotero.sqlite`` is opened read-only and ``immutable`` (``file:...?mode=ro&immutable=1``), so
a running Zotero's lock is neither needed nor disturbed and nothing is ever written; when a
``zotero.sqlite-wal`` beside it holds changes not yet checkpointed, a copy of both is read
instead, so recent items are not missed. Regular
items only (not notes, attachments, annotations; not items in the trash or in RSS feed
libraries); fields through
``itemData`` / ``itemDataValues`` / ``fieldsCombined`` (Zotero's field names: ``title``,
``abstractNote``, ``date``, ``DOI``, ``url``, ``publicationTitle``, ``extra``...), creators in
order, tags, collections as ``Parent/Child`` paths, child notes (HTML -> text), and PDF
attachments (``storage:NAME`` resolved against ``<data dir>/storage/<attachment key>/``).
The Better BibTeX JSON export (``items``, ``collections``) carries the same item fields.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.base import (
    BadItem,
    Format,
    SourceRecord,
    clean_text,
    decode_text,
    read_bytes,
    year_from,
)
from litsift.sources.formats.biblio_types import biblio, csl_type
from litsift.sources.formats.json_items import load_json_items
from litsift.sources.formats.people import People, byline
from litsift.sources.identity.ids import ids_in_text, normalize_ids
from litsift.types import Kind

__all__ = ["FORMATS", "read_bbt_json", "read_zotero", "zotero_record"]

_SKIP_TYPES = {"note", "attachment", "annotation"}
_VENUE_FIELDS = (
    "publicationTitle",
    "proceedingsTitle",
    "bookTitle",
    "conferenceName",
    "university",
    "institution",
    "websiteTitle",
    "repository",
    "publisher",
)
_AUTHOR_TYPES = {"author", "inventor", "programmer", "artist", "presenter", "podcaster"}
_TAG_RE = re.compile(r"<[^>]+>")


def html_text(html: str) -> str:
    """A Zotero note (HTML) as plain text (lxml; tags stripped if it is not HTML)."""
    if not html:
        return ""
    try:
        from lxml import html as lxml_html

        return clean_text(lxml_html.fromstring(html).text_content())
    except Exception:
        return clean_text(_TAG_RE.sub(" ", html))


def _people(creators: list[dict[str, Any]]) -> People:
    """Zotero creators as persons, in order."""
    names: list[str] = []
    families: list[str] = []
    parts: list[tuple[str, str]] = []
    for c in creators:
        last = clean_text(c.get("lastName"))
        first = clean_text(c.get("firstName"))
        name = " ".join(p for p in (first, last) if p) or clean_text(c.get("name"))
        if name:
            names.append(name)
            families.append(last or name.split(" ")[-1])
            if last and not c.get("name"):
                parts.append((last, first))
    return People(names, families, parts)


def zotero_record(
    fields: dict[str, Any],
    creators: list[dict[str, Any]],
    location: str,
    *,
    tags: list[str] | None = None,
    collections: list[str] | None = None,
    notes: list[str] | None = None,
    attachments: list[Path] | None = None,
    key: str = "",
) -> SourceRecord:
    """A litsift record from a Zotero item's fields and creators (``firstName``/``lastName`` or
    ``name``, ``creatorType``): its authors (the other creators when it has none), and its
    ``editor`` creators as its editors, never as its authors."""
    people = [c for c in creators if c.get("creatorType", "author") in _AUTHOR_TYPES]
    people = people or [c for c in creators if c.get("creatorType") != "editor"]
    editors = _people([c for c in creators if c.get("creatorType") == "editor"])
    # an edited book: identified by its editors, as when read as its authors
    people_fields = byline(_people(people), editors, identified_by_editors=not people)
    ids: dict[str, str] = {}
    extra = fields.get("extra") or ""
    for line in str(extra).splitlines():  # "arXiv: 2101.00001", "PMID: 123", "DOI: ..."
        if ":" in line:
            name, value = line.split(":", 1)
            ids.update(normalize_ids({name.strip(): value.strip()}))
        ids.update(ids_in_text(line))
    ids.update(ids_in_text(fields.get("url") or ""))
    ids.update(normalize_ids({"doi": fields.get("DOI")} if fields.get("DOI") else {}))
    if fields.get("archiveID"):  # "arXiv:2101.00001"
        ids.update(ids_in_text(f"arXiv:{str(fields['archiveID']).split(':')[-1]}"))
    return SourceRecord(
        location=location,
        title=clean_text(fields.get("title")),
        abstract=clean_text(fields.get("abstractNote")),
        **people_fields,
        year=year_from(fields.get("date")),
        venue=next((clean_text(fields[f]) for f in _VENUE_FIELDS if fields.get(f)), ""),
        url=clean_text(fields.get("url")),
        license=clean_text(fields.get("rights")),
        ids=ids,
        tags=tags or [],
        collections=collections or [],
        notes=[n for n in (notes or []) if n],
        attachments=attachments or [],
        source_key=key,
        biblio=biblio(
            csl_type("zotero", fields.get("itemType")),
            genre=fields.get("thesisType") or fields.get("reportType"),
            volume=fields.get("volume"),
            issue=fields.get("issue") or fields.get("reportNumber"),
            pages=fields.get("pages"),
            publisher=fields.get("publisher")
            or fields.get("university")
            or fields.get("institution"),
        ),
    )


# ------------------------------------------------------------------------- zotero.sqlite


def _with_wal(path: Path, wal: Path) -> sqlite3.Connection:
    """An in-memory copy of ``path`` with its write-ahead log applied.

    ``immutable=1`` reads the main file only: what a running Zotero wrote since its last
    checkpoint (recent items, edits) sits in ``zotero.sqlite-wal`` and would be silently
    missed. The database and its log are copied to a temporary directory, opened there (SQLite
    replays the log on open) and copied into memory; the originals are only read.
    """
    with tempfile.TemporaryDirectory(prefix="litsift-zotero-") as tmp:
        copy = Path(tmp) / path.name
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, Path(tmp) / wal.name)
        src = sqlite3.connect(copy)
        try:
            mem = sqlite3.connect(":memory:")
            src.backup(mem)
        finally:
            src.close()
    return mem


def _connect(path: Path) -> sqlite3.Connection:
    wal = path.with_name(path.name + "-wal")
    try:
        if wal.is_file() and wal.stat().st_size > 0:
            conn = _with_wal(path, wal)
        else:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except OSError as err:
        raise IngestError(
            f"{path}: cannot be read ({err.strerror or err})", "check the path"
        ) from None
    except sqlite3.Error as err:
        raise IngestError(f"{path}: not an SQLite database ({err})", "give zotero.sqlite") from None
    if not {"items", "itemData", "itemDataValues", "creators"} <= tables:
        conn.close()
        raise IngestError(
            f"{path}: an SQLite database, but not Zotero's",
            "give zotero.sqlite from the Zotero data directory (Settings > Advanced > Files)",
        )
    return conn


def _collection_paths(conn: sqlite3.Connection) -> dict[int, str]:
    rows = conn.execute("SELECT collectionID, collectionName, parentCollectionID FROM collections")
    info = {cid: (name, parent) for cid, name, parent in rows}

    def path(cid: int, depth: int = 0) -> str:
        name, parent = info[cid]
        if parent is None or parent not in info or depth > 50:
            return str(name)
        return f"{path(parent, depth + 1)}/{name}"

    return {cid: path(cid) for cid in info}


def read_zotero(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every regular item of a ``zotero.sqlite`` file or of the Zotero data directory holding it.

    Raises:
        IngestError: the path is not a Zotero database (or a directory without one).
    """
    db = path / "zotero.sqlite" if path.is_dir() else path
    if not db.is_file():
        raise IngestError(f"{path}: no zotero.sqlite here", "give the Zotero data directory")
    storage = db.parent / "storage"
    conn = _connect(db)
    try:
        field_table = (
            "fieldsCombined"
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'fieldsCombined'").fetchone()
            else "fields"
        )
        deleted = {r[0] for r in conn.execute("SELECT itemID FROM deletedItems")}
        # items of RSS feed libraries (libraries.type = 'feed') are subscriptions, not papers
        # the user kept: the Zotero 9 sample has 5 podcast episodes there
        feeds = {r[0] for r in conn.execute("SELECT libraryID FROM libraries WHERE type = 'feed'")}
        items = [
            (item_id, key, type_name)
            for item_id, key, type_name, library in conn.execute(
                "SELECT i.itemID, i.key, t.typeName, i.libraryID FROM items i "
                "JOIN itemTypes t USING (itemTypeID) ORDER BY i.itemID"
            )
            if library not in feeds
        ]
        fields: dict[int, dict[str, Any]] = {}
        for item_id, name, value in conn.execute(
            f"SELECT d.itemID, f.fieldName, v.value FROM itemData d "
            f"JOIN {field_table} f USING (fieldID) JOIN itemDataValues v USING (valueID)"
        ):
            fields.setdefault(item_id, {})[name] = value
        creators: dict[int, list[dict[str, Any]]] = {}
        for item_id, first, last, mode, ctype in conn.execute(
            "SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, ct.creatorType "
            "FROM itemCreators ic JOIN creators c USING (creatorID) "
            "JOIN creatorTypes ct USING (creatorTypeID) ORDER BY ic.itemID, ic.orderIndex"
        ):
            person = {"lastName": last, "firstName": first, "creatorType": ctype}
            if mode == 1:
                person = {"name": last, "creatorType": ctype}
            creators.setdefault(item_id, []).append(person)
        tags: dict[int, list[str]] = {}
        for item_id, name in conn.execute(
            "SELECT it.itemID, t.name FROM itemTags it JOIN tags t USING (tagID)"
        ):
            tags.setdefault(item_id, []).append(name)
        paths = _collection_paths(conn)
        colls: dict[int, list[str]] = {}
        for cid, item_id in conn.execute("SELECT collectionID, itemID FROM collectionItems"):
            if cid in paths:
                colls.setdefault(item_id, []).append(paths[cid])
        notes: dict[int, list[str]] = {}
        for parent, note in conn.execute(
            "SELECT parentItemID, note FROM itemNotes WHERE parentItemID IS NOT NULL"
        ):
            notes.setdefault(parent, []).append(html_text(note or ""))
        keys = {item_id: key for item_id, key, _ in items}
        files: dict[int, list[Path]] = {}
        for att_id, parent, ctype, apath in conn.execute(
            "SELECT itemID, parentItemID, contentType, path FROM itemAttachments "
            "WHERE parentItemID IS NOT NULL AND path IS NOT NULL"
        ):
            if ctype != "application/pdf" and not str(apath).lower().endswith(".pdf"):
                continue
            apath = str(apath)
            if apath.startswith("storage:"):
                full = storage / keys.get(att_id, "") / apath.removeprefix("storage:")
            else:
                full = Path(apath)
            files.setdefault(parent, []).append(full)
    except sqlite3.Error as err:
        raise IngestError(f"{db}: cannot be read as a Zotero database ({err})", "") from None
    finally:
        conn.close()
    for item_id, key, type_name in items:
        if type_name in _SKIP_TYPES or item_id in deleted:
            continue
        location = f"item {key}"
        try:
            yield zotero_record(
                {**fields.get(item_id, {}), "itemType": type_name},
                creators.get(item_id, []),
                location,
                tags=tags.get(item_id, []),
                collections=sorted(colls.get(item_id, [])),
                notes=notes.get(item_id, []),
                attachments=files.get(item_id, []),
                key=key,
            )
        except Exception as err:
            yield BadItem(location, f"{type(err).__name__}: {err}"[:200])


def _sniff_sqlite(head: bytes, path: Path) -> int:
    if not head.startswith(b"SQLite format 3\x00"):
        return 0
    return 95 if b"itemDataValues" in head or path.name == "zotero.sqlite" else 60


def _sniff_dir(head: bytes, path: Path) -> int:
    return 95 if (path / "zotero.sqlite").is_file() else 0


# ------------------------------------------------------------------------ Better BibTeX JSON


def read_bbt_json(path: Path) -> Iterator[SourceRecord | BadItem]:
    """Every regular item of a Better BibTeX JSON library export; a cut export keeps its
    complete items and reports the cut one at its line.

    Raises:
        IngestError: the file cannot be read or is not a BBT JSON export.
    """
    data, cut = load_json_items(decode_text(read_bytes(path)), [("items",)])
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise IngestError("no 'items' list", "export the library as Better BibTeX JSON")
    raw_colls = data.get("collections") or {}
    colls = raw_colls if isinstance(raw_colls, dict) else {}

    def cpath(key: str, depth: int = 0) -> str:
        c = colls.get(key) or {}
        parent = c.get("parent")
        name = str(c.get("name", key))
        return (
            f"{cpath(parent, depth + 1)}/{name}"
            if parent and parent in colls and depth < 50
            else name
        )

    member: dict[Any, list[str]] = {}
    for key, c in colls.items():
        for item_id in (c or {}).get("items") or []:
            member.setdefault(item_id, []).append(cpath(key))
    for n, item in enumerate(data["items"], start=1):
        if not isinstance(item, dict):
            yield BadItem(f"item {n}", "not an object")
            continue
        if item.get("itemType") in _SKIP_TYPES:
            continue
        location = f"item {item.get('key') or n}"
        try:
            notes = [
                html_text(x.get("note", "") if isinstance(x, dict) else str(x))
                for x in item.get("notes") or []
            ]
            attachments = [
                Path(a["path"])
                for a in item.get("attachments") or []
                if isinstance(a, dict) and str(a.get("path", "")).lower().endswith(".pdf")
            ]
            yield zotero_record(
                item,
                [c for c in item.get("creators") or [] if isinstance(c, dict)],
                location,
                tags=[t["tag"] if isinstance(t, dict) else str(t) for t in item.get("tags") or []],
                collections=sorted(member.get(item.get("itemID"), [])),
                notes=notes,
                attachments=attachments,
                key=str(item.get("citationKey") or item.get("key") or ""),
            )
        except Exception as err:
            yield BadItem(location, f"cannot be read: unexpected content ({err})"[:200])
    if cut is not None:
        yield cut


def _sniff_bbt(head: bytes, path: Path) -> int:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith(b"{"):
        return 0
    return 90 if b'"itemType"' in text and (b'"config"' in text or b'"collections"' in text) else 0


FORMATS = [
    Format(
        name="zotero",
        kind=Kind.PAPER,
        read=read_zotero,
        sniff=_sniff_sqlite,
        extensions=(".sqlite",),
        description="Zotero database (zotero.sqlite), read-only: items, tags, collections, notes",
    ),
    Format(
        name="zotero-dir",
        kind=Kind.PAPER,
        read=read_zotero,
        sniff=_sniff_dir,
        directory=True,
        description="Zotero data directory (zotero.sqlite + storage/ PDFs)",
    ),
    Format(
        name="bbt-json",
        kind=Kind.PAPER,
        read=read_bbt_json,
        sniff=_sniff_bbt,
        extensions=(".json",),
        description="Better BibTeX JSON library export (items, collections, notes, attachments)",
    ),
]
