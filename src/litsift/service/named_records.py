"""A query that names a stored paper finds that paper first.

Researchers paste identifiers: a DOI (bare, ``doi:10...``, a doi.org link), an arXiv id (bare,
``arXiv:1706.03762v5``, an arxiv.org link), an ACL Anthology id or link, ``pmid:123`` (any
``scheme:value`` of :data:`~litsift.sources.identity.ids.SCHEMES` or its aliases), the record's
own litsift id (``acl2021:2021.acl-long.24``) or the record's url. BM25 splits such a string
into number fragments and the encoder reads it as noise, so the paper itself ranked anywhere
(usually nowhere). :func:`pin_named` puts the stored papers the query names at the top of a
result, each with the signal ``identifier`` (score 1, rank 1); the rest of the result follows
in its order. A dataset named by its id, name or an alias is the dataset search's own
``named`` stage.

Exclusions win over a naming: ``10.18653/v1/2021.acl-long.24 -transformer`` does not pin a
paper whose title or abstract holds "transformer" (the exclusion is a rule over every hit,
as for a dataset the query names), and ``partial`` says which paper was left out and why, so
the paper is not silently missing: ``the paper the query names, "A Bidirectional
Transformer ...", holds -transformer: left out (drop -transformer to see it)``.
"""

from __future__ import annotations

import dataclasses

from litsift.search.retrieval.operator_stages import held_exclusion, indexed_text
from litsift.search.retrieval.operators import excluded_label
from litsift.sources.identity.ids import (
    ids_in_text,
    normalize_acl,
    normalize_arxiv,
    normalize_doi,
    normalize_ids,
)
from litsift.store import Store
from litsift.store.repositories import Identities
from litsift.types import Hit, Kind, Record, SearchResult, SignalScore

__all__ = ["IDENTIFIER_SIGNAL", "MAX_ID_CHARS", "identifier_pairs", "named_records", "pin_named"]

#: what ``partial`` says of a paper the query names that an exclusion leaves out
NAMED_EXCLUDED = (
    'the paper the query names, "{title}", holds {excluded}: left out (drop {excluded} to see it)'
)
#: the characters of a title :data:`NAMED_EXCLUDED` quotes
_TITLE_CHARS = 60

#: the signal name of a hit the query named by an identifier
IDENTIFIER_SIGNAL = "identifier"
#: a longer query is a description, not an identifier (the longest DOIs are ~200 characters)
MAX_ID_CHARS = 300
_BARE = (("doi", normalize_doi), ("arxiv", normalize_arxiv), ("acl", normalize_acl))


def identifier_pairs(text: str) -> dict[str, str]:
    """``{scheme: normalised value}`` of the identifiers a query names.

    A DOI, an arXiv id after ``arXiv:`` or in an arxiv.org link, an ACL Anthology or dblp link
    are found anywhere in a query of at most :data:`MAX_ID_CHARS` characters; a bare arXiv or
    ACL id and ``scheme:value`` only as the whole query (one word), so that ``2021.5`` or a
    year in a sentence names nothing.
    """
    text = text.strip()
    if not text or len(text) > MAX_ID_CHARS:
        return {}
    pairs = ids_in_text(text)
    if any(ch.isspace() for ch in text):
        return pairs
    scheme, _, value = text.partition(":")
    if value and not value.startswith("//"):
        pairs = {**normalize_ids({scheme: value}), **pairs}
    for name, normalize in _BARE:
        found = None if name in pairs else normalize(text)
        if found:
            pairs[name] = found
    return pairs


def named_records(store: Store, kind: Kind, text: str) -> list[Record]:
    """The stored records of ``kind`` that ``text`` names (see the module docstring), in a
    stable order: the record whose id is the text, then by id.

    Papers imported last are found by the ids in their url too (``paper_url_ids`` is filled
    from the next import on): those urls are read here, one scan of ``papers`` per scheme.
    """
    text = text.strip()
    if not text or len(text) > MAX_ID_CHARS:
        return []
    one_word = not any(ch.isspace() for ch in text)
    own = store.get(kind, text) if one_word else None
    pairs = identifier_pairs(text)
    ids = Identities(store)
    docs = ids.docs_with_ids(kind, sorted(pairs.items())) if pairs else set()
    if kind is Kind.PAPER:
        for scheme, value in pairs.items():
            docs.update(
                d for d, url in ids.urls_containing(value) if ids_in_text(url).get(scheme) == value
            )
        if one_word and "://" in text:  # the record's own link
            link = text.rstrip("/").lower()
            docs.update(
                d for d, url in ids.urls_containing(link) if url.rstrip("/").lower() == link
            )
    found = [own] if own is not None else []
    for doc_id in sorted(docs - {text}):
        rec = store.get(kind, doc_id)
        if rec is not None:
            found.append(rec)
    return found


def pin_named(store: Store, result: SearchResult) -> SearchResult:
    """``result`` with the records its query names (:func:`named_records`) first.

    A named record outside the query's years stays out, and so does one whose title or
    abstract holds one of ``query.exclude`` (``partial`` says so: :data:`NAMED_EXCLUDED`);
    one already among the hits keeps its signals and gains :data:`IDENTIFIER_SIGNAL`. Pinned
    hits take the best score of the result (1.0 when it had no hit), ranks are renumbered and
    the hits cut to ``query.k``.
    Papers only: a dataset the query names (its id, name or an alias) is the search's own
    ``named`` stage (:mod:`litsift.search.datasets.named`).
    """
    query = result.query
    if query.kind is not Kind.PAPER:
        return result
    named = [
        r for r in named_records(store, query.kind, query.text) if query.years.contains(r.year)
    ]
    said = []
    for r in list(named):
        held = held_exclusion(indexed_text(r), query.exclude)
        if held is not None:
            named.remove(r)
            title = " ".join(r.display_title.split())
            if len(title) > _TITLE_CHARS:  # cut at a word
                title = title[: _TITLE_CHARS - 1].rsplit(" ", 1)[0] + "…"
            said.append(NAMED_EXCLUDED.format(title=title, excluded=excluded_label((held,))))
    if said:
        partial = "; ".join([*([result.partial] if result.partial else []), *said])
        result = dataclasses.replace(result, partial=partial)
    if not named:
        return result
    by_id = {h.docid: h for h in result.hits}
    top = max((h.score for h in result.hits), default=1.0)
    pinned = [
        Hit(
            r,
            0,
            top,
            {
                **(by_id[r.id].signals if r.id in by_id else {}),
                IDENTIFIER_SIGNAL: SignalScore(1.0, 1),
            },
            by_id[r.id].passage if r.id in by_id else None,
        )
        for r in named
    ]
    wanted = {r.id for r in named}
    hits = pinned + [h for h in result.hits if h.docid not in wanted]
    k = query.k if query.k is not None else len(hits)
    ranked = tuple(dataclasses.replace(h, rank=i) for i, h in enumerate(hits[:k], start=1))
    return dataclasses.replace(result, hits=ranked)
