"""The service: the one door of a litsift home for the TUI, the CLI and the evaluation.

:mod:`~litsift.service.facade` is the facade (:class:`~litsift.service.facade.LitsiftService`);
:mod:`~litsift.service.api` the Protocol the TUI is written against; the other modules are its
method groups (index, triage, llm, sources, rq, refs, review, screening, feeds).
"""
