"""``memdesk vacuum`` / ``Store.vacuum()``: a database whose deleted text still lies in free pages (written before
memdesk turned ``secure_delete`` on) holds none of it afterwards, and everything it keeps is still there."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from memdesk.records import Scope, SemanticRecord
from memdesk.store import EmbeddingInfo, open_store

from .test_erasure import database_bytes, residues

GONE = ["Vx1Altgeheimnis", "Vx2Zweitgeheimnis"]
KEPT = "Kv7Bleibtda"


def old_database(path: Path) -> str:
    """A database as an older memdesk left it: records deleted with ``secure_delete`` off (their text in free
    pages and in the slack of used ones), one kept record. Returns the kept record's id."""
    with open_store(f"sqlite:///{path}") as store:
        store.set_embedding_info(EmbeddingInfo(model_id="hashing-256", dim=256))  # what the `run` fixture embeds with
        recs = [SemanticRecord(scope=Scope(user_id="ana"), fact=f"{w} filler " * 300) for w in GONE]  # overflow pages
        recs.append(SemanticRecord(scope=Scope(user_id="ana"), fact=f"my diary is {KEPT}"))
        store.write(recs, np.ones((3, 256), np.float32) / 16)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA secure_delete = OFF")  # as before memdesk set it
        ids = [r.id for r in recs[:2]]
        for table in ("semantic_memory", "history"):
            conn.execute(f"DELETE FROM {table} WHERE {'id' if table == 'semantic_memory' else 'record_id'} IN (?, ?)", ids)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    assert {w for _, w, _ in residues(database_bytes(path), GONE)} == set(GONE)  # the residue the scan must see
    return recs[2].id


def test_store_vacuum_leaves_no_byte_of_text_deleted_before_secure_delete(tmp_path):
    path = tmp_path / "old.db"
    kept_id = old_database(path)
    with open_store(f"sqlite:///{path}") as store:
        store.vacuum()
        assert store.get(kept_id).fact == f"my diary is {KEPT}" and store.count() == 1
        files = database_bytes(path)
        assert residues(files, GONE) == []
        assert {w for _, w, _ in residues(files, [KEPT])} == {KEPT}
        assert len(files.get("old.db-wal", b"")) == 0
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_memdesk_vacuum_command(run, tmp_path):
    path = tmp_path / "cli.db"  # the database the `run` fixture's command line uses
    old_database(path)
    r = run("vacuum")
    assert r.output.strip() == f"vacuumed sqlite:///{path}"
    assert residues(database_bytes(path), GONE) == []
    assert KEPT in run("list", "--user", "ana").output
