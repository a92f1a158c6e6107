"""Settings: a TOML file, strictly validated, with defaults for every key.

Discovery is one function (:func:`load_config`) that tests can point at any file. Unknown keys
and wrong types are a :class:`~litsift.errors.ConfigError` naming the key, never ignored.

Example ``config.toml``::

    [search]
    k = 20
    fusion = "rrf"

    [keymap]
    keep = "k"

    [llm]
    base_url = "http://127.0.0.1:11434/v1"
    model = "llama3.1"
    api_key_env = "OPENAI_API_KEY"

    [sources]
    mailto = "you@example.org"

    [sources.openalex]
    base_url = "https://api.openalex.org"
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from litsift.errors import ConfigError
from litsift.types import BM25_QUERY_MODES, FUSIONS, MAX_K, MAX_K0

#: values of ``search.sentence_phase``: the kinds whose sentences are computed ahead of time.
SENTENCE_PHASES = ("auto", "all", "datasets", "none")


@dataclass(frozen=True)
class SearchSettings:
    """Ranking defaults. ``fusion`` is one of rrf, interpolation, bm25, dense.

    Every default was chosen by measurement (tune half of DataFinder + SciFact); the numbers
    are in docs/EVALUATION-RESULTS.md, reproduced by ``benchmarks/tuning.py``.
    """

    #: hits returned by ``litsift search`` (``-k`` overrides).
    k: int = 10
    #: hits listed in the TUI: a pool to scroll, triage and re-order by coverage.
    tui_k: int = 50
    k0: int = 100
    #: min-max score interpolation beat RRF on both DataFinder and SciFact.
    fusion: str = "interpolation"
    rrf_k: int = 60
    #: weight of BM25 in fusion for papers; dense gets ``1 - bm25_weight``.
    bm25_weight: float = 0.5
    #: the same for datasets: dataset queries are descriptions of a need, where lexical
    #: matches on dataset text help less (DataFinder: 0.2 best, 0.5 hurts).
    dataset_bm25_weight: float = 0.2
    #: dense pseudo-relevance feedback (Rocchio): add ``prf_weight`` x the mean vector of the
    #: top ``*_prf_docs`` dense hits to the query and search again; 0 disables it.
    prf_docs: int = 0
    dataset_prf_docs: int = 3
    prf_weight: float = 0.5
    #: dataset popularity prior (``litsift.search.datasets.popularity``): ``w x log(1 +
    #: papers naming the dataset) / log(1 + max)`` is added to each dataset's fused score;
    #: 0 disables it.
    #: DataFinder tune half: 1.5 best alone (round 3), 0.25 with usage profiles (round 5).
    dataset_popularity_weight: float = 0.25
    #: dataset usage profiles (``litsift.search.datasets.popularity.UsageProfiles``): the
    #: share of the dense weight given to the run of datasets ranked by the centroid of the
    #: papers naming them; needs a paper index; 0 disables it. DataFinder tune half: 0.5.
    dataset_usage_weight: float = 0.5
    #: re-rank the dataset candidate pool with the shipped LambdaMART model
    #: (``litsift.search.datasets.ranker``, trained on DataFinder's tune half); needs a paper
    #: index and interpolation or RRF fusion. DataFinder held-out half: see round 6.
    dataset_ranker: bool = True
    #: how many fused dataset candidates the re-ranker scores (the retrievers' depth ``k0`` is
    #: raised to it when smaller). DataFinder tune half, 5-fold CV: pool 100 -> 300 lifted
    #: full-sentence R@5 41.5 -> 47.4 (round 13 of docs/EVALUATION-RESULTS.md).
    dataset_ranker_pool: int = 300
    #: query handling before BM25 (``litsift.search.retrieval.query.bm25_query_text``): raw, stop or
    #: stop+request.
    bm25_query: str = "stop+request"
    #: "aspect coverage" order of the eval system ``aspects``: the top ``coverage_pool``
    #: hybrid hits re-ordered by ``(1 - blend)·coverage + blend·rank`` (the TUI's ``o`` orders
    #: every scored row by coverage alone, as its column reads; see
    #: ``litsift.search.aspects.coverage.coverage_order``). DORIS-MAE dev, top 20 of the
    #: candidate pool: blend 0.5 MRR@10 0.784 -> 0.831 (benchmarks/aspect_decomposition.py).
    coverage_pool: int = 20
    coverage_blend: float = 0.5
    #: kinds whose sentence vectors (aspect scoring; the dataset re-ranker's best sentence) the
    #: index's third phase computes ahead of time: "auto" (each kind with at most
    #: ``sentence_phase_max_records`` records), "all", "datasets" or "none". Other kinds are
    #: cut and embedded when a hit is first scored and kept in a bounded cache: the phase costs
    #: ~41-47 CPU s per 1,000 papers (~12 CPU hours at 1M) and ~3.7 KB a paper, and grades are the
    #: same either way (``litsift.search.aspects.sentences``, benchmarks/aspect_storage.py).
    sentence_phase: str = "auto"
    #: with ``sentence_phase = "auto"``: the most records a kind may have for its phase to run
    #: (50,000 papers: ~35-40 CPU minutes and ~185 MB; the 19.6K-paper sample keeps its phase).
    sentence_phase_max_records: int = 50_000
    #: records scored on demand whose sentence vectors stay on disk, least recently used
    #: dropped first (~3.7 KB a paper: 20,000 is ~75 MB); 0 keeps none.
    sentence_cache_records: int = 20_000
    model: str = "all-MiniLM-L6-v2"
    #: opt-in cross-encoder stage (``litsift.models_onnx.cross_encoder``, the ``bge`` extra):
    #: re-score the top ``cross_encoder_top`` paper hits; 0 (default) disables it. The new
    #: score is ``(1 - w)·minmax(first stage) + w·minmax(cross-encoder logit)`` over those hits,
    #: ``w = cross_encoder_weight``. Measured in docs/EVALUATION-RESULTS.md (round 10).
    cross_encoder_top: int = 0
    cross_encoder_weight: float = 0.5
    #: the citation signal (``litsift.search.retrieval.citation_stage``): while papers are kept, the
    #: paper hits of the candidate pool linked to them by citations move up (a third RRF run,
    #: weight ``citation_weight``; kept papers stay at their rank). Four screening sets with
    #: references, query by example, 1-3 kept includes, 40 set x seed pairs
    #: (``benchmarks/citation_search.py``): R@20 15.0 -> 24.9, nDCG@10 24.9 -> 37.3 (p <
    #: 0.001). Weight 1 chosen on the tune seeds (R@20 +1.3 over 0.5, p 0.014; 0.25 lower
    #: still). Nothing kept: the answer is unchanged.
    citation_signal: bool = True
    citation_weight: float = 1.0


@dataclass(frozen=True)
class LLMSettings:
    """An OpenAI-compatible chat-completions endpoint. The API key is read from the environment
    variable named by ``api_key_env`` and never written anywhere."""

    base_url: str = ""
    model: str = ""
    api_key_env: str = ""
    timeout_s: float = 60.0
    max_tokens: int = 1024
    temperature: float = 0.0
    max_retries: int = 3
    budget_usd: float = 1.0
    price_per_1k_input_usd: float = 0.0
    price_per_1k_output_usd: float = 0.0
    rerank_top_n: int = 100
    rerank_window: int = 20
    rerank_step: int = 10
    #: the model's context window in tokens: decides one rerank prompt vs sliding windows,
    #: and sends a screening call fewer records when 8 would not fit.
    context_tokens: int = 8192
    rerank_doc_words: int = 300
    answer_max_records: int = 10
    answer_passages_per_record: int = 3
    answer_chunk_words: int = 120
    #: OpenScholar-style self-feedback rounds (0–3).
    answer_feedback_rounds: int = 0
    #: a second call judges whether each cited passage supports its sentence.
    answer_judge: bool = False
    #: results whose aspects the LLM judges (DORIS-MAE 0/1/2 prompt; one call per result).
    aspect_judge_top: int = 10

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


#: The online sources ``litsift sync`` talks to, with their public base URLs.
SOURCE_BASE_URLS: dict[str, str] = {
    "arxiv-oai": "https://oaipmh.arxiv.org/oai",
    "arxiv-api": "https://export.arxiv.org/api/query",
    "openalex": "https://api.openalex.org",
    "s2": "https://api.semanticscholar.org",
    "crossref": "https://api.crossref.org",
}


@dataclass(frozen=True)
class SourceSettings:
    """One online source: ``[sources.NAME]`` (NAME in :data:`SOURCE_BASE_URLS`).

    ``base_url`` empty means the public service; set it to a mirror (or a test server).
    ``delay_s`` is the least time between two requests to it (politeness; arXiv asks 3 s).
    ``timeout_s`` bounds one whole request (connect + headers + body, seconds), however slowly
    the server sends; ``max_response_mb`` caps one response body (MB, 10^6 bytes).
    """

    base_url: str = ""
    delay_s: float = 1.0
    timeout_s: float = 60.0
    max_response_mb: float = 64.0
    max_retries: int = 4


@dataclass(frozen=True)
class SourcesSettings:
    """``[sources]``: who litsift says it is, and each online source's settings.

    ``mailto`` is sent to OpenAlex and Crossref (their polite pools) and in the User-Agent;
    ``s2_api_key_env`` names the environment variable holding a Semantic Scholar API key (the
    key itself is never written in the config).
    """

    mailto: str = ""
    s2_api_key_env: str = "S2_API_KEY"
    services: dict[str, SourceSettings] = field(default_factory=dict)

    def service(self, name: str) -> SourceSettings:
        """The settings of source ``name`` (defaults, with the public base URL)."""
        got = self.services.get(
            name, SourceSettings(delay_s=3.0 if name.startswith("arxiv") else 1.0)
        )
        return got if got.base_url else replace(got, base_url=SOURCE_BASE_URLS.get(name, ""))


def _sources(raw: Any) -> SourcesSettings:
    if not isinstance(raw, dict):
        raise ConfigError("config: [sources] must be a table", "see README.md, Configuration")
    top = {k: v for k, v in raw.items() if not isinstance(v, dict)}
    out = _section(SourcesSettings, "sources", {k: v for k, v in top.items() if k != "services"})
    services: dict[str, SourceSettings] = {}
    for name, table in raw.items():
        if not isinstance(table, dict):
            continue
        if name not in SOURCE_BASE_URLS:
            raise ConfigError(
                f"config: unknown source [sources.{name}]",
                f"known sources: {', '.join(SOURCE_BASE_URLS)}",
            )
        default = SourceSettings(delay_s=3.0 if name.startswith("arxiv") else 1.0)
        merged = replace(default, **vars(_section(SourceSettings, f"sources.{name}", table)))
        # _section fills unspecified keys from SourceSettings(); keep the source's own defaults
        given = {k: getattr(merged, k) for k in table}
        services[name] = replace(default, **given)
        got = services[name]
        if got.delay_s < 0 or got.timeout_s <= 0 or got.max_response_mb <= 0:
            raise ConfigError(
                f"config: sources.{name}: delay_s must be >= 0, timeout_s and max_response_mb > 0"
            )
    settings: SourcesSettings = replace(out, services=services)
    return settings


#: The search engines BM25 + dense retrieval can run on (``[engine] kind``).
ENGINE_KINDS = ("local", "milvus")


@dataclass(frozen=True)
class EngineSettings:
    """``[engine]``: where the corpus's BM25 and dense retrieval run.

    ``kind = "local"`` (the default): tantivy + hnswlib under the home's index dir.
    ``kind = "milvus"``: collections on a Milvus server (``uri = "http://host:19530"``) or in a
    Milvus Lite file (``uri`` ending in ``.db``; relative paths are under the home's index
    dir; empty: ``<index dir>/milvus.db``). ``token_env`` names the environment variable
    holding the server's token (``user:password`` or an API key; never written in the config);
    ``collection_prefix`` starts every collection's name, so several corpora share a server.
    """

    kind: str = "local"
    uri: str = ""
    token_env: str = ""
    collection_prefix: str = "litsift_"


@dataclass(frozen=True)
class Config:
    search: SearchSettings = field(default_factory=SearchSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    #: action name -> key, e.g. {"keep": "k"}; merged over the TUI's default bindings.
    keymap: dict[str, str] = field(default_factory=dict)
    sources: SourcesSettings = field(default_factory=SourcesSettings)
    engine: EngineSettings = field(default_factory=EngineSettings)


def _section(cls: type[Any], name: str, raw: Any) -> Any:
    if not isinstance(raw, dict):
        raise ConfigError(f"config: [{name}] must be a table", "see README.md, Configuration")
    known = {f.name: f for f in fields(cls)}
    values: dict[str, Any] = {}
    default = cls()
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(
                f"config: unknown key {name}.{key}",
                f"known keys in [{name}]: {', '.join(sorted(known))}",
            )
        expected = type(getattr(default, key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or isinstance(value, bool) != (expected is bool):
            raise ConfigError(
                f"config: {name}.{key} must be {expected.__name__}, got {value!r}",
                "fix the value in config.toml",
            )
        values[key] = value
    return replace(default, **values)


def _bounded(s: SearchSettings, name: str, low: int, high: int, why: str = "") -> None:
    value = getattr(s, name)
    if not low <= value <= high:
        raise ConfigError(
            f"config: search.{name} = {value} is out of range",
            f"use a value from {low:,} to {high:,}{why}",
        )


def _validate(s: SearchSettings) -> None:
    """Check the values (types were checked by :func:`_section`); raises ConfigError.

    Counts are bounded by :data:`~litsift.types.MAX_K` / :data:`~litsift.types.MAX_K0` (the
    limits every query is held to), floats must be finite (TOML allows ``nan`` and ``inf``).
    """
    for f in fields(s):
        value = getattr(s, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"config: search.{f.name} must be a finite number, not {value}")
    if s.fusion not in FUSIONS:
        raise ConfigError(
            f"config: search.fusion must be one of {', '.join(FUSIONS)}, not {s.fusion!r}"
        )
    for name in ("k", "tui_k", "coverage_pool"):
        _bounded(s, name, 1, MAX_K)
    _bounded(s, "k0", max(s.k, s.tui_k), MAX_K0, " (k0 is at least k and tui_k)")
    # RRF's constant: 0 is valid (1 / rank); past the deepest run it only flattens RRF further
    # toward a plain rank sum, so MAX_K0 is ample (Cormack et al. 2009 use 60).
    _bounded(s, "rrf_k", 0, MAX_K0)
    _bounded(s, "dataset_ranker_pool", 1, MAX_K0)
    for name in ("prf_docs", "dataset_prf_docs"):
        _bounded(s, name, 0, MAX_K0)
    for name in ("bm25_weight", "dataset_bm25_weight"):
        if not 0.0 <= getattr(s, name) <= 1.0:
            raise ConfigError(f"config: search.{name} must be between 0 and 1")
    if s.dataset_popularity_weight < 0:
        raise ConfigError("config: search.dataset_popularity_weight must be >= 0")
    if not 0.0 <= s.dataset_usage_weight <= 1.0:
        raise ConfigError("config: search.dataset_usage_weight must be between 0 and 1")
    if s.prf_weight < 0:
        raise ConfigError("config: search.prf_weight must be >= 0")
    if not 0.0 <= s.coverage_blend <= 1.0:
        raise ConfigError("config: search.coverage_blend must be between 0 and 1")
    _bounded(s, "cross_encoder_top", 0, 1000)
    if not 0.0 <= s.cross_encoder_weight <= 1.0:
        raise ConfigError("config: search.cross_encoder_weight must be between 0 and 1")
    if s.sentence_phase not in SENTENCE_PHASES:
        raise ConfigError(
            f"config: search.sentence_phase must be one of {', '.join(SENTENCE_PHASES)}, "
            f"not {s.sentence_phase!r}"
        )
    _bounded(s, "sentence_cache_records", 0, 10_000_000)
    _bounded(s, "sentence_phase_max_records", 0, 100_000_000)
    if not 0.0 <= s.citation_weight <= 4.0:
        raise ConfigError("config: search.citation_weight must be between 0 and 4")
    if s.bm25_query not in BM25_QUERY_MODES:
        raise ConfigError(f"config: search.bm25_query must be one of {', '.join(BM25_QUERY_MODES)}")


def _engine(raw: Any) -> EngineSettings:
    e: EngineSettings = _section(EngineSettings, "engine", raw)
    if e.kind not in ENGINE_KINDS:
        raise ConfigError(
            f"config: engine.kind must be one of {', '.join(ENGINE_KINDS)}, not {e.kind!r}"
        )
    prefix = e.collection_prefix
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,63}", prefix) is None:
        raise ConfigError(
            f"config: engine.collection_prefix {prefix!r} is not a Milvus collection name",
            "use letters, digits and underscores, starting with a letter",
        )
    return e


def parse_config(raw: dict[str, Any]) -> Config:
    """Validate a parsed TOML document. Raises :class:`ConfigError` on any bad key or value."""
    cfg = Config()
    for key, value in raw.items():
        if key == "search":
            cfg = replace(cfg, search=_section(SearchSettings, "search", value))
        elif key == "llm":
            cfg = replace(cfg, llm=_section(LLMSettings, "llm", value))
        elif key == "sources":
            cfg = replace(cfg, sources=_sources(value))
        elif key == "engine":
            cfg = replace(cfg, engine=_engine(value))
        elif key == "keymap":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ConfigError("config: [keymap] must map action names to keys")
            cfg = replace(cfg, keymap=dict(value))
        else:
            raise ConfigError(
                f"config: unknown section [{key}]",
                "known sections: search, llm, keymap, sources, engine",
            )
    _validate(cfg.search)
    return cfg


def load_config(path: Path | None) -> Config:
    """Read ``path`` (missing file → defaults).

    Raises:
        ConfigError: bad TOML, or an unknown or invalid value; its hint names what to do
            (for a value out of its choices or range: fix it in ``path``).
    """
    if path is None or not path.exists():
        return Config()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"config: {path} is not valid TOML: {e}", "fix or delete it") from e
    try:
        return parse_config(raw)
    except ConfigError as e:  # every error says what to do: a bad value's names the file
        if e.hint:
            raise
        raise ConfigError(e.message, f"fix the value in {path}") from None
