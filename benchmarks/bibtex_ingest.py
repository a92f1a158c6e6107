"""A 200 MB BibTeX file through ``litsift ingest papers big.bib --json`` (issue 43, item 8).

The file is made from real BibTeX: every entry of the ``.bib`` exports in
``../shared/data/sources/reference-managers/bibtex/`` (Zotero / Better BibTeX, JabRef, Mendeley,
biblatex's examples, ACL Anthology, DBLP-style crossrefs), copied again and again with a new key
(``KEY-c7``), a title that starts with the title of a paper of
``../shared/data/papers/ml-nlp-papers.jsonl.gz`` (so that copies are new papers, not
duplicates), DOIs made unique and links and eprints left out of the copies; an entry without an
abstract gets one from ``../shared/data/papers/ml-nlp-papers.jsonl.gz`` (real abstracts), so the
entries are as long as an export with abstracts (~1.7 KB, ~120K entries in 200 MB). ``@string``
and ``@preamble`` blocks are written once, at the top. The file is written to ``/tmp`` (never
committed) and reused when it is already there.

Measured, in one run, each in a fresh process (peak RSS from ``wait4``):

1. **peer** -- bibtexparser v2 alone (``bibtexparser.parse_file`` with its default parse stack)
   parsing the same file: no LaTeX, no names, no store;
2. **litsift** -- ``litsift --home NEW ingest papers big.bib --json`` (the streaming reader);
3. optionally (``--old-ref GIT_REF``) the same command on the code of another commit, checked out
   with ``git worktree`` into ``/tmp`` (on a slice of ``--old-mb`` MB when the full file would
   take hours).

Prints wall time, peak RSS and entries / second of each, medians over ``--repeat`` runs, the
ratios, and last one JSON line.

Usage::

    python benchmarks/bibtex_ingest.py [--mb 200] [--repeat 1] [--old-ref main --old-mb 20]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from litsift.paths import shared_data_dir

SOURCES = shared_data_dir() / "sources" / "reference-managers" / "bibtex"
PAPERS_GZ = shared_data_dir() / "papers" / "ml-nlp-papers.jsonl.gz"
REPO = Path(__file__).resolve().parent.parent

_BLOCK_RE = re.compile(r"(?m)^[ \t]*@")
_HEAD_RE = re.compile(r"\A@\s*(?P<type>\w+)\s*\{\s*(?P<key>[^,\s]*)\s*,")
_TITLE_RE = re.compile(r"(?im)^(\s*title\s*=\s*[{\"])")
_REF_RE = re.compile(r"(?im)^(\s*(?:crossref|xdata)\s*=\s*[{\"])([^}\"]+)")
_DOI_RE = re.compile(r"(?im)^(\s*doi\s*=\s*[{\"])([^}\"]+)")
_LINK_RE = re.compile(
    r"(?im)^\s*(?:url|eprint|pmid|biburl|bibsource)\s*=\s*[{\"][^\n]*[}\"],?\s*$\n?"
)
_ABSTRACT_RE = re.compile(r"(?im)^\s*abstract\s*=")


def _read(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _blocks(text: str) -> Iterator[str]:
    starts = [m.start() for m in _BLOCK_RE.finditer(text)]
    for a, b in zip(starts, [*starts[1:], len(text)], strict=True):
        yield text[a:b].strip()


def _braceless(text: str) -> str:
    return " ".join(text.replace("{", "(").replace("}", ")").replace("%", "\\%").split())


def _papers() -> list[tuple[str, str]]:
    """``(title, abstract)`` of the papers sample with an abstract, as BibTeX values."""
    out = []
    with gzip.open(PAPERS_GZ, "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if len(row.get("abstract") or "") > 200 and row.get("title"):
                out.append((_braceless(row["title"]), _braceless(row["abstract"])))
    return out


def _word(n: int) -> str:
    letters = "bcdfghjklmnpqrstvwxz"
    out = "Zy"
    while True:
        n, r = divmod(n, len(letters))
        out += letters[r]
        if n == 0:
            return out


def make_big_bib(out: Path, megabytes: float) -> int:
    """Write a BibTeX file of about ``megabytes`` MB to ``out`` (see the module docstring).

    Returns:
        The number of entries written (``@string`` / ``@preamble`` blocks aside).
    """
    head: list[str] = []
    entries: list[str] = []
    for path in sorted(SOURCES.glob("*.bib")):
        for block in _blocks(_read(path)):
            kind = block[1:].lstrip().split("{", 1)[0].strip().lower()
            if kind in ("string", "preamble"):
                head.append(block)
            elif kind != "comment" and _HEAD_RE.match(block):
                entries.append(block)
    papers = _papers()
    target = int(megabytes * 1_000_000)
    n = size = 0
    with out.open("w", encoding="utf-8") as f:
        size += f.write("\n\n".join(head) + "\n\n")
        copy = 0
        while size < target:
            for block in entries:
                m = _HEAD_RE.match(block)
                assert m is not None
                body = block[m.end() :]
                title, abstract = papers[n % len(papers)]
                if copy:  # another paper: a title of its own (and the entry's own after it)
                    head = f"{_word(copy)} {title}: "
                    body = _TITLE_RE.sub(lambda t, h=head: t.group(1) + h, body, 1)
                    body = _REF_RE.sub(lambda r, c=copy: f"{r.group(1)}{r.group(2)}-c{c}", body)
                    body = _DOI_RE.sub(lambda d, c=copy: f"{d.group(1)}{d.group(2)}.c{c}", body)
                    body = _LINK_RE.sub("", body)
                if not _ABSTRACT_RE.search(body):
                    body = f"\n  abstract = {{{abstract}}}," + body
                key = m.group("key") + (f"-c{copy}" if copy else "")
                size += f.write(f"@{m.group('type')}{{{key},{body}\n\n")
                n += 1
                if size >= target:
                    break
            copy += 1
    return n


def _measure(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """``(wall seconds, peak RSS MB, stdout)`` of ``cmd`` run in a fresh process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{cmd[:4]} failed ({proc.returncode}): {err.read()[-2000:]}")
        return wall, usage.ru_maxrss / 1024, out.read()


