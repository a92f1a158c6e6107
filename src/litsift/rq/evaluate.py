"""``litsift eval paperrq``: research-question extraction measured on the PaperRQ annotations.

Data: ``<shared data>/eval/paperrq/dataset.csv`` (EVALUATION.md §6): 217 GPT-4 research questions
of 93 ACL papers, each rated by annotators 0/1/2 for its PROBLEM and its METHOD and 0/1 for the
target format "Can the PROBLEM be solved by the METHOD?".

(a) **Automatic scores against the human scores.** For every rated RQ, scores computed without an
LLM, each correlated with the annotators' problem / method (/ format) scores by Spearman ρ and
Kendall τ (scipy.stats, tie-aware), next to the study's best LLM judges (gpt-4o: problem ρ 0.214 /
τ 0.167, method 0.493 / 0.405, format 0.139 / 0.125). Every scorer tried is printed, not only the
best: *coverage* (the share of the paper's abstract + introduction content stems the RQ contains;
the primary one), coverage of the abstract alone, cosine of the RQ with the abstract and with the
offline problem / method spans, the RQ's length in words, and the format pattern ``Can … be …
by/with/using …?``. That length alone correlates with the scores (ρ ≈ 0.43) says the annotators
rewarded complete RQs; the coverage scores measure completeness, not correctness, and like the
LLM judges they are too weak to gate anything on.

(b) **How close extractions come to the RQs annotators rated 2/2** (54 RQs of 44 papers). For
each such paper, an extraction's RQ (``Can <problem> be solved by <method>?``) is compared with
each 2/2 RQ of the paper and the best match is kept, under two measures: the cosine of their
bi-encoder vectors, and the F1 of their content-word stems (stopwords removed, Snowball stems;
SQuAD-style token F1 over sets). Rows: the offline extractor on the abstract, and on the abstract
+ introduction; the LLM extractor when an endpoint is configured; as baselines, the title as the
RQ and "Can <first sentence> be solved by <last sentence>?" of the abstract; and, as a
reference for "good", GPT-4's other RQs of the same papers that annotators rated below 2/2.

Caveat: the offline extractor's constants were set by looking at these 44 papers, so (b) is a
development-set figure, not a held-out one.
"""

from __future__ import annotations

import csv
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from litsift.rq.offline import RQEncoder, extract_many, rq_text
from litsift.search.aspects.scoring import stem_terms
from litsift.text.sentences import split_sentences

__all__ = [
    "PUBLISHED_JUDGES",
    "PaperRQReport",
    "PaperRQRow",
    "evaluate_paperrq",
    "format_score",
    "load_paperrq",
    "term_f1",
]

#: the automatic RQ score litsift reports first (chosen before looking at (b); see module doc)
PRIMARY_SCORER = "coverage of the abstract + introduction's stems"

#: the study's best LLM-judge correlations with annotators: dimension -> (Spearman ρ, Kendall τ)
PUBLISHED_JUDGES = {"problem": (0.214, 0.167), "method": (0.493, 0.405), "format": (0.139, 0.125)}

_FORMAT = re.compile(
    r"^\s*(?:can|could)\b.+\bbe\b.+\b(?:by|with|using|through|via)\b.+\?\s*$", re.I | re.S
)


@dataclass(frozen=True)
class PaperRQRow:
    """One rated RQ of PaperRQ."""

    title: str
    abstract: str
    introduction: str
    rq: str
    problem: float
    method: float
    target_format: float


def load_paperrq(path: Path) -> list[PaperRQRow]:
    """Read ``dataset.csv`` (standard CSV, quoted multi-line cells).

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: a required column is missing or a score is not a number (with the row).
    """
    out: list[PaperRQRow] = []
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        need = {
            "title",
            "abstract",
            "introduction",
            "predicted_rq",
            "score_problem",
            "score_method",
            "is_target_rq_type",
        }
        missing = need - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path}: missing columns {sorted(missing)}")
        for n, row in enumerate(reader, start=2):
            try:
                out.append(
                    PaperRQRow(
                        row["title"].strip(),
                        row["abstract"].strip(),
                        row["introduction"].strip(),
                        row["predicted_rq"].strip(),
                        float(row["score_problem"]),
                        float(row["score_method"]),
                        float(row["is_target_rq_type"]),
                    )
                )
            except ValueError as err:
                raise ValueError(f"{path}: row {n}: {err}") from err
    return out


def format_score(rq: str) -> int:
    """1 when ``rq`` reads "Can/Could … be … by/with/using/through/via …?", else 0."""
    return int(bool(_FORMAT.match(rq)))


