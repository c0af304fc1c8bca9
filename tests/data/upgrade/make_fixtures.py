"""Regenerate the upgrade fixtures: one small SQLite database per schema state, written by the memdesk of that time.

For each (name, git revision) below, the revision is checked out into a temporary git worktree and a writer runs
with that old code first on ``PYTHONPATH``: it adds the messages below (two tenants; the raw-turn processor and
the hashing embedder, so no model is needed), updates one record, deletes another, and records what that memdesk
answered (each current record's text and metadata, the metadata of each of its versions, the top hit of a search for it, history events, message
counts) in ``<name>.json`` beside ``<name>.db``. Two of ana's messages carry metadata longer than 1 KB (stored
once in ``record_metadata`` from migration 0009 on; the updated record's versions share it). The files are vacuumed with 512-byte pages (small to commit).
``tests/store/test_upgrade_fixtures.py`` opens copies of them with today's
code (migrating them) and expects the same answers.

PostgreSQL: the same writer runs against a fresh database on a throwaway pgserver (PostgreSQL 16 + pgvector, the
test server of ``tests/pg_server.py``), which is then dumped with pgserver's ``pg_dump`` (plain SQL, no owners) to
``<name>.pg.sql``, its answers in ``<name>.pg.json``; the test restores each dump with ``psql`` into a new
database on the session's test server.

    python tests/data/upgrade/make_fixtures.py [STATE ...]   # from the repository root; needs git history
                                                              # (default: every state; e.g. 0009 for one)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
STATES = [  # the first revision holding each SQLite migration (0005 is PostgreSQL's only)
    ("0001", "aa01561^"),
    ("0002", "aa01561"),
    ("0003", "93ca142"),
    ("0004", "0b6eb65"),
    ("0006", "2e48590"),
    ("0007", "5b478a5"),
    ("0008", "2a12acd"),
    ("0009", "0060eb8"),
]

WRITER = r'''
import inspect, json, sys
from datetime import datetime, timezone
from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.records import Scope
from memdesk.store import open_store

url, out = sys.argv[1], sys.argv[2]
T = datetime(2025, 4, 2, 9, 30, tzinfo=timezone.utc)
TEXTS = {
    "ana": ["The greenhouse keys hang behind the blue door.", "Marisol bakes rye bread every Thursday.",
            "The ferry to Talvik leaves at seven.", "Our cellar holds forty jars of quince jam."],
    "ben": ["Ben repaired the lighthouse lamp in March.", "Ben's kayak is painted orange and grey."],
}
LONG = {"ana-m1", "ana-m2"}  # these messages carry META: long enough to be stored once (migration 0009)
META = {"notebook": "kitchen", "notes": "Rye, caraway, a long proof on the windowsill. " * 30}
mem = Memory(open_store(url), HashingEmbedder(256), RawTurnProcessor())
def call(method, *args, scope):
    params = inspect.signature(method).parameters
    return method(*args, scope=scope) if "scope" in params else method(*args)
ids = {}
for user, texts in TEXTS.items():
    scope = Scope(user_id=user)
    for i, text in enumerate(texts):
        message = {"id": f"{user}-m{i}", "speaker": user.title(), "content": text, "timestamp": T}
        got = mem.add([{**message, "metadata": META} if message["id"] in LONG else message], scope=scope)
        ids[text] = got.records[0].id
ana = Scope(user_id="ana")
updated = call(mem.update, ids["Marisol bakes rye bread every Thursday."], "Marisol bakes rye bread every Friday.", scope=ana)
call(mem.delete, ids["The ferry to Talvik leaves at seven."], scope=ana)
expected = {"migrations": [m[0] for m in mem.store.migrations_applied()], "users": {}}
for user in TEXTS:
    scope = Scope(user_id=user)
    records = {r.id: r.fact for r in mem.get_all(scope=scope)}  # the raw-turn processor: one fact per turn
    top = {text: mem.search(text, scope=scope)[0].record.id for text in records.values()}
    history = {rid: [e.event.value for e in call(mem.history, rid, scope=scope)] for rid in records}
    metadata = {r.id: r.metadata for r in mem.get_all(scope=scope)}
    versions = {rid: [e.record.metadata for e in call(mem.history, rid, scope=scope)] for rid in records}
    expected["users"][user] = {"records": records, "top_hit": top, "history": history,
                               "messages": len(mem.messages(scope=scope)), "metadata": metadata,
                               "version_metadata": versions}
expected["deleted"] = ids["The ferry to Talvik leaves at seven."]
mem.close()
with open(out, "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
'''


def pg_bin(tool: str) -> str:
    import pgserver

    return str(Path(pgserver.__file__).parent / "pginstall" / "bin" / tool)


def main(names: list[str]) -> None:
    sys.path.insert(0, str(REPO))
    from tests.pg_server import start_server

    unknown = set(names) - {name for name, _ in STATES}
    if unknown:
        raise SystemExit(f"unknown states {sorted(unknown)}; known: {[name for name, _ in STATES]}")
    server = start_server()
    try:
        for name, rev in STATES:
            if not names or name in names:
                write_state(name, rev, server)
    finally:
        server.stop()


def write_state(name: str, rev: str, server) -> None:
    """Write ``name``'s SQLite database and PostgreSQL dump with the code of ``rev``."""
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", rev], check=True,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    with tempfile.TemporaryDirectory(prefix=f"old-{commit}-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), commit], check=True,
                       capture_output=True)  # fmt: skip
        try:
            db, out = HERE / f"{name}.db", HERE / f"{name}.json"
            for f in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
                f.unlink(missing_ok=True)
            env = {**os.environ, "PYTHONPATH": str(tree / "src")}
            subprocess.run([sys.executable, "-c", WRITER, f"sqlite:///{db}", str(out)], check=True, env=env, cwd=tmp)
            data = json.loads(out.read_text())
            data["written_by"] = commit
            out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
            subprocess.run([sys.executable, "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]);"
                            "c.execute('PRAGMA journal_mode=DELETE'); c.execute('PRAGMA page_size=512'); c.execute('VACUUM'); c.close()", str(db)], check=True)  # fmt: skip
            print(f"{name}: {commit} -> {db.name} ({db.stat().st_size} bytes), migrations {data['migrations']}")
            url = server.fresh_database()
            pg_out, dump = HERE / f"{name}.pg.json", HERE / f"{name}.pg.sql"
            subprocess.run([sys.executable, "-c", WRITER, url, str(pg_out)], check=True, env=env, cwd=tmp)
            data = json.loads(pg_out.read_text())
            data["written_by"] = commit
            pg_out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
            subprocess.run([pg_bin("pg_dump"), "--no-owner", "--no-privileges", "-d", url, "-f", str(dump)], check=True)
            print(f"{name}: {commit} -> {dump.name} ({dump.stat().st_size} bytes), migrations {data['migrations']}")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
