"""The portability commands end to end: export, import (conflict rules), copy (resumable, verified), backup."""

from __future__ import annotations

import json
import sqlite3
import threading

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.records import Scope
from memdesk.store import open_store


def test_export_import_round_trip_and_conflicts(run, tmp_path):
    run("add", "The greenhouse keys hang behind the blue door.", "--user", "ana")
    run("add", "Ben repaired the lighthouse lamp.", "--user", "ben")
    out = tmp_path / "ana.jsonl"
    run("export", "--user", "ana", "-o", str(out), "--vectors")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["format"] == "memdesk-export" and lines[0]["vectors"] and lines[-1]["kind"] == "end"
    assert "lighthouse" not in out.read_text()
    assert run("export", "--user", "ana", "-o", str(out), ok=False).exit_code == 2  # never overwrites
    other = f"sqlite:///{tmp_path}/other.db"
    got = json.loads(run("--db", other, "import", str(out), "--json").output)
    assert got["records"] >= 1 and got["reembedded"] is False
    clash = run("--db", other, "import", str(out), ok=False)
    assert clash.exit_code == 2 and "ImportConflictError" in clash.output
    assert json.loads(run("--db", other, "import", str(out), "--on-conflict", "skip", "--json").output)["records"] == 0
    hits = json.loads(run("--db", other, "search", "Where are the greenhouse keys?", "--user", "ana", "--json").output)
    assert "greenhouse" in hits[0]["text"]
    (tmp_path / "bad.jsonl").write_text('{"kind":"header","format":"memdesk-export","format_version":99}\n')
    bad = run("--db", other, "import", str(tmp_path / "bad.jsonl"), ok=False)
    assert bad.exit_code == 2 and "format_version 99" in bad.output


def test_copy_is_verified_and_resumes(run, tmp_path):
    for i in range(5):
        run("add", f"Note {i}: the ferry leaves at {i + 6}.", "--user", "ana", "--run", f"r{i % 2}")
    src, dst = f"sqlite:///{tmp_path}/cli.db", f"sqlite:///{tmp_path}/copy.db"
    first = json.loads(run("copy", src, dst, "--json").output)
    assert first["written"]["records"] == 5 and first["source"] == first["destination"]
    again = json.loads(run("copy", src, dst, "--json").output)
    assert again["written"]["records"] == 0 and again["skipped"] >= 5
    assert run("copy", src, src, ok=False).exit_code == 2


def test_backup_of_a_store_being_written_is_consistent(tmp_path):
    from memdesk.portability.backup import backup_sqlite

    url = f"sqlite:///{tmp_path}/live.db"
    mem = Memory(open_store(url), HashingEmbedder(256), RawTurnProcessor())
    stop = threading.Event()

    def writer() -> None:
        n = 0
        while not stop.is_set():
            mem.add([f"message {n} " + "x" * 2000], scope=Scope(user_id="ana"))
            n += 1

    t = threading.Thread(target=writer)
    t.start()
    try:
        target = tmp_path / "backup.db"
        backup_sqlite(url, target)
    finally:
        stop.set()
        t.join()
        mem.close()
    con = sqlite3.connect(target)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        records = con.execute("SELECT COUNT(*) FROM semantic_memory").fetchone()[0]
        messages = con.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        assert records == messages  # one record per message, written in one transaction: never torn
    finally:
        con.close()
    copy = Memory(open_store(f"sqlite:///{target}"), HashingEmbedder(256), RawTurnProcessor())
    try:
        assert len(copy.get_all(scope=Scope(user_id="ana"))) == records
    finally:
        copy.close()
