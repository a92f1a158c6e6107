"""Words a PDF breaks at a line end with a hyphen: a syllable break to undo ("classi-\\nfication"
-> "classification") or a compound to keep ("publicly-\\navailable", "Context-\\nenhanced").

A typesetter hyphenates at syllables, and an author's compound can fall at the line end too; the
break looks the same. No dictionary is at hand, so the document itself decides
(:class:`Lexicon`, the words it prints elsewhere, not at a line end):

1. the joined word or the hyphenated compound printed elsewhere: the more frequent of the two
   ("tempera-\\nture" with "temperature" 52 times; "task-\\noriented" with "task-oriented" 13
   times), the hyphen on a tie;
2. else, in a document that breaks no word at a syllable (none of its breaks printed joined
   elsewhere, at least three printed as compounds: a word processor's ragged lines, as in
   bioRxiv preprints), the hyphen is the author's and kept ("Co-\\nlocalization",
   "post-\\nreplicative" although "postreplication" is printed too);
3. else rule 1 for another form of the word, the part after the hyphen cut to its stem
   ("fine-\\ntuned" with "fine-tuning" printed; "inter-\\nmediates" with "intermediate");
4. else a hyphen is kept before a capital or a digit ("S2ORC-\\nSCIBERT", "EF-\\n1A"), after
   an acronym or a single letter ("BERT-\\nbased", "M-\\nwave"), after a word the document
   prints on its own and before one it prints ("model-\\nbased", "Context-\\nenhanced"), and
   before a part of one or two letters ("state-\\nof-the-art", "end-\\nto-end"): typesetters
   leave at least three letters after a syllable break (TeX's ``\\righthyphenmin``). A prefix
   the document prints only before a hyphen is no word of it: "inter-\\nsection" is
   "intersection" although the paper writes "inter-document"; and after a prefix English
   writes with a hyphen as often as not (pre-, post-, non-, self-, semi-, cross-, ...)
   before a word the document prints, in this or another ending ("pre-\\ndefined" with
   "define" printed, "non-\\npainful" with "pain"): the joined word, printed nowhere, would
   be found by no search for either part. Prefixes English closes up (inter-, sub-, re-,
   mis-, over-) are left to rule 5;
5. else the parts are joined ("com-\\nputing", "in-\\ncluded": "puting", "cluded" are no words).

A hyphen before "and", "or", "nor" or "to" and another word is a suspended one, the first
part of a compound whose second part the next word shares ("sentence-\\nand token-level",
"pre- to post-training"): it is kept and the word after it set apart ("sentence- and"), not
glued to the conjunction; "end-\\nto-end" goes on with a hyphen and is a compound.

A compound wrongly kept hyphenated still reads and matches as its two words ("out-side"); a
compound wrongly joined ("publiclyavailable") matches nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["Lexicon", "dehyphenate"]

#: a word broken at a line end: ``(part)(-)(\n)(part)``, the hyphen or a non-breaking one
_BREAK_RE = re.compile(r"(\w+)[-\u2011]\n(\w+)")
_WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
#: a suspended hyphen at a line end: "sentence-\n" before "and token-level"
_SUSPENDED_RE = re.compile(r"(\w[-\u2011])\n((?:and|or|nor|to)\s+[^\W\d_])")
#: prefixes English writes with a hyphen before a word as often as not (rule 4)
_PREFIXES = frozenset(
    ("anti", "co", "cross", "multi", "non", "post", "pre", "pseudo", "quasi", "self", "semi")
)
#: endings a word takes ("defined" of "define", "painful" of "pain"): a form of the word
_ENDINGS = ("d", "ed", "s", "es", "ing", "ful", "ly", "ity", "ness")
_COMPOUND_RE = re.compile(r"(?<!\w)([^\W\d_]+)-(?=([^\W\d_]+))")
#: a word with a hyphen: "inter-document", "token-" of "token- and sentence-level"
_HYPHENATED_RE = re.compile(r"[\w'’]*[-\u2011][\w'’-]*")


@dataclass
class Lexicon:
    """How often a document prints each word (``words``; ``free``: outside a hyphenated
    compound) and each hyphenated pair of words, lowercased, leaving out the words broken at
    line ends; ``syllables``: whether the document breaks words at syllables (rule 2)."""

    words: Counter[str] = field(default_factory=Counter)
    compounds: Counter[str] = field(default_factory=Counter)
    free: Counter[str] = field(default_factory=Counter)
    syllables: bool = True
    _sorted: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, text: str) -> Lexicon:
        whole = _BREAK_RE.sub(" ", text)
        words = Counter(w.lower() for w in _WORD_RE.findall(whole))
        compounds: Counter[str] = Counter()
        for line in whole.split("\n"):
            for m in _COMPOUND_RE.finditer(line):
                compounds[f"{m.group(1)}-{m.group(2)}".lower()] += 1
        free = Counter(w.lower() for w in _WORD_RE.findall(_HYPHENATED_RE.sub(" ", whole)))
        lexicon = cls(words, compounds, free)
        joins = [lexicon._printed(*m.groups()) for m in _BREAK_RE.finditer(text)]
        lexicon.syllables = True in joins or joins.count(False) < 3
        return lexicon

    def _printed(self, head: str, tail: str) -> bool | None:
        """Whether the document prints ``head + tail`` more often than ``head-tail`` (None:
        neither)."""
        joined = self.words[(head + tail).lower()]
        hyphenated = self.compounds[f"{head}-{tail}".lower()]
        return joined > hyphenated if joined or hyphenated else None

    def keeps_hyphen(self, head: str, tail: str) -> bool:
        """Whether ``head-`` at a line end and ``tail`` on the next line form a compound."""
        if (printed := self._printed(head, tail)) is not None:
            return not printed
        if not self.syllables:
            return True
        stem = tail[: max(4, len(tail) - 3)].lower()  # "trained" -> "trai"
        joined = self._starting("words", (head + stem).lower())
        hyphenated = self._starting("compounds", f"{head}-{stem}".lower())
        if joined or hyphenated:
            return hyphenated >= joined
        if tail[0].isupper() or tail[0].isdigit() or head[-1].isdigit():
            return True
        if len(head) == 1 or len(tail) <= 2 or any(c.isupper() for c in head[1:]):
            return True
        if head.lower() in _PREFIXES and len(tail) >= 3 and self._word(tail.lower()):
            return True
        both = len(head) >= 3 and len(tail) >= 3
        return both and bool(self.free[head.lower()] and self.words[tail.lower()])

    def _word(self, word: str) -> bool:
        """Whether the document prints ``word`` or another form of it ("define" for
        "defined", "pain" for "painful")."""
        if self.words[word]:
            return True
        roots = (word[: -len(end)] for end in _ENDINGS if word.endswith(end))
        return any(len(r) >= 3 and (self.words[r] or self.words[r + "e"]) for r in roots)

    def _starting(self, which: str, prefix: str) -> int:
        """How often the document prints a word (``which``: "words") or a compound
        ("compounds") starting with ``prefix``."""
        if which not in self._sorted:
            self._sorted[which] = sorted(getattr(self, which))
        keys, counts = self._sorted[which], getattr(self, which)
        total = 0
        for word in keys[bisect_left(keys, prefix) :]:
            if not word.startswith(prefix):
                break
            total += counts[word]
        return total


def dehyphenate(text: str, lexicon: Lexicon | None = None) -> str:
    """``text`` with words hyphenated at line ends joined, compounds kept (see the module);
    ``lexicon`` is the whole document's, else ``text``'s own."""
    if not _BREAK_RE.search(text):
        return text
    known = lexicon if lexicon is not None else Lexicon.of(text)
    text = _SUSPENDED_RE.sub(r"\1 \2", text)

    def join(m: re.Match[str]) -> str:
        head, tail = m.group(1), m.group(2)
        return f"{head}-{tail}" if known.keeps_hyphen(head, tail) else head + tail

    return _BREAK_RE.sub(join, text)
