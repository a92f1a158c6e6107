"""BibTeX / biblatex files (``.bib``): Zotero, Better BibTeX, JabRef, Mendeley, EndNote, hand-kept.

Parsing is bibtexparser v2 (``@string`` macros resolved, enclosing braces removed; ``#``
concatenation, which bibtexparser 2.x leaves as written, by :class:`ConcatenationMiddleware`);
LaTeX in values becomes Unicode with pylatexenc (``{\\"o}`` -> ``ö``, math kept readable); names are
split with bibtexparser's BibTeX name rules (``von Last, Jr, First``). On top of the parser:

* several files are one database (:func:`read_bibtex_database`, what ``litsift ingest papers
  a.bib b.bib`` and a folder of ``.bib`` files read; :mod:`litsift.sources.formats.bibtex_db`):
  ``@string`` macros, ``crossref``/``xdata`` keys and ``@preamble`` commands of one file serve
  the others; a file of only macros or only parents is no error;
* ``crossref`` and ``xdata``: a child inherits the fields it lacks by biblatex's default rules
  (the ``@proceedings``' ``title`` becomes the ``@inproceedings``' ``booktitle``; see
  :mod:`litsift.sources.formats.bibtex_inherit`); a volume named in a ``crossref`` is not a paper;
* duplicate keys: every entry is kept (``entry KEY (2nd)``), with a warning at its line;
  de-duplication decides; a ``crossref`` to a key no file read holds is a warning too;
* JabRef groups (``groups = {A, B}``) and ``keywords`` -> collections and tags; ``file``
  fields (Zotero/BBT ``path:type``, JabRef ``desc:path:type``, Mendeley) -> attachments;
  ``annote``/``annotation`` -> notes (a Rayyan export's ``note``: its reviewers' notes, its labels
  as tags);
* identifiers: ``doi``, ``eprint`` with ``archiveprefix``/``eprinttype`` arXiv, ``pmid``,
  ACL Anthology / arXiv / DOI links in ``url``.

A block bibtexparser cannot parse is a bad item ``line N`` with its reason (a cut file: "the
file ends inside this entry"); everything else in the file is kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from litsift.sources.base import BadItem, Format, Notice, SourceRecord
from litsift.sources.formats.bibtex_db import load
from litsift.sources.formats.bibtex_entries import sniff_bibtex
from litsift.types import Kind

__all__ = ["FORMATS", "read_bibtex", "read_bibtex_database"]


def read_bibtex_database(
    paths: Sequence[Path],
) -> Iterator[tuple[Path, SourceRecord | BadItem | Notice]]:
    """Every entry of the ``.bib`` files ``paths`` read as ONE BibTeX database, as
    ``\\bibliography{abbrev,biblio,crossref}`` makes them: an ``@string`` of one file expands
    in the others, a ``crossref`` or ``xdata`` key may be in any file, and the order of the
    files does not matter (a file's own macros and keys come first; see
    :mod:`litsift.sources.formats.bibtex_db`).

    A container (``@proceedings``, ``@collection``, ``@book``, ``@mv*``, ``@periodical``) that
    some entry names in its ``crossref`` is not a paper: its fields go to its children (see
    :mod:`litsift.sources.formats.bibtex_inherit`). ``@string``, ``@preamble``, ``@xdata`` and
    ``@set`` blocks are not papers either, so a file of macros or of parents yields nothing
    and is no error.

    Args:
        paths: ``.bib`` files (``.gz`` too).

    Yields:
        ``(file, record or bad item)``, file by file in the order given, each file read a
        chunk of blocks at a time (:mod:`litsift.sources.formats.bibtex_db`). A file that
        cannot be read, or holds no BibTeX at all, is one ``BadItem("", reason)``.
    """
    database, unusable = load(paths)
    for path, err in unusable:
        yield path, BadItem("", err.message.removeprefix(f"{path}: "))
    yield from database.records()


def read_bibtex(path: Path) -> Iterator[SourceRecord | BadItem | Notice]:
    """Every entry of one ``.bib`` file (a database of one file, see
    :func:`read_bibtex_database`) as a record; unparseable blocks as bad items.

    Raises:
        IngestError: the file cannot be read or holds no BibTeX entry at all (or the parser
            fails on a chunk of it: the records of the chunks before are yielded first).
    """
    database, unusable = load([path])
    if unusable:
        raise unusable[0][1]
    for _, item in database.records():
        if isinstance(item, BadItem) and not item.location:
            raise next(iter(database.failed.values()))
        yield item


FORMATS = [
    Format(
        name="bibtex",
        kind=Kind.PAPER,
        read=read_bibtex,
        sniff=sniff_bibtex,
        extensions=(".bib", ".bibtex", ".biblatex"),
        description="BibTeX / biblatex (.bib): Zotero, Better BibTeX, JabRef, Mendeley, EndNote",
        read_database=read_bibtex_database,
    )
]
