"""The encoding of an import file that is not UTF-8 (nor UTF-16/32, nor BOM-marked): Windows-1252
for the Western exports that old reference managers wrote, or the legacy code page of another
script -- GB18030/GBK (CNKI, Wanfang, NoteExpress), Big5, Shift_JIS (CiNii), EUC-KR, Windows-1251
and KOI8-R (eLibrary.ru) -- found by charset-normalizer.

:func:`legacy_encoding` decides. A short Western file is where a detector goes wrong: on
``Müller, Jürgen`` charset-normalizer answers UTF-16-LE, on a German or French title Windows-1250,
on ``25° C`` (JabRef's own Windows-1252 test file) any code page; on python-bibtexparser's 104
bytes of GBK (``gbk_test.bib``: ``凯撒``, ``测试期刊``) it answers CP949, Korean. So:

1. the fallback (Windows-1252, or Latin-1 for a ``.bib``) is kept when its reading looks
   Western (:func:`looks_western`): every run of non-ASCII characters is one accented letter or
   two inside a Latin word (``Müller``, ``ção``, ``Kääriäinen``) or one common sign (``°``,
   ``–``, ``“``). A double-byte script read as Windows-1252 makes runs of several signs and
   letters (``¿­Èö`` for ``凯撒``, ``Èâàíîâ`` for ``Иванов``), which is why the test holds
   the runs rather than asking the detector first: what every Western file read so far
   decoded to stays as it was;
2. otherwise charset-normalizer chooses among :data:`CANDIDATES` (the code pages bibliographic
   exports are written in; not the 90 it knows, so that no file turns into UTF-16 or Johab),
   least chaos first; a Korean reading that is more than 10 % Hanja is passed over (Korean is
   written in Hangul; Chinese GBK read as EUC-KR/CP949 turns into Hangul mixed with Hanja,
   ``꿎桿퍅엷`` for ``测试期刊``); a Western reading (the fallback, Windows-1252) ranked
   above the rest ends the search;
3. when nothing else is found, the fallback stands.

A file that is UTF-8 but for a few bytes (a Latin-1 ``é`` typed into a UTF-8 export, a
damaged sequence) is not a legacy file: it has at least :data:`_UTF8_PER_BAD_BYTE` valid
multi-byte characters per bad byte (:func:`damaged_utf8`), which no code page's text has by
chance. It is read as UTF-8, each bad byte as its Windows-1252 character, and a warning says
how many bytes were not UTF-8. Before, one such byte sent the whole file to the detector:
``η`` and ``©`` in every other record were stored as ``خ·`` and ``آ©`` (read as Windows-1256).

A guessed encoding is reported: :func:`noting_guesses` collects, for the import of one file,
what :func:`note_guess` was told (see :mod:`litsift.sources.importer`).

A file that names its encoding is read in it, without a guess, when its bytes are not UTF-8
but decode in the named one: JabRef's ``% Encoding: windows-1250`` line atop a ``.bib``
(:func:`declared_encoding`; JabRef 2 wrote Java's names, ``Cp1250``, ``ISO8859_2``,
``MacRoman``, JabRef 3+ ``windows-1250``, ``x-MacRoman``: :func:`codec_name`), an XML
declaration's ``encoding="ISO-8859-2"`` (:func:`xml_declared_encoding`). This is what the
detector misses: a short Czech or Polish file (Windows-1250) or a Turkish one (Windows-1254)
reads as Western Windows-1252 (``Dvoøák`` for ``Dvořák``), a Mac Roman one too. Bytes that are
valid UTF-8 are read as UTF-8 whatever the line says: a multi-byte UTF-8 sequence does not
happen by chance in a code page's text, while a line left from before the file was converted
to UTF-8 does (JabRef's own ``% Encoding: UTF-8`` files with a Windows-1252 byte show the
line can be wrong; the bytes then go to the detector).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = [
    "CANDIDATES",
    "MOJIBAKE_RE",
    "codec_name",
    "damaged_utf8",
    "declared_encoding",
    "guess_message",
    "legacy_encoding",
    "looks_western",
    "note_guess",
    "noting_guesses",
    "xml_declared_encoding",
]

#: the legacy encodings charset-normalizer may choose among, as Python names them: Chinese
#: (GB18030 reads GB2312 and GBK), Traditional Chinese, Japanese, Korean (CP949 reads EUC-KR),
#: Cyrillic, and the other Windows code pages of Europe and the Middle East
CANDIDATES = (
    "gb18030",
    "big5",
    "cp932",
    "euc_jp",
    "cp949",
    "cp1251",
    "koi8_r",
    "koi8_u",
    "cp1250",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
    "cp1252",
)

#: the non-letters a Western text has on their own: degrees, dashes, quotes, ellipsis,
#: currency, legal and typographic signs, no-break space
_WESTERN_SIGNS = frozenset("°±²³¹µ·¼½¾¿¡§¶©®™€£¥¢×÷–—‘’‚“”„…•†‡‰‹›«»ªº\xa0")
#: share of the non-ASCII characters that must sit in Western-looking runs
_WESTERN_SHARE = 0.9
#: largest share of Hanja among the Korean letters of a Korean reading
_MAX_HANJA = 0.1
#: how much of the text the detector reads (charset-normalizer samples within it)
_DETECT_BYTES = 1 << 20

#: a UTF-8 lead byte read as Latin-1 / Windows-1252 followed by a continuation byte read the
#: same way ("Ã©" for "é"): the mark of double-encoded text
#: (:func:`litsift.sources.base.clean_text` repairs it with ftfy)
MOJIBAKE_RE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6"
    "\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]"
)

#: Java's names for code pages (JabRef writes ``Charset.name()``) that Python does not know,
#: lower case; the ``x-Mac...`` ones it knows without the ``x-`` (``MacRoman``, ``MacGreek``)
_JAVA_NAMES = {
    "windows-31j": "cp932",
    "x-mswin-936": "gbk",
    "x-windows-949": "cp949",
    "x-windows-950": "cp950",
    "x-windows-874": "cp874",
    "windows-874": "cp874",
    "x-ibm737": "cp737",
    "x-maccroatian": "mac_croatian",
    "x-macromania": "mac_romanian",
    "x-macarabic": "mac_arabic",
}
#: JabRef's encoding line (``% Encoding: Cp1250``), a ``@`` maybe right after the name
_BIB_DECLARED_RE = re.compile(rb"%[ \t]*encoding:[ \t]*([A-Za-z0-9._:+-]+)", re.IGNORECASE)
#: an XML declaration naming an encoding (``<?xml version="1.0" encoding="ISO-8859-2"?>``)
_XML_DECLARED_RE = re.compile(
    rb"\A(?:\xef\xbb\xbf)?\s*<\?xml\s[^>]*?\bencoding\s*=\s*[\"']([A-Za-z0-9._:+-]+)[\"']"
)

_GUESSES: ContextVar[list[str] | None] = ContextVar("litsift_encoding_guesses", default=None)


def _ascii_letter(c: str) -> bool:
    return c.isascii() and c.isalpha()


def looks_western(text: str) -> bool:
    """Whether ``text`` (a file read as Windows-1252 or Latin-1) reads as a Western language:
    at least 90 % of its non-ASCII characters sit in runs that are one letter or sign of
    :data:`_WESTERN_SIGNS` (``ü`` of ``Müller``, ``25° C``, ``“best” – approach``), two
    letters next to an ASCII letter (``çã`` of ``ação``), or UTF-8 read as Windows-1252
    (``JosÃ©``, :data:`MOJIBAKE_RE`). True for a text without non-ASCII characters."""
    total = good = 0
    i, n = 0, len(text)
    while i < n:
        if text[i].isascii():
            i += 1
            continue
        j = i
        while j < n and not text[j].isascii():
            j += 1
        run = text[i:j]
        total += len(run)
        before = text[i - 1] if i else " "
        after = text[j] if j < n else " "
        if len(run) == 1 and (run.isalpha() or run in _WESTERN_SIGNS):
            good += 1
        elif len(run) == 2 and run.isalpha() and (_ascii_letter(before) or _ascii_letter(after)):
            good += 2
        elif not MOJIBAKE_RE.sub("", run):  # UTF-8 read as Windows-1252: clean_text repairs it
            good += len(run)
        i = j
    return good >= _WESTERN_SHARE * total


def _hanja_share(text: str) -> float:
    """Hanja among the Hangul and Han letters of ``text`` (0 when there are none)."""
    hangul = han = 0
    for c in text:
        if "\uac00" <= c <= "\ud7a3" or "\u3131" <= c <= "\u318e":
            hangul += 1
        elif unicodedata.category(c) == "Lo" and "\u4e00" <= c <= "\u9fff":
            han += 1
    return han / (hangul + han) if hangul + han else 0.0


#: valid multi-byte UTF-8 characters per byte that is not UTF-8, at least, for a file to be
#: read as UTF-8 with damage rather than in a legacy code page (GBK text, the code page whose
#: pairs look most like UTF-8, has far under one per bad byte)
_UTF8_PER_BAD_BYTE = 20
_ESCAPED = re.compile(r"[\udc80-\udcff]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _as_cp1252(err: UnicodeError) -> tuple[str, int]:
    assert isinstance(err, UnicodeDecodeError)
    return err.object[err.start : err.end].decode("cp1252", errors="replace"), err.end


codecs.register_error("litsift-cp1252", _as_cp1252)


def damaged_utf8(raw: bytes) -> str | None:
    """``raw`` read as UTF-8 when it is UTF-8 but for a few bytes (see the module docstring),
    each bad byte as its Windows-1252 character (a stray ``\\xe9`` is ``é``), the count of
    them reported through :func:`note_guess`'s list; None for bytes that are not mostly UTF-8.
    """
    escaped = raw.decode("utf-8", errors="surrogateescape")
    bad = len(_ESCAPED.findall(escaped))
    if not bad or len(_NON_ASCII.findall(escaped)) - bad < _UTF8_PER_BAD_BYTE * bad:
        return None
    _note(
        f"{bad:,} byte{'s' if bad != 1 else ''} not UTF-8 in a UTF-8 file: read as "
        "Windows-1252 characters, the rest as UTF-8"
    )
    return raw.decode("utf-8", errors="litsift-cp1252")


def legacy_encoding(raw: bytes, fallback: str = "cp1252") -> str:
    """The encoding to read ``raw`` with, for bytes that are not UTF-8 (see the module
    docstring): ``fallback`` when its reading looks Western or nothing better is found, else
    the Python name of the code page charset-normalizer finds (``gb18030``, ``cp1251``, ...).
    """
    if looks_western(raw.decode("cp1252", errors="replace")):  # Latin-1's letters too
        return fallback
    from charset_normalizer import from_bytes  # only for the rare file that needs it

    sample = raw[:_DETECT_BYTES]
    for match in from_bytes(sample, cp_isolation=list(CANDIDATES)):
        name = match.encoding
        if name == fallback or name in ("cp1252", "latin_1"):
            break  # a Western reading is the best there is: the fallback stands
        text = str(match)
        if name == "cp949" and _hanja_share(text) > _MAX_HANJA:
            continue
        return name
    return fallback


def codec_name(charset: str) -> str | None:
    """Python's name for the code page ``charset`` names, in the IANA or Java spelling
    (``windows-1250``, ``Cp1250``, ``ISO8859_2``, ``x-MacRoman`` -> ``cp1250``,
    ``iso8859-2``, ``mac-roman``); None for a name Python does not know, a codec that is not
    a text encoding (``base64``), or UTF-8/16/32: a file that names one of these but is not
    in it (UTF-8 failed, UTF-16/32 has no byte-order mark or zeros) is left to detection."""
    key = charset.strip().lower()
    for name in (_JAVA_NAMES.get(key, key), key.removeprefix("x-")):
        try:
            "a".encode(name)  # LookupError too for a bytes-to-bytes codec (base64)
        except LookupError:
            continue
        found = codecs.lookup(name).name
        return None if found.startswith("utf") else found
    return None


def declared_encoding(head: bytes) -> str | None:
    """The code page a JabRef ``.bib`` names on its ``% Encoding: NAME`` line (as
    :func:`codec_name` gives it), found among the ``%`` comment lines at the top of ``head``
    (``% This file was created with JabRef 2.10.`` may come first); None when there is no
    such line or the name is not a code page Python reads."""
    for line in head.removeprefix(codecs.BOM_UTF8).splitlines():
        line = line.strip()
        if not line:
            continue
        if not line.startswith(b"%"):
            return None  # the comments at the top are over
        match = _BIB_DECLARED_RE.match(line)
        if match:
            return codec_name(match.group(1).decode("ascii"))
    return None


def xml_declared_encoding(head: bytes) -> str | None:
    """The code page an XML declaration at the start of ``head`` names (:func:`codec_name`),
    or None."""
    match = _XML_DECLARED_RE.match(head)
    return codec_name(match.group(1).decode("ascii")) if match else None


@contextmanager
def noting_guesses() -> Iterator[list[str]]:
    """A list that collects, while the block runs, each guessed encoding a file was read
    with (:func:`note_guess`), one line each, in the order they were guessed."""
    notes: list[str] = []
    token = _GUESSES.set(notes)
    try:
        yield notes
    finally:
        _GUESSES.reset(token)


def note_guess(encoding: str) -> None:
    """Tell the import now reading a file that it was decoded as ``encoding``, a guess."""
    _note(guess_message(encoding))


def _note(note: str) -> None:
    notes = _GUESSES.get()
    if notes is not None and note not in notes:
        notes.append(note)


def guess_message(encoding: str) -> str:
    """The warning for a file read as ``encoding`` (a guess of :func:`legacy_encoding`)."""
    return (
        f"not UTF-8: read as {encoding.upper().replace('_', '-')}, the encoding it looks like; "
        "if the text is garbled, re-save the file as UTF-8"
    )
