"""The deferred add and its worker as rules of the isolation machine (a mixin of ``IsolationMachine``).

``add(..., wait=False)`` logs a tenant's message *pending* through every path that takes ``wait``
(:data:`LATER_PATHS`, the mixins of :mod:`.pending_faces`); naming another tenant is refused as a plain add is
(``ForbiddenScopeError``) and logs nothing. The Memory's own worker thread is held back (:class:`HeldWorker`) so
that processing happens only in the :meth:`PendingRules.work` step, in one of three ways: the Memory's thread
(what ``add(wait=False)`` queued), one pass of ``memdesk worker`` (``ingest.process_pending`` on the served
store) or a tenant's own ``Memory.reprocess``. Then each waiting message is exactly one record of its tenant,
under the scope it was added to (its provenance names the message), processed once; nothing else appears.
A forget erases the tenant's waiting messages of the scopes it forgets: the worker makes no record of them. After
every step each tenant's raw log holds only its own words and exactly its waiting messages as pending, and a
listing of the log (:data:`LOG_PATHS`) shows each message's status under the caller's scope only.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from memdesk.conversation import ingest
from memdesk.conversation.memory import Memory
from memdesk.errors import ForbiddenScopeError, UnknownScopeError
from memdesk.records import Scope

from .checks import NAMING, WORDS, marker, refused

LATER_PATHS = ["async", "async-remote", "http", "mcp-bound", "mcp-http", "memory", "remote"]  # mem0 has no wait; /ui no add form
LOG_PATHS = ["async", "async-remote", "http", "memory", "remote"]  # the MCP tools list no raw log


class HeldWorker:
    """A Memory's ``add(wait=False)`` thread held back: the scopes handed to it wait until :meth:`release` passes
    them to the real thread (and waits for it), so the machine decides when pending messages are processed."""

    def __init__(self, memory: Memory) -> None:
        self.memory, self.real, self.held = memory, memory._worker, []
        memory._worker = self  # type: ignore[assignment]

    def admit(self, scope: Scope, messages: int) -> None:  # the real thread's queue bound still applies
        self.real.admit(scope, messages)

    def give_back(self, scope: Scope, messages: int) -> None:
        self.real.give_back(scope, messages)

    def pending_by_tenant(self) -> dict[str, int]:
        return self.real.pending_by_tenant()

    def submit(self, scope: Scope) -> None:
        self.held.append(scope)

    def release(self) -> None:
        held, self.held = self.held, []
        for scope in held:
            self.real.submit(scope)
        self.real.join()

    def join(self) -> None:
        self.real.join()

    def close(self) -> None:
        self.release()
        self.real.close()

    def restore(self) -> None:
        """Hand what is held to the real thread and put it back in place."""
        self.release()
        self.memory._worker = self.real


class PendingRules:
    """The rules and the invariant; the model (``alive``, ``owner``, ...) and ``caller``/``text`` are the machine's."""

    served: Any
    caller: Any
    text: Any
    users: list[str]
    alive: dict[str, dict[str, str]]
    versions: dict[str, list[str]]
    owner: dict[str, str]
    run: dict[str, str | None]
    works = ["thread", "worker", "reprocess"]  # how the work step processes pending messages

    def hold_pending(self) -> None:
        # user -> the id of each message it logged pending, not processed yet -> (its text, its run)
        self.waiting: dict[str, dict[str, tuple[str, str | None]]] = {u: {} for u in self.users}
        self.held = HeldWorker(self.served.memory)

    def forget_pending(self, user: str, wildcard: bool) -> None:
        """``user`` forgot Scope(user_id=user): its waiting messages of the forgotten scopes are gone."""
        self.waiting[user] = {m: (t, r) for m, (t, r) in self.waiting[user].items() if not (wildcard or r is None)}

    @rule(data=st.data(), naming=NAMING, run=st.sampled_from([None, "r1", "r2"]),
          words=st.lists(WORDS, min_size=1, max_size=4))
    def add_later(self, data, naming, run, words):
        user, face, name, other = self.caller(data, naming, among=LATER_PATHS)
        text = self.text(user, words)
        if other:
            with refused(ForbiddenScopeError):
                face.add_later(text, run, name)
            return  # and nothing logged in the named tenant's raw log (the invariant below)
        (mid,) = face.add_later(text, run, name)
        self.waiting[user][mid] = (text, run)

    @rule(data=st.data())
    def work(self, data):
        how, memory = data.draw(st.sampled_from(self.works), label="how"), self.served.memory
        users = self.users
        if how == "thread":  # the Memory's own thread takes what add(wait=False) queued (forgotten scopes too)
            self.held.release()
        elif how == "worker":  # one pass of `memdesk worker`: every scope with pending messages
            assert ingest.process_pending(memory).failed == {}
        else:  # a tenant processes its own pending messages, every run of it (in process: trusted with its scope)
            users = [data.draw(st.sampled_from(self.users), label="tenant")]
            done = memory.reprocess(Scope(user_id=users[0]), wildcard=True)
            assert sorted(done.message_ids) == sorted(self.waiting[users[0]]) and done.pending == 0
        for user in users:
            self.processed(user)

    def processed(self, user: str) -> None:
        """Each of ``user``'s waiting messages is now one record of ``user`` under its scope, with its text and
        its provenance; no other record appeared (none from a forgotten message, none twice)."""
        memory = self.served.memory
        new = [r for r in memory.get_all(scope=Scope(user_id=user)) if r.id not in self.owner]
        assert sorted(m for r in new for m in r.provenance) == sorted(self.waiting[user]), (user, new)
        for r in new:
            text, run = self.waiting[user][r.provenance[0]]
            assert r.scope == Scope(user_id=user, run_id=run) and r.embed_text() == text, r
            self.alive[user][r.id], self.versions[r.id], self.owner[r.id], self.run[r.id] = text, [text], user, run
        status = {m.id: m.status for m in memory.messages(scope=Scope(user_id=user))}
        assert all(status[m] == "processed" for m in self.waiting[user]), status
        self.waiting[user] = {}

    @rule(data=st.data(), naming=NAMING)
    def log(self, data, naming):
        user, face, name, other = self.caller(data, naming, among=LOG_PATHS)
        if other:
            with refused(UnknownScopeError):
                face.log(name)
            return
        got = face.log(name)
        assert all(e.user_id == user for e in got), got
        assert {e.id for e in got if e.status == "pending"} == set(self.waiting[user])
        assert all(marker(u) not in e.content for e in got for u in self.users if u != user)

    @invariant()
    def each_raw_log_holds_its_own_words_and_its_waiting_messages(self):
        for user in self.users:
            logged = self.served.memory.messages(scope=Scope(user_id=user))
            assert {m.id for m in logged if m.pending} == set(self.waiting[user])
            assert all(marker(u) not in m.content for m in logged for u in self.users if u != user)