def term_recall(a: str, b: str) -> float:
    """Share of ``b``'s content-word stems that ``a`` contains (0 when ``b`` has none)."""
    x, y = stem_terms(a), stem_terms(b)
    return len(x & y) / len(y) if y else 0.0


def term_f1(a: str, b: str) -> float:
    """F1 of the content-word stem sets of ``a`` and ``b`` (0 when either has none)."""
    x, y = stem_terms(a), stem_terms(b)
    common = len(x & y)
    if not x or not y or not common:
        return 0.0
    p, r = common / len(x), common / len(y)
    return 2 * p * r / (p + r)


@dataclass
class PaperRQReport:
    """What ``litsift eval paperrq`` prints (see the module docstring)."""

    n_rqs: int
    n_papers: int
    #: automatic scorer -> dimension -> (ρ, ρ p-value, τ, τ p-value)
    correlation: dict[str, dict[str, tuple[float, float, float, float]]]
    n_gold_rqs: int
    n_gold_papers: int
    #: system -> (mean best cosine, mean best term F1, papers)
    closeness: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    #: offline extraction throughput, papers/s (abstract only; abstract + introduction)
    papers_per_s: tuple[float, float] = (0.0, 0.0)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "n_rqs": self.n_rqs,
            "n_papers": self.n_papers,
            "correlation": {
                name: {
                    d: {"spearman": r, "spearman_p": rp, "kendall": t, "kendall_p": tp}
                    for d, (r, rp, t, tp) in by_dim.items()
                }
                for name, by_dim in self.correlation.items()
            },
            "published_llm_judges": {
                d: {"spearman": r, "kendall": t} for d, (r, t) in PUBLISHED_JUDGES.items()
            },
            "n_gold_rqs": self.n_gold_rqs,
            "n_gold_papers": self.n_gold_papers,
            "closeness": {
                s: {"cosine": c, "term_f1": f, "papers": n}
                for s, (c, f, n) in self.closeness.items()
            },
            "offline_papers_per_s": {
                "abstract": self.papers_per_s[0],
                "abstract_intro": self.papers_per_s[1],
            },
            "notes": self.notes,
        }


