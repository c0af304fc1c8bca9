"""Database growth from one message's long metadata: 1 message with ``--mb`` MB of metadata extracted into N
records (each record: the message's metadata and two keys of its own, as the extractors write it), then every
record updated ``--updates`` times (new text; the last update of record 0 also changes one of its own keys, and of
record 1 one of the message's keys). For SQLite (a file: its size after close, WAL checkpointed) and PostgreSQL (a
throwaway pgserver: the size of memdesk's tables, indexes and TOAST after minus before the writes, after
``VACUUM FULL``) it reports the
bytes the database grew by, and that every record and version reads back with the metadata written.

The metadata is random letters (PostgreSQL compresses repeated text; this does not). Run it on the code before
and after issue 29's metadata-stored-once change (migration 0009) to compare:

    nice -n 10 python bench/bench_metadata_growth.py [--n 1 10 50] [--updates 3] [--mb 1] [--out bench/results/metadata_growth.json]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # for tests.pg_server (the throwaway server the tests use)

from benchinfo import write_result  # noqa: E402 - after the sys.path line
from memdesk.records import RawMessage, Scope, SemanticRecord  # noqa: E402
from memdesk.store import EmbeddingInfo, SQLiteStore  # noqa: E402

SCOPE = Scope(user_id="ana", agent_id="bench")
DIM = 64
TABLES_SIZE = (
    "SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE c.relkind = 'r' AND n.nspname = current_schema()"
)
"""PostgreSQL: the size of memdesk's tables with their indexes and TOAST."""


def write(store: Any, n: int, updates: int, chars: int, rng: np.random.Generator) -> bool:
    """The message, its ``n`` records and their updates; True if every read gives back what was written."""
    store.set_embedding_info(EmbeddingInfo(model_id="bench", dim=DIM))
    blob = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), chars))
    said = {"attachment": blob, "channel": "email"}
    message = RawMessage(id="m0", scope=SCOPE, speaker="Ana", role="user", content="see the attachment",
                         timestamp=None, ingest_time=datetime.now(timezone.utc), metadata=said)  # fmt: skip
    recs = [SemanticRecord(scope=SCOPE, fact=f"fact {i}", provenance=["m0"], metadata={**said, "claim": i, "script": "Latn"})
            for i in range(n)]  # fmt: skip
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    store.write(recs, vectors, messages=[message], owners=["m0"] * n)
    versions = {r.id: [r] for r in recs}
    for u in range(updates):
        for i, r in enumerate(recs):
            new = r.model_copy(update={"fact": f"fact {i}, version {u + 2}"})
            if u == updates - 1 and i == 0:
                new = new.model_copy(update={"metadata": {**new.metadata, "script": "Cyrl"}})
            if u == updates - 1 and i == 1:
                new = new.model_copy(update={"metadata": {**new.metadata, "channel": "chat"}})
            store.replace(new, vectors[i])
            recs[i] = new
            versions[r.id].append(new)
    same = all(store.get(r.id) == r for r in recs)
    return same and all([e.record for e in store.history(rid)] == want for rid, want in versions.items())


def sqlite_growth(n: int, updates: int, chars: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        with SQLiteStore(path) as s:
            pass
        empty = path.stat().st_size
        with SQLiteStore(path) as s:
            same = write(s, n, updates, chars, np.random.default_rng(n))
        size = sum(p.stat().st_size for p in Path(tmp).iterdir() if p.name.startswith("bench.db"))
    return {"grew_bytes": size - empty, "reads_back": same}


def postgres_growth(server: Any, n: int, updates: int, chars: int) -> dict[str, Any]:
    from memdesk.store.postgres import PostgresStore

    with PostgresStore(server.fresh_database()) as s:
        with s.db.read("size") as conn:
            s.db.dialect.vacuum(conn)
            empty = int(conn.execute(TABLES_SIZE).fetchone()[0])
        same = write(s, n, updates, chars, np.random.default_rng(n))
        with s.db.read("size") as conn:
            s.db.dialect.vacuum(conn)
            size = int(conn.execute(TABLES_SIZE).fetchone()[0])
    return {"grew_bytes": size - empty, "reads_back": same}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[1, 10, 50])
    ap.add_argument("--updates", type=int, default=3)
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--label", default="", help="what code ran (e.g. before / after)")
    ap.add_argument("--out", default="bench/results/metadata_growth.json")
    args = ap.parse_args()
    chars = int(args.mb * 1_000_000)
    result: dict[str, Any] = {
        "machine": f"shared, loaded 2-core VM, {platform.python_version()}",
        "command": " ".join(["python bench/bench_metadata_growth.py", *sys.argv[1:]]),
        "label": args.label, "metadata_chars": chars, "updates": args.updates,
    }  # fmt: skip
    with SQLiteStore(":memory:") as probe:
        result["last_migration"] = [m for m, _ in probe.migrations_applied()][-1]
    result["sqlite"] = {str(n): sqlite_growth(n, args.updates, chars) for n in args.n}
    from tests.pg_server import start_server

    server = start_server()
    try:
        result["postgres"] = {str(n): postgres_growth(server, n, args.updates, chars) for n in args.n}
    finally:
        server.stop()
    result["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    write_result(args.out, result)


if __name__ == "__main__":
    main()
