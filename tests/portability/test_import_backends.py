"""An export imports into every backend (SQLite and PostgreSQL) equal, with or without its vectors."""

from __future__ import annotations

import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.records import Scope
from memdesk.store import open_store

from .test_roundtrip_property import build, memory, searches, snapshot

OPS = [
    ("add", "ua", None, ["river", "piano"]), ("add", "ua", "r1", ["lamp"]), ("add", "ub", None, ["garden"]),
    ("update", 0, ["cedar", "plum"]), ("supersede", 0, 1), ("add", "ua", None, ["harbor"], True), ("delete", 3),
    ("pending", "ua", ["violet"]), ("bank", "ua", "b1", ["engine"]),
]  # fmt: skip


@pytest.mark.parametrize("vectors", [True, False])
def test_an_export_imports_equal_into_each_backend(backend_url, tmp_path, vectors):
    src = memory(f"sqlite:///{tmp_path}/src.db")
    dst = Memory(open_store(backend_url), HashingEmbedder(256), RawTurnProcessor())
    try:
        build(src, OPS)
        path = tmp_path / "ua.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            src.export(Scope(user_id="ua"), f, wildcard=True, vectors=vectors)
        result = dst.import_(path)
        assert result.reembedded is not vectors
        assert snapshot(dst.store, "ua") == snapshot(src.store, "ua")
        assert searches(dst, "ua") == searches(src, "ua")
        assert snapshot(dst.store, "ub")["records"] == []
    finally:
        src.close()
        dst.close()
