"""Export/import and copy, property-tested: random stores of several tenants (records, updates, deletes,
supersession, history, pending and processed messages, reasoning banks) come back equal, record by record, and
answer the same searches; an export of one tenant holds nothing of another; a forgotten scope exports nothing.

Examples are few (each builds real databases); the copy runs SQLite -> PostgreSQL on the session's test server.
"""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.portability.copy import copy_store, digest
from memdesk.reasoning import ReasoningBanks
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.ownership import owned_banks
from memdesk.records import RawMessage, Scope
from memdesk.store import open_store
from memdesk.store.base import Store

USERS = ["ua", "ub", "uc"]
WORDS = st.sampled_from(["river", "piano", "lamp", "garden", "ticket", "violet", "engine", "harbor", "cedar", "plum"])
T0 = datetime(2025, 1, 5, 9, 0, tzinfo=timezone.utc)
OP = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(USERS), st.sampled_from([None, "r1"]), st.lists(WORDS, min_size=1, max_size=4),
              st.booleans()),  # with metadata long enough to be stored once (memdesk.store.shared_metadata)
    st.tuples(st.just("update"), st.integers(0, 50), st.lists(WORDS, min_size=1, max_size=3)),
    st.tuples(st.just("delete"), st.integers(0, 50)),
    st.tuples(st.just("supersede"), st.integers(0, 50), st.integers(0, 50)),
    st.tuples(st.just("pending"), st.sampled_from(USERS), st.lists(WORDS, min_size=1, max_size=3)),
    st.tuples(st.just("bank"), st.sampled_from(USERS), st.sampled_from(["b1", "b2"]), st.lists(WORDS, min_size=1, max_size=3)),
    st.tuples(st.just("forget"), st.sampled_from(USERS)),
)


def marker(user: str) -> str:
    return f"zq{user}zq"


def memory(url: str) -> Memory:
    return Memory(open_store(url), HashingEmbedder(256), RawTurnProcessor())


def build(mem: Memory, ops: list) -> None:
    """Apply ``ops`` to ``mem``: every text carries its tenant's marker word."""
    banks = ReasoningBanks(mem.store, mem.embedder)
    ids: list[tuple[str, Scope]] = []
    n = 0
    for op in ops:
        n += 1
        when = T0 + timedelta(minutes=n)
        kind = op[0]
        if kind == "add":
            scope = Scope(user_id=op[1], run_id=op[2])
            metadata = {"attachment": marker(op[1]) * 200, "word": op[3][0]} if op[4:] and op[4] else {}
            turn = {"content": " ".join([marker(op[1]), *op[3]]), "speaker": op[1], "timestamp": when, "metadata": metadata}
            got = mem.add(turn, scope=scope)
            ids += [(r.id, scope) for r in got.records]
        elif kind in ("update", "delete", "supersede") and ids:
            rid, scope = ids[op[1] % len(ids)]
            record = mem.store.get(rid)
            if record is None:
                continue
            if kind == "update":
                mem.update(rid, " ".join([marker(scope.user_id), *op[2]]), scope=scope)
            elif kind == "delete":
                mem.delete(rid, scope=scope)
            else:
                newer, newer_scope = ids[op[2] % len(ids)]
                if newer_scope == scope and newer != rid and record.superseded_by is None:
                    closed = record.model_copy(update={"valid_to": when, "superseded_by": newer})
                    mem.store.replace(closed, mem.store.get_vectors(record.memory_type, [rid])[0])
        elif kind == "pending":
            text = " ".join([marker(op[1]), *op[2]])
            msg = RawMessage(id=f"p{n}", scope=Scope(user_id=op[1]), speaker=op[1], role="user", content=text,
                             timestamp=when, ingest_time=when, pending=True)  # fmt: skip
            mem.store.write(messages=[msg])
        elif kind == "bank":
            problem = " ".join([marker(op[1]), *op[3], str(n)])
            banks.add_examples(op[2], [{"problem": problem, "answer": "7", "solution": "3 + 4 = 7, so \\boxed{7}."}],
                               scope=Scope(user_id=op[1]))  # fmt: skip
        elif kind == "forget":
            mem.forget(Scope(user_id=op[1]), wildcard=True)


def snapshot(store: Store, user: str) -> dict:
    """Everything of ``user`` (every scope under it), comparable across stores."""
    scope = Scope(user_id=user)
    records = sorted(store.scan(scope), key=lambda r: r.id)
    history = {r.id: store.history(r.id) for r in records}
    deleted = sorted((e.record_id, e.version, e.changed_at) for e in store.history_page(scope).items if e.record is None)
    messages = sorted((m.model_dump(exclude={"seq"}) for m in store.messages(scope)), key=lambda m: (m["id"], str(m["scope"])))
    banks = {}
    for collection, manifest in owned_banks(store, scope):
        bank = MemoryBank(store, collection)
        banks[collection] = (manifest.model_dump(), sorted(e.model_dump_json() for e in bank.all()))
    return {"records": records, "history": history, "deleted": deleted, "messages": messages, "banks": banks}


def searches(mem: Memory, user: str) -> list[list[str]]:
    return [[h.record.id for h in mem.search(q, scope=Scope(user_id=user), K=5)] for q in ("river piano", "garden lamp")]


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=st.lists(OP, min_size=3, max_size=18), vectors=st.booleans())
def test_each_tenants_export_imports_equal_and_holds_nothing_of_another(tmp_path_factory, ops, vectors):
    tmp: Path = tmp_path_factory.mktemp("rt")
    src = memory(f"sqlite:///{tmp / 'src.db'}")
    dst = memory(f"sqlite:///{tmp / 'dst.db'}")
    try:
        build(src, ops)
        for user in USERS:
            path = tmp / f"{user}.jsonl"
            with open(path, "w", encoding="utf-8") as f:
                src.export(Scope(user_id=user), f, wildcard=True, vectors=vectors)
            text = path.read_text()
            assert all(marker(u) not in text for u in USERS if u != user)
            dst.import_(path)
            assert snapshot(dst.store, user) == snapshot(src.store, user)
            assert searches(dst, user) == searches(src, user)
        # a forgotten scope exports nothing
        user = USERS[0]
        src.forget(Scope(user_id=user), wildcard=True)
        out = io.StringIO()
        counts = src.export(Scope(user_id=user), out, wildcard=True)
        assert counts.records == counts.messages == counts.banks == counts.history == 0
        assert marker(user) not in out.getvalue()
        assert [json.loads(x)["kind"] for x in out.getvalue().splitlines()] == ["header", "end"]
    finally:
        src.close()
        dst.close()


@pytest.mark.postgres
def test_a_copy_onto_postgresql_is_equal_and_answers_the_same(request, tmp_path_factory):
    from tests.pg_server import session_server

    server = session_server(request.config)

    @settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
    @given(ops=st.lists(OP, min_size=3, max_size=18))
    def check(ops):
        tmp: Path = tmp_path_factory.mktemp("cp")
        src = memory(f"sqlite:///{tmp / 'src.db'}")
        dst_store = open_store(server.fresh_database())
        try:
            build(src, ops)
            result = copy_store(src.store, dst_store)
            assert result.source == result.destination == digest(dst_store)
            dst = Memory(dst_store, HashingEmbedder(256), RawTurnProcessor())
            for user in USERS:
                assert snapshot(dst.store, user) == snapshot(src.store, user)
                assert searches(dst, user) == searches(src, user)
            again = copy_store(src.store, dst_store)  # resuming a finished copy writes nothing
            assert sum(again.written.values()) == 0
        finally:
            src.close()
            dst_store.close()

    check()
