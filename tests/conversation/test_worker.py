"""``process_pending`` and ``memdesk worker``: every scope's pending messages processed, once, from another process too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

import pytest

from memdesk.conversation.base import Processed, Utterance
from memdesk.conversation.ingest import process_pending
from memdesk.conversation.memory import Memory
from memdesk.embed import HashingEmbedder
from memdesk.errors import LLMError
from memdesk.records import Scope
from memdesk.store import open_store

from .test_pending import ANA, TALK, Flaky, open_memory  # noqa: F401 (the fixture)

BEN, ZED = Scope(user_id="ben"), Scope(user_id="zed", run_id="r1")


class FailsFor(Flaky):
    """The rule processor, failing every call for one speaker's messages (a message the model cannot take)."""

    def __init__(self, speaker: str) -> None:
        super().__init__()
        self.speaker = speaker

    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        if any(u.message.speaker == self.speaker for u in utterances):
            raise LLMError("the model endpoint refused this message")
        return super().process(utterances)


def _pending_in(mem: Memory, *scopes: Scope) -> None:
    """Log TALK pending in each scope (an add whose processing failed), Zed speaking in ZED."""
    mem.processor = Flaky(fails=len(scopes))
    for scope in scopes:
        talk = [{**m, "speaker": "Zed"} if scope == ZED and m.get("speaker") else m for m in TALK]
        with pytest.raises(LLMError):
            mem.add(talk, scope=scope)


def test_process_pending_takes_every_scope_and_keeps_a_failing_one_pending(open_memory) -> None:  # noqa: F811
    mem = open_memory()
    _pending_in(mem, ANA, BEN, ZED)
    assert mem.store.pending_scopes() == [ANA, BEN, ZED]
    mem.processor = FailsFor("Zed")
    done = process_pending(mem)
    assert (done.scopes, done.messages) == (3, 6) and done.records > 0
    assert list(done.failed) == [str(ZED)] and "LLMError" in done.failed[str(ZED)]
    assert mem.store.pending_scopes() == [ZED]
    assert {m.status for m in mem.messages(scope=ANA)} == {"processed"}
    assert {m.status for m in mem.messages(scope=ZED)} == {"pending"}
    got = {s: sorted(r.embed_text() for r in mem.get_all(scope=s)) for s in (ANA, BEN)}
    assert got[ANA] == got[BEN] and len(got[ANA]) == done.records // 2  # the same talk, the same records
    mem.processor = Flaky()
    again = process_pending(mem)
    assert (again.scopes, again.messages, again.failed) == (1, 3, {})
    assert process_pending(mem).model_dump() == {"scopes": 0, "messages": 0, "records": 0, "failed": {}}


def test_memdesk_worker_once_reports_what_it_processed_and_fails_on_a_failing_scope(run) -> None:
    mem = Memory.open()  # the command line's database and embedder (the run fixture's environment)
    _pending_in(mem, ANA, BEN)
    mem.close()
    got = json.loads(run("worker", "--once", "--json").output)
    assert (got["scopes"], got["messages"], got["failed"]) == (2, 6, {}) and got["records"] > 0
    assert "processed 0 pending messages into 0 memories in 0 scopes" in run("worker", "--once").output
    mem = Memory.open()
    mem.processor = Flaky(fails=1)
    with pytest.raises(LLMError):
        mem.add([{**TALK[0], "id": "n1"}], scope=ANA)
    mem.close()
    # the CLI's own processor (rules) takes it: nothing fails
    assert "processed 1 pending messages" in run("worker", "--once").output


def test_a_worker_process_processes_what_another_process_left_pending(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/shared.db"
    env = {**os.environ, "MEMDESK_DATABASE_URL": url, "MEMDESK_EMBEDDER": "hashing",
           "MEMDESK_CONFIG": ""}  # fmt: skip
    mem = Memory(open_store(url), HashingEmbedder(), Flaky(fails=2))
    try:
        for scope in (ANA, BEN):
            with pytest.raises(LLMError):
                mem.add(TALK, scope=scope)
        worker = subprocess.Popen(
            [sys.executable, "-m", "memdesk", "worker", "--interval", "0.1", "--json"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 120  # a liveness bound, not a speed assertion
            while mem.store.pending_scopes() and time.monotonic() < deadline and worker.poll() is None:
                time.sleep(0.1)
            assert mem.store.pending_scopes() == []
            assert {m.status for s in (ANA, BEN) for m in mem.messages(scope=s)} == {"processed"}
            assert mem.get_all(scope=ANA) and mem.get_all(scope=BEN)
        finally:
            worker.send_signal(signal.SIGTERM)
            out, err = worker.communicate(timeout=60)
        assert worker.returncode == 0, err
        passes = [json.loads(line) for line in out.splitlines()]
        assert sum(p["messages"] for p in passes) == 6 and all(p["failed"] == {} for p in passes)
    finally:
        mem.close()
