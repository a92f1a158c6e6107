"""What every importer yields: :class:`SourceRecord` (one paper or dataset read from a file or an
API page) or :class:`BadItem` (one entry that could not be read), and :class:`Page` for paged
API responses.

An importer never raises for a bad entry: it yields a :class:`BadItem` with the entry's
location (``line 12``, ``entry smith2020``, ``item 3``, ``record 5``, ``page 2``) and a short
reason, and goes on with the next entry. It raises :class:`~litsift.errors.IngestError` only
when the whole file is unusable (unreadable, not this format at all); the importer that called
it then reports the file as ``FILE: reason`` and goes on with the other files.

Field conventions (what :mod:`litsift.sources.importer` stores):

* ``title``/``abstract``: plain Unicode text, markup removed (LaTeX via pylatexenc, JATS/HTML
  tags via lxml), whitespace collapsed; empty string when absent. Whatever inline markup and
  HTML character references a reader leaves (``CO<sub>2</sub> &amp; H<sup>+</sup>``) are
  removed for every format by :func:`scrub_controls` (:mod:`litsift.text.markup`).
* ``authors``: display names, ``"Given Family"`` order when the source gives both parts;
  ``family_names`` holds the family names in the same order (used by de-duplication).
  ``name_parts`` holds ``(family, given)`` per author where the source splits the name, the
  family name with its particles (``("van de Kuilen", "Gijs")``): what the exports write.
* ``editors``: the editors' display names, never among ``authors``; ``editor_parts`` as
  ``name_parts`` (:func:`litsift.sources.formats.people.byline` builds them all). Where a
  format gave an editor-only book's editors as authors (BibTeX, Zotero, RIS ``EDBOOK``,
  EndNote's and refer's ``Edited Book``), ``family_names`` keeps their family names: its
  identity stays as it was; where a format dropped them, they stay out of it.
* ``biblio``: the entry's own type, mapped to a CSL item type
  (:mod:`litsift.sources.formats.biblio_types`), and its raw volume, issue, pages and publisher.
* ``year``: an int, or None.
* ``ids``: scheme -> value, each normalised by :mod:`litsift.sources.identity.ids` (see
  :data:`litsift.sources.identity.ids.SCHEMES`); absent schemes are left out.
* ``location``: where in the file the entry is, for reports and provenance.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litsift.errors import IngestError
from litsift.sources.encodings import MOJIBAKE_RE, damaged_utf8, legacy_encoding, note_guess
from litsift.store.jsonl import wide_encoding
from litsift.text.markup import plain_text
from litsift.text.sanitize import for_storage
from litsift.types import Kind
from litsift.types.core import UNTITLED_PREFIX

__all__ = [
    "BadItem",
    "Format",
    "Notice",
    "Page",
    "SourceRecord",
    "clean_text",
    "labelled",
    "looks_binary",
    "read_bytes",
    "read_text",
    "scrub_controls",
    "unique_tags",
    "year_from",
]

_WS_RE = re.compile(r"\s+")
_YEAR_RE = re.compile(r"(?<![0-9])(1[5-9][0-9]{2}|20[0-9]{2}|21[0-9]{2})(?![0-9])")


@dataclass
class SourceRecord:
    """One paper (or dataset) as a source gives it.

    For ``kind == Kind.DATASET`` the dataset's fields are in ``dataset`` with the keys of the
    dataset JSONL schema (``id``, ``variants``, ``description``, ``intro_paper_title``,
    ``year``, ``date``, ``url``); the paper fields are then unused.
    """

    location: str
    kind: Kind = Kind.PAPER
    title: str = ""
    abstract: str = ""
    authors: list[str] = field(default_factory=list)
    family_names: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str = ""
    url: str = ""
    license: str = ""
    #: scheme -> normalised identifier (``doi``, ``arxiv``, ``s2``, ``corpusid``, ``openalex``,
    #: ``pmid``, ``pmcid``, ``acl``, ``dblp``, ``mag``)
    ids: dict[str, str] = field(default_factory=dict)
    #: volume, issue, first page, article number, ISBNs, folded
    #: (:func:`litsift.sources.identity.locators.locator`): two records of one title whose
    #: locators differ are two works (the volumes of a proceedings series)
    locator: dict[str, str] = field(default_factory=dict)
    #: the entry's bibliographic facts as the source gives them (keys of
    #: :data:`litsift.store.biblio.BIBLIO_FIELDS`): ``type`` a CSL item type
    #: (:mod:`litsift.sources.formats.biblio_types`), ``volume``, ``issue``, ``pages``
    #: (``"1781-1802"``), ``publisher``; absent facts left out
    biblio: dict[str, str] = field(default_factory=dict)
    #: ``(family, given)`` per author the source splits, in author order; the family name keeps
    #: its particles (``("Pérez-de la Fuente", "Ricardo")``); empty when the source has only
    #: display names
    name_parts: list[tuple[str, str]] = field(default_factory=list)
    #: the editors' display names (``"Given Family"``), in order; never the authors
    editors: list[str] = field(default_factory=list)
    #: ``(family, given)`` per editor the source splits, as :attr:`name_parts`
    editor_parts: list[tuple[str, str]] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    #: collection paths, parent first, joined with ``/`` (``"Thesis/Chapter 2"``)
    collections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: local files attached to the entry (PDFs), as given by the source; may not exist
    attachments: list[Path] = field(default_factory=list)
    #: the source's own key for the entry (BibTeX key, Zotero key, OpenAlex id, ...)
    source_key: str = ""
    #: full text as ``(section heading, paragraph)`` pairs in reading order, when the source
    #: holds it (PDF, GROBID TEI, JATS, S2ORC); empty otherwise
    sections: list[tuple[str, str]] = field(default_factory=list)
    #: 1-based page of each of ``sections`` (PDFs), parallel to it; empty when unknown
    section_pages: list[int] = field(default_factory=list)
    dataset: dict[str, Any] | None = None
    #: citation keys of the works this record cites (``doi:10.1/x``, ``openalex:W1``;
    #: :func:`litsift.sources.identity.ids.citation_key`), in the source's order
    references: list[str] = field(default_factory=list)
    #: citation keys of works that cite this record (S2 ``citations``)
    cited_by: list[str] = field(default_factory=list)
    #: how the source names the works of ``references`` / ``cited_by``, by key:
    #: ``"Title (First author, 2019)"`` (:func:`litsift.sources.identity.matcher.reference_label`)
    reference_labels: dict[str, str] = field(default_factory=dict)
    #: the screening work a screening tool's export holds in the record, as written (a Rayyan
    #: export's notes markup: :mod:`litsift.sources.formats.rayyan_notes`); ``litsift review
    #: new`` reads it as the reviewers' decisions; no store keeps it as it is
    screening: str = ""


@dataclass(frozen=True)
class BadItem:
    """An entry that could not be read: ``location`` as in :class:`SourceRecord`, ``reason``
    one line. The importer prints it as ``FILE:LOCATION: reason``."""

    location: str
    reason: str


@dataclass(frozen=True)
class Notice:
    """A remark about the file or one entry that costs nothing: the entry (if any) is read
    all the same. ``message`` is a warning (``FILE:LOCATION: message`` in the report's
    ``warnings``; ``location`` ``""`` for the whole file), ``layout`` names the variant of the
    format the reader recognised (``ieee``, ``springer``: the report's ``files[].layout``)."""

    location: str
    message: str = ""
    layout: str = ""


@dataclass
class Page:
    """One page of a paged API response (OAI-PMH, arXiv API, OpenAlex, S2, Crossref).

    Attributes:
        items: the page's records and bad entries, in order.
        next: the token that asks for the next page (resumptionToken, cursor, S2 ``token``,
            next offset as a string); None when this is the last page.
        total: the total number of results the service reports, when it does.
        error: the service's error message when the body is an error response (OAI-PMH
            ``<error>``, arXiv error entry, JSON ``{"error": ...}``); ``items`` is then empty.
        high_water: the newest datestamp / update date on the page (ISO 8601), for saved syncs.
        withheld: why the service answered without the list asked for (S2's ``data: null``
            for a paper whose publisher elided its references), else None.
    """

    items: list[SourceRecord | BadItem] = field(default_factory=list)
    next: str | None = None
    total: int | None = None
    error: str | None = None
    high_water: str | None = None
    withheld: str | None = None


Reader = Callable[[Path], Iterator[SourceRecord | BadItem | Notice]]
#: ``sniff(head, path) -> confidence`` in 0..100; ``head`` is the first 64 KiB of the file
#: (decompressed when gzip), or b"" for a directory.
Sniffer = Callable[[bytes, Path], int]
#: reads several files as one database (BibTeX's ``\bibliography{abbrev,biblio,crossref}``):
#: yields ``(file, record or bad item)``; a file it cannot use is ``BadItem("", reason)``
DatabaseReader = Callable[[Sequence[Path]], Iterator[tuple[Path, SourceRecord | BadItem | Notice]]]


@dataclass(frozen=True)
class Format:
    """A file format litsift imports.

    Attributes:
        name: what ``--format NAME`` takes (``bibtex``, ``ris``, ``zotero``, ...).
        kind: papers or datasets.
        read: yields records and bad items from one path.
        sniff: confidence that a path holds this format (content first, extension a hint).
        extensions: file-name endings that hint at the format (``.bib``, ``.ris``).
        directory: True when the format is a directory (a Zotero data dir, a dataset card dir).
        description: one line for ``litsift ingest --help``.
        read_database: when set, every file of this format in one import is read by it at
            once, as one database (``@string`` macros and ``crossref`` keys across files).
    """

    name: str
    kind: Kind
    read: Reader
    sniff: Sniffer
    extensions: tuple[str, ...] = ()
    directory: bool = False
    description: str = ""
    read_database: DatabaseReader | None = None


def labelled(refs: dict[str, str]) -> dict[str, str]:
    """The entries of ``{citation key: label}`` that have a label (for
    :attr:`SourceRecord.reference_labels`)."""
    return {k: v for k, v in refs.items() if v}


#: Words of the abstract in the label of a record without a title (:func:`untitled_label`).
UNTITLED_WORDS = 12


def untitled_label(ids: dict[str, str], abstract: str) -> str:
    """What stands for the title of a record that has an abstract and a DOI (or another
    identifier) but no title, so that it can be screened rather than dropped:
    ``[no title] doi:10.1002/x · the first words of the abstract…``; ``""`` when the record
    lacks either (it stays a bad entry)."""
    words = clean_text(abstract).split()
    key = next((f"{s}:{ids[s]}" for s in ("doi", "pmid", "openalex", "arxiv") if ids.get(s)), "")
    if not words or not key:
        return ""
    more = "…" if len(words) > UNTITLED_WORDS else ""
    return f"{UNTITLED_PREFIX}{key} · {' '.join(words[:UNTITLED_WORDS])}{more}"


def clean_text(text: Any) -> str:
    """``text`` as one line of plain text: whitespace runs collapsed, ends stripped; ``""`` for
    None or non-strings. Double-encoded UTF-8 ("JosÃ© RaÃºl", as arXiv's API writes some
    author names) is repaired with ftfy's ``fix_encoding``, which changes nothing else."""
    if not isinstance(text, str):
        return ""
    if not text.isascii() and MOJIBAKE_RE.search(text):
        import ftfy  # only for the rare text that needs it

        text = ftfy.fix_encoding(text)
    return _WS_RE.sub(" ", text).strip()


def unique_tags(tags: Iterable[Any], sep: str = "") -> list[str]:
    """``tags`` (strings, each split at ``sep`` if given; None and other values skipped)
    cleaned, empty ones dropped, each once: a later one equal to an earlier but for case (Web
    of Science's upper-case Keywords Plus ``BIG DATA`` after the authors' ``big data``;
    Scopus's ``Model Selection`` after ``Model selection``) is dropped."""
    seen: dict[str, str] = {}
    for value in tags:
        for tag in value.split(sep) if sep and isinstance(value, str) else [value]:
            if text := clean_text(tag):
                seen.setdefault(text.casefold(), text)
    return list(seen.values())


_CONTROL_BYTES = frozenset(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def looks_binary(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes, UTF-16/32 already as UTF-8) is binary data
    rather than text: more than 1 % NUL bytes or 5 % other control bytes in its first 8 KiB.
    One stray NUL in a title is text with a bad byte (it costs its record a warning), not a
    binary file."""
    sample = head[:8192]
    if not sample:
        return False
    nuls = sample.count(0)
    controls = sum(1 for b in sample if b in _CONTROL_BYTES)
    return nuls * 100 > len(sample) or controls * 20 > len(sample)


def _scrub(value: Any) -> tuple[Any, bool]:
    if isinstance(value, str):  # a whole sequence first: "\x1b[2J" left "[2J" in a title
        clean = for_storage(value)
        return clean, clean != value
    if isinstance(value, list):
        pairs = [_scrub(v) for v in value]
        return [v for v, _ in pairs], any(c for _, c in pairs)
    if isinstance(value, tuple):
        pairs = [_scrub(v) for v in value]
        return tuple(v for v, _ in pairs), any(c for _, c in pairs)
    if isinstance(value, dict):
        scrubbed = {k: _scrub(v) for k, v in value.items()}
        return {k: v for k, (v, _) in scrubbed.items()}, any(c for _, c in scrubbed.values())
    return value, False


#: the text fields of a record that :func:`scrub_controls` cleans
_TEXT_FIELDS = (
    "title",
    "abstract",
    "authors",
    "family_names",
    "name_parts",
    "editors",
    "editor_parts",
    "biblio",
    "venue",
    "url",
    "license",
    "tags",
    "collections",
    "notes",
    "source_key",
    "sections",
    "dataset",
)


#: the fields of a record that are shown as text and that :func:`scrub_controls` also clears
#: of publishers' markup (:func:`litsift.text.markup.plain_text`); not ``url``, ``notes``,
#: ``sections`` (already text from their XML or HTML parser) or the record's keys
_PEOPLE = ("authors", "family_names", "name_parts", "editors", "editor_parts")
_MARKUP_FIELDS = ("title", "abstract", "venue", *_PEOPLE)


def _plain(value: Any) -> Any:
    if isinstance(value, str):
        return plain_text(value)
    if isinstance(value, list):
        return [_plain(v) if isinstance(v, (str, tuple)) else v for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def scrub_controls(record: SourceRecord) -> list[str]:
    """Remove control characters (C0 but tab / line feed / carriage return, DEL, C1: a NUL
    in a title) from ``record``'s text fields, in place, whatever format it came from; the
    names of the fields that held any (for a warning).

    It also removes the inline markup and decodes the HTML character references that
    publishers leave in titles, abstracts, venues and author names (``CO<sub>2</sub> &amp;
    H<sup>+</sup>`` -> ``CO2 & H+``, ``p &lt; 0.05`` -> ``p < 0.05``;
    :func:`litsift.text.markup.plain_text`), for every format, because they were stored
    and shown raw: OpenAlex titles, Crossref venues, the screening sets. That is routine
    cleaning, not a defect of the file, so it is not among the names returned."""
    changed = []
    for name in _TEXT_FIELDS:
        value, dirty = _scrub(getattr(record, name))
        if dirty:
            setattr(record, name, value)
            changed.append(name)
    for name in _MARKUP_FIELDS:
        setattr(record, name, _plain(getattr(record, name)))
    return changed


def storable_path(name: str) -> str:
    """``name`` (a path or a file name) as SQLite can store it: the bytes of a name that is not
    UTF-8 (Python's surrogate escapes: ``caf\\udce9.bib``) kept as ``\\xNN`` (``caf\\xe9.bib``).
    Stored as they were, they failed every record of the file ("surrogates not allowed")."""
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file name decodes to
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def year_from(value: Any) -> int | None:
    """The first plausible year (1500-2199) in ``value`` (an int or a date-like string), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1500 <= value <= 2199 else None
    if isinstance(value, str):
        m = _YEAR_RE.search(value)
        return int(m.group(1)) if m else None
    return None


def read_bytes(path: Path) -> bytes:
    """The bytes of ``path``, decompressed when it is gzip (by its magic bytes).

    Raises:
        IngestError: the file cannot be read, or is a broken gzip file.
    """
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise IngestError(f"{path}: cannot be read ({err.strerror})", "check the path") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as err:
            raise IngestError(f"{path}: broken gzip file ({err})", "re-download it") from None
    return raw


def decode_text(raw: bytes, fallback: str = "cp1252", declared: str | None = None) -> str:
    """``raw`` as text: UTF-16 / UTF-32 (:func:`wide_encoding`), else UTF-8 with or without
    BOM, else ``declared`` (the encoding the file names, as
    :func:`~litsift.sources.encodings.codec_name` gives it) when every byte decodes in it,
    else the legacy encoding it is in (:func:`~litsift.sources.encodings.legacy_encoding`:
    ``fallback`` -- old Western exports are Latin-1 / Windows-1252 -- unless the bytes read
    as another script's code page, GBK or Windows-1251; such a guess is reported through
    :func:`~litsift.sources.encodings.note_guess`). Undecodable bytes become U+FFFD rather
    than an error, so one bad byte costs one character, not the file; a UTF-8 file cut inside
    its last character (a truncated download) stays UTF-8."""
    wide = wide_encoding(raw)
    if wide is not None:
        return raw.decode(wide, errors="replace")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        cut = bytes(err.object)  # after the BOM, which utf-8-sig strips first
        # an ASCII text ending in one high byte is more likely Latin-1 than cut UTF-8
        utf8 = raw[:3] == b"\xef\xbb\xbf" or not cut[: err.start].isascii()
        if utf8 and err.end == len(cut) and err.reason == "unexpected end of data":
            return cut[: err.start].decode("utf-8") + "\ufffd"
        mended = damaged_utf8(raw[3:] if raw[:3] == b"\xef\xbb\xbf" else raw)
        if mended is not None:  # one stray byte garbled every other record's accents
            return mended
        if declared is not None:
            try:
                return raw.decode(declared)
            except UnicodeDecodeError:
                pass  # the file is not in the encoding it names: detect it
        encoding = legacy_encoding(raw, fallback)
        if encoding != fallback:
            note_guess(encoding)
        return raw.decode(encoding, errors="replace")


def read_text(path: Path, fallback: str = "cp1252") -> str:
    """The text of ``path`` (:func:`read_bytes`, :func:`decode_text`), line ends normalised to
    ``\\n``.

    Raises:
        IngestError: the file cannot be read, or is a broken gzip file.
    """
    text = decode_text(read_bytes(path), fallback)
    return text.replace("\r\n", "\n").replace("\r", "\n")
