"""Citation keys in Better BibTeX style, assigned once and persisted in the ``citekeys`` table.

A paper's key is ``auth + title + year``, all lower-case ASCII letters and digits:

* ``auth``: the first author's family name without particle (``van der Goot`` -> ``goot``),
  transliterated to ASCII (``Søgaard`` -> ``sogaard``); an edited book's first editor's where
  it has no author, as Better BibTeX does;
* ``title``: the first title word that is not in Better BibTeX's default ``skipWords`` list;
* ``year``: the four-digit year, or nothing.

A dataset's key is its name folded the same way (at most 40 characters) plus its year. An
empty key becomes ``anon``. When a key is taken, the new record gets ``a``, ``b``, ... ``z``,
``aa``, ... appended (Better BibTeX's default ``%(a)s`` postfix). Keys never change once
stored: re-ingesting, editing the title or adding more papers keeps them.

Source: Better BibTeX for Zotero, citation keys ("citing") and its default preferences
(``citekeyFormat``, ``skipWords``), retorquere/zotero-better-bibtex.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from litsift.errors import LitsiftError
from litsift.export.biblio import biblios
from litsift.export.names import ascii_fold, split_authors
from litsift.store.citekeys import CitationKeys
from litsift.store.repo import Store
from litsift.types import Kind, Paper, Record

#: Better BibTeX's default ``skipWords`` preference (words never used as the title part).
SKIP_WORDS = frozenset(
    "a,ab,aboard,about,above,across,after,against,al,along,amid,among,an,and,anti,around,as,"
    "at,before,behind,below,beneath,beside,besides,between,beyond,but,by,d,da,das,de,del,dell,"
    "dello,dei,degli,della,delle,dem,den,der,des,despite,die,do,down,du,during,ein,eine,einem,"
    "einen,einer,eines,el,en,et,except,for,from,gli,i,il,in,inside,into,is,l,la,las,le,les,"
    "like,lo,los,near,nor,of,off,on,onto,or,over,past,per,plus,round,save,since,so,some,sur,"
    "than,the,through,to,toward,towards,un,una,unas,under,underneath,une,unlike,uno,unos,"
    "until,up,upon,versus,via,von,while,with,within,without,yet,zu,zum".split(",")
)
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_MAX_DATASET_PART = 40


class ExportError(LitsiftError):
    """Records cannot be exported (nothing to export, read-only store, unknown format)."""


def _slug(text: str) -> str:
    return _NON_ALNUM.sub("", ascii_fold(text).lower())


def title_word(title: str) -> str:
    """The first significant title word as a key part (``"A BERT-based..."`` -> ``bertbased``)."""
    for word in title.split():
        slug = _slug(word)
        if slug and slug not in SKIP_WORDS:
            return slug
    return ""


def citekey_base(record: Record, editors: Sequence[str] = ()) -> str:
    """The key a record gets when it is free: ``devlinbert2019``, ``squad2016``, ``anon``;
    ``editors``: a paper's editors' display names (its ``auth`` when it has no author)."""
    year = "" if record.year is None else str(record.year)
    if isinstance(record, Paper):
        people = split_authors(record.authors) or split_authors(editors)
        first = people[0] if people else None  # an organisation: its first word
        auth = _slug(first.family or first.text.split()[0]) if first else ""
        base = f"{auth}{title_word(record.title)}{year}"
    else:
        base = f"{_slug(record.id)[:_MAX_DATASET_PART]}{year}"
    return base or "anon"


def _postfixes() -> Iterator[str]:
    """``"", "a", ..., "z", "aa", "ab", ...`` (bijective base 26)."""
    yield ""
    n = 1
    while True:
        k, out = n, ""
        while k > 0:
            k, r = divmod(k - 1, 26)
            out = chr(ord("a") + r) + out
        yield out
        n += 1


def _free_key(base: str, used: set[str]) -> str:
    """``base`` with the first postfix (:func:`_postfixes`) that makes it a key not in ``used``."""
    return next(base + p for p in _postfixes() if base + p not in used)


def assign_citekeys(store: Store, records: Sequence[Record]) -> dict[tuple[Kind, str], str]:
    """The citation key of each record, assigning and storing keys for those without one.

    New keys are assigned in ``(kind, id)`` order inside one write transaction, so the same
    records get the same keys whatever order they come in, and two processes never hand out
    the same key (``citekeys.citekey`` is UNIQUE).

    Args:
        store: the store holding the ``citekeys`` table.
        records: papers and/or datasets.

    Returns:
        ``{(kind, doc_id): citekey}`` for every record.

    Raises:
        ExportError: some record has no key yet and the store is read-only.
        StoreError: another writer held the store for longer than the busy timeout.
    """
    wanted = {(r.kind, r.id): r for r in records}
    table = CitationKeys(store)
    keys = table.existing(list(wanted))
    missing = sorted(set(wanted) - set(keys), key=lambda p: (p[0].value, p[1]))
    if not missing:
        return keys
    if store.readonly:
        raise ExportError(
            f"{len(missing)} records have no citation key yet and the store is read-only",
            "open the store for writing (close other litsift processes) and export again",
        )
    details = biblios(store, [wanted[p] for p in missing])
    bases = {
        p: citekey_base(wanted[p], b.editors if (b := details.get(p[1])) else ()) for p in missing
    }
    keys.update(table.store_new(bases, _free_key))
    return keys


def citekey_for(store: Store, kind: Kind, doc_id: str) -> str | None:
    """The stored key of one record, or None if none was assigned yet (never assigns)."""
    return CitationKeys(store).existing([(kind, doc_id)]).get((kind, doc_id))


__all__ = [
    "SKIP_WORDS",
    "ExportError",
    "assign_citekeys",
    "citekey_base",
    "citekey_for",
    "title_word",
]
