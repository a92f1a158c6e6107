"""Write papers and datasets as BibTeX, RIS, CSL-JSON or a Markdown list with ``[@citekey]``.

Every format uses the persisted citation keys (:mod:`litsift.export.citekeys`) and lists the
entries sorted by key, so an export is stable under version control (Better BibTeX's default
``exportSort``). BibTeX is written with bibtexparser 2, its text fields LaTeX-encoded
(:func:`litsift.export.latex.latex`). RIS is written with rispy. A paper's stored type,
volume, issue, pages, publisher and name split are written where each format has them
(:mod:`litsift.export.biblio`).

A record's note and tags (:class:`litsift.store.triage.Note`, set in the TUI or brought by an
import) are written in each format's own field: BibTeX ``annote`` and ``keywords``, RIS ``N1``
and one ``KW`` per tag, CSL-JSON ``annote`` and ``keyword``, and lines under the Markdown item;
litsift reads each back as the note (RIS: of a record marked ``DP  - litsift``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, ClassVar

import rispy
from bibtexparser.entrypoint import write_string
from bibtexparser.library import Library
from bibtexparser.model import Entry, Field

from litsift.export.biblio import (
    biblios,
    bibtex_fields,
    bibtex_type,
    csl_fields,
    editors_of,
    is_publisher,
    own_type,
    ris_fields,
    ris_type,
)
from litsift.export.citekeys import ExportError, assign_citekeys
from litsift.export.latex import latex
from litsift.export.names import bibtex_name, split_authors
from litsift.export.venues import Venue, venue_of
from litsift.store.biblio import Biblio
from litsift.store.repo import Store
from litsift.store.triage import Note, Triage
from litsift.types import Kind, Paper, Record


def _flat(text: str) -> str:
    """Whitespace (newlines, U+2028 included) collapsed to single spaces."""
    return " ".join(text.split())


def _container(record: Paper, v: Venue, own: str, biblio: Biblio | None) -> str:
    """The journal's or proceedings' title: the venue's full name, or (a stored type) the
    venue as stored (an abbreviated journal title the venue guess does not know); ``""``
    where the venue is the publisher (an import's stand-in for a book without a series:
    written as the series too, styles printed the publisher twice)."""
    got = v.container or (_flat(record.venue) if own else "")
    return "" if is_publisher(biblio, got) else got


def _bib_entry(
    record: Record,
    key: str,
    annotation: Note | None = None,
    doi: str = "",
    biblio: Biblio | None = None,
) -> Entry:
    fields: list[tuple[str, str]] = []
    if isinstance(record, Paper):
        v = venue_of(record)
        own = own_type(biblio, v)
        people = split_authors(record.authors, biblio.name_parts() if biblio else None)
        if people:
            fields.append(("author", " and ".join(bibtex_name(p) for p in people)))
        if editors := editors_of(biblio):  # an edited book's, or its book's (a chapter)
            fields.append(("editor", " and ".join(bibtex_name(p) for p in editors)))
        if record.real_title:  # none for a record without one: not its screening label
            fields.append(("title", latex(_flat(record.real_title), protect_case=True)))
        entry_type, slot = bibtex_type(biblio, v)
        container = _container(record, v, own, biblio)
        note, abstract = (v.note if not own else ""), record.abstract
        if container and slot:
            fields.append((slot, latex(container)))
        elif entry_type == "misc" and not v.unpublished and (container or note):
            # a preprint's server, a web page's site, a venue of unknown kind: @misc's own
            # field (as a note it was lost on import, and with a stored type not written)
            fields.append(("howpublished", latex(container or note)))
            note = ""
        fields.extend(bibtex_fields(biblio, entry_type, latex))
    else:
        fields.append(("title", "{" + latex(_flat(record.id)) + "}"))
        entry_type, note, abstract = "misc", "Dataset", record.description
    if record.year is not None:
        fields.append(("year", str(record.year)))
    if doi:
        fields.append(("doi", doi))
    if note:
        fields.append(("note", latex(note)))
    if record.url:
        fields.append(("url", record.url.strip()))
    if abstract.strip():
        fields.append(("abstract", latex(_flat(abstract))))
    if annotation is not None and annotation.tags:
        fields.append(("keywords", latex(", ".join(annotation.tags))))
    if annotation is not None and annotation.text.strip():
        fields.append(("annote", latex(annotation.text.strip())))
    return Entry(entry_type, key, [Field(k, v) for k, v in fields])


def _keyed(store: Store, records: Sequence[Record]) -> list[tuple[str, Record]]:
    unique = list({(r.kind, r.id): r for r in records}.values())
    keys = assign_citekeys(store, unique)
    return sorted(((keys[(r.kind, r.id)], r) for r in unique), key=lambda kr: kr[0])


def _notes(store: Store, keyed: Sequence[tuple[str, Record]]) -> dict[tuple[Kind, str], Note]:
    """``{(kind, id): note}`` of the records that have a note or tags."""
    triage = Triage(store)
    return {
        (kind, doc_id): note
        for kind in Kind
        for doc_id, note in triage.notes(kind, [r.id for _, r in keyed if r.kind is kind]).items()
    }


def _dois(store: Store, keyed: Sequence[tuple[str, Record]]) -> dict[str, str]:
    """``{paper id: DOI}`` of the papers that have one (stored under any identifier)."""
    from litsift.store.repositories import Identities

    ids = [r.id for _, r in keyed if r.kind is Kind.PAPER]
    got = Identities(store).ids_of_docs(Kind.PAPER, ids) if ids else {}
    return {d: v["doi"] for d, v in got.items() if v.get("doi")}


def _note_lines(note: Note | None) -> list[str]:
    """The note's text, one item per non-empty line (RIS ``N1`` values are one line each)."""
    return [line.strip() for line in note.text.splitlines() if line.strip()] if note else []


