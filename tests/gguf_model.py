"""The installed GGUF models for tests that load them for real.

``memdesk models install nomic`` puts nomic in the models folder (``.ci/run`` does so before the tests).
A test that needs it and does not find it FAILS under CI (``CI`` set) and is skipped elsewhere, with
the command that installs it. EmbeddingGemma is NOT installed by CI (a 1.15 GB download of 25 wheels
and a conversion, ~3-5 minutes, and a licence to accept): its tests skip everywhere it is missing,
CI included, with the command that installs it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdesk.embed.gguf_models import installed_file, known_model, models_dir

INSTALL_HINT = "memdesk models install nomic"
GEMMA_INSTALL_HINT = "memdesk models install embeddinggemma --accept-gemma-terms"


def nomic_file() -> Path:
    """The installed nomic file; fails (CI) or skips (elsewhere) when it or xllamacpp is missing."""
    return _installed("nomic", INSTALL_HINT, required_in_ci=True)


def embeddinggemma_file() -> Path:
    """The installed EmbeddingGemma file; skips (CI too: CI does not install it) when it or xllamacpp is missing."""
    return _installed("embeddinggemma", GEMMA_INSTALL_HINT, required_in_ci=False)


def _installed(name: str, hint: str, *, required_in_ci: bool) -> Path:
    missing = None
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        missing = "xllamacpp is not installed (pip install -e '.[dev]')"
    directory = models_dir(os.environ.get("MEMDESK_MODELS_DIR"))
    path = installed_file(known_model(name), directory)
    if missing is None and path is None:
        missing = f"the {name} embedding model is not installed in {directory} (run `{hint}`)"
    if missing is not None:
        if required_in_ci and os.environ.get("CI"):
            pytest.fail(f"CI must install it before the tests: {missing}")
        pytest.skip(missing)
    assert path is not None
    return path
