"""Write papers and datasets as BibTeX, RIS, CSL-JSON or a Markdown list with ``[@citekey]``.

Every format uses the persisted citation keys (:mod:`litsift.export.citekeys`) and lists the
entries sorted by key, so an export is stable under version control (Better BibTeX's default
``exportSort``). BibTeX is written with bibtexparser 2; text fields are LaTeX-encoded with
pylatexenc (``&`` -> ``{\\&}``, ``ø`` -> ``{\\o}``) except ``$...$`` math with balanced
braces, which is kept; title words with an inner capital (``BERT``, ``DuReader``) are
braced so bibliography styles keep their case. RIS is written with rispy.

A record's note and tags (:class:`litsift.store.triage.Note`, set in the TUI or brought by an
import) are written in each format's own field: BibTeX ``annote`` and ``keywords``, RIS ``N1``
and one ``KW`` per tag, CSL-JSON ``note`` and ``keyword``, and lines under the Markdown item.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import rispy
from bibtexparser.entrypoint import write_string
from bibtexparser.library import Library
from bibtexparser.model import Entry, Field
from pylatexenc.latexencode import UnicodeToLatexEncoder

from litsift.export.citekeys import ExportError, assign_citekeys
from litsift.export.names import split_authors
from litsift.export.venues import venue_of
from litsift.store.repo import Store
from litsift.store.triage import Note, Triage
from litsift.types import Kind, Paper, Record

_MATH_RE = re.compile(r"(?<!\\)\$[^$]+?(?<!\\)\$")
_INNER_CAP_RE = re.compile(r"\w[^\s]*[A-Z]")
_LIGATURE_RE = re.compile(r"([-`'])(?=\1)")

_ENCODER = UnicodeToLatexEncoder(
    non_ascii_only=False,
    replacement_latex_protection="braces-all",
    unknown_char_policy="keep",
    unknown_char_warning=False,
)


def _flat(text: str) -> str:
    """Whitespace (newlines, U+2028 included) collapsed to single spaces."""
    return " ".join(text.split())


def latex(text: str, protect_case: bool = False) -> str:
    """LaTeX-encode text for a BibTeX field, keeping ``$...$`` math with balanced braces.

    Args:
        text: plain Unicode text.
        protect_case: brace words with an inner capital (titles), e.g. ``{BERT}``.
    """
    out, last = [], 0
    for m in _MATH_RE.finditer(text):
        math = m.group(0)
        if math.count("{") != math.count("}"):
            continue
        out.append(_encode_text(text[last : m.start()], protect_case))
        out.append(math)
        last = m.end()
    out.append(_encode_text(text[last:], protect_case))
    return "".join(out)


def _encode_plain(text: str) -> str:
    """pylatexenc's encoding, with TeX ligatures (``--``, quote pairs) broken by ``{}``."""
    return _LIGATURE_RE.sub(r"\1{}", str(_ENCODER.unicode_to_latex(text)))


def _encode_text(text: str, protect_case: bool) -> str:
    if not protect_case:
        return _encode_plain(text)
    parts = re.split(r"(\s+)", text)
    return "".join(
        ("{" + _encode_plain(p) + "}")
        if p and not p.isspace() and _INNER_CAP_RE.match(p)
        else _encode_plain(p)
        for p in parts
    )


