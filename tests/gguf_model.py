"""The installed nomic model for tests that load it for real.

``memdesk models install nomic`` puts it in the models folder (``.ci/run`` does so before the tests).
A test that needs it and does not find it FAILS under CI (``CI`` set) and is skipped elsewhere, with
the command that installs it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdesk.embed.gguf_models import installed_file, known_model, models_dir

INSTALL_HINT = "memdesk models install nomic"


def nomic_file() -> Path:
    """The installed nomic file; fails (CI) or skips (elsewhere) when it or xllamacpp is missing."""
    missing = None
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        missing = "xllamacpp is not installed (pip install -e '.[dev]')"
    directory = models_dir(os.environ.get("MEMDESK_MODELS_DIR"))
    path = installed_file(known_model("nomic"), directory)
    if missing is None and path is None:
        missing = f"the nomic embedding model is not installed in {directory} (run `{INSTALL_HINT}`)"
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install it before the tests: {missing}")
        pytest.skip(missing)
    assert path is not None
    return path
