"""What an HTTP error body says, as one line a person can read: the ``error`` / ``message``
of a JSON body (OpenAlex, Semantic Scholar, OpenAI-compatible servers), the title (else the
text) of an HTML page (a proxy's or a load balancer's error page), else the text itself --
never the page's markup."""

from __future__ import annotations

import html
import json
import re

__all__ = ["body_text", "html_title"]


def html_title(body: str) -> str | None:
    """The title (else the text) of an HTML page, None when ``body`` is not one."""
    head = body.lstrip()[:200].lower()
    if not head.startswith(("<!doctype html", "<html", "<head", "<body")):
        return None
    m = re.search(r"<title[^>]*>(.*?)</title>", body, re.S | re.I)
    text = m.group(1) if m else re.sub(r"<[^>]*>", " ", body)
    return " ".join(html.unescape(text).split())[:120]


def body_text(body: bytes, limit: int = 200) -> str:
    """One line of what an error ``body`` says (at most ``limit`` characters), "" for none.

    A JSON object gives its ``error`` and ``message`` (``"Invalid query parameters error.:
    DOESNTEXIST is not a valid field"``; an OpenAI-style ``error`` object its ``message``);
    an HTML page its title, else its text.
    """
    text = body[: 64 * 1024].decode("utf-8", "replace")
    said = html_title(text)
    if said is None:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            err = data.get("error")
            if isinstance(err, dict):
                err = err.get("message")
            parts = [str(p) for p in (err, data.get("message")) if isinstance(p, str) and p]
            said = ": ".join(dict.fromkeys(parts)) or text
        else:
            said = text
    said = " ".join(said.split())
    return said[:limit] + ("…" if len(said) > limit else "")
