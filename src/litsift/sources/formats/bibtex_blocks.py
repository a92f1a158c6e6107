"""Repairs of a split BibTeX file before its macros are resolved (used by
:mod:`litsift.sources.formats.bibtex_db`):

* ``%`` comment lines outside entries are dropped (kept as empty lines, so line numbers stay):
  a commented-out ``% @string{osdi = {...}}`` is no macro and a commented-out entry no entry,
  as biber and JabRef read them (bibtexparser would parse both);
* an entry that gives a field twice (``pages`` twice, ``keywords`` once per keyword) keeps the
  first value, as BibTeX does, and goes through the parse stack like any entry (names split,
  braces and quotes removed); the repeated fields are reported per entry;
* an ``@string`` macro defined again is no duplicate *entry*: the later definition wins, as in
  BibTeX, and the redefinition is reported;
* an entry key that holds a comma, as Scopus writes the key of a first author whose family
  name has a suffix or who is a group (``@ARTICLE{Ribeiro, Jr2022,``,
  ``@ARTICLE{EuropeanCommission,T2019,``), keeps its whole key: bibtexparser ends the key at
  the first comma and gives up on the entry (a failed block holding the entry's first line, an
  implicit comment holding its fields), so the two are joined again and split with the key
  set aside.
"""

from __future__ import annotations

import re

from bibtexparser import model
from bibtexparser.library import Library
from bibtexparser.splitter import Splitter

from litsift.sources.base import Notice

__all__ = ["drop_comment_line", "drop_comment_lines", "repair_blocks"]


def drop_comment_lines(text: str) -> str:
    """``text`` with every line that starts with ``%`` outside an entry (brace depth 0)
    emptied; a ``%`` line inside a braced value (an abstract wrapped before ``% of``) stays."""
    if "%" not in text:
        return text
    out: list[str] = []
    depth = 0
    for line in text.split("\n"):
        line, depth = drop_comment_line(line, depth)
        out.append(line)
    return "\n".join(out)


_ESCAPED_RE = re.compile(r"\\.")


def drop_comment_line(line: str, depth: int) -> tuple[str, int]:
    """One line of :func:`drop_comment_lines`, read at brace depth ``depth``: the line (empty
    when it is a ``%`` comment outside an entry) and the depth after it (``\\{`` escapes a
    brace; a ``}`` at depth 0 leaves it 0)."""
    if depth == 0 and line.lstrip().startswith("%"):
        return "", 0
    if "{" not in line and "}" not in line:
        return line, depth
    bare = _ESCAPED_RE.sub("", line) if "\\" in line else line
    closes = bare.count("}")
    if depth - closes >= 0:  # the depth cannot reach 0 and be held there
        return line, depth + bare.count("{") - closes
    for ch in bare:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
    return line, depth


def _first_values(entry: model.Entry) -> tuple[model.Entry, list[str]]:
    """``entry`` with each field once (its first value), and the names given more than once."""
    seen: dict[str, model.Field] = {}
    repeated: list[str] = []
    for f in entry.fields:
        if f.key in seen:
            if f.key not in repeated:
                repeated.append(f.key)
            continue
        seen[f.key] = f
    kept = model.Entry(
        entry.entry_type,
        entry.key,
        list(seen.values()),
        start_line=entry.start_line,
        raw=entry.raw,
    )
    return kept, repeated


def _where(entry: model.Entry) -> str:
    if entry.key.strip():
        return f"entry {entry.key}"
    return f"entry without a key, line {(entry.start_line or 0) + 1}"


#: the part of an entry bibtexparser read before a comma in its key stopped it:
#: ``@ARTICLE{Ribeiro, Jr2022`` (the rest of the key, if any, starts the comment after it)
_COMMA_KEY_HEAD_RE = re.compile(r"\A@(?P<type>\w+)\s*\{(?P<key>[^{}=\n\"#%]*,[^{}=\n\"#%]*)\Z")
#: the first field of an entry: ``author =``
_FIELD_START_RE = re.compile(r"\A\s*[A-Za-z][\w\-+:.]*\s*=")
#: the rest of a key with more than one comma, before the first field: ``C2020,``
_KEY_REST_RE = re.compile(r"\A(?P<more>[^{}=\n\"#%,]+?)\s*,(?=\s*[A-Za-z][\w\-+:.]*\s*=)")


def _comma_key_entry(head: model.Block, rest: model.Block) -> model.Entry | None:
    """The entry whose key holds a comma, from the failed block ``head`` bibtexparser made of
    its first line and the comment ``rest`` it made of its fields; None when they are not
    that."""
    m = _COMMA_KEY_HEAD_RE.match((head.raw or "").strip())
    if m is None or not isinstance(rest, model.ImplicitComment) or rest.raw is None:
        return None
    key, body = m.group("key").strip(), rest.raw
    if not _FIELD_START_RE.match(body):  # a key with more commas: ``A, B, C2020``
        more = _KEY_REST_RE.match(body)
        if more is None:
            return None
        sep = ", " if ", " in key else ","
        key, body = f"{key}{sep}{more.group('more').strip()}", body[more.end() :]
    split = Splitter(bibstr=f"@{m.group('type')}{{comma-key,\n{body}").split()
    entries = split.entries
    if len(entries) != 1 or split.failed_blocks or not entries[0].fields:
        return None
    return model.Entry(
        entries[0].entry_type,
        key,
        entries[0].fields,
        start_line=head.start_line,
        raw=f"{head.raw},{rest.raw}",
    )


def repair_blocks(library: Library) -> tuple[Library, list[Notice]]:
    """``library`` (as split) with keys that hold a comma, repeated fields and redefined
    macros resolved, and a :class:`~litsift.sources.base.Notice` for each of the last two."""
    blocks: list[model.Block] = []
    notices: list[Notice] = []
    macro_at: dict[str, int] = {}  # lower-case macro name -> index in blocks
    changed = False
    split = library.blocks
    skip = False
    for i, block in enumerate(split):
        if skip:
            skip = False
            continue
        if isinstance(block, model.ParsingFailedBlock) and i + 1 < len(split):
            joined = _comma_key_entry(block, split[i + 1])
            if joined is not None:
                blocks.append(joined)
                changed = skip = True
                continue
        kept = getattr(block, "ignore_error_block", None)
        if isinstance(block, model.DuplicateFieldKeyBlock) and isinstance(kept, model.Entry):
            entry, repeated = _first_values(kept)
            names = ", ".join(repeated)
            notices.append(
                Notice(_where(entry), f"field given more than once ({names}): the first kept")
            )
            blocks.append(entry)
            changed = True
            continue
        string = block if isinstance(block, model.String) else kept
        if isinstance(string, model.String):
            name = string.key.lower()
            if name in macro_at:  # BibTeX: the later @string replaces the earlier
                first = blocks[macro_at[name]]
                line = (first.start_line or 0) + 1
                notices.append(
                    Notice(
                        f"line {(string.start_line or 0) + 1}",
                        f"@string {string.key} defined again (first on line {line}): "
                        "the later definition is used",
                    )
                )
                blocks[macro_at[name]] = string
                changed = True
                continue
            macro_at[name] = len(blocks)
            blocks.append(string)
            continue
        blocks.append(block)
    if not changed:
        return library, notices
    return Library(blocks, fail_on_duplicate_key=False), notices