def _bib_entry(record: Record, key: str, annotation: Note | None = None, doi: str = "") -> Entry:
    fields: list[tuple[str, str]] = []
    if isinstance(record, Paper):
        v = venue_of(record)
        people = split_authors(record.authors)
        if people:
            names = (f"{{{latex(p.text)}}}" if p.corporate else latex(p.inverted) for p in people)
            fields.append(("author", " and ".join(names)))
        if record.real_title:  # none for a record without one: not its screening label
            fields.append(("title", latex(_flat(record.real_title), protect_case=True)))
        if v.container:
            slot = "booktitle" if v.bibtex_type == "inproceedings" else "journal"
            fields.append((slot, latex(v.container)))
        entry_type: str = v.bibtex_type
        note, abstract = v.note, record.abstract
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
    """BibTeX entries (``@inproceedings``/``@article``/``@misc``), written by bibtexparser 2.

    Fields: ``author`` (``von Last, Jr, First and ...``), ``title``, ``booktitle`` or
    ``journal``, ``year``, ``doi``, ``note`` (the venue note), ``url``, ``abstract``,
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
    for key, record in keyed:
        note = notes.get((record.kind, record.id))
        library.add(_bib_entry(record, key, note, dois.get(record.id, "")))
    return str(write_string(library))


class _RisWriter(rispy.RisWriter):  # type: ignore[misc]
    def set_header(self, count: int) -> str:  # no "1." counter lines between records
        return ""


def ris_reference(
    record: Record,
    key: str,
    doi: str = "",
    label: str = "",
    notes: Sequence[str] = (),
    keywords: Sequence[str] = (),
) -> dict[str, Any]:
    """One record as a rispy reference: the one RIS entry litsift writes (the library export,
    :func:`to_ris`, and a review's export, ``litsift review export --format ris``).

    Tags in order: ``TY`` (:attr:`Venue.ris_type`; ``DATA`` for datasets), ``ID`` = ``key``,
    ``TI``, ``AU`` one line per author as ``Last, First``, ``T2`` the venue (the proceedings'
    or journal's full name where known), ``PY``, ``UR``, ``DO``, ``KW`` one line per keyword,
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
    """
    ref: dict[str, Any] = {}
    if isinstance(record, Paper):
        v = venue_of(record)
        ref["type_of_reference"] = v.ris_type
        ref["id"] = key
        if record.real_title:  # no TI for a record without a title
            ref["title"] = _flat(record.real_title)
        people = split_authors(record.authors)
        if people:
            ref["authors"] = [p.text if p.corporate else p.inverted for p in people]
        venue = v.container or _flat(record.venue)
        if venue:
            ref["secondary_title"] = venue
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
    ``N1`` one line per line of its note).

    Args:
        dois: ``{doc_id: DOI}`` of the papers that have one (``DO``); None: the store's.
    """
    keyed = _keyed(store, records)
    dois = _dois(store, keyed) if dois is None else dois
    notes = _notes(store, keyed)
    refs = []
    for key, r in keyed:
        note = notes.get((r.kind, r.id))
        tags = note.tags if note else ()
        refs.append(
            ris_reference(r, key, dois.get(r.id, ""), notes=_note_lines(note), keywords=tags)
        )
    return dump_ris(refs)


def _rq_note(paper: Paper) -> str:
    """``Problem: … Method: …`` (the paper's research question, one line)."""
    parts = [
        f"{label}: {_flat(value)}"
        for label, value in (("Problem", paper.problem), ("Method", paper.method))
        if value.strip()
    ]
    return " ".join(parts)


def _csl_item(record: Record, key: str, note: Note | None = None, doi: str = "") -> dict[str, Any]:
    item: dict[str, Any] = {"id": key, "citation-key": key}
    notes: list[str] = []
    if isinstance(record, Paper):
        v = venue_of(record)
        item["type"] = v.csl_type
        if record.real_title:
            item["title"] = _flat(record.real_title)
        item["author"] = [p.csl() for p in split_authors(record.authors)]
        if v.container:
            item["container-title"] = v.container
        notes = [v.note] if v.note else []
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
    if note is not None and note.text.strip():
        notes.append(note.text.strip())
    if notes:
        item["note"] = "\n".join(notes)
    return item


def to_csl_json(store: Store, records: Sequence[Record]) -> str:
    """A CSL-JSON array (what pandoc ``--citeproc`` and Zotero read), pretty-printed.

    Variables: ``id`` (= citation key), ``type``, ``title``, ``author`` (``family``,
    ``given``, ``non-dropping-particle``, ``suffix``), ``issued.date-parts``,
    ``container-title``, ``DOI``, ``URL``, ``abstract``, ``keyword`` (the record's tags as one
    comma-separated string, the CSL-JSON convention), ``note`` (the venue note, then the research
    question as ``Problem: … Method: …`` when the paper has one, then the record's own note, one
    per line). Source: CSL-JSON schema (citation-style-language/schema, ``csl-data.json``).
    """
    keyed = _keyed(store, records)
    notes, dois = _notes(store, keyed), _dois(store, keyed)
    items = [_csl_item(r, k, notes.get((r.kind, r.id)), dois.get(r.id, "")) for k, r in keyed]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", _flat(text))


def _md_authors(record: Paper) -> str:
    names = [p.text for p in split_authors(record.authors)]
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


def _md_line(record: Record, key: str) -> str:
    year = f" ({record.year})" if record.year is not None else ""
    if isinstance(record, Paper):
        title = _md(record.title)
        title += "" if title.endswith((".", "?", "!")) else "."
        authors = _md(_md_authors(record)) or "Anonymous"
        short = venue_of(record).short
        venue = f" {_md(short)}." if short else ""
        line = f"- [@{key}] {authors}{year}. {title}{venue}"
        if record.problem.strip() or record.method.strip():
            line += f"\n  {_md(_rq_note(record))}"
        return line
    link = f" <{record.url.strip()}>" if record.url.strip() else ""
    return f"- [@{key}] {_md(record.id)}{year}. Dataset.{link}"


def to_markdown(store: Store, records: Sequence[Record]) -> str:
    """A Markdown list, one ``- [@key] Authors (Year). Title. Venue.`` line per record, with an
    indented ``Problem: … Method: …`` line under papers that have a research question, then
    ``Tags: a, b`` and ``Note: …`` (on one line) under records that have them.

    Pandoc reads each ``[@key]`` as a citation against the BibTeX or CSL-JSON export.
    """
    keyed = _keyed(store, records)
    notes = _notes(store, keyed)
    lines = [_md_line(r, k) + _md_annotation(notes.get((r.kind, r.id))) for k, r in keyed]
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
    "latex",
    "to_bibtex",
    "to_csl_json",
    "to_markdown",
    "to_ris",
]
