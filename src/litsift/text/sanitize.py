"""Sanitising for terminals: the one function every data or model string passes on its way to
a terminal (TUI widgets, plain CLI output, streamed LLM text, error messages quoting data).

An abstract, a dataset description or an LLM reply may carry terminal control sequences: OSC 0
(``ESC ] 0 ; title BEL``) retitles the terminal, ``ESC [ 2 J`` clears the screen, ``ESC [ 31 m``
colours text, a U+202E override reverses what follows. :func:`for_terminal` removes complete
escape sequences and makes every other control character visible, so what is shown is the
text, never an instruction to the terminal (importers store text through
:func:`for_storage`, so none is kept). :func:`json_for_terminal` is the lossless
counterpart for ``--json``: it escapes the same characters instead of dropping them.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: String Terminator: ``ESC \`` or its 8-bit form U+009C (ECMA-48, 8.3.143)
_ST = r"(?:\x1b\\|\x9c)"
#: Complete escape sequences, after ECMA-48 (5th edition, 1991) sections 5.3 to 5.6 and 8.3:
#: * OSC (``ESC ]`` / U+009D) command string, ended by ST or, as xterm also accepts, BEL;
#: * DCS, SOS, PM, APC (``ESC P X ^ _`` / U+0090 U+0098 U+009E U+009F) strings ended by ST;
#: * CSI (``ESC [`` / U+009B): parameter bytes 0x30-0x3F, intermediate bytes 0x20-0x2F, one
#:   final byte 0x40-0x7E (5.4);
#: * any other escape sequence: ``ESC``, intermediate bytes 0x20-0x2F, one final byte
#:   0x30-0x7E (nF, Fp, Fe, Fs of ECMA-35 / ECMA-48 5.3), e.g. ``ESC c`` (reset) or ``ESC 7``.
#: String bodies stop at ESC and at any C1 character, so a body never spans the next
#: introducer and matching stays linear in the length of the text.
_SEQUENCE = re.compile(
    r"(?:\x1b\]|\x9d)[^\x07\x1b\x80-\x9f]*(?:\x07|" + _ST + r")"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x80-\x9f]*"
    + _ST
    + r"|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]"
)
#: The start of a sequence of :data:`_SEQUENCE` that the end of the text cuts short: an OSC,
#: DCS, SOS, PM or APC string not yet ended (perhaps by the ESC of its ``ESC \\``), a CSI
#: without its final byte, ``ESC`` and intermediate bytes; also a ``\r`` whose ``\n`` may follow.
_OPEN_TAIL = re.compile(
    r"(?:(?:\x1b\]|\x9d)[^\x07\x1b\x80-\x9f]*|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x80-\x9f]*)"
    r"\x1b?\Z"
    r"|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*\Z"
    r"|\x1b[\x20-\x2f]*\Z"
    r"|\r\Z"
)
#: the 8-bit introducers of :data:`_SEQUENCE` (CSI, OSC, DCS, SOS, PM, APC)
_C1_INTRODUCER = re.compile(r"[\x90\x98\x9b\x9d\x9e\x9f]")
#: what :func:`for_storage` removes: C0 controls but tab, line feed and carriage return, DEL, C1
_STORED_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: bidirectional embeddings, overrides and isolates (Unicode UAX #9, 2.1-2.4): U+202A-U+202E,
#: U+2066-U+2069 ("Trojan Source", CVE-2021-42574); dropped
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
#: every character :func:`for_terminal` may change (with ``keep_newlines``)
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_UNSAFE_ONE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")

_VISIBLE: dict[int, str | None] = {
    **{c: chr(0x2400 + c) for c in range(0x20)},  # C0 → Control Pictures ␀ … ␟
    0x7F: "\u2421",  # DEL → ␡
    **{c: "\ufffd" for c in range(0x80, 0xA0)},  # C1 → �
    **{c: "\ufffd" for c in range(0xD800, 0xE000)},  # surrogates (never valid text) → �
    **dict.fromkeys(_BIDI),
}
_MULTI_LINE = {**_VISIBLE, 0x0A: "\n", 0x09: "\t"}
_ONE_LINE = {**_VISIBLE, 0x0A: " ", 0x09: " "}


def for_terminal(s: str, keep_newlines: bool = True) -> str:
    """``s`` made safe to write to a terminal: no escape sequence, no control character.

    1. Complete escape sequences (7-bit and 8-bit: CSI, OSC, DCS, SOS, PM, APC and two-or-more
       byte ``ESC`` sequences, grammar of ECMA-48 5th edition §5.3-5.6) are removed.
    2. ``\\r\\n`` and a lone ``\\r`` become ``\\n`` (a bare carriage return could overwrite the
       line already shown).
    3. Every remaining C0 control and DEL is made visible as its Unicode Control Picture
       (U+2400 + code, e.g. ESC → ``␛``, BEL → ``␇``, NUL → ``␀``; DEL → ``␡``); every C1 control
       (U+0080-U+009F) and every surrogate code point (lone surrogates from ``surrogateescape``
       or bad JSON, never valid text) becomes U+FFFD ``�``.
    4. Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069, UAX #9)
       are dropped, so text is shown in the order it is stored.
    5. ``\\n`` and ``\\t`` are kept when ``keep_newlines``, else each becomes one space (for
       one-line places: table cells, status lines).

    The result holds no C0 character but ``\\n``/``\\t``, no DEL, no C1, no ESC and no
    surrogate, so ``for_terminal(for_terminal(s)) == for_terminal(s)``. Pure; text without any
    such character is returned unchanged (the same object).

    Args:
        s: any text from data, a model or an error message.
        keep_newlines: keep ``\\n`` and ``\\t`` (multi-line widgets) or make them spaces.

    Returns:
        The sanitised text.
    """
    unsafe = _UNSAFE if keep_newlines else _UNSAFE_ONE_LINE
    if unsafe.search(s) is None:
        return s
    s = _SEQUENCE.sub("", s)
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    return s.translate(_MULTI_LINE if keep_newlines else _ONE_LINE)


_SEQUENCE_CUT = re.compile("(" + _SEQUENCE.pattern + ")")


def split_escape_sequences(s: str) -> list[str]:
    """``s`` cut at its complete escape sequences (those :func:`for_storage` removes): text,
    sequence, text, ... -- the odd items are the sequences; ``[s]`` when it has none. For a
    parser that must not read a sequence's bytes as its own syntax (LaTeX read the ``ESC \\``
    ending an OSC 8 link as a command)."""
    if "\x1b" not in s and _C1_INTRODUCER.search(s) is None:
        return [s]
    return _SEQUENCE_CUT.split(s)


def shell_word(s: str) -> str:
    """``s`` (a review's name, a reviewer's) as one word of a command to paste into a shell,
    quoted where it needs it (``statins`` as is, ``'my review'``), made safe as
    :func:`for_terminal` on one line: a hint's ``litsift review screen my review`` ran
    ``screen`` on review ``my``."""
    import shlex

    return shlex.quote(for_terminal(s, keep_newlines=False))


def for_storage(s: str) -> str:
    """``s`` as a store keeps it: complete escape sequences removed (step 1 of
    :func:`for_terminal`; removing their ESC alone left ``[2J`` in a title), then every C0
    control but tab, line feed and carriage return, DEL and every C1 control. Pure; text
    without any is returned unchanged."""
    if _STORED_UNSAFE.search(s) is None:
        return s
    return _STORED_UNSAFE.sub("", _SEQUENCE.sub("", s))


def for_storage_in(value: Any) -> Any:
    """``value`` with :func:`for_storage` applied to every string in it, through lists,
    tuples and dict values (a JSONL row: its title, its authors' names, a nested field);
    keys and other values as they are. Pure: a value without control characters comes back
    equal."""
    if isinstance(value, str):
        return for_storage(value)
    if isinstance(value, list):
        return [for_storage_in(v) for v in value]
    if isinstance(value, tuple):
        return tuple(for_storage_in(v) for v in value)
    if isinstance(value, dict):
        return {k: for_storage_in(v) for k, v in value.items()}
    return value


def for_terminal_draft(s: str) -> str:
    """The text received so far of a stream (an LLM's draft), made safe as :func:`for_terminal`
    makes it, for a view that is redrawn as the text grows.

    Sanitising each delta on its own shows the remnants of a sequence split across deltas
    (``ESC ] 0 ; pw`` + ``ned BEL`` showed ``0;pwned␇``); sanitising the whole text so far shows
    them until the sequence ends. So a sequence that the end of ``s`` cuts short (an OSC, DCS,
    SOS, PM or APC string without its terminator, a CSI without its final byte, ``ESC`` and
    intermediate bytes) is left out here, and so is a final ``\\r`` (its ``\\n`` may follow):
    once the stream has ended outside any sequence, the result is ``for_terminal(s)``.

    Args:
        s: the text received so far.

    Returns:
        The sanitised text, multi-line (``keep_newlines``).
    """
    cut = _OPEN_TAIL.search(s)
    return for_terminal(s if cut is None else s[: cut.start()])


#: what ``json.dumps(..., ensure_ascii=False)`` leaves raw but a terminal must not see
_JSON_RAW = re.compile(r"[\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def json_for_terminal(obj: Any, indent: int | None = 2, ascii_only: bool = False) -> str:
    """``obj`` as JSON that is lossless and safe to print: non-ASCII text stays readable.

    ``json.dumps(..., ensure_ascii=False)`` escapes C0 controls but writes DEL, C1 controls
    (U+0080-U+009F, e.g. the 8-bit CSI U+009B), surrogates and bidi overrides raw; each of those
    is written as a ``\\uXXXX`` escape here (they occur only inside JSON strings, where the
    escape is valid, RFC 8259 §7), so ``json.loads`` gives back exactly the same strings (as
    far as JSON can say: a high and a low surrogate code point in a row, never valid text, read
    back as the one character they encode in UTF-16, as with ``ensure_ascii=True``).

    Args:
        obj: anything ``json.dumps`` accepts.
        indent: as for ``json.dumps``.
        ascii_only: escape every non-ASCII character too (``ensure_ascii``), for an output
            whose encoding cannot write them all (a Latin-1 locale): the same strings again.

    Returns:
        The JSON text.
    """
    if ascii_only:
        return json.dumps(obj, ensure_ascii=True, indent=indent)
    text = json.dumps(obj, ensure_ascii=False, indent=indent)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
