"""Identifier normalisation: one canonical spelling per scheme, so that the same paper arriving
through BibTeX, RIS, Zotero, arXiv, OpenAlex, S2 or Crossref gets the same key.

Schemes (:data:`SCHEMES`, in the order :func:`preferred` picks a record id from):

* ``doi`` -- lower-cased, ``https://doi.org/`` / ``doi:`` prefixes removed (DOIs are
  case-insensitive, Crossref DOI syntax ``10.NNNN/suffix``);
* ``arxiv`` -- new-style ``2101.00001`` or old-style ``hep-th/9901001``, version suffix
  (``v2``) and ``arXiv:`` / URL prefixes removed;
* ``acl`` -- ACL Anthology id (``P19-1001``, ``2020.acl-main.207``);
* ``pmid``, ``pmcid`` (``PMC123``), ``corpusid`` (S2 corpus id, digits), ``s2`` (S2 paper id,
  40 hex), ``openalex`` (``W123``), ``mag`` (digits), ``dblp`` (``conf/acl/X20``).

Every ``normalize_*`` returns None for a value that is not an identifier of its scheme.

:func:`ids_in_text` also reads a Scopus record's EID off its link (``scopus.com/...?eid=
2-s2.0-77952412778``) as ``scopus``: one database's id of one of its records, which the
matcher uses to tell two records of one Scopus export apart (and to find a re-imported one),
but not a scheme of :data:`SCHEMES` (a record id, a citation key).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

__all__ = [
    "SCHEMES",
    "citation_key",
    "citation_keys",
    "ids_in_text",
    "normalize",
    "normalize_ids",
    "own_ids",
    "preferred",
    "reference_keys",
]

SCHEMES: tuple[str, ...] = (
    "doi",
    "arxiv",
    "acl",
    "corpusid",
    "s2",
    "openalex",
    "pmid",
    "pmcid",
    "mag",
    "dblp",
)

_DOI_RE = re.compile(r"(10\.[0-9]{4,9}/[^\s\"'<>{}]+)", re.IGNORECASE)
#: a value that is one DOI and nothing else (a ``doi`` field, a doi.org URL): ``<`` and ``>``
#: are then part of it, as in Wiley's SICI DOIs ``10.1002/(SICI)1097-4571(199806)49:8<693::
#: AID-ASI4>3.0.CO;2-0``; in free text they end it.
_WHOLE_DOI_RE = re.compile(
    r"(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.[0-9]{4,9}/[^\s\"'{}]+)", re.IGNORECASE
)
_ARXIV_NEW_RE = re.compile(r"(?<![0-9.])([0-9]{4}\.[0-9]{4,5})(?:v[0-9]+)?(?![0-9])", re.IGNORECASE)
_ARXIV_OLD_RE = re.compile(
    r"(?<![A-Za-z])([a-z][a-z.\-]*[a-z](?:\.[A-Z]{2})?/[0-9]{7})(?:v[0-9]+)?(?![0-9])"
)
_ARXIV_URL_RE = re.compile(r"arxiv\.org/(?:abs|pdf|html)/([^\s?#]+?)(?:\.pdf)?(?:[?#].*)?$", re.I)
_ACL_RE = re.compile(r"^([A-Z][0-9]{2}-[0-9]{4}|[0-9]{4}\.[a-z0-9\-]+\.[0-9]+)$")
#: ACL Anthology links, today's and the older aclweb.org ones (``aclweb.org/anthology/P19-1001``,
#: ``aclweb.org/anthology/K/K17/K17-3001.pdf``)
_ACL_URL_RE = re.compile(
    r"(?:aclanthology\.org|aclweb\.org/anthology)/(?:[A-Z]/[A-Z][0-9]{2}/)?"
    r"([A-Z][0-9]{2}-[0-9]{4}|[0-9]{4}\.[a-z0-9\-]+\.[0-9]+)"
)
#: dblp record links: ``dblp.org/rec/conf/acl/X20`` and the older table-of-contents anchors
#: ``dblp.uni-trier.de/db/conf/aaai/aaai2006.html#BaierM06`` (key ``conf/aaai/BaierM06``)
_DBLP_REC_RE = re.compile(
    r"dblp\.(?:org|uni-trier\.de)/rec/(?:[a-z]+/)?((?:conf|journals)/[^\s#?]+)"
)
_DBLP_TOC_RE = re.compile(
    r"dblp\.(?:org|uni-trier\.de)/db/((?:conf|journals)/[a-z0-9\-]+)/[^\s#]*#([A-Za-z0-9\-]+)"
)
#: what follows the DOI in a publisher's link (Cochrane ``/doi/10.1002/central/CN-1/full``,
#: Wiley ``/doi/10.1002/x/abstract``, ``/epdf``, ``/pdf``): not part of the DOI
_URL_PAGE_RE = re.compile(
    r"/(?:full|abstract|pdf|epdf|pdfdirect|epub|fulltext|full-text|html|summary|references"
    r"|figures|citedby|suppl|supplemental|meta|info|issuetoc|toc)(?:[/?#].*)?$"
)
#: a Scopus record's EID in its link (``https://www.scopus.com/inward/record.uri?eid=2-s2.0-1``)
_SCOPUS_EID_RE = re.compile(r"scopus\.com/[^\s?#]*\?(?:[^\s#]*&)?eid=(2-s2\.0-[0-9]+)(?![0-9])")
_S2_RE = re.compile(r"^[0-9a-f]{40}$")
_OPENALEX_RE = re.compile(r"(?:openalex\.org/)?([WwAaSsIiCcPpFfTt][0-9]+)$")


def _text(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text or None


def normalize_doi(value: Any) -> str | None:
    """``10.1145/3292500.3330701`` from a DOI, ``doi:`` form or doi.org URL (lower-cased; the
    double slash some old APA DOIs carry after the prefix, ``10.1037//...``, made one).

    A value that is a DOI alone keeps ``<`` and ``>`` (SICI DOIs); in longer text the DOI ends
    at them."""
    text = _text(value)
    if text is None:
        return None
    text = unquote(text)
    m = _WHOLE_DOI_RE.fullmatch(text) or _DOI_RE.search(text)
    if not m:
        return None
    doi = m.group(1).rstrip(".,;)]").lower()
    doi = _PREFIX_SLASHES_RE.sub(r"\1/", doi)  # PubMed's 10.1037//0022-3514...: one article
    return doi if "/" in doi and len(doi) > 8 else None


#: a DOI prefix followed by more than one slash (old APA DOIs as PubMed and Zotero write them)
_PREFIX_SLASHES_RE = re.compile(r"^(10\.\d+(?:\.\d+)*)//+")


def normalize_arxiv(value: Any) -> str | None:
    """``2101.00001`` / ``hep-th/9901001`` (version removed) from an id, ``arXiv:`` form or URL."""
    text = _text(value)
    if text is None:
        return None
    url = _ARXIV_URL_RE.search(text)
    if url:
        text = url.group(1)
    text = re.sub(r"^(?:arxiv|oai:arxiv\.org)\s*:\s*", "", text, flags=re.IGNORECASE)
    m = _ARXIV_NEW_RE.fullmatch(text) or _ARXIV_NEW_RE.match(text)
    if m and m.start() == 0:
        return m.group(1)
    m = _ARXIV_OLD_RE.match(text)
    if m and m.start() == 0:
        return m.group(1)
    return None


def normalize_acl(value: Any) -> str | None:
    """``P19-1001`` / ``2020.acl-main.207`` from an id or aclanthology.org URL."""
    text = _text(value)
    if text is None:
        return None
    m = _ACL_URL_RE.search(text)
    if m:
        return m.group(1)
    text = text.removesuffix(".pdf")
    return text if _ACL_RE.match(text) else None


def _digits(value: Any, prefix: str = "") -> str | None:
    text = _text(value)
    if text is None:
        return None
    text = re.sub(rf"^(?:{prefix})\s*:?\s*", "", text, flags=re.IGNORECASE) if prefix else text
    text = text.rstrip("/").rsplit("/", 1)[-1]
    return str(int(text)) if text.isdigit() and len(text) <= 12 else None


def normalize_pmid(value: Any) -> str | None:
    """PubMed id digits (``PMID: 123``, pubmed URL)."""
    return _digits(value, "pmid")


def normalize_pmcid(value: Any) -> str | None:
    """``PMC1234567``."""
    text = _text(value)
    if text is None:
        return None
    m = re.search(r"PMC\s*([0-9]+)", text, re.IGNORECASE)
    if m:
        return f"PMC{int(m.group(1))}"
    return f"PMC{int(text)}" if text.isdigit() else None


def normalize_corpusid(value: Any) -> str | None:
    """Semantic Scholar corpus id digits (``CorpusId:123``)."""
    return _digits(value, "corpusid")


def normalize_s2(value: Any) -> str | None:
    """Semantic Scholar paper id (40 hex characters, lower-cased)."""
    text = _text(value)
    if text is None:
        return None
    text = text.rstrip("/").rsplit("/", 1)[-1].lower()
    return text if _S2_RE.match(text) else None


def normalize_openalex(value: Any) -> str | None:
    """OpenAlex id (``W2162348455``) from an id or openalex.org URL."""
    text = _text(value)
    if text is None:
        return None
    m = _OPENALEX_RE.search(text)
    return m.group(1).upper() if m else None


def normalize_mag(value: Any) -> str | None:
    """Microsoft Academic Graph id digits."""
    return _digits(value, "mag")


def normalize_dblp(value: Any) -> str | None:
    """DBLP key (``conf/acl/Cohan20``), from a key or dblp.org URL."""
    text = _text(value)
    if text is None:
        return None
    text = re.sub(r"^https?://dblp\.org/rec/", "", text).removesuffix(".html")
    text = re.sub(r"^dblp:", "", text, flags=re.IGNORECASE)
    return text if re.fullmatch(r"[a-z]+/[A-Za-z0-9_\-/]+", text) else None


_NORMALIZERS = {
    "doi": normalize_doi,
    "arxiv": normalize_arxiv,
    "acl": normalize_acl,
    "corpusid": normalize_corpusid,
    "s2": normalize_s2,
    "openalex": normalize_openalex,
    "pmid": normalize_pmid,
    "pmcid": normalize_pmcid,
    "mag": normalize_mag,
    "dblp": normalize_dblp,
}

#: Names sources use for the schemes (S2 ``externalIds``, OpenAlex ``ids``, CSL, RIS, ...).
ALIASES: dict[str, str] = {
    "doi": "doi",
    "arxiv": "arxiv",
    "arxivid": "arxiv",
    "eprint": "arxiv",
    "acl": "acl",
    "aclanthology": "acl",
    "corpusid": "corpusid",
    "corpus_id": "corpusid",
    "s2": "s2",
    "paperid": "s2",
    "openalex": "openalex",
    "pmid": "pmid",
    "pubmed": "pmid",
    "pmcid": "pmcid",
    "pubmedcentral": "pmcid",
    "pmc": "pmcid",
    "mag": "mag",
    "dblp": "dblp",
}


def normalize(scheme: str, value: Any) -> str | None:
    """``value`` normalised for ``scheme`` (a name in :data:`SCHEMES` or :data:`ALIASES`,
    case-insensitive), or None when the scheme is unknown or the value is not valid for it."""
    key = ALIASES.get(re.sub(r"[^a-z0-9_]", "", scheme.lower()))
    return _NORMALIZERS[key](value) if key else None


def normalize_ids(raw: Mapping[str, Any]) -> dict[str, str]:
    """``{scheme: normalised}`` for each known scheme in ``raw`` with a valid value (the first
    valid value wins when two aliases name the same scheme); unknown schemes are dropped."""
    out: dict[str, str] = {}
    for name, value in raw.items():
        key = ALIASES.get(re.sub(r"[^a-z0-9_]", "", str(name).lower()))
        if key is None or key in out:
            continue
        norm = _NORMALIZERS[key](value)
        if norm:
            out[key] = norm
    return out


def ids_in_text(text: Any) -> dict[str, str]:
    """DOI, arXiv id, ACL Anthology id (aclanthology.org or aclweb.org links), dblp key
    (dblp.org/rec links, dblp.uni-trier.de table-of-contents anchors) and Scopus EID
    (``scopus``, from a scopus.com link) found in a URL or free text (``url``, ``note``,
    ``howpublished``, an ``eprint`` field)."""
    found: dict[str, str] = {}
    value = _text(text)
    if value is None:
        return found
    if "arxiv" in value.lower():
        m = _ARXIV_URL_RE.search(value)
        tail = value.split("arXiv:")[-1].split()  # empty after a bare "arXiv:"
        arxiv = normalize_arxiv(m.group(1) if m else tail[0] if tail else None)
        if arxiv:
            found["arxiv"] = arxiv
    acl = _ACL_URL_RE.search(value)
    if acl:
        found["acl"] = acl.group(1)
    eid = _SCOPUS_EID_RE.search(value) if "scopus" in value else None
    if eid:
        found["scopus"] = eid.group(1)
    if "dblp" in value:
        rec = _DBLP_REC_RE.search(value)
        toc = None if rec else _DBLP_TOC_RE.search(value)
        key = rec.group(1) if rec else f"{toc.group(1)}/{toc.group(2)}" if toc else None
        dblp = normalize_dblp(re.sub(r"\.(?:html|xml|bib)$", "", key)) if key else None
        if dblp:
            found["dblp"] = dblp
    doi = normalize_doi(value) if ("10." in value) else None
    if doi and "://" in value:  # a publisher's page: the DOI ends before the page's name,
        # its query or the next query parameter (Scopus: ...&doi=10.1002%2fjcc.1&partnerID=40)
        doi = _URL_PAGE_RE.sub("", re.split(r"[&?#]", doi, maxsplit=1)[0])
    if doi and "arxiv" not in doi:
        found["doi"] = doi
    elif doi:  # arXiv's own DataCite DOIs: 10.48550/arxiv.2101.00001
        found["doi"] = doi
        found.setdefault("arxiv", doi.split("arxiv.", 1)[-1])
    return found


def preferred(ids: Mapping[str, str]) -> str | None:
    """The record id litsift gives a new imported paper: ``scheme:value`` of the first scheme
    of :data:`SCHEMES` present (``doi:10.18653/v1/2020.acl-main.207``), or None."""
    for scheme in SCHEMES:
        if ids.get(scheme):
            return f"{scheme}:{ids[scheme]}"
    return None


def own_ids(record_id: Any) -> dict[str, str]:
    """``{scheme: normalised value}`` of a record id litsift gave (:func:`preferred`:
    ``openalex:W2337111741``), as a review's export writes it (RIS ``ID``, CSV ``id``), so the
    record read back keeps the identifier that made it that record; ``{}`` for a ``key:`` id
    (no identifier), a scheme not of :data:`SCHEMES`, or anything else."""
    if not isinstance(record_id, str) or ":" not in record_id:
        return {}
    scheme, value = record_id.strip().split(":", 1)
    norm = normalize(scheme, value) if scheme in SCHEMES else None
    return {scheme: norm} if norm else {}


def citation_key(scheme: str, value: Any) -> str | None:
    """The citation-edge key of a work known by one identifier: ``scheme:normalised value``
    with the scheme's canonical name (``citation_key("DOI", "https://doi.org/10.1/ABC")`` ->
    ``doi:10.1/abc``; the same spelling :func:`preferred` gives a record id), or None when the
    scheme is unknown or ``value`` is not valid for it (:mod:`litsift.store.citations`)."""
    canonical = ALIASES.get(re.sub(r"[^a-z0-9_]", "", scheme.lower()))
    if canonical is None:
        return None
    norm = _NORMALIZERS[canonical](value)
    return f"{canonical}:{norm}" if norm else None


def citation_keys(ids: Mapping[str, str]) -> list[str]:
    """Every key of a work with normalised ``ids`` ({scheme: value}), in :data:`SCHEMES`
    order; the first is the one an edge to the work uses."""
    return [f"{s}:{ids[s]}" for s in SCHEMES if ids.get(s)]


def reference_keys(scheme: str, values: Any) -> list[str]:
    """:func:`citation_key` of each identifier in ``values`` (a list, e.g. OpenAlex
    ``referenced_works``), invalid ones and repeats dropped, order kept; ``[]`` for a non-list."""
    if not isinstance(values, list):
        return []
    keys = (citation_key(scheme, v) for v in values)
    return list(dict.fromkeys(k for k in keys if k))
