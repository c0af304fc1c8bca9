"""open_store: database URLs to stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.errors import ConfigError
from memdesk.store import SQLiteStore, open_store, sqlite_path


def test_sqlite_file_urls_open_and_create_parent_folders(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "memdesk.db"
    store = open_store(f"sqlite:///{target}", busy_timeout_ms=1234)
    try:
        assert isinstance(store, SQLiteStore)
        assert store.busy_timeout_ms == 1234
        assert target.exists()
    finally:
        store.close()


def test_relative_and_memory_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert sqlite_path("sqlite:///rel/x.db") == "rel/x.db"
    assert sqlite_path("sqlite:////abs/x.db") == "/abs/x.db"
    assert sqlite_path("sqlite:///:memory:") == ":memory:"
    assert sqlite_path("sqlite://") == ":memory:"
    with open_store("sqlite:///rel/x.db") as store:  # type: ignore[attr-defined]
        assert store.count() == 0
    assert (tmp_path / "rel" / "x.db").exists()
    with open_store("sqlite:///:memory:") as a, open_store("sqlite:///:memory:") as b:  # type: ignore[attr-defined]
        assert a is not b and a.path == ":memory:"


@pytest.mark.parametrize(
    "url, message",
    [
        ("mysql://localhost/db", "unknown database URL scheme"),
        ("/just/a/path.db", "unknown database URL scheme"),
        ("sqlite:///", "invalid SQLite URL"),
        ("sqlite:/x.db", "invalid SQLite URL"),
        ("sqlite:///x.db?mode=ro", "query strings"),
        ("", "non-empty"),
    ],
)
def test_bad_urls_raise_config_error(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_store(url)