def to_bibtex(store: Store, records: Sequence[Record]) -> str:
    """BibTeX entries, written by bibtexparser 2: the paper's stored type (``@article``,
    ``@inproceedings``, ``@incollection``, ``@book``, ``@phdthesis``, ``@mastersthesis``,
    ``@techreport``, ``@unpublished``, ``@misc``), else the type its venue suggests
    (``@inproceedings``/``@article``/``@misc``).

    Fields: ``author`` (``von Last, Jr, First and ...``; the family name as the source split
    it: ``Pérez-de la Fuente, Ricardo``), ``editor`` (the same), ``title``, ``booktitle`` or
    ``journal``, ``volume``, ``number``, ``pages`` (``1--10``), ``publisher`` (``school``,
    ``institution``), ``howpublished`` (a ``@misc``'s venue), ``year``, ``doi``, ``note`` (a
    rejected submission's venue note), ``url``, ``abstract``,
    ``keywords`` (the record's tags, comma-separated: what litsift, Zotero and JabRef read back
    as tags) and
    ``annote`` (the record's own note: the annotation field, which bibliography styles do not
    print and litsift reads back as the note); datasets are ``@misc`` with
    ``note = {Dataset}``.

    Raises:
        ExportError: see :func:`~litsift.export.citekeys.assign_citekeys`.
    """
    library = Library()
    keyed = _keyed(store, records)
    notes, dois = _notes(store, keyed), _dois(store, keyed)
    details = biblios(store, [r for _, r in keyed])
    for key, record in keyed:
        note = notes.get((record.kind, record.id))
        library.add(_bib_entry(record, key, note, dois.get(record.id, ""), details.get(record.id)))
    return str(write_string(library))


#: Every :func:`to_ris` record's ``DP`` (litsift reads its ``N1`` as the note: ``ris_notes``).
#: Not ``DB``: Zotero files ``DP`` as Library Catalog, ``DB`` as Archive (translators RIS.js).
RIS_DATABASE = "litsift"


