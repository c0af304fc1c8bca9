"""Where benchmark data lives: the one lookup of the data folder, for the conversational harness, the
reasoning harness, the demo and the bench scripts.

The folder is the ``data_dir`` setting (or ``--data``/``--data-dir``) when given, else
``$MEMDESK_DATA_DIR``, else ``shared/data`` or ``../shared/data`` from the working directory or from
this source checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import DataNotFoundError


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


def require_data_dir(setting: str | Path | None = None) -> Path:
    """:func:`default_data_dir`, which must exist (else :class:`~memdesk.errors.DataNotFoundError`)."""
    path = default_data_dir(str(Path(setting).expanduser()) if setting else None)
    if not path.is_dir():
        raise DataNotFoundError(str(path), "no benchmark data folder here: set MEMDESK_DATA_DIR or pass --data-dir")
    return path
