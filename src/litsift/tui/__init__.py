"""litsift's Textual TUI. Import :func:`create_app` from :mod:`litsift.tui.app`.

Importing this package caps the screen's frame rate at 120 frames a second (Textual reads
``TEXTUAL_FPS`` once, when it is first imported; its default is 60): a change waits for the
screen's update timer before it is painted, up to one frame (16.7 ms at 60, 8.3 ms at 120), and
that wait sits between a keystroke and its painted results (``benchmarks/tui_latency.py``).
Frames are painted only when something changed, so an idle screen costs nothing more. A
``TEXTUAL_FPS`` set by the user is kept.
"""

import os

os.environ.setdefault("TEXTUAL_FPS", "120")
