"""Where benchmark data lives: ``MEMDESK_DATA_DIR``, the ``data_dir`` setting, else ``../shared/data``."""

from __future__ import annotations

import os
from pathlib import Path


def default_data_dir(setting: str | None = None) -> Path:
    """The first of: ``setting``, ``$MEMDESK_DATA_DIR``, ``./shared/data``, ``../shared/data`` (from the
    working directory, then from this source checkout)."""
    if setting:
        return Path(setting)
    if os.environ.get("MEMDESK_DATA_DIR"):
        return Path(os.environ["MEMDESK_DATA_DIR"])
    here = Path(__file__).resolve()
    candidates = [Path.cwd() / "shared" / "data", Path.cwd().parent / "shared" / "data"]
    candidates += [p.parent / "shared" / "data" for p in here.parents]
    for c in candidates:
        if c.is_dir():
            return c
    return Path.cwd().parent / "shared" / "data"