class _RisWriter(rispy.RisWriter):  # type: ignore[misc]
    DEFAULT_MAPPING: ClassVar[dict[str, str]] = {**rispy.TAG_KEY_MAPPING, "ED": "editors"}
    DEFAULT_LIST_TAGS: ClassVar[list[str]] = [*rispy.LIST_TYPE_TAGS, "ED"]  # rispy has no ED

    def set_header(self, count: int) -> str:  # no "1." counter lines between records
        return ""


def ris_reference(
    record: Record,
    key: str,
    doi: str = "",
    label: str = "",
    notes: Sequence[str] = (),
    keywords: Sequence[str] = (),
    biblio: Biblio | None = None,
) -> dict[str, Any]:
    """One record as a rispy reference: the one RIS entry litsift writes (the library export,
    :func:`to_ris`, and a review's export, ``litsift review export --format ris``).

    Tags in order: ``TY`` (the stored type, :func:`litsift.export.biblio.ris_type`, else
    :attr:`Venue.ris_type`; ``DATA`` for datasets), ``ID`` = ``key``, ``TI``, ``AU`` one line
    per author as ``Last, First``, ``ED`` one per editor (Zotero reads it as the editor of any
    type; rispy has no name for it), ``T2`` the venue (the proceedings' or journal's full name
    where known), ``VL``, ``IS``, ``SP``, ``EP``, ``PB``, ``M3`` (the genre of a thesis or
    report), ``PY``, ``UR``, ``DO``, ``KW`` one line per keyword,
    ``AB``, then the caller's ``LB`` and ``N1`` lines (a review's decision and notes, read back
    by :func:`litsift.sources.formats.ris_review.review_marks`; the library export's record
    notes).

    Args:
        record: a paper or a dataset.
        key: the ``ID``: a citation key, or a review's record id (``openalex:W…``, read back as
            an identifier).
        doi: the record's DOI (``""``: none).
        label: the ``LB`` value (``""``: none).
        notes: ``N1`` lines.
        keywords: ``KW`` lines (the record's tags).
        biblio: the paper's stored details (:mod:`litsift.export.biblio`): its ``TY``, ``AU``
            name split, ``VL``, ``IS``, ``SP``/``EP``, ``PB``, ``M3``; None: the venue's guess.
    """
    ref: dict[str, Any] = {}
    if isinstance(record, Paper):
        v = venue_of(record)
        ref["type_of_reference"] = ris_type(biblio, v)
        ref["id"] = key
        if record.real_title:  # no TI for a record without a title
            ref["title"] = _flat(record.real_title)
        people = split_authors(record.authors, biblio.name_parts() if biblio else None)
        if people:
            ref["authors"] = [p.text if p.corporate else p.inverted for p in people]
        if editors := editors_of(biblio):
            ref["editors"] = [p.text if p.corporate else p.inverted for p in editors]
        venue = v.container or _flat(record.venue)
        if venue and not is_publisher(biblio, venue):
            ref["secondary_title"] = venue
        ref.update(ris_fields(biblio))
        abstract = record.abstract
    else:
        ref["type_of_reference"] = "DATA"
        ref["id"] = key
        ref["title"] = _flat(record.id)
        abstract = record.description
    if record.year is not None:
        ref["year"] = str(record.year)
    if record.url.strip():
        ref["urls"] = [record.url.strip()]
    if doi:
        ref["doi"] = doi
    if keywords:
        ref["keywords"] = list(keywords)
    if abstract.strip():
        ref["abstract"] = _flat(abstract)
    if label:
        ref["label"] = label
    if notes:
        ref["notes"] = list(notes)
    return ref


def dump_ris(refs: Sequence[dict[str, Any]]) -> str:
    """``refs`` (from :func:`ris_reference`) as RIS text: ``TY`` … ``ER`` per reference, no
    counter lines between them."""
    return str(rispy.dumps(list(refs), implementation=_RisWriter))


