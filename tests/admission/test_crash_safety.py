"""A writer SIGKILLed at random moments loses no acknowledged message, leaves no corruption and, once
restarted to the end, holds exactly what an uninterrupted run holds (``bench/bench_crash.py`` runs it longer)."""

from __future__ import annotations

import sys

import pytest

from . import crashing


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_killed_writer_loses_nothing_acknowledged(tmp_path) -> None:
    report = crashing.run(tmp_path, messages=200, kills=8, max_delay_s=0.05, seed=1)
    assert report.problems == []
    assert report.kills == 8 and report.acknowledged == 200
    assert report.final_records == report.reference_records > 200


def test_the_checks_see_a_lost_message_and_a_stray_record(tmp_path) -> None:
    """The checks can fail: an acknowledged id that is not logged, a record whose message is gone."""
    import sqlite3

    from memdesk.records import Scope

    db = tmp_path / "x.db"
    mem = crashing.open_memory(f"sqlite:///{db}")
    mem.add(crashing.conversation(3), scope=Scope(user_id=crashing.SCOPE_USER))
    mem.close()
    assert crashing.check(db, {"c00000", "c00001", "c00002"}) == []
    assert "1 acknowledged messages lost" in crashing.check(db, {"c00000", "c00009"})[0]
    con = sqlite3.connect(db)
    con.execute("DELETE FROM messages WHERE id = 'c00001'")
    con.commit()
    con.close()
    assert any("records whose message is not logged" in p for p in crashing.check(db, set()))
