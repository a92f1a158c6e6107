# ruff: noqa: E501  (markdown table rows and progress lines kept whole)
"""Step 1 (cheap check): the cross-encoder (ms-marco-MiniLM-L-12-v2 int8) reading each review's
criteria against every record, beside bge-small's criteria column (the one the default order
fits on), as rankings on their own: ROC AUC and recall of the includes in the top 10 %.

    OMP_NUM_THREADS=1 python benchmarks/xp_cross/step1.py

Cross-encoder scores are cached in /tmp/xp_cross/scores_<set>.npy (file order of the set).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from litsift.eval.screening import cached_encoder
from litsift.models_onnx import load_encoder
from litsift.models_onnx.cross_encoder import CrossEncoder, packaged_cross_encoder
from litsift.review.columns import criteria_column
from litsift.review.data import find_sets, load_criteria, load_review_set
from litsift.review.learner import SCREENING_MODEL

DATA = Path("/work/shared/data/eval/screening")
CRIT = Path(__file__).resolve().parents[1] / "screening_criteria.json"
CACHE = Path("/tmp/xp_cross")
OUT = Path(__file__).resolve().parent


def recall_top(labels: np.ndarray, score: np.ndarray, frac: float = 0.10) -> float:
    k = int(np.floor(frac * labels.size))
    top = np.argsort(-score, kind="stable")[:k]
    return float(labels[top].sum() / labels.sum())


def z(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / (x.std() or 1.0)


def cross_scores(
    name: str, texts: list[str], query: str, ce: CrossEncoder | None
) -> tuple[np.ndarray, float]:
    path = CACHE / f"scores_{name}.npy"
    if path.is_file():
        return np.load(path), 0.0
    assert ce is not None
    t = time.perf_counter()
    s = ce.score(query, texts, batch_size=16)
    dt = time.perf_counter() - t
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, s)
    return s, dt


def main() -> None:
    criteria = load_criteria(CRIT)
    sets = find_sets(DATA)
    ce = CrossEncoder(packaged_cross_encoder(), threads=1)
    home = cached_encoder(load_encoder())
    from litsift.service.screening import screening_encoder

    bge = screening_encoder(home, SCREENING_MODEL)
    assert bge.spec.model_id == SCREENING_MODEL, bge.spec.model_id
    rows = []
    pairs = 0
    secs = 0.0
    for path in sorted(sets, key=lambda p: load_review_set(p).labels.size):
        review = load_review_set(path)
        q = criteria[review.name]
        s, dt = cross_scores(review.name, review.texts, q, ce)
        if dt:
            pairs += len(review.texts)
            secs += dt
            print(
                f"  {review.name}: {len(review.texts)} pairs in {dt:.1f} s ({len(review.texts) / dt:.1f}/s)",
                file=sys.stderr,
                flush=True,
            )
        vec = bge.encode_passages(review.texts)
        qv = bge.encode_queries([q])[0]
        b = criteria_column(vec, qv).ravel()
        y = review.labels.astype(int)
        avg = 0.5 * (z(s) + z(b))
        row = {"set": review.name, "n": int(y.size), "incl": int(y.sum())}
        for key, v in (("cross", s), ("bge", b), ("avg", avg)):
            row[f"auc_{key}"] = float(roc_auc_score(y, v))
            row[f"r10_{key}"] = recall_top(y, v)
        rows.append(row)
    hdr = "| review | records / incl. | AUC cross | AUC bge | AUC z-avg | top-10% recall cross | bge | z-avg |"
    lines = [hdr, "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['set']} | {r['n']} / {r['incl']} | {r['auc_cross']:.3f} | {r['auc_bge']:.3f} | {r['auc_avg']:.3f} "
            f"| {100 * r['r10_cross']:.1f} | {100 * r['r10_bge']:.1f} | {100 * r['r10_avg']:.1f} |"
        )
    m = {k: float(np.mean([r[k] for r in rows])) for k in rows[0] if k.startswith(("auc", "r10"))}
    lines.append(
        f"| **mean** | | {m['auc_cross']:.3f} | {m['auc_bge']:.3f} | {m['auc_avg']:.3f} "
        f"| {100 * m['r10_cross']:.1f} | {100 * m['r10_bge']:.1f} | {100 * m['r10_avg']:.1f} |"
    )
    wins_auc = sum(r["auc_cross"] > r["auc_bge"] for r in rows)
    wins_r10 = sum(r["r10_cross"] > r["r10_bge"] for r in rows)
    ties_r10 = sum(r["r10_cross"] == r["r10_bge"] for r in rows)
    lines.append("")
    lines.append(
        f"cross > bge: AUC on {wins_auc}/12 reviews, top-10% recall on {wins_r10}/12 ({ties_r10} ties)"
    )
    if pairs:
        lines.append(
            f"cross-encoder: {pairs} pairs in {secs:.0f} s = {pairs / secs:.1f} pairs/s (1 thread, batch 16, max 256 tokens)"
        )
    text = "\n".join(lines)
    print(text)
    (OUT / "step1.json").write_text(json.dumps({"rows": rows, "means": m}, indent=1))


if __name__ == "__main__":
    main()
