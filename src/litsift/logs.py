"""litsift's log file: what background work did wrong, with tracebacks, and third-party warnings.

A terminal app cannot print a traceback or a library's warning over its screen, and a failure of
background work (an index build in the TUI, an embedding worker) must not be lost when the
status line moves on. :func:`setup` attaches one size-capped file (:attr:`litsift.paths.Paths.
log_file`, shown by ``litsift config``) to the ``litsift`` logger and routes Python warnings
(``logging.captureWarnings``) there too, so no third-party ``DeprecationWarning`` or
``TracerWarning`` reaches the terminal. Called once per command by the CLI; idempotent (a second
call with another file moves the handler).

Uses only the standard library (``logging.handlers.RotatingFileHandler``).
"""

from __future__ import annotations

import logging
import logging.handlers
import threading
from pathlib import Path

#: the logger every litsift module logs under (``logging.getLogger("litsift.<module>")``)
LOGGER = "litsift"
#: bytes a log file reaches before it is rotated (two old files are kept)
MAX_BYTES = 1 << 20
_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

_lock = threading.Lock()
_handler: logging.Handler | None = None
_path: Path | None = None


def setup(path: Path) -> Path | None:
    """Send the ``litsift`` logger and Python warnings to ``path`` (rotated at
    :data:`MAX_BYTES`, 2 backups).

    Returns:
        ``path``, or None when it cannot be written (a read-only home): warnings then go
        nowhere rather than over the terminal, and nothing is raised.
    """
    global _handler, _path
    with _lock:
        if _path == path and _handler is not None:
            return path
        handler: logging.Handler
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(
                path, maxBytes=MAX_BYTES, backupCount=2, encoding="utf-8", delay=True
            )
            # delay=True opens on the first record: check now that the file can be written
            with path.open("a", encoding="utf-8"):
                pass
            found: Path | None = path
        except OSError:
            handler, found = logging.NullHandler(), None
        handler.setFormatter(logging.Formatter(_FORMAT))
        # on the root logger: litsift's records, captured warnings ("py.warnings") and any
        # library's warnings propagate there; a root with a handler also keeps a library's
        # bare logging.warning() from calling basicConfig (which prints "WARNING:root:" lines)
        root = logging.getLogger()
        if _handler is not None:
            root.removeHandler(_handler)
        root.addHandler(handler)
        logging.getLogger(LOGGER).setLevel(logging.INFO)
        if _handler is not None:
            _handler.close()
        _handler, _path = handler, found
        logging.captureWarnings(True)
        return found


def current() -> Path | None:
    """The log file :func:`setup` opened last, or None (not set up, or not writable)."""
    return _path


def get(name: str) -> logging.Logger:
    """``logging.getLogger("litsift." + name)``: a logger whose records go to the log file."""
    return logging.getLogger(f"{LOGGER}.{name}")
