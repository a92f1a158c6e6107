"""Precision and recall of litsift's duplicate matcher on the same papers arriving through
several formats (issue 16, item 4).

The labelled set is built from ``../shared/data/sources``: every paper-holding sample file is
read with litsift's own importer for its detected format, and two entries are **the same work**
when they share a normalised strong identifier (DOI other than arXiv's 10.48550 prefix, arXiv id,
PubMed / PMC id, S2 paper or corpus id, OpenAlex id, ACL Anthology id) -- directly or through a
chain of entries (union-find). Entries without any identifier are left out of the scored pairs
(their truth is unknown), but stay in the pool, so a wrong merge with one of them cannot help.

The matcher is then run **blind to identifiers** (title + first author + year only, the rule
that decides when no identifier is shared), inserting entries in file order as an import
would, and the predicted clusters are compared with the labelled ones over all pairs of
identified entries: precision = correct predicted pairs / predicted pairs, recall = correct
predicted pairs / labelled pairs. A second run gives the full matcher its identifiers too
(what ``litsift ingest`` does); its recall is 1 by construction, and its precision says whether
the title rule ever joins two works whose identifiers differ.

Prints a table, the false merges and missed pairs (to read by eye), and last one JSON line:
``pairs``, ``precision``, ``recall``, ``f1`` (blind run), ``full_precision``.

Usage::

    python benchmarks/dedup_quality.py [--show 15] [--min-ratio 93]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from litsift.paths import shared_data_dir
from litsift.sources.base import SourceRecord
from litsift.sources.identity import matcher as identity
from litsift.sources.identity.matcher import IdentityIndex
from litsift.sources.importer import plan
from litsift.types import Kind

STRONG = ("doi", "arxiv", "pmid", "pmcid", "s2", "corpusid", "openalex", "acl")


def read_samples(root: Path) -> list[tuple[str, SourceRecord]]:
    """``(file:location, record)`` for every paper entry of every sample file."""
    todo = plan([root], Kind.PAPER)[0]
    out: list[tuple[str, SourceRecord]] = []
    for path, fmt in todo:
        if fmt.name.startswith("jsonl"):
            continue
        try:
            for item in fmt.read(path):
                if isinstance(item, SourceRecord) and item.title.strip():
                    out.append((f"{path.relative_to(root)}:{item.location}", item))
        except Exception as err:
            print(f"  {path.relative_to(root)}: {type(err).__name__}: {err}", file=sys.stderr)
    return out


def strong_ids(rec: SourceRecord) -> set[tuple[str, str]]:
    ids = {(s, v) for s, v in rec.ids.items() if s in STRONG}
    return {(s, v) for s, v in ids if not (s == "doi" and v.startswith("10.48550/"))}


def gold_clusters(entries: list[tuple[str, SourceRecord]]) -> dict[int, int]:
    """Entry index -> cluster root, for entries with a strong id (union-find over shared ids)."""
    parent = list(range(len(entries)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[tuple[str, str], int] = {}
    for i, (_, rec) in enumerate(entries):
        for key in strong_ids(rec):
            if key in owner:
                parent[find(i)] = find(owner[key])
            else:
                owner[key] = i
    return {i: find(i) for i, (_, rec) in enumerate(entries) if strong_ids(rec)}


def predicted_clusters(entries: list[tuple[str, SourceRecord]], use_ids: bool) -> list[int]:
    """Entry index -> predicted cluster (the first entry of it), as an import would merge."""
    index = IdentityIndex()
    cluster: list[int] = []
    for i, (_, rec) in enumerate(entries):
        ids = rec.ids if use_ids else {}
        match = index.match(rec.title, rec.authors, rec.year, ids, rec.family_names)
        if match is None:
            cluster.append(i)
            index.add(str(i), rec.title, rec.authors, rec.year, ids, rec.family_names)
        else:
            cluster.append(int(match.doc_id))
            index.add(match.doc_id, "", [], None, ids)
    return cluster


def pairs_of(groups: dict[int, list[int]]) -> set[tuple[int, int]]:
    return {p for members in groups.values() for p in itertools.combinations(sorted(members), 2)}


def score(gold: dict[int, int], pred: list[int]) -> tuple[set[tuple[int, int]], ...]:
    g: dict[int, list[int]] = defaultdict(list)
    p: dict[int, list[int]] = defaultdict(list)
    for i, root in gold.items():
        g[root].append(i)
        p[pred[i]].append(i)
    gold_pairs, pred_pairs = pairs_of(g), pairs_of(p)
    return gold_pairs, pred_pairs, gold_pairs & pred_pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--show", type=int, default=15)
    ap.add_argument("--min-ratio", type=float, default=identity.TITLE_MIN_RATIO)
    args = ap.parse_args()
    identity.TITLE_MIN_RATIO = args.min_ratio
    root = shared_data_dir() / "sources"
    t0 = time.perf_counter()
    entries = read_samples(root)
    gold = gold_clusters(entries)
    print(
        f"{len(entries):,} paper entries read in {time.perf_counter() - t0:.1f} s; "
        f"{len(gold):,} carry a strong identifier"
    )
    results = {}
    for name, use_ids in (("blind (title+author+year)", False), ("full (ids + title rule)", True)):
        gold_pairs, pred_pairs, good = score(gold, predicted_clusters(entries, use_ids))
        precision = len(good) / len(pred_pairs) if pred_pairs else 1.0
        recall = len(good) / len(gold_pairs) if gold_pairs else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        results[name] = (precision, recall, f1, gold_pairs, pred_pairs, good)
        print(
            f"{name:28} labelled pairs {len(gold_pairs):5,}  predicted {len(pred_pairs):5,}  "
            f"P {precision:.3f}  R {recall:.3f}  F1 {f1:.3f}"
        )
    precision, recall, f1, gold_pairs, pred_pairs, good = results["blind (title+author+year)"]
    label = lambda i: f"{entries[i][0]} | {entries[i][1].title[:70]!r} {entries[i][1].year}"  # noqa: E731
    print("\nfalse merges (blind):")
    for a, b in sorted(pred_pairs - good)[: args.show]:
        print(f"  {label(a)}\n    = {label(b)}")
    print("\nmissed pairs (blind):")
    for a, b in sorted(gold_pairs - good)[: args.show]:
        print(f"  {label(a)}\n    ~ {label(b)}")
    full = results["full (ids + title rule)"]
    print(
        json.dumps(
            {
                "entries": len(entries),
                "identified": len(gold),
                "pairs": len(gold_pairs),
                "precision": round(precision, 4),
                "recall": round(recall, 4),
                "f1": round(f1, 4),
                "full_precision": round(full[0], 4),
                "full_recall": round(full[1], 4),
                "min_ratio": args.min_ratio,
            }
        )
    )


if __name__ == "__main__":
    main()
