"""The answer screen: a cited answer to the query over the current top results.

The draft streams in as the model writes it (deltas delivered from the worker thread with
``App.call_from_thread``); then the verified answer replaces it: each sentence with its ``[n]``
citations, sentences the judge found unsupported marked ``⚠``, fabricated citations (numbers
that named no passage, author-year citations that named no source sent) flagged, and the
references built from the store. Selecting a reference dismisses the screen with that
reference's hit so the search screen can show its detail.
Everything the model wrote is shown as plain text (never markup), through
:func:`litsift.text.for_terminal` (no escape sequence reaches the terminal). Closing the screen
(Esc) or quitting closes the request in flight within a tenth of a second, whether the model is
still reading the prompt (no delta yet), streaming the draft, or writing a self-feedback or
judge reply: the server stops writing (and charging) an answer nobody will read, and no later
call is sent.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from litsift.errors import LLMCancelledError
from litsift.text import for_terminal
from litsift.tui.screens.modals import LIST_QUIT
from litsift.tui.widgets.footer import KeyFooter
from litsift.tui.widgets.safe_text import safe_content, safe_title
from litsift.tui.widgets.status_line import error_text
from litsift.types import Hit

if TYPE_CHECKING:
    from litsift.service.api import LitsiftAPI
    from litsift.types.llm import Answer

Part = str | tuple[str, str]

#: shown under the streamed draft until the checked answer replaces it
WORKING = "· draft, not checked yet… (Esc closes)"


class _Closed(Exception):
    """The screen closed while its answer streamed: the worker stops the stream."""


def answer_parts(answer: Answer) -> Iterator[Part]:
    """The verified answer as styled plain-text parts."""
    for s in answer.sentences:
        if s.supported is False:
            yield ("⚠ ", "bold $warning")
            yield (s.text, "$warning")
        else:
            yield s.text
        if s.fabricated:
            listed = " ".join(f"[{n}]" for n in s.fabricated)
            yield (f" ✖ fabricated {listed}", "bold $error")
        if s.invented:
            yield (" ✖ invented " + "; ".join(f"({c})" for c in s.invented), "bold $error")
        yield s.separator
    yield "\n"
    if answer.fabricated:
        listed = " ".join(f"[{n}]" for n in answer.fabricated)
        yield ("\n✖ Citations to passages never sent (removed): " + listed + "\n", "bold $error")
    if answer.invented:
        listed = "; ".join(answer.invented)
        yield ("\n✖ Citations naming no source that was sent: " + listed + "\n", "bold $error")
    if answer.unsupported:
        n = len(answer.unsupported)
        yield (f"\n⚠ {n} sentence(s) not supported by their citations\n", "$warning")
    for note in answer.notes:
        yield (f"\n· {note}", "$text-muted")
    st = answer.stats
    yield (
        f"\n· {answer.model}: {st.calls} call(s), {st.cached_calls} cached, "
        f"{st.prompt_tokens + st.completion_tokens} tokens, ${st.cost_usd:.4f}",
        "$text-muted",
    )


class AnswerScreen(ModalScreen[Hit | None]):
    """Streams, then shows, a verified answer; Enter on a reference returns its hit.

    Args:
        service: the only API called (``service.llm.answer`` in a thread worker).
        question: the query text.
        hits: the current results, best first (passages come from the top ones).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="answer_close"),
        *LIST_QUIT,  # nothing to type here: q quits, as outside text everywhere
    ]

    def __init__(self, service: LitsiftAPI, question: str, hits: Sequence[Hit]) -> None:
        super().__init__(classes="litsift-modal", id="answer-screen")
        self.service = service
        self.question = question
        self.hits = list(hits)
        self.streamed = ""
        self.answer: Answer | None = None
        self.error: Exception | None = None
        self.done = False

    def compose(self) -> ComposeResult:
        yield KeyFooter()  # its own keys, not those of the screen below
        with Vertical(classes="modal-box", id="answer-box") as box:
            box.border_title = "Answer"
            box.border_subtitle = "Enter on a reference opens it · Esc close"
            yield Static(Content(for_terminal(self.question)), id="answer-question", markup=False)
            with VerticalScroll(id="answer-scroll"):
                yield Static(Content("writing…"), id="answer-text", markup=False)
            yield OptionList(id="answer-refs", markup=False)

    def on_mount(self) -> None:
        self.query_one("#answer-refs", OptionList).display = False
        self._run()

    @property
    def text(self) -> str:
        """The plain text shown in the answer area (for tests)."""
        return str(self.query_one("#answer-text", Static).visual)

    @work(thread=True, group="answer", exit_on_error=False)
    def _run(self) -> None:
        try:
            app, worker = self.app, get_current_worker()

            def cancelled() -> bool:  # Esc, a closing app: looked at while a reply is awaited
                return worker.is_cancelled or not self.is_attached

            def on_delta(delta: str) -> None:
                if cancelled():
                    raise _Closed
                app.call_from_thread(self._delta, delta)

            answer = self.service.llm.answer(
                self.question, self.hits, on_delta=on_delta, cancelled=cancelled
            )
        except (_Closed, LLMCancelledError):
            return
        except Exception as err:  # LLM/Query errors: shown on the screen, never a crash
            self.app.call_from_thread(self._failed, err)
            return
        self.app.call_from_thread(self._finished, answer)

    def _delta(self, delta: str) -> None:
        if not self.is_attached:
            return
        self.streamed += delta
        # the draft is not the answer: its citations are checked next, and self-feedback or the
        # citation judge may run for as long again; without this line it looked final
        parts: list[Part] = [self.streamed, (f"\n\n{WORKING}", "$text-muted")]
        self.query_one("#answer-text", Static).update(safe_content(parts))

    def _failed(self, err: Exception) -> None:
        self.error, self.done = err, True
        if not self.is_attached:
            return
        message, hint = error_text(err)
        parts: list[Part] = [
            self.streamed + "\n\n" if self.streamed else "",
            ("✖ " + message, "bold $error"),
        ]
        if hint:
            parts.append((f" — {hint}", "$warning"))
        self.query_one("#answer-text", Static).update(safe_content(parts))

    def _finished(self, answer: Answer) -> None:
        self.answer = answer
        if not self.is_attached:
            self.done = True
            return
        self.query_one("#answer-text", Static).update(safe_content(answer_parts(answer)))
        refs = self.query_one("#answer-refs", OptionList)
        refs.clear_options()
        for i, ref in enumerate(answer.references):
            nums = " ".join(f"[{n}]" for n in ref.passages)
            year = f" ({ref.record.year})" if ref.record.year else ""
            title = for_terminal(ref.record.display_title, keep_newlines=False)
            places = [for_terminal(p, keep_newlines=False) for p in answer.places(ref)]
            where = "".join(f"\n    {p}" for p in places)
            refs.add_option(Option(f"{nums} {title}{year}{where}", id=str(i)))
        refs.display = bool(answer.references)
        refs.border_title = safe_title(f"References ({len(answer.references)})")
        if answer.references:
            refs.focus()
        self.done = True

    @on(OptionList.OptionSelected, "#answer-refs")
    def _reference(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.answer is None or event.option.id is None:
            return
        record = self.answer.references[int(event.option.id)].record
        hit = next((h for h in self.hits if h.docid == record.id), None)
        self.dismiss(hit if hit is not None else Hit(record=record, rank=0, score=0.0))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "answer")  # the request is closed, not left to finish
        self.dismiss(None)
