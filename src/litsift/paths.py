"""Where litsift keeps its files: XDG user dirs via platformdirs, ``LITSIFT_HOME`` overrides.

With ``LITSIFT_HOME=/some/dir`` the config, store, indexes and log live below that directory,
which is how tests and ``litsift eval`` keep their own stores apart from the user's. The encoder
exports and the passage-vector cache stay in the user cache directory, shared by every home
(:attr:`Paths.models_dir`, :attr:`Paths.embeddings_file`).
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "litsift"
#: Environment variable naming the sample and benchmark data directory (``shared/data``).
SHARED_DATA_ENV = "LITSIFT_EVAL_DATA"


@dataclass(frozen=True)
class Paths:
    """The directories litsift uses. Created on demand by :meth:`ensure`."""

    config_dir: Path
    data_dir: Path
    cache_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def store_file(self) -> Path:
        return self.data_dir / "litsift.sqlite"

    @property
    def log_file(self) -> Path:
        """The log file (:mod:`litsift.logs`): errors of background work with tracebacks, and
        third-party warnings, kept off the terminal. ``litsift config`` shows it."""
        return self.cache_dir / "litsift.log"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "indexes"

    @property
    def models_dir(self) -> Path:
        """ONNX exports, keyed by model id + source hash.

        Shared by every ``LITSIFT_HOME`` unless ``LITSIFT_MODELS_DIR`` is set, so a test store or
        an evaluation store does not export the encoder again.
        """
        override = os.environ.get("LITSIFT_MODELS_DIR")
        if override:
            return Path(override).expanduser()
        return Path(platformdirs.user_cache_dir(APP_NAME)) / "models"

    @property
    def embeddings_file(self) -> Path | None:
        """The passage-vector cache (:mod:`litsift.cache.embeddings`), or None when disabled.

        Shared by every ``LITSIFT_HOME`` like :attr:`models_dir` (a vector is keyed by the
        encoder and the exact text, so homes cannot disagree); ``LITSIFT_EMBED_CACHE_DIR=DIR``
        moves it, ``LITSIFT_EMBED_CACHE_DIR=off`` turns it off.
        """
        override = os.environ.get("LITSIFT_EMBED_CACHE_DIR")
        if override and override.strip().lower() in ("off", "0", "no", "none"):
            return None
        root = (
            Path(override).expanduser() if override else Path(platformdirs.user_cache_dir(APP_NAME))
        )
        return root / "embeddings.sqlite"

    def ensure(self) -> Paths:
        """Create the directories that are missing. One that cannot be made (a read-only
        mount, a directory of another user) is left for the store to report when a command
        has to write there: searching a read-only home needs none of them made."""
        for d in (self.config_dir, self.data_dir, self.cache_dir, self.index_dir):
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                if err.errno not in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC):
                    raise
        return self


def get_paths(home: Path | str | None = None) -> Paths:
    """Resolve the directories: ``home`` argument, else ``$LITSIFT_HOME``, else XDG dirs."""
    root = home if home is not None else os.environ.get("LITSIFT_HOME")
    if root:
        base = Path(root).expanduser().resolve()
        return Paths(config_dir=base, data_dir=base / "data", cache_dir=base / "cache")
    return Paths(
        config_dir=Path(platformdirs.user_config_dir(APP_NAME)),
        data_dir=Path(platformdirs.user_data_dir(APP_NAME)),
        cache_dir=Path(platformdirs.user_cache_dir(APP_NAME)),
    )


def shared_data_dir() -> Path:
    """The sample and benchmark data directory (``shared/data``: papers, datasets, eval sets).

    The one place it is looked up (``litsift demo``, ``litsift eval``, benchmarks, tests):
    ``$LITSIFT_EVAL_DATA``, else ``../shared/data`` from the working directory, else
    ``../shared/data`` beside the source checkout (``<repo>/../shared/data``).

    Returns:
        The first of these that is a directory (resolved); when none is, the working
        directory's ``../shared/data``, for the caller to report as missing.
    """
    env = os.environ.get(SHARED_DATA_ENV)
    if env:
        return Path(env).expanduser()
    relative = Path("..") / "shared" / "data"
    candidates = (Path.cwd() / relative, Path(__file__).resolve().parents[2] / relative)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    return candidates[0].resolve()