def to_ris(store: Store, records: Sequence[Record], dois: dict[str, str] | None = None) -> str:
    """RIS references (``TY`` ... ``ER``), one per record sorted by citation key
    (:func:`ris_reference`; ``ID`` is the citation key, ``KW`` one line per tag of the record,
    ``N1`` one line per line of its note, ``DP`` :data:`RIS_DATABASE`).

    Args:
        dois: ``{doc_id: DOI}`` of the papers that have one (``DO``); None: the store's.
    """
    keyed = _keyed(store, records)
    dois = _dois(store, keyed) if dois is None else dois
    notes, details = _notes(store, keyed), biblios(store, [r for _, r in keyed])
    refs = []
    for key, r in keyed:
        note = notes.get((r.kind, r.id))
        tags = note.tags if note else ()
        lines, doi = _note_lines(note), dois.get(r.id, "")
        ref = ris_reference(r, key, doi, notes=lines, keywords=tags, biblio=details.get(r.id))
        refs.append({**ref, "database_provider": RIS_DATABASE})
    return dump_ris(refs)


def _rq_note(paper: Paper) -> str:
    """``Problem: … Method: …`` (the paper's research question, one line)."""
    parts = [
        f"{label}: {_flat(value)}"
        for label, value in (("Problem", paper.problem), ("Method", paper.method))
        if value.strip()
    ]
    return " ".join(parts)


def _csl_item(
    record: Record, key: str, note: Note | None = None, doi: str = "", biblio: Biblio | None = None
) -> dict[str, Any]:
    item: dict[str, Any] = {"id": key, "citation-key": key}
    notes: list[str] = []
    if isinstance(record, Paper):
        v = venue_of(record)
        own = own_type(biblio, v)
        if record.real_title:
            item["title"] = _flat(record.real_title)
        people = split_authors(record.authors, biblio.name_parts() if biblio else None)
        editors = editors_of(biblio)
        if people or not editors:  # an edited book's empty list kept citeproc from naming
            item["author"] = [p.csl() for p in people]  # its editors in the authors' place
        if editors:
            item["editor"] = [p.csl() for p in editors]
        container = _container(record, v, own, biblio)
        if container:
            item["container-title"] = container
        item.update(csl_fields(biblio, v))
        notes = [v.note] if v.note and not own else []
        if record.problem.strip() or record.method.strip():
            notes.append(_rq_note(record))
        abstract = record.abstract
    else:
        item["type"] = "dataset"
        item["title"] = _flat(record.id)
        abstract = record.description
    if record.year is not None:
        item["issued"] = {"date-parts": [[record.year]]}
    if doi:
        item["DOI"] = doi
    if record.url:
        item["URL"] = record.url.strip()
    if abstract.strip():
        item["abstract"] = _flat(abstract)
    if note is not None and note.tags:
        item["keyword"] = ", ".join(note.tags)
    if notes:
        item["note"] = "\n".join(notes)
    if note is not None and note.text.strip():
        item["annote"] = note.text.strip()
    return item


def to_csl_json(store: Store, records: Sequence[Record]) -> str:
    """A CSL-JSON array (what pandoc ``--citeproc`` and Zotero read), pretty-printed.

    Variables: ``id`` (= citation key), ``type`` (stored, else guessed from the venue),
    ``title``, ``author`` (``family``, ``given``, ``non-dropping-particle``, ``suffix``; the
    family name as the source split it), ``editor`` (the same), ``container-title``, ``genre``,
    ``volume``, ``issue``, ``page`` (``1-10``), ``publisher``, ``issued.date-parts``, ``DOI``,
    ``URL``, ``abstract``, ``keyword`` (the record's tags as one comma-separated string, the
    CSL-JSON convention), ``note`` (the venue note, then the research question as ``Problem: …
    Method: …`` when the paper has one, one per line: what Zotero reads as Extra), ``annote``
    (the record's own note, as BibTeX's ``annote``: what pandoc maps it to, and litsift reads
    back as the note). Source: CSL-JSON schema (citation-style-language/schema,
    ``csl-data.json``).
    """
    keyed = _keyed(store, records)
    notes, dois = _notes(store, keyed), _dois(store, keyed)
    details = biblios(store, [r for _, r in keyed])
    items = [
        _csl_item(r, k, notes.get((r.kind, r.id)), dois.get(r.id, ""), details.get(r.id))
        for k, r in keyed
    ]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", _flat(text))


