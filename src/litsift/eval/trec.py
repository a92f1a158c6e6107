"""TREC files: id sanitising, qrels reading, run writing and reading.

A TREC run line is ``<qid> Q0 <docid> <rank> <score> <tag>`` and a qrels line is
``<qid> <iter> <docid> <relevance>``; both are whitespace-separated, so ids that contain
whitespace are written with every whitespace character replaced by ``_`` -- the convention of
DataFinder's qrels (``../shared/data/README.md``), applied to every benchmark so qrels and runs
always agree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import ir_measures

from litsift.errors import EvalError

#: ``{qid: {docid: relevance}}``
Qrels = dict[str, dict[str, int]]
#: ``{qid: {docid: score}}``
Run = dict[str, dict[str, float]]

_WS_RE = re.compile(r"\s")


def trec_id(text: str) -> str:
    """An id safe for a TREC file: every whitespace character becomes ``_``.

    Args:
        text: a query or document id (e.g. the dataset id ``"ICDAR 2015"``).

    Returns:
        The id with no whitespace (``"ICDAR_2015"``); unchanged if it had none.
    """
    return _WS_RE.sub("_", text)


def read_qrels(path: Path) -> Qrels:
    """Read a qrels file: TREC (``qid iter docid rel``) or BEIR TSV (``qid docid rel``).

    Columns are split on tabs when the line has any, else on whitespace. A first line whose
    last column is not an integer (BEIR's ``query-id corpus-id score``, DataFinder's
    ``QueryID 0 DocID Relevance``) is taken as a header and skipped. Ids are passed through
    :func:`trec_id`.

    Args:
        path: the qrels file.

    Returns:
        ``{qid: {docid: relevance}}``; judgments with relevance <= 0 are kept (they count as
        non-relevant in every measure).

    Raises:
        EvalError: the file is missing or a line has neither 3 nor 4 columns or a non-integer
            relevance (the message names the line).
    """
    if not path.is_file():
        raise EvalError(f"qrels file not found: {path}", "pass an existing file with --qrels")
    qrels: Qrels = {}
    text = path.read_text(encoding="utf-8")
    for line_no, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        cols = line.rstrip("\r").split("\t") if "\t" in line else line.split()
        if len(cols) not in (3, 4):
            raise EvalError(
                f"{path}:{line_no}: expected 3 or 4 columns, got {len(cols)}",
                "qrels lines are 'qid 0 docid relevance' (TREC) or 'qid<TAB>docid<TAB>score'",
            )
        try:
            rel = int(cols[-1])
        except ValueError:
            if line_no == 1:
                continue  # header
            raise EvalError(
                f"{path}:{line_no}: relevance {cols[-1]!r} is not an integer",
                "qrels relevance must be an integer grade",
            ) from None
        qid, docid = cols[0].strip(), cols[-2].strip()
        qrels.setdefault(trec_id(qid), {})[trec_id(docid)] = rel
    return qrels


def write_run(path: Path, run: Mapping[str, Sequence[tuple[str, float]]], tag: str) -> Path:
    """Write a TREC run file.

    Args:
        path: the output file; parent directories are created.
        run: ``{qid: [(docid, score), ...]}`` best first; ids must already be TREC-safe.
        tag: the run tag (6th column), e.g. ``"litsift-hybrid"``.

    Returns:
        ``path``. Scores are written with 10 significant digits (``%.10g``), so a run read back
        with :func:`read_run` orders documents as written except for exact score ties, which
        trec_eval and ir-measures break by document id.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for qid, hits in run.items():
        for rank, (docid, score) in enumerate(hits, start=1):
            lines.append(f"{qid} Q0 {docid} {rank} {score:.10g} {tag}\n")
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(lines), encoding="utf-8")
    tmp.replace(path)
    return path


def read_run(path: Path) -> Run:
    """Read a TREC run file with ``ir_measures.read_trec_run``.

    Returns:
        ``{qid: {docid: score}}``.
    """
    run: Run = {}
    for doc in ir_measures.read_trec_run(str(path)):  # type: ignore[no-untyped-call]
        run.setdefault(doc.query_id, {})[doc.doc_id] = float(doc.score)
    return run