_PEER = """
import sys, bibtexparser
lib = bibtexparser.parse_file(sys.argv[1])
print(len(lib.entries) + len(lib.failed_blocks))
"""


def _old_checkout(ref: str) -> Path:
    where = Path(tempfile.gettempdir()) / f"litsift-bench-{ref.replace('/', '_')}"
    if not where.exists():
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(where), ref], cwd=REPO, check=True
        )
    return where / "src"


def _ingest(bib: Path, src: Path) -> tuple[float, float, int]:
    """``(wall s, peak RSS MB, entries read)`` of ``litsift ingest papers BIB --json`` into a
    new home, with the litsift of ``src``."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PYTHONPATH": str(src)}
        cmd = [sys.executable, "-m", "litsift", "--home", home, "ingest", "papers", str(bib)]
        wall, peak, out = _measure([*cmd, "--json"], env)
        return wall, peak, int(json.loads(out)["read"])


def _row(name: str, runs: list[tuple[float, float, int]]) -> dict[str, float]:
    wall = statistics.median(r[0] for r in runs)
    peak = statistics.median(r[1] for r in runs)
    n = runs[0][2]
    print(f"{name:34} {wall:9.1f} s {peak:9.0f} MB {n / wall:10.0f} entries/s  ({n:,} entries)")
    return {"wall_s": round(wall, 1), "peak_rss_mb": round(peak), "entries_per_s": round(n / wall)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--old-ref", help="also run the code of this git ref (e.g. main)")
    ap.add_argument("--old-mb", type=float, default=20.0, help="the old code's slice (MB)")
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    out: dict[str, object] = {}
    files = {args.mb: Path(tempfile.gettempdir()) / f"litsift-big-{args.mb:g}mb.bib"}
    if args.old_ref:
        files[args.old_mb] = Path(tempfile.gettempdir()) / f"litsift-big-{args.old_mb:g}mb.bib"
    entries = {}
    for mb, path in files.items():
        entries[mb] = make_big_bib(path, mb) if not path.exists() else None
        print(f"{path}: {path.stat().st_size / 1e6:.0f} MB")
    src = REPO / "src"
    if not args.no_peer:
        peer = []
        for _ in range(args.repeat):
            wall, peak, text = _measure([sys.executable, "-c", _PEER, str(files[args.mb])])
            peer.append((wall, peak, int(text.strip())))
        out["peer_bibtexparser"] = _row(f"bibtexparser alone, {args.mb:g} MB", peer)
    new = [_ingest(files[args.mb], src) for _ in range(args.repeat)]
    out["litsift"] = _row(f"litsift ingest, {args.mb:g} MB", new)
    if args.old_ref:
        small = [_ingest(files[args.old_mb], src) for _ in range(args.repeat)]
        out["litsift_slice"] = _row(f"litsift ingest, {args.old_mb:g} MB", small)
        old_src = _old_checkout(args.old_ref)
        old = [_ingest(files[args.old_mb], old_src) for _ in range(args.repeat)]
        out["old_slice"] = _row(f"{args.old_ref} ingest, {args.old_mb:g} MB", old)
        ratio = out["litsift_slice"]["entries_per_s"] / out["old_slice"]["entries_per_s"]  # type: ignore[index]
        print(f"entries/s, this code / {args.old_ref} on the slice: {ratio:.2f}")
        out["speedup_vs_old"] = round(ratio, 2)
    if "peer_bibtexparser" in out:
        ratio = out["litsift"]["wall_s"] / out["peer_bibtexparser"]["wall_s"]  # type: ignore[index]
        print(f"wall time, litsift ingest / bibtexparser alone: {ratio:.2f}")
        out["wall_vs_peer"] = round(ratio, 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