def _md_authors(people: Sequence[str]) -> str:
    names = [p.text for p in split_authors(people)]
    if len(names) > 3:
        return f"{names[0]} et al."
    if len(names) == 3:
        return f"{names[0]}, {names[1]}, and {names[2]}"
    return " and ".join(names)


def _md_annotation(note: Note | None) -> str:
    """The indented ``Tags: …`` and ``Note: …`` lines of an item (empty without a note)."""
    if note is None:
        return ""
    tags = f"\n  Tags: {_md(', '.join(note.tags))}" if note.tags else ""
    return tags + (f"\n  Note: {_md(note.text)}" if note.text.strip() else "")


def _md_line(record: Record, key: str, editors: Sequence[str] = ()) -> str:
    year = f" ({record.year})" if record.year is not None else ""
    if isinstance(record, Paper):
        title = _md(record.title)
        title += "" if title.endswith((".", "?", "!")) else "."
        authors = _md(_md_authors(record.authors))
        if not authors and editors:  # an edited book: "A and B (eds.)", as APA or Chicago
            authors = f"{_md(_md_authors(editors))} ({'eds' if len(editors) > 1 else 'ed'}.)"
        authors = authors or "Anonymous"
        short = venue_of(record).short
        venue = f" {_md(short)}." if short else ""
        line = f"- [@{key}] {authors}{year}. {title}{venue}"
        if record.problem.strip() or record.method.strip():
            line += f"\n  {_md(_rq_note(record))}"
        return line
    link = f" <{record.url.strip()}>" if record.url.strip() else ""
    return f"- [@{key}] {_md(record.id)}{year}. Dataset.{link}"


def to_markdown(store: Store, records: Sequence[Record]) -> str:
    """A Markdown list, one ``- [@key] Authors (Year). Title. Venue.`` line per record (an
    edited book's ``Editors (eds.)`` for its authors), with an indented ``Problem: …
    Method: …`` line under papers that have a research question, then
    ``Tags: a, b`` and ``Note: …`` (on one line) under records that have them.

    Pandoc reads each ``[@key]`` as a citation against the BibTeX or CSL-JSON export.
    """
    keyed = _keyed(store, records)
    notes, details = _notes(store, keyed), biblios(store, [r for _, r in keyed])
    lines = [
        _md_line(r, k, b.editors if (b := details.get(r.id)) else ())
        + _md_annotation(notes.get((r.kind, r.id)))
        for k, r in keyed
    ]
    return "".join(line + "\n" for line in lines)


_WRITERS = {
    "bibtex": to_bibtex,
    "ris": to_ris,
    "csl-json": to_csl_json,
    "markdown": to_markdown,
}


def export_records(store: Store, records: Sequence[Record], fmt: str) -> str:
    """Records in one of :data:`EXPORT_FORMATS` (an empty selection gives an empty string).

    Raises:
        ExportError: unknown format, or keys cannot be assigned (read-only store).
    """
    writer = _WRITERS.get(fmt)
    if writer is None:
        raise ExportError(f"unknown export format {fmt!r}", f"use one of {', '.join(_WRITERS)}")
    return writer(store, records)


__all__ = [
    "export_records",
    "to_bibtex",
    "to_csl_json",
    "to_markdown",
    "to_ris",
]
