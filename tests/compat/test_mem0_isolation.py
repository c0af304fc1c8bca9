"""The mem0 facade never lets one user see, change or delete another's memories, property-tested.

A hypothesis state machine plays three users of one memdesk database through the facade, each either with a
facade bound to the user (``Memory(scope={"user_id": user})``) or with the shared unbound facade naming the user
in every call. Every operation (add, search, get_all, get, update, delete, history, delete_all) is called with
memory ids drawn from *every* user's memories, and a bound facade is also made to name another user. A model
says what each user owns; after every step what came back is the caller's own, a by-id call on another user's
memory reads exactly as a missing id, naming another user from a bound facade is refused, and the store (read
directly) holds exactly the model. The bound facade is also a path of the shared isolation machine
(``tests/trust/test_isolation.py``); this one adds the unbound facade naming its user in each call, and the
unbound facade naming no one (the application's own process: a by-id call reaches the memory where it lies).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from memdesk.compat.mem0 import Memory
from memdesk.conversation.memory import Memory as CoreMemory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.errors import ForbiddenScopeError, InvalidScopeError, RecordNotFoundError, UnknownScopeError
from memdesk.records import Scope
from memdesk.store import open_store

WORDS = st.sampled_from(["bees", "cello", "Lisbon", "wedding", "train", "cat", "garden", "June"])
_EXAMPLES = itertools.count()


def marker(user: str) -> str:
    return f"mark{user}z"


class FacadeIsolation(RuleBasedStateMachine):
    core: CoreMemory

    def __init__(self) -> None:
        super().__init__()
        n = next(_EXAMPLES)
        self.users = [f"u{n}{c}" for c in "abc"]  # fresh users per example: examples share one database
        self.alive: dict[str, dict[str, str]] = {u: {} for u in self.users}
        self.owner: dict[str, str] = {}
        self.forgotten: set[str] = set()  # ids whose history delete_all erased
        self.shared = Memory(memory=self.core)
        self.bound = {u: Memory(memory=self.core, scope={"user_id": u}) for u in self.users}

    def _call(self, user: str, bound: bool) -> tuple[Memory, dict[str, str]]:
        """The facade a call goes through and the ids it names (none on a bound facade)."""
        return (self.bound[user], {}) if bound else (self.shared, {"user_id": user})

    def _own(self, user: str, items: list[dict]) -> None:
        for item in items:
            assert self.owner.get(item.get("memory_id", item.get("id"))) == user
            assert item.get("user_id") in (None, user)
            text = " ".join(str(v) for v in item.values())
            for other in self.users:
                if other != user:
                    assert marker(other) not in text

    def _record_id(self, data) -> str:
        # in the order added, not sorted: ids are random, so a replayed example then draws the same records
        # (sorted, the leak test failed as hypothesis FlakyStrategyDefinition)
        return data.draw(st.sampled_from([*self.owner, "no-such-id"]))

    @rule(data=st.data(), bound=st.booleans(), run=st.sampled_from([None, "r1"]), words=st.lists(WORDS, min_size=1, max_size=3))
    def add(self, data, bound, run, words):
        user = data.draw(st.sampled_from(self.users))
        m, ids = self._call(user, bound)
        text = " ".join([marker(user), *words])
        [result] = m.add(text, infer=False, run_id=run, **ids)["results"]
        self.alive[user][result["id"]] = text
        self.owner[result["id"]] = user

    @rule(data=st.data(), bound=st.booleans(), words=st.lists(WORDS, min_size=1, max_size=3))
    def read(self, data, bound, words):
        user = data.draw(st.sampled_from(self.users))
        m, ids = self._call(user, bound)
        query = " ".join([data.draw(st.sampled_from([marker(u) for u in self.users])), *words])
        hits = m.search(query, **ids)["results"]
        self._own(user, hits)
        assert {h["id"] for h in hits} <= set(self.alive[user])
        listed = m.get_all(top_k=10_000, **ids)["results"]
        self._own(user, listed)
        assert {i["id"] for i in listed} == set(self.alive[user])

    @rule(data=st.data(), bound=st.booleans(), op=st.sampled_from(["get", "update", "delete", "history"]))
    def by_id(self, data, bound, op):
        user = data.draw(st.sampled_from(self.users))
        m, ids = self._call(user, bound)
        rid = self._record_id(data)
        mine = self.owner.get(rid) == user
        if op == "history":
            rows = m.history(rid, **ids)
            assert bool(rows) == (mine and rid not in self.forgotten)
            self._own(user, rows)
        elif op == "get":
            got = m.get(rid, **ids)
            assert (got is not None) == (mine and rid in self.alive[user])
            if got is not None:
                self._own(user, [got])
        elif not (mine and rid in self.alive[user]):
            with pytest.raises(RecordNotFoundError) as e:
                m.update(rid, f"{marker(user)} changed", **ids) if op == "update" else m.delete(rid, **ids)
            assert all(marker(u) not in str(e.value) for u in self.users)
        elif op == "update":
            m.update(rid, f"{marker(user)} changed", **ids)
            self.alive[user][rid] = f"{marker(user)} changed"
        else:
            m.delete(rid, **ids)
            del self.alive[user][rid]

    @rule(data=st.data(), op=st.sampled_from(["get", "update", "history"]))
    def application_by_id(self, data, op):
        """The unbound facade naming no user is the application itself: a by-id call reaches the memory where it
        lies (mem0 code as written) and changes only that memory, its owner's."""
        rid = self._record_id(data)
        owner = self.owner.get(rid)
        alive = owner is not None and rid in self.alive[owner]
        if op == "get":
            got = self.shared.get(rid)
            assert (got is not None) == alive
            if got is not None:
                assert got["memory"] == self.alive[owner][rid] and got["user_id"] == owner  # type: ignore[index]
        elif op == "history":
            assert bool(self.shared.history(rid)) == (owner is not None and rid not in self.forgotten)
        elif not alive:
            with pytest.raises(RecordNotFoundError):
                self.shared.update(rid, "changed")
        else:
            self.shared.update(rid, f"{marker(owner)} changed by the app")  # type: ignore[arg-type]
            self.alive[owner][rid] = f"{marker(owner)} changed by the app"  # type: ignore[index]

    @rule(data=st.data())
    def bound_facade_names_another_user(self, data):
        user, other = data.draw(st.permutations(self.users))[:2]
        m = self.bound[user]
        with pytest.raises(ForbiddenScopeError):
            m.add(f"{marker(user)} x", user_id=other)
        with pytest.raises(ForbiddenScopeError):
            m.delete_all(user_id=other)
        with pytest.raises(UnknownScopeError):
            m.search("x", filters={"user_id": other})
        rid = self._record_id(data)
        assert m.get(rid, user_id=other) is None and m.history(rid, user_id=other) == []

    @rule(data=st.data(), bound=st.booleans())
    def delete_all(self, data, bound):
        user = data.draw(st.sampled_from(self.users))
        m = self.bound[user] if bound else self.shared
        with pytest.raises(InvalidScopeError):
            m.delete_all()
        m.delete_all(user_id=user)
        self.forgotten |= {rid for rid, owner in self.owner.items() if owner == user}
        self.alive[user].clear()

    @invariant()
    def the_store_holds_exactly_what_each_user_owns(self):
        for user in self.users:
            stored = {r.id: r.embed_text() for r in self.core.get_all(scope=Scope(user_id=user))}
            assert stored == self.alive[user]


