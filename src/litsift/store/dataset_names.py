"""One row per dataset, whatever files it came from: the name key and the merge of its fields.

Datasets are keyed by their name, case kept, so a Hugging Face card (``sciq``) and a
Papers-with-Code entry (``SciQ``) of one dataset would be two rows, each with part of its
popularity. An incoming dataset whose exact id is not stored joins the stored dataset whose
:func:`name_key` is the same:

* **the key**: the name case-folded (Unicode ``casefold`` after NFKC), without spaces, hyphens,
  underscores and dots; a Hugging Face repo id ``owner/name`` counts by its ``name``. So
  ``CIFAR-10`` / ``cifar10`` and ``AG News`` / ``ag_news`` join; ``SQuAD`` / ``SQuAD 2.0``
  (``squad`` / ``squad20``) do not. Only ids are compared, never variants: Papers with Code
  lists sub-datasets as variants (``GLUE``'s hold ``CoLA`` and ``MRPC``), which are other
  datasets.
* **kept apart**: when the stored row came from the same file (a source's own entries are
  taken as distinct: PwC's ``BIRD``, Blocksworld, and ``BiRD``, Bigram Relatedness), and when
  both name an introducing paper and the titles share less than half their words
  (:func:`other_paper`; reported as kept apart, so PwC's ``MNIST`` and the card's ``mnist``,
  introduced by different papers, stay two rows).
* **the merge** (:func:`merge_dataset`): the stored id and facts stay, empty fields are filled,
  the longer description is kept, the new name and variants are added to the variants; nothing
  is blanked. A re-import of an exact id updates the row's year, date, URL and paper from the
  file but keeps the variants, the longer description and the fields other sources filled.

``litsift dedup`` merges the rows a store made before this rule holds by the same code
(:meth:`DatasetNames.find_from`, a row's files read off ``provenance``:
:mod:`litsift.sources.dataset_dedup`); a bulk ``litsift ingest`` records no provenance, so two
rows of one such file are kept apart only by their introducing papers.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from litsift.store.schema import CONTENT_COLUMNS
from litsift.types import Kind

__all__ = [
    "DatasetNames",
    "NameMatch",
    "dataset_files",
    "dataset_names",
    "dataset_row",
    "fields_of",
    "merge_dataset",
    "name_key",
    "other_paper",
    "values_of",
]

_COLS = CONTENT_COLUMNS[Kind.DATASET]
_FOLD_RE = re.compile(r"[\s\-_.]+")
_REPO_RE = re.compile(r"^[\w.-]+/([\w.-]+)$")
_WORD_RE = re.compile(r"\w+")


def name_key(name: str) -> str:
    """The key two spellings of one dataset name share: ``"AG News"``, ``"ag_news"`` and
    ``"fancyzhx/ag-news"`` give ``"agnews"``; ``""`` for a name of only separators."""
    text = unicodedata.normalize("NFKC", name).strip()
    repo = _REPO_RE.match(text)
    return _FOLD_RE.sub("", (repo.group(1) if repo else text).casefold())


def _title_key(title: str) -> str:
    return " ".join(_WORD_RE.findall(unicodedata.normalize("NFKC", title).casefold()))


def other_paper(title: str, other: str) -> bool:
    """True when both introducing-paper titles are given and name different papers: less
    than half the words of the shorter are in the other (a paper's arXiv and conference
    titles, ``CommonGen: A Constrained Text Generation Challenge|Dataset ...``, share most)."""
    a, b = set(_title_key(title).split()), set(_title_key(other).split())
    return bool(a and b) and 2 * len(a & b) < min(len(a), len(b))


def fields_of(values: tuple[Any, ...]) -> dict[str, Any]:
    """Column values (``CONTENT_COLUMNS[Kind.DATASET]``) as a dict, ``variants`` a list."""
    out = dict(zip(_COLS, values, strict=True))
    out["variants"] = list(json.loads(out["variants"] or "[]"))
    return out


def values_of(fields: dict[str, Any]) -> tuple[Any, ...]:
    """The inverse of :func:`fields_of`."""
    enc = {**fields, "variants": json.dumps(fields["variants"], ensure_ascii=False)}
    return tuple(enc[c] for c in _COLS)


def merge_dataset(stored: dict[str, Any], new: dict[str, Any], *, update: bool) -> dict[str, Any]:
    """``stored`` completed from ``new`` (both :func:`fields_of` dicts); the id stays.

    ``update`` (a re-import of the same id): ``new``'s non-empty introducing paper, year, date
    and URL replace the stored ones; otherwise (another name of the dataset) stored fields stay
    and empty ones are filled. Either way the longer description is kept, the variants are the
    union (stored first, then ``new``'s id and variants) and no field is blanked.
    """
    out = dict(stored)
    own = [new["id"]] if new["id"] != stored["id"] else []
    names = [*stored["variants"], *own, *new["variants"]]
    out["variants"] = [n for n in dict.fromkeys(names) if n]
    for key in ("intro_paper_title", "year", "date", "url"):
        given = new[key] not in (None, "")
        if given and (update or out[key] in (None, "")):
            out[key] = new[key]
    if len(new["description"]) > len(out["description"]):  # as a paper's abstract: stable
        out["description"] = new["description"]  # whichever source is imported again
    return out


def dataset_row(conn: sqlite3.Connection, doc_id: str) -> tuple[dict[str, Any], str] | None:
    """The stored dataset ``doc_id`` as ``(fields, content hash)``, or None."""
    row = conn.execute(
        f"SELECT {', '.join(_COLS)}, content_hash FROM datasets WHERE id = ?", (doc_id,)
    ).fetchone()
    return None if row is None else (fields_of(tuple(row[:-1])), str(row[-1]))


def dataset_files(conn: sqlite3.Connection) -> dict[str, set[str]]:
    """The files each stored dataset was read from (its ``provenance`` rows), by id; a dataset
    of a bulk ``litsift ingest`` has none."""
    out: dict[str, set[str]] = {}
    for doc_id, file in conn.execute(
        "SELECT doc_id, file FROM provenance WHERE kind = ?", (Kind.DATASET.value,)
    ):
        out.setdefault(str(doc_id), set()).add(str(file))
    return out


def dataset_names(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """``(id, introducing paper title)`` of every stored dataset."""
    return [(str(i), str(t or "")) for i, t in conn.execute(
        "SELECT id, intro_paper_title FROM datasets ORDER BY rowid")]  # fmt: skip


@dataclass(frozen=True)
class NameMatch:
    """Where an incoming dataset goes: ``doc_id`` to merge into, or ``conflict``, a stored
    dataset of the same key kept apart because another paper introduced it (else None)."""

    doc_id: str | None = None
    conflict: str | None = None


@dataclass
class DatasetNames:
    """The datasets of the store (and of this import) by :func:`name_key`, for one import.

    Each entry is ``(doc_id, introducing paper title, files)``; ``files`` (the files it was
    written from) is empty for rows stored before the import began.
    """

    by_key: dict[str, list[tuple[str, str, frozenset[str]]]] = field(default_factory=dict)

    @classmethod
    def of(cls, stored: Iterable[tuple[str, str]]) -> DatasetNames:
        """The index of ``(id, intro title)`` pairs (:func:`dataset_names`)."""
        names = cls()
        for doc_id, intro in stored:
            names.add(doc_id, intro, None)
        return names

    def add(self, doc_id: str, intro: str, file: str | None) -> None:
        """Remember ``doc_id`` (written from ``file``), or refresh its introducing paper."""
        self.add_files(doc_id, intro, () if file is None else (file,))

    def add_files(self, doc_id: str, intro: str, files: Iterable[str]) -> None:
        """Remember ``doc_id`` (written from ``files``), or refresh its introducing paper and
        add ``files`` to its own."""
        entries = self.by_key.setdefault(name_key(doc_id), [])
        for i, (known, _, origin) in enumerate(entries):
            if known == doc_id:
                entries[i] = (doc_id, intro, origin | frozenset(files))
                return
        entries.append((doc_id, intro, frozenset(files)))

    def find(self, name: str, intro: str, file: str) -> NameMatch:
        """The stored dataset the incoming ``name`` (from ``file``, introduced by ``intro``)
        joins: one of the same key from another file, not introduced by another paper; of
        several, the one of the same paper, else the first stored."""
        return self.find_from(name, intro, (file,))

    def find_from(self, name: str, intro: str, files: Iterable[str]) -> NameMatch:
        """:meth:`find` for a dataset read from each of ``files`` (``litsift dedup``: a stored
        row's files, from its provenance): the match shares none of them."""
        key, mine = name_key(name), frozenset(files)
        if not key:
            return NameMatch()
        others = [e for e in self.by_key.get(key, []) if e[0] != name and not e[2] & mine]
        fits = [e for e in others if not other_paper(e[1], intro)]
        if not fits:
            return NameMatch(conflict=others[0][0] if others else None)
        same = [e for e in fits if _title_key(e[1]) and _title_key(e[1]) == _title_key(intro)]
        return NameMatch(doc_id=(same or fits)[0][0])
