"""Record elements streamed out of an XML export (EndNote XML ``<record>``, PubMed XML
``<PubmedArticle>``), one at a time, so that a file of 100,000 records never sits in memory as
one tree, and a file broken in one place costs that record, not the file.

:func:`xml_records` reads with :func:`lxml.etree.iterparse` (no DTD, no network, no entity
expansion; ``huge_tree`` for long abstracts). When the XML breaks (a file cut short, a stray
``&`` or ``<`` in one record, an unclosed tag), the records already read stay read, and the
rest of the file is cut at the record start tags and each piece is parsed on its own: a piece
that does not parse is a :class:`~litsift.sources.base.BadItem` at ``record N`` (its number in
the file, counting from 1), and the records after it are read as usual. A gzip file cut short
keeps the records before the cut, and the cut one is reported.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from lxml import etree

from litsift.errors import IngestError
from litsift.sources.base import BadItem, SourceRecord, clean_text, decode_text, read_bytes
from litsift.sources.encodings import xml_declared_encoding

__all__ = ["first_text", "read_records", "text_of", "xml_records"]

_OPTIONS: dict[str, Any] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "huge_tree": True,
}
_PIECE_PARSER = etree.XMLParser(recover=False, **_OPTIONS)


def text_of(el: etree._Element | None) -> str:
    """The text of an element and its descendants (EndNote's ``<style>`` runs, PubMed's
    ``<i>``/``<sup>``) joined, whitespace collapsed; ``""`` for None."""
    return clean_text("".join(el.itertext())) if el is not None else ""


def first_text(el: etree._Element, *paths: str) -> str:
    """:func:`text_of` the first of ``paths`` (ElementPath, relative to ``el``) that has text."""
    for path in paths:
        value = text_of(el.find(path))
        if value:
            return value
    return ""


def _open(path: Path) -> IO[bytes]:
    try:
        fh: IO[bytes] = path.open("rb")
        if fh.read(2) == b"\x1f\x8b":
            fh.close()
            return cast("IO[bytes]", gzip.open(path, "rb"))
        fh.seek(0)
        return fh
    except OSError as err:
        raise IngestError(
            f"{path}: cannot be read ({err.strerror or err})", "check the path"
        ) from None


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _pieces(text: str, tags: tuple[str, ...]) -> Iterator[tuple[str, bool, bool]]:
    """``(piece, closed, last)`` for each record of ``text``: from its start tag to its end
    tag (closed), or to the next record's start tag / the end of the text when its end tag is
    missing; ``last`` for the file's last record."""
    names = "|".join(re.escape(t) for t in tags)
    starts = [m.start() for m in re.finditer(rf"<(?:{names})(?=[\s/>])", text)]
    for i, start in enumerate(starts):
        last = i + 1 == len(starts)
        chunk = text[start : len(text) if last else starts[i + 1]]
        end = re.search(rf"</(?:{names})\s*>", chunk)
        yield (chunk[: end.end()] if end else chunk), end is not None, last


def _rest(
    path: Path, tags: tuple[str, ...], done: int, what: str
) -> Iterator[tuple[int, etree._Element] | BadItem]:
    """The records after the first ``done``, each parsed on its own (the file broke)."""
    raw = read_bytes(path)
    # in the encoding the declaration names, as lxml read the records before the break
    # (unless the bytes are UTF-8: see decode_text)
    text = decode_text(raw, declared=xml_declared_encoding(raw[:1024]))
    text = re.sub(r"\A\s*<\?xml[^>]*\?>", "", text)  # a str may not declare an encoding
    for n, (chunk, closed, last) in enumerate(_pieces(text, tags), 1):
        if n <= done:
            continue
        if not closed:
            reason = "the file ends inside it (cut short?)" if last else "it is never closed"
            yield BadItem(f"record {n}", f"{what} {reason}; skipped")
            continue
        try:
            yield n, etree.fromstring(chunk, _PIECE_PARSER)
        except etree.XMLSyntaxError as err:
            yield BadItem(f"record {n}", f"{what} is not well-formed XML ({err.msg}); skipped")


def xml_records(
    path: Path,
    tags: tuple[str, ...],
    root_ok: Callable[[str], bool],
    what: str,
    hint: str,
) -> Iterator[tuple[int, etree._Element] | BadItem]:
    """Every record element (local name in ``tags``) of the XML file ``path`` (maybe gzip),
    numbered from 1 in file order; a record that cannot be parsed is a :class:`BadItem`.

    Args:
        path: the file.
        tags: the record elements' names (``("record",)``).
        root_ok: whether the root element's local name is this format's.
        what: the record's name in messages (``"EndNote record"``).
        hint: what to do when the file is not this format.

    Raises:
        IngestError: the file cannot be read, is not XML, its root is not this format's, or
            it holds no record.
    """
    done = 0
    with _open(path) as fh:
        events = etree.iterparse(fh, events=("start", "end"), **_OPTIONS)
        root: etree._Element | None = None
        try:
            for event, el in events:
                if root is None:
                    root = el
                    if not root_ok(_local(el.tag)):
                        raise IngestError(f"not {what}s: the root is <{_local(el.tag)}>", hint)
                    if _local(el.tag) in tags:  # one record alone: PubMed's <PubmedArticle>
                        continue
                if event != "end" or _local(el.tag) not in tags:
                    continue
                done += 1
                yield done, el
                el.clear()
                parent = el.getparent()
                while parent is not None and el.getprevious() is not None:
                    del parent[0]
        except etree.XMLSyntaxError as err:
            if root is None:
                raise IngestError(f"not XML ({err.msg})"[:200], hint) from None
        except (OSError, EOFError, zlib.error) as err:  # a gzip file cut or broken
            if done == 0:
                raise IngestError(f"{path}: broken gzip file ({err})", "re-download it") from None
            reason = f"the gzip file breaks inside it ({err}); the rest is lost: re-download it"
            yield BadItem(f"record {done + 1}", reason[:300])
            return
        else:
            if done == 0:
                raise IngestError(f"holds no {what}s", hint)
            return
    found = done
    for item in _rest(path, tags, done, what):
        found += 1
        yield item
    if found == 0:
        raise IngestError(f"holds no {what}s (the XML breaks before the first)", hint)


def read_records(
    records: Iterator[tuple[int, etree._Element] | BadItem],
    build: Callable[[etree._Element, int], SourceRecord | BadItem],
) -> Iterator[SourceRecord | BadItem]:
    """Each of :func:`xml_records`' elements as ``build(element, n)``; one whose fields have
    an odd shape (``build`` raised TypeError, ValueError or AttributeError) is a
    :class:`BadItem` at ``record N``, and the next is read."""
    for item in records:
        if isinstance(item, BadItem):
            yield item
            continue
        n, el = item
        try:
            yield build(el, n)
        except (TypeError, ValueError, AttributeError) as err:
            yield BadItem(f"record {n}", f"record cannot be read ({err})"[:200])
