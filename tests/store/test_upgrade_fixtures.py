"""Databases written by earlier memdesk versions open, migrate and answer as they did.

``tests/data/upgrade/<state>.db`` was written by the memdesk that first had SQLite migration ``<state>`` (0001 ...
0009; ``make_fixtures.py`` there regenerates them from git history), and ``<state>.json`` holds what that
memdesk answered; ``<state>.pg.sql`` is a ``pg_dump`` of a PostgreSQL database the same code wrote (restored with
``psql`` into the session's test server), its answers in ``<state>.pg.json``. Today's code opens a copy, applies the migrations since, and must give the same records, the
same top hit for each record's text, the same history events (a record deleted before migration 0007 keeps only
its tombstone, without content), the same messages, and (fixtures from 0009 on, whose long metadata is stored once)
the same metadata of each record and of each version in its history; an upgraded store exports and imports like any other.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.records import HistoryEvent, Scope
from memdesk.store import open_store
from memdesk.store.pg_schema import PG_MIGRATIONS
from memdesk.store.sqlite_schema import SQLITE_MIGRATIONS

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "upgrade"
STATES = sorted(p.stem for p in FIXTURES.glob("*.db"))
PG_STATES = sorted(p.name.split(".")[0] for p in FIXTURES.glob("*.pg.sql"))


def test_every_sqlite_migration_has_a_fixture_written_before_the_next():
    names = [m.name.split("_", 1)[0] for m in SQLITE_MIGRATIONS]
    assert set(names) - {"0010", "0011", "0012"} <= set(STATES), "add a fixture for each migration state"


def check_upgraded(url: str, expected: dict, migrations: list[str], tmp_path: Path) -> None:
    """The store at ``url`` (written by old code) opens, migrates and answers as ``expected`` says."""
    mem = Memory(open_store(url), HashingEmbedder(256), RawTurnProcessor())
    try:
        applied = [name for name, _ in mem.store.migrations_applied()]
        assert applied[: len(expected["migrations"])] == expected["migrations"]
        assert applied == migrations
        for user, want in expected["users"].items():
            scope = Scope(user_id=user)
            assert {r.id: r.fact for r in mem.get_all(scope=scope)} == want["records"]
            for text, top in want["top_hit"].items():
                assert mem.search(text, scope=scope)[0].record.id == top
            for rid, events in want["history"].items():
                assert [e.event.value for e in mem.history(rid, scope=scope)] == events
            assert len(mem.messages(scope=scope)) == want["messages"]
            if "metadata" in want:  # written from 0009 on
                assert {r.id: r.metadata for r in mem.get_all(scope=scope)} == want["metadata"]
                for rid, metadata in want["version_metadata"].items():
                    assert [e.record.metadata for e in mem.history(rid, scope=scope)] == metadata
        ana = Scope(user_id="ana")
        tomb = mem.history(expected["deleted"], scope=ana)
        assert [(e.event, e.record) for e in tomb] == [(HistoryEvent.DELETE, None)]
        mem.add("Ana planted tulips by the gate.", scope=ana)  # the upgraded store takes writes
        out = tmp_path / "ana.jsonl"
        with open(out, "w", encoding="utf-8") as f:
            counts = mem.export(ana, f)
        assert counts.records == len(expected["users"]["ana"]["records"]) + 1 and counts.deleted == 1
    finally:
        mem.close()
    fresh = Memory(open_store(f"sqlite:///{tmp_path / 'new.db'}"), HashingEmbedder(256), RawTurnProcessor())
    try:
        assert fresh.import_(out).records == counts.records
        assert fresh.history(expected["deleted"], scope=ana)[0].event == HistoryEvent.DELETE
    finally:
        fresh.close()


@pytest.mark.parametrize("state", STATES)
def test_an_old_sqlite_database_migrates_and_answers_as_it_did(state, tmp_path):
    db = tmp_path / "old.db"
    shutil.copy(FIXTURES / f"{state}.db", db)
    expected = json.loads((FIXTURES / f"{state}.json").read_text())
    check_upgraded(f"sqlite:///{db}", expected, [m.name for m in SQLITE_MIGRATIONS], tmp_path)


@pytest.mark.postgres
@pytest.mark.parametrize("state", PG_STATES)
def test_an_old_postgresql_dump_restores_migrates_and_answers_as_it_did(state, tmp_path, request):
    from tests.pg_server import session_server

    with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import pgserver

    url = session_server(request.config).fresh_database()
    psql = Path(pgserver.__file__).parent / "pginstall" / "bin" / "psql"
    restored = subprocess.run([str(psql), "-v", "ON_ERROR_STOP=1", "-q", "-d", url, "-f", str(FIXTURES / f"{state}.pg.sql")],
                              capture_output=True, text=True)  # fmt: skip
    assert restored.returncode == 0, restored.stderr[-2000:]
    expected = json.loads((FIXTURES / f"{state}.pg.json").read_text())
    check_upgraded(url, expected, [m.name for m in PG_MIGRATIONS], tmp_path)
