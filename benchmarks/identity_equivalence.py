"""Does blocked identity matching answer as the whole-store index does? (issue 32)

Stores the 19,639 sample papers of ../shared/data/papers, then resolves incoming records two
ways: with :meth:`litsift.sources.identity.matcher.IdentityIndex.from_store` (every stored
paper
in memory, every title compared: the reference) and with
:class:`litsift.sources.identity.stored_keys.StoreIdentityIndex` (per batch of 200, only the stored
papers its indexed keys and title-word postings give), and counts the records whose answer
(matched paper and reason, or none) differs. Incoming records:

* sample papers (every 5th), each in six perturbed versions: a typo in the title; no
  authors; the year + 1 and two typos; no authors and no year; a typo and no authors; the
  year + 1, two typos and no authors (the last two: the fuzzy title rule without a first
  author, which reads title blocks);
* every paper entry of ``shared/data/sources`` (the third-party exports litsift reads), as
  read, and again without its authors.

Usage::

    python benchmarks/identity_equivalence.py [--every 5] [--json]

Prints the counts (records, matched by the reference, differing) and the first differences.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from litsift.sources.base import SourceRecord, clean_text
from litsift.sources.identity.matcher import IdentityIndex
from litsift.sources.identity.stored_keys import StoreIdentityIndex
from litsift.sources.importer import plan
from litsift.store import Store, ingest_jsonl
from litsift.types import Kind

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("LITSIFT_DATA", HERE.parent.parent / "shared" / "data"))
PAPERS_GZ = DATA / "papers" / "ml-nlp-papers.jsonl.gz"
SOURCES = DATA / "sources"
BATCH = 200

#: ``(title, authors, year, ids, family names)`` as the import writer resolves a record
Record = tuple[str, list[str], int | None, dict[str, str], list[str]]


def _typo(title: str, k: int = 1) -> str:
    """The title with one letter dropped from each of its ``k`` longest words."""
    words = title.split()
    for i in sorted(range(len(words)), key=lambda j: -len(words[j]))[:k]:
        if len(words[i]) > 3:
            words[i] = words[i][:-2] + words[i][-1]
    return " ".join(words)


def perturbed(rows: list[dict[str, Any]], every: int) -> list[Record]:
    out: list[Record] = []
    for row in rows[::every]:
        title, authors, year = row["title"], list(row.get("authors") or []), row.get("year")
        out.append((_typo(title), authors, year, {}, []))
        out.append((title, [], year, {}, []))
        out.append((_typo(title, 2), authors, year + 1 if year else None, {}, []))
        out.append((title, [], None, {}, []))
        out.append((_typo(title), [], year, {}, []))
        out.append((_typo(title, 2), [], year + 1 if year else None, {}, []))
    return out


def source_records() -> list[Record]:
    """Every paper entry litsift reads from ``shared/data/sources``, and each without authors."""
    todo, _, _ = plan([SOURCES], Kind.PAPER)
    out: list[Record] = []
    for path, fmt in todo:
        if fmt.name.startswith("jsonl") or fmt.read_database is not None:
            continue
        try:
            items = list(fmt.read(path))
        except Exception:  # a file the importer reports as bad
            continue
        for item in items:
            if isinstance(item, SourceRecord) and item.kind is Kind.PAPER:
                rec: Record = (
                    clean_text(item.title),
                    list(item.authors),
                    item.year,
                    dict(item.ids),
                    list(item.family_names),
                )
                out.append(rec)
                out.append((rec[0], [], rec[2], rec[3], []))
    return out


def answer(found: Any) -> tuple[str, str] | None:
    return None if found is None else (found.doc_id, found.reason)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--every", type=int, default=5, help="perturb every Nth sample paper")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["id"] not in seen and row.get("title"):
                seen.add(row["id"])
                rows.append(row)
    records = perturbed(rows, args.every)
    n_perturbed = len(records)
    records += source_records()
    t = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="litsift-ident-") as tmp,
        Store(Path(tmp) / "store.sqlite") as store,
    ):
        ingest_jsonl(store, Kind.PAPER, PAPERS_GZ)
        whole = IdentityIndex.from_store(store, Kind.PAPER)
        blocked = StoreIdentityIndex(store, Kind.PAPER)
        with store.transaction():
            blocked.sync()
        differ: list[tuple[Record, Any, Any]] = []
        matched = 0
        for start in range(0, len(records), BATCH):
            batch = records[start : start + BATCH]
            blocked.prefetch(batch)
            for rec in batch:
                a, b = answer(whole.match(*rec)), answer(blocked.match(*rec))
                matched += a is not None
                if a != b:
                    differ.append((rec, a, b))
    res = {
        "stored": len(rows),
        "records": len(records),
        "perturbed_sample": n_perturbed,
        "sources": len(records) - n_perturbed,
        "matched_by_whole_index": matched,
        "differ": len(differ),
        "seconds": round(time.perf_counter() - t, 1),
    }
    print(
        f"{res['records']:,} records ({n_perturbed:,} perturbed sample papers, "
        f"{res['sources']:,} from shared/data/sources): {matched:,} matched by the whole-store "
        f"index, {len(differ):,} answered otherwise by the blocked one"
    )
    for rec, a, b in differ[:10]:
        print(f"  {rec[0][:70]!r} {rec[1][:1]} {rec[2]}: whole {a}, blocked {b}")
    if args.json:
        print(json.dumps(res))


if __name__ == "__main__":
    main()