def _cosines(encoder: RQEncoder, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Row-wise cosine of passage vectors of ``a[i]`` and ``b[i]``."""
    va = encoder.encode_passages(list(a))
    vb = encoder.encode_passages(list(b))
    out: np.ndarray = np.einsum("ij,ij->i", va, vb)
    return out


def evaluate_paperrq(
    rows: Sequence[PaperRQRow],
    encoder: RQEncoder,
    llm_extract: Callable[[Sequence[PaperRQRow]], list[tuple[str, str] | None]] | None = None,
) -> PaperRQReport:
    """Run (a) and (b) of the module docstring.

    Args:
        rows: PaperRQ rows (:func:`load_paperrq`).
        encoder: the bi-encoder (extraction and the cosine measure).
        llm_extract: optional: ``(problem, method)`` (or None on failure) for each paper row
            given (one row per paper), e.g. the configured LLM's extractions.
    """
    from scipy.stats import kendalltau, spearmanr

    papers: dict[str, PaperRQRow] = {}
    for r in rows:
        papers.setdefault(r.title, r)
    titles = list(papers)
    t = time.perf_counter()
    abstract_only = extract_many([(papers[k].abstract, "") for k in titles], encoder)
    t_abs = time.perf_counter() - t
    t = time.perf_counter()
    with_intro = extract_many(
        [(papers[k].abstract, papers[k].introduction) for k in titles], encoder
    )
    t_intro = time.perf_counter() - t
    by_title = dict(zip(titles, with_intro, strict=True))

    # (a) automatic scores of every rated RQ vs the human scores
    rqs = [r.rq for r in rows]
    spans = [by_title[r.title] for r in rows]
    human = {
        "problem": [r.problem for r in rows],
        "method": [r.method for r in rows],
        "format": [r.target_format for r in rows],
    }
    both = [r.abstract + " " + r.introduction for r in rows]
    scorers: dict[str, dict[str, Sequence[float]]] = {}
    coverage = [term_recall(q, text) for q, text in zip(rqs, both, strict=True)]
    scorers[PRIMARY_SCORER] = {"problem": coverage, "method": coverage}
    abstract_cov = [term_recall(r.rq, r.abstract) for r in rows]
    scorers["coverage of the abstract's stems"] = {"problem": abstract_cov, "method": abstract_cov}
    scorers["cosine(RQ, abstract)"] = dict.fromkeys(
        ("problem", "method"), _cosines(encoder, rqs, [r.abstract for r in rows]).tolist()
    )
    scorers["cosine(RQ, offline problem / method)"] = {
        "problem": _cosines(
            encoder, rqs, [e.problem or e.problem_sentence for e in spans]
        ).tolist(),
        "method": _cosines(encoder, rqs, [e.method or e.method_sentence for e in spans]).tolist(),
    }
    words = [float(len(q.split())) for q in rqs]
    scorers["RQ length in words"] = {"problem": words, "method": words, "format": words}
    scorers["format pattern (Can … be … by …?)"] = {"format": [format_score(q) for q in rqs]}
    correlation: dict[str, dict[str, tuple[float, float, float, float]]] = {}
    for name, by_dim in scorers.items():
        correlation[name] = {}
        for dim, values in by_dim.items():
            rho = spearmanr(values, human[dim])
            tau = kendalltau(values, human[dim])
            correlation[name][dim] = (
                float(rho.statistic),
                float(rho.pvalue),
                float(tau.statistic),
                float(tau.pvalue),
            )

    # (b) closeness to the RQs rated 2/2
    gold: dict[str, list[str]] = {}
    others: dict[str, list[str]] = {}
    for r in rows:
        (gold if r.problem == 2 and r.method == 2 else others).setdefault(r.title, []).append(r.rq)
    gold_titles = [k for k in titles if k in gold]
    systems: dict[str, dict[str, str]] = {
        "offline, abstract": {
            k: e.rq for k, e in zip(titles, abstract_only, strict=True) if k in gold
        },
        "offline, abstract + introduction": {k: by_title[k].rq for k in gold_titles},
    }
    if llm_extract is not None:
        got = llm_extract([papers[k] for k in gold_titles])
        systems["LLM (configured endpoint)"] = {
            k: rq_text(*pm) for k, pm in zip(gold_titles, got, strict=True) if pm is not None
        }
    systems["baseline: title"] = {k: papers[k].title for k in gold_titles}
    lead: dict[str, str] = {}
    for k in gold_titles:
        a = papers[k].abstract
        cuts = split_sentences(a)
        if cuts:
            lead[k] = rq_text(a[slice(*cuts[0])], a[slice(*cuts[-1])])
    systems["baseline: first + last abstract sentence"] = lead
    closeness: dict[str, tuple[float, float, int]] = {}
    for name, extracted in systems.items():
        closeness[name] = _closeness(encoder, extracted, gold)
    # GPT-4's other RQs of the same papers (rated below 2/2): each scored, then averaged per paper
    ref_pairs = [(k, q) for k in gold_titles for q in others.get(k, [])]
    if ref_pairs:
        cos_list, f1_list = [], []
        for k, q in ref_pairs:
            c, f, _ = _closeness(encoder, {k: q}, gold)
            cos_list.append(c)
            f1_list.append(f)
        closeness["reference: GPT-4 RQs rated below 2/2"] = (
            float(np.mean(cos_list)),
            float(np.mean(f1_list)),
            len({k for k, _ in ref_pairs}),
        )
    n = len(titles)
    return PaperRQReport(
        n_rqs=len(rows),
        n_papers=n,
        correlation=correlation,
        n_gold_rqs=sum(len(v) for v in gold.values()),
        n_gold_papers=len(gold_titles),
        closeness=closeness,
        papers_per_s=(n / max(t_abs, 1e-9), n / max(t_intro, 1e-9)),
    )


def _closeness(
    encoder: RQEncoder, extracted: dict[str, str], gold: dict[str, list[str]]
) -> tuple[float, float, int]:
    """Mean over papers of the best cosine and best term F1 against the paper's gold RQs."""
    if not extracted:
        return 0.0, 0.0, 0
    keys = list(extracted)
    pairs = [(k, g) for k in keys for g in gold[k]]
    cos = _cosines(encoder, [extracted[k] for k, _ in pairs], [g for _, g in pairs])
    best_cos: dict[str, float] = {}
    best_f1: dict[str, float] = {}
    for (k, g), c in zip(pairs, cos, strict=True):
        best_cos[k] = max(best_cos.get(k, -1.0), float(c))
        best_f1[k] = max(best_f1.get(k, 0.0), term_f1(extracted[k], g))
    return (
        float(np.mean(list(best_cos.values()))),
        float(np.mean(list(best_f1.values()))),
        len(keys),
    )
