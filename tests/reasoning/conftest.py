"""Fixtures for the reasoning tests: a real SQLite store, a scripted chat model helper, data paths."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memdesk.runtime.datapaths import default_data_dir
from memdesk.store import open_store
from memdesk.store.base import Store



@pytest.fixture
def data_root() -> Path:
    path = default_data_dir()
    if not (path / "gsm8k").is_dir():
        pytest.skip(f"benchmark data not found at {path}")
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(f"sqlite:///{tmp_path / 'bank.db'}")
    yield s
    s.close()
