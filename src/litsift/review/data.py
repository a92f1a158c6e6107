"""Labelled review sets: the gzip'd JSON Lines of ``shared/data/eval/screening``.

One file is one systematic review: every record its search returned, with the review's final
decision (``label_included``). Bad lines are reported as ``FILE:LINE: reason`` and skipped.
Titles and abstracts are read as the app stores and shows them: publishers' markup removed and
character references decoded (:func:`litsift.text.markup.plain_text`), so the simulation and
the app's screening read the same words.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from litsift.errors import EvalError
from litsift.text.markup import plain_text
from litsift.types.core import UNTITLED_PREFIX

#: Where the sets live below the shared data dir.
SCREENING_SUBDIR = Path("eval") / "screening"
SET_SUFFIX = ".jsonl.gz"


@dataclass(frozen=True)
class ReviewSet:
    """One review's candidate records and final decisions.

    Attributes:
        name: file stem, e.g. ``Donners_2021``.
        record_ids: ``(N,)`` the source's record ids, in file order.
        titles, abstracts: ``(N,)`` texts (``""`` when missing).
        labels: ``(N,)`` int8, 1 = included by the review.
        problems: ``FILE:LINE: reason`` of each skipped line.
        openalex_ids: ``(N,)`` OpenAlex work ids (``W123``; ``""`` when unknown), or ``()``.
        references: ``(N,)`` the OpenAlex ids each record cites (``referenced_works``), or
            ``()`` when the set carries no references.
    """

    name: str
    record_ids: tuple[str, ...]
    titles: tuple[str, ...]
    abstracts: tuple[str, ...]
    labels: npt.NDArray[np.int8]
    problems: tuple[str, ...] = ()
    openalex_ids: tuple[str, ...] = ()
    references: tuple[tuple[str, ...], ...] = ()

    @property
    def texts(self) -> list[str]:
        """Title and abstract of each record, one string (``title\\nabstract``)."""
        return [record_text(t, a) for t, a in zip(self.titles, self.abstracts, strict=True)]


def record_text(title: str, abstract: str) -> str:
    """What the models read of a record: ``title\\nabstract``, stripped; a stored record
    without a title (its title is :data:`UNTITLED_PREFIX` ...) reads as its abstract alone, as
    the same record of a screening set does in ``litsift eval screening``."""
    if title.startswith(UNTITLED_PREFIX):
        title = ""
    return f"{title}\n{abstract}".strip()


def load_review_set(path: Path) -> ReviewSet:
    """Read one ``NAME.jsonl.gz`` (or plain ``.jsonl``) review set.

    Raises:
        EvalError: the file is missing or unreadable, or has no included and excluded record.
    """
    name = path.name.removesuffix(".gz").removesuffix(".jsonl")
    ids: list[str] = []
    titles: list[str] = []
    abstracts: list[str] = []
    labels: list[int] = []
    problems: list[str] = []
    openalex: list[str] = []
    refs: list[tuple[str, ...]] = []
    has_refs = False
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError:
                    problems.append(f"{path}:{lineno}: not a JSON object")
                    continue
                label = row.get("label_included") if isinstance(row, dict) else None
                if label not in (0, 1):
                    problems.append(f"{path}:{lineno}: label_included must be 0 or 1")
                    continue
                ids.append(str(row.get("record_id", lineno)))
                titles.append(plain_text(str(row.get("title") or "")))
                abstracts.append(plain_text(str(row.get("abstract") or "")))
                labels.append(int(label))
                openalex.append(_short_openalex(row.get("openalex_id")))
                cited = row.get("referenced_works")
                has_refs = has_refs or isinstance(cited, list)
                works = cited if isinstance(cited, list) else []
                refs.append(tuple(w for w in map(_short_openalex, works) if w))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise EvalError(
            f"cannot read review set {path}: {exc.__class__.__name__.lower()}",
            "pass --data with the screening sets (gzip'd JSON Lines)",
        ) from exc
    y = np.asarray(labels, dtype=np.int8)
    if not y.any() or y.all():
        raise EvalError(
            f"{path}: needs at least one included and one excluded record",
            "check label_included in the file",
        )
    return ReviewSet(
        name,
        tuple(ids),
        tuple(titles),
        tuple(abstracts),
        y,
        tuple(problems),
        tuple(openalex),
        tuple(refs) if has_refs else (),
    )


def _short_openalex(value: object) -> str:
    """``W123`` from an OpenAlex id or URL; ``""`` for anything else."""
    if not isinstance(value, str):
        return ""
    short = value.strip().rsplit("/", 1)[-1].upper()
    return short if short[:1] == "W" and short[1:].isdigit() else ""


def find_sets(data_dir: Path, names: Sequence[str] | None = None) -> list[Path]:
    """The review-set files in ``data_dir/eval/screening``, ``data_dir/screening`` or
    ``data_dir`` (the first that exists), smallest first.

    Raises:
        EvalError: no set found, or a named set is missing.
    """
    candidates = [data_dir / SCREENING_SUBDIR, data_dir / SCREENING_SUBDIR.name, data_dir]
    base = next((d for d in candidates if d.is_dir()), data_dir)
    found = {p.name.removesuffix(SET_SUFFIX): p for p in base.glob(f"*{SET_SUFFIX}")}
    if not found:
        raise EvalError(
            f"no review sets (*{SET_SUFFIX}) in {base}",
            "pass --data with the shared data dir or the screening sets' dir",
        )
    if names:
        missing = [n for n in names if n not in found]
        if missing:
            raise EvalError(
                f"unknown review set(s): {', '.join(missing)}",
                f"choose among {', '.join(sorted(found))}",
            )
        return [found[n] for n in names]
    return sorted(found.values(), key=lambda p: (p.stat().st_size, p.name))


def load_criteria(path: Path) -> dict[str, str]:
    """A JSON file of review criteria for ``eval screening --criteria``: one object,
    ``{set name: text}`` (a set's text: its review question or inclusion criteria), or
    ``{set name: {"criteria": text, ...}}`` (other keys, e.g. a ``"source"``, are kept for
    people and ignored here). Keys starting with ``_`` are comments.

    Raises:
        EvalError: the file cannot be read, is not JSON, or is not such an object.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EvalError(
            f"cannot read criteria file {path}: {exc.strerror or exc}",
            'give a JSON file: {"SET": "the review question"}',
        ) from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise EvalError(
            f"criteria file {path} is not JSON: {exc}",
            'give a JSON file: {"SET": "the review question"}',
        ) from exc
    if not isinstance(data, dict):
        raise EvalError(
            f"criteria file {path} holds a {type(data).__name__}, not an object",
            'give a JSON file: {"SET": "the review question"}',
        )
    out: dict[str, str] = {}
    for name, value in data.items():
        if str(name).startswith("_"):
            continue
        text = value.get("criteria") if isinstance(value, dict) else value
        if not isinstance(text, str):
            raise EvalError(
                f"criteria file {path}: set {name!r} has no criteria text",
                'write "SET": "text" or "SET": {"criteria": "text"}',
            )
        out[str(name)] = text
    return out


def criteria_of_sets(
    criteria: Mapping[str, str], data_dir: Path, run: Sequence[Path]
) -> dict[str, str]:
    """The non-blank criteria of the sets in ``run`` (set files of ``data_dir``).

    Raises:
        EvalError: a name in ``criteria`` is no set of ``data_dir`` (a typo would otherwise
            run that review without its criteria, silently).
    """
    if criteria:
        every = {p.name.split(".")[0] for p in find_sets(data_dir)}
        unknown = sorted(set(criteria) - every)
        if unknown:
            raise EvalError(
                f"criteria given for unknown set(s): {', '.join(unknown)}",
                f"name the sets as their files are named: {', '.join(sorted(every))}",
            )
    names = {p.name.split(".")[0] for p in run}
    return {k: v for k, v in criteria.items() if v.strip() and k in names}
