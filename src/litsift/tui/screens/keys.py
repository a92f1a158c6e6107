"""Key bindings of the main screen, in three groups (as the help screen lists them).

Bindings have ids (``[keymap]`` names) equal to their action names; the actions are methods of
:class:`~litsift.tui.screens.search.SearchScreen`, which hands triage and ranking actions to
:class:`~litsift.tui.screens.triage.TriageCommands` and
:class:`~litsift.tui.screens.ranking.RankingCommands`.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

#: an unread background error (screens/job_errors.py): first in the footer while there is one
ERROR_BINDINGS: list[BindingType] = [
    Binding(
        "ctrl+o",
        "read_errors",
        "Read error",
        id="read_errors",
        tooltip="Read the errors of background jobs (index builds)",
    ),
]

#: the main screen's own keys
SCREEN_BINDINGS: list[BindingType] = [
    Binding(
        "slash", "focus_query", "Query", id="focus_query", tooltip="Put the cursor in the query"
    ),
    Binding(
        "escape",
        "back",
        "Back",
        show=False,
        id="back",
        tooltip="Back: detail → results → query; stops an LLM rerank or judge",
    ),
    Binding(
        "down,ctrl+n",
        "focus_results",
        "Results",
        id="focus_results",
        tooltip="From the query: move into the results (Up on the first row comes back)",
    ),
    Binding(
        "ctrl+t",
        "toggle_kind",
        "Papers/Datasets",
        id="toggle_kind",
        tooltip="Switch between the Papers and Datasets tabs",
    ),
    Binding(
        "f2",
        "show_kind('paper')",
        "Papers",
        show=False,
        id="show_papers",
        tooltip="Show the Papers tab",
    ),
    Binding(
        "f3",
        "show_kind('dataset')",
        "Datasets",
        show=False,
        id="show_datasets",
        tooltip="Show the Datasets tab",
    ),
    Binding(
        "T",
        "toggle_fulltext",
        "Full text",
        show=False,
        id="toggle_fulltext",
        tooltip="Toggle: also search the imported full text of papers (passages)",
    ),
    Binding(
        "C",
        "citations",
        "Citations",
        show=False,
        id="citations",
        tooltip="References, citing papers and snowball rounds of the paper; a dataset's papers",
    ),
    Binding(
        "ctrl+l",
        "clear_years",
        "Clear years",
        id="clear_years",
        tooltip="Clear the year range and search again",
    ),
]

#: actions that need a highlighted result
NEEDS_HIT = frozenset(
    {"label", "edit_note", "add_to_collection", "extract_rq", "same_rq", "citations"}
)

#: triage keys (results, detail): :class:`~litsift.tui.screens.triage.TriageCommands`
TRIAGE_BINDINGS: list[BindingType] = [
    Binding(
        "plus,y", "label('keep')", "Keep", id="label_keep", tooltip="Label keep (again: clear)"
    ),
    Binding("m", "label('maybe')", "Maybe", id="label_maybe", tooltip="Label maybe (again: clear)"),
    Binding(
        "minus,x",
        "label('discard')",
        "Discard",
        id="label_discard",
        tooltip="Label discard (again: clear)",
    ),
    Binding(
        "u", "undo_label", "Undo", show=False, id="undo_label", tooltip="Undo the last label change"
    ),
    Binding(
        "f",
        "cycle_filter",
        "Filter",
        show=False,
        id="cycle_filter",
        tooltip="Show: all → unlabelled → kept → maybe → discarded → hide discarded",
    ),
    Binding("n", "edit_note", "Note", show=False, id="edit_note", tooltip="Edit note and tags"),
    Binding(
        "c",
        "add_to_collection",
        "Collect",
        show=False,
        id="add_to_collection",
        tooltip="Add the result to a named collection",
    ),
    Binding(
        "h,ctrl+r",
        "history",
        "History",
        show=False,
        id="history",
        tooltip="Saved searches and query history (Enter re-runs)",
    ),
    Binding(
        "s",
        "save_search",
        "Save search",
        show=False,
        id="save_search",
        tooltip="Save the current search under a name",
    ),
    Binding(
        "e",
        "export",
        "Export",
        show=False,
        id="export",
        tooltip="Export kept records or a collection (BibTeX, RIS, CSL-JSON, Markdown)",
    ),
]


#: actions that need an LLM endpoint
NEEDS_LLM = frozenset({"llm_rerank", "answer", "llm_judge_aspects"})

#: ranking keys (results, detail): :class:`~litsift.tui.screens.ranking.RankingCommands`
RANKING_BINDINGS: list[BindingType] = [
    Binding(
        "l",
        "more_like_this",
        "More like this",
        id="more_like_this",
        tooltip="Toggle: rerank toward kept, away from discarded results",
    ),
    Binding(
        "o",
        "coverage_order",
        "By coverage",
        show=False,
        id="coverage_order",
        tooltip="Toggle: order the results by aspect coverage",
    ),
    Binding(
        "a",
        "edit_aspects",
        "Aspects",
        show=False,
        id="edit_aspects",
        tooltip="Edit, delete or add query aspects, then re-score",
    ),
    Binding(
        "r",
        "llm_rerank",
        "Rerank",
        show=False,
        id="llm_rerank",
        tooltip="Rerank the results with the LLM",
    ),
    Binding(
        "J",
        "llm_judge_aspects",
        "Judge aspects",
        show=False,
        id="llm_judge_aspects",
        tooltip="LLM grades each aspect 0/1/2 for the top results (DORIS-MAE prompt)",
    ),
    Binding("w", "answer", "Answer", id="answer", tooltip="Write a cited answer from the results"),
    Binding(
        "R",
        "extract_rq",
        "Extract RQ",
        show=False,
        id="extract_rq",
        tooltip="Extract the problem and method of this paper and the kept ones "
        "(LLM when configured, else offline)",
    ),
    Binding(
        "P",
        "same_rq('problem')",
        "Same problem",
        show=False,
        id="same_problem",
        tooltip="Papers with this paper's problem (compare their methods)",
    ),
    Binding(
        "M",
        "same_rq('method')",
        "Same method",
        show=False,
        id="same_method",
        tooltip="Papers with this paper's method (compare their problems)",
    ),
]