def test_no_user_ever_sees_changes_or_deletes_anothers_memories(tmp_path):
    core = CoreMemory(open_store(f"sqlite:///{tmp_path}/iso.db"), HashingEmbedder(256), RawTurnProcessor())
    FacadeIsolation.core = core
    try:
        run_state_machine_as_test(
            FacadeIsolation,
            settings=settings(max_examples=25, stateful_step_count=20, deadline=None, suppress_health_check=list(HealthCheck)),
        )
    finally:
        core.close()


def test_the_machine_catches_a_leak(tmp_path, monkeypatch):
    """The property can fail: a facade whose by-id read ignores the scope is caught."""
    from memdesk.compat import mem0
    from memdesk.compat.mem0_results import memory_item

    def leaky_get(self, memory_id, **ids):
        record = self.memory.store.get(memory_id)
        return memory_item(record) if record else None

    monkeypatch.setattr(mem0.Memory, "get", leaky_get)
    core = CoreMemory(open_store(f"sqlite:///{tmp_path}/leak.db"), HashingEmbedder(256), RawTurnProcessor())
    FacadeIsolation.core = core
    try:
        with pytest.raises(AssertionError):
            run_state_machine_as_test(
                FacadeIsolation,
                settings=settings(max_examples=100, stateful_step_count=20, deadline=None, database=None,
                                  suppress_health_check=list(HealthCheck), phases=[Phase.generate],
                                  report_multiple_bugs=False),  # finding it is the point: no time spent shrinking
            )
    finally:
        core.close()
