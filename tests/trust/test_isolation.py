"""Tenant isolation, property-tested: no tenant ever sees, changes or deletes another tenant's data.

A hypothesis state machine plays three tenants of one memory. Each step picks a tenant, a path into memdesk
(:data:`FACES`: in process, the HTTP routes and RemoteMemory with the tenant's key over a real socket, the
MCP tools over streamable HTTP with the tenant's key, MCP bound to the tenant in process, the memory
browser at ``/ui`` logged in with the tenant's key, the mem0 facade bound to the tenant, and the awaitable
``AsyncMemory`` (in process) and ``AsyncRemoteMemory`` (the tenant's key) of ``async_faces.py``) and an
operation (add, a change of one fact of a compound statement - narrowed in place, what changed split off into a
closed record -, search, evidence, answer, get, get_all, update, delete, history, forget - the exact scope or
with a wildcard - and export, on :data:`EXPORT_PATHS`), with record ids drawn from
*every* tenant's records, dead or alive, and - on the keyed paths - the scope left out, named as the
tenant's own, or named as another tenant's. A model says what each tenant owns; after every step:

* whatever a tenant got back (records, evidence text, answers, histories) is its own: no other tenant's
  record id and no other tenant's marker word in any text;
* a by-id call on another tenant's record fails exactly as on a missing id (``RecordNotFoundError``), a
  read naming another tenant with ``UnknownScopeError`` and a write naming another tenant with
  ``ForbiddenScopeError``, whether or not that tenant has data;
* the store, read as an admin, holds exactly what the model says for every tenant (so nothing was changed or
  deleted across tenants); a deleted record's history is one tombstone without its text; a forgotten
  record's history is gone (``RecordNotFoundError``), the tenant's key is revoked by its forget (401; its keyed
  paths are closed and later steps get a new key) and a forget
  naming another tenant is ``ForbiddenScopeError``.

Reasoning banks are played the same way on the paths that reach them (:data:`BANK_PATHS`): every tenant grows
banks of the same names, lists them, retrieves from them, deletes examples (ids drawn from every tenant's) and
banks, naming its own scope, none, or another tenant's. Another tenant's bank reads as missing
(``UnknownBankError``; a listing naming another tenant ``UnknownScopeError``), a write naming another tenant is
``ForbiddenScopeError``, nothing a tenant gets back is another's, the store holds exactly the model's banks, and a
forget erases the tenant's banks.

The deferred add (``add(..., wait=False)``) and its worker are rules too (``pending_rules.py``): pending messages
logged through every path that takes ``wait`` (:data:`~tests.trust.pending_rules.LATER_PATHS`) become exactly
their tenant's records when the worker runs (the Memory's thread, ``memdesk worker``'s pass or a reprocess), once,
and a forget erases those not processed yet. ``test_isolation_leaks.py`` shows the machine catches leaks.

**Adding a path**: write a :class:`~tests.trust.faces.Face` for it in ``faces.py`` (one method per operation,
raising the memdesk exception the path reports; the bank operations come from a mixin of ``bank_faces.py``, and a
path that reaches banks goes in :data:`BANK_PATHS`; the deferred add and the raw log listing come from a mixin of
``pending_faces.py``, and a path that takes ``wait`` goes in ``LATER_PATHS``, one that lists the log in
``LOG_PATHS``) and add it to :data:`FACES`; every rule then runs through it (a path that can only forget with a
wildcard, like mem0's ``delete_all``, sets ``exact_forget = False``). **Adding an operation**: add a method to
``Face`` and to every face, and a ``@rule`` here that calls it through ``self.face(...)`` and checks what came back
with :meth:`IsolationMachine.own`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import httpx2
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from memdesk.errors import ForbiddenScopeError, RecordNotFoundError, UnknownBankError, UnknownScopeError
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.ownership import bank_collection
from memdesk.records import Scope
from memdesk.tenants import Tenant

from .async_faces import AsyncMemoryFace, AsyncRemoteFace
from .checks import NAMING, WORDS, change, compound, marker, refused
from .conftest import Served
from .faces import Face, Found, HttpFace, McpFace, MemoryFace, RemoteFace, UiFace
from .mem0_face import Mem0Face
from .pending_rules import PendingRules

FACES: dict[str, Callable[[Served, str], Face]] = {
    "memory": lambda s, user: MemoryFace(s.memory, user),
    "http": lambda s, user: HttpFace(s.url, s.key_for(Tenant(user_id=user)), user),
    "remote": lambda s, user: RemoteFace(s.url, s.key_for(Tenant(user_id=user)), user),
    "mcp-http": lambda s, user: McpFace(user, url=s.url, key=s.key_for(Tenant(user_id=user))),
    "mcp-bound": lambda s, user: McpFace(user, memory=s.memory),
    "ui": lambda s, user: UiFace(s.url, s.key_for(Tenant(user_id=user)), user),
    "mem0": lambda s, user: Mem0Face(s.memory, user),
    "async": lambda s, user: AsyncMemoryFace(s.memory, user),
    "async-remote": lambda s, user: AsyncRemoteFace(s.url, s.key_for(Tenant(user_id=user)), user),
}
BANK_PATHS = ["async-remote", "http", "mcp-bound", "mcp-http", "memory", "remote", "ui"]
EXPORT_PATHS = ["http", "memory"]  # the right of access: a tenant's export of its own scope (export_faces.py)
BANKS = st.sampled_from(["b1", "b2"])  # every tenant uses the same bank names
KEYED_PATHS = ("http", "remote", "async-remote", "mcp-http", "ui")  # the paths that carry the tenant's key
_EXAMPLES = itertools.count()


class IsolationMachine(PendingRules, RuleBasedStateMachine):
    served: Served
    paths: list[str] = sorted(FACES)

    def __init__(self) -> None:
        super().__init__()
        n = next(_EXAMPLES)
        self.users = [f"t{n}{c}" for c in "abc"]  # fresh tenants per example: examples share one database
        self.alive: dict[str, dict[str, str]] = {u: {} for u in self.users}  # user -> record id -> text
        self.closed: dict[str, dict[str, str]] = {u: {} for u in self.users}  # user -> id of a closed record -> text
        self.versions: dict[str, list[str]] = {}  # record id -> every text it had
        self.owner: dict[str, str] = {}  # record id -> user
        self.run: dict[str, str | None] = {}  # record id -> the run_id it was added under
        self.forgotten: set[str] = set()  # ids whose history was erased too
        self.deleted: set[str] = set()  # ids deleted one by one: their history is a tombstone without text
        self.faces: dict[tuple[str, str], Face] = {}
        self.banks: dict[str, dict[str, dict[str, str]]] = {u: {} for u in self.users}  # user -> bank -> id -> problem
        self.example_owner: dict[str, str] = {}  # example id -> user
        self.hold_pending()  # add(wait=False)'s messages wait for the work rule (pending_rules.py)

    # -- helpers ------------------------------------------------------------------------------
    def face(self, user: str, data, *, among: list[str] | None = None) -> Face:
        """``user``'s handle on a path drawn from :attr:`paths` (those ``among``, e.g. the ones reaching banks)."""
        paths = [p for p in self.paths if among is None or p in among]
        path = data.draw(st.sampled_from(paths), label="path")
        if (user, path) not in self.faces:
            self.faces[(user, path)] = FACES[path](self.served, user)
        return self.faces[(user, path)]

    def name(self, user: str, face: Face, naming: str, data) -> tuple[str | None, bool]:
        """The user_id a call names, and whether it is another tenant's."""
        if not face.keyed or naming == "own":
            return user, False
        if naming == "omit":
            return None, False
        return data.draw(st.sampled_from([u for u in self.users if u != user])), True

    def caller(self, data, naming: str, *, among: list[str] | None = None) -> tuple[str, Face, str | None, bool]:
        """A tenant drawn from :attr:`users`, its handle on a path (:meth:`face`), the user_id its call
        names and whether that is another tenant's (:meth:`name`)."""
        user = data.draw(st.sampled_from(self.users), label="tenant")
        face = self.face(user, data, among=among)
        return (user, face, *self.name(user, face, naming, data))

    def own(self, user: str, found: Found, *, current: bool = True) -> None:
        """Everything in ``found`` is ``user``'s: its ids (current records, or closed ones a search ranks low and an
        export keeps; any record's, unless ``current=False``), its texts."""
        for item in found.items:
            assert self.owner.get(item.id) == user, f"{user} got {item.id} of {self.owner.get(item.id)}"
            assert item.user_id in (None, user)
            if current and item.id not in self.closed[user]:
                assert item.id in self.alive[user]
                assert not item.text or item.text == self.alive[user][item.id]
            else:  # an export gives a record's text without what it is embedded with (a split record's source)
                assert not item.text or any(item.text in v for v in self.versions[item.id])
        texts = found.text + "".join(i.text for i in found.items)
        for other in self.users:
            if other != user:
                assert marker(other) not in texts, f"{user} saw {other}'s text: {texts[:200]}"

    def record_id(self, data) -> str:
        # in the order added, not sorted: ids are random, so a replayed example then draws the same records
        return data.draw(st.sampled_from([*self.owner, "no-such-id"]))

    def text(self, user: str, words: list[str]) -> str:
        return " ".join([marker(user), *words])

    # -- operations -----------------------------------------------------------------------------
    @rule(data=st.data(), naming=NAMING, run=st.sampled_from([None, "r1", "r2"]),
          words=st.lists(WORDS, min_size=1, max_size=4))
    def add(self, data, naming, run, words):
        user, face, name, other = self.caller(data, naming)
        text = self.text(user, words)
        if other:
            with refused(ForbiddenScopeError):
                face.add(text, run, name)
            return
        ids = face.add(text, run, name)
        assert len(ids) == 1
        self.alive[user][ids[0]] = text
        self.versions[ids[0]] = [text]
        self.owner[ids[0]] = user
        self.run[ids[0]] = run

    @rule(data=st.data(), naming=NAMING, run=st.sampled_from([None, "r1"]))
    def change(self, data, naming, run):
        """A compound statement, then a change of one of its facts, in one scope (:class:`~tests.trust.checks.ChangeReading`
        reads them with the rules): the compound record is narrowed in place (a new version) and what changed is
        closed in a record split off it, all of them the tenant's (:meth:`resync`)."""
        user, face, name, other = self.caller(data, naming)
        if other:
            with refused(ForbiddenScopeError):
                face.add(compound(user), run, name)
            return
        said = face.add(compound(user), run, name)
        self.resync(user)
        face.add(change(user), run, name)
        self.resync(user)
        store = self.served.memory.store
        assert any(store.get(i).metadata.get("split_from") == said[0] for i in self.closed[user]), said  # split off
        assert len(self.versions[said[0]]) == 2 and marker(user) not in self.alive[user][said[0]]  # narrowed

    def resync(self, user: str) -> None:
        """The model of ``user`` after supersession rewrote its records: new ones (the change's, the split ones) are
        its own, a narrowed record has a new version, a closed one is no longer current; read as an admin."""
        for r in self.served.memory.get_all(scope=Scope(user_id=user), filters={"include_superseded": True}):
            text = r.embed_text()
            if r.id not in self.owner:
                self.owner[r.id], self.run[r.id], self.versions[r.id] = user, r.scope.run_id, [text]
            assert self.owner[r.id] == user  # never another tenant's record
            if self.versions[r.id][-1] != text:
                self.versions[r.id].append(text)
            if r.superseded_by is None:
                self.alive[user][r.id] = text
            else:
                self.alive[user].pop(r.id, None)
                self.closed[user][r.id] = text

    @rule(data=st.data(), naming=NAMING,
          op=st.sampled_from(["search", "evidence", "answer"]), words=st.lists(WORDS, min_size=1, max_size=3))
    def read(self, data, naming, op, words):
        user, face, name, other = self.caller(data, naming)
        # the query may carry another tenant's marker: searching for someone's words must not find them
        query = " ".join([data.draw(st.sampled_from([marker(u) for u in self.users])), *words])
        call = getattr(face, op)
        if other:
            with refused(UnknownScopeError):
                call(query, name)
            return
        found = call(query, name)
        self.own(user, found)
        assert found.items or not self.alive[user]  # the hashing embedder ranks every record: some come back

    @rule(data=st.data(), naming=NAMING)
    def get_all(self, data, naming):
        user, face, name, other = self.caller(data, naming)
        if other:
            with refused(UnknownScopeError):
                face.get_all(name)
            return
        found = face.get_all(name)
        self.own(user, found)
        assert {i.id for i in found.items} == set(self.alive[user])

    @rule(data=st.data(), naming=NAMING,
          op=st.sampled_from(["get", "update", "delete", "history"]), words=st.lists(WORDS, min_size=1, max_size=3))
    def by_id(self, data, naming, op, words):
        user, face, name, other = self.caller(data, naming)
        rid = self.record_id(data)
        mine = not other and self.owner.get(rid) == user
        reachable = mine and rid not in self.forgotten and (op == "history" or rid in self.alive[user] or rid in self.closed[user])
        if not reachable:
            args = (rid, self.text(user, words), name) if op == "update" else (rid, name)
            with refused(RecordNotFoundError) as e:
                getattr(face, op)(*args)
            assert rid == "no-such-id" or all(marker(u) not in str(e.error) for u in self.users)
            return
        if op == "get":
            self.own(user, Found([face.get(rid, name)]))
        elif op == "update":
            text = self.text(user, words)
            got = face.update(rid, text, name)
            text = self.served.memory.store.get(rid).embed_text()  # a split record is embedded with its source's words
            (self.closed if rid in self.closed[user] else self.alive)[user][rid] = text  # a closed record stays closed
            self.versions[rid].append(text)
            self.own(user, Found([got]))
        elif op == "delete":
            face.delete(rid, name)
            self.alive[user].pop(rid, None)
            self.closed[user].pop(rid, None)
            self.deleted.add(rid)
        else:
            found = face.history(rid, name)
            assert found.items and {i.id for i in found.items} == {rid}
            self.own(user, found, current=False)
            if rid in self.deleted:  # the tombstone alone: no version keeps the deleted text
                assert [i.text for i in found.items] == [""]
                assert all(v not in found.text for v in self.versions[rid])

    @rule(data=st.data(), naming=NAMING, wildcard=st.booleans())
    def forget(self, data, naming, wildcard):
        user, face, name, other = self.caller(data, naming)
        wildcard = wildcard or not getattr(face, "exact_forget", True)  # a path that forgets with a wildcard only
        if other:
            with refused(ForbiddenScopeError):
                face.forget(wildcard, name)
            return
        face.forget(wildcard, name)  # Scope(user_id=user): the exact scope holds the records added without a run
        for rid, owner in self.owner.items():
            if owner == user and (wildcard or self.run[rid] is None):
                self.forgotten.add(rid)
                self.alive[user].pop(rid, None)
                self.closed[user].pop(rid, None)
        self.banks[user] = {}  # the tenant's banks belong to Scope(user_id=user): exact and wildcard forgets take them
        self.forget_pending(user, wildcard)
        self.keys_went_away(user)

    def keys_went_away(self, user: str) -> None:
        """Forgetting Scope(user_id=user), exact or wildcard, revokes the tenant's key (it is bound to that scope):
        it gets 401 from then on; the tenant's keyed faces are closed and later steps get a new key."""
        old = self.served.revoked(Tenant(user_id=user))
        for path in KEYED_PATHS:
            face = self.faces.pop((user, path), None)
            if isinstance(face, UiFace):  # the revocation ended the tenant's browser session too
                assert face.ui.get("/ui").headers.get("location") == "/ui/login"
            if face is not None:
                face.close()
        if old is not None:
            r = httpx2.get(f"{self.served.url}/v1/memories", headers={"Authorization": f"Bearer {old}"}, timeout=60)
            assert r.status_code == 401, r.text

    @rule(data=st.data())
    def ride_another_tenants_session(self, data):
        """A session is its key's: another tenant's key naming the MCP session a tenant opened gets 404 and nothing
        of it; the tenant's browser session cookie is a random id, never its key."""
        victim = data.draw(st.sampled_from(self.users), label="victim")
        thief = data.draw(st.sampled_from([u for u in self.users if u != victim]), label="thief")
        accept = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "machine", "version": "1"}}}  # fmt: skip
        own = {"Authorization": f"Bearer {self.served.key_for(Tenant(user_id=victim))}", **accept}
        opened = httpx2.post(f"{self.served.url}/mcp", json=init, headers=own, timeout=60)
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "search_memory", "arguments": {"query": marker(victim)}}}  # fmt: skip
        stolen = {"Authorization": f"Bearer {self.served.key_for(Tenant(user_id=thief))}", **accept, "mcp-session-id": session}
        r = httpx2.post(f"{self.served.url}/mcp", json=call, headers=stolen, timeout=60)
        assert r.status_code == 404 and marker(victim) not in r.text, r.text
        if "ui" in self.paths:  # (a machine may leave the browser out)
            ui = self.face(victim, data, among=["ui"])
            assert isinstance(ui, UiFace)
            assert all(self.served.key_for(Tenant(user_id=victim)) not in v for v in ui.ui.cookies.values())

    @rule(data=st.data(), naming=NAMING)
    def export(self, data, naming):
        """A tenant's export holds exactly its current records and bank examples, and no other tenant's text;
        naming another tenant is a 404 (as every read); after a forget it holds nothing of what went."""
        if not set(EXPORT_PATHS) & set(self.paths):
            return  # a machine without an exporting path (e.g. the browser alone)
        user, face, name, other = self.caller(data, naming, among=EXPORT_PATHS)
        if other:
            with refused(UnknownScopeError):
                face.export(name)
            return
        got = face.export(name)
        self.own(user, got.records)
        assert {i.id for i in got.records.items} == set(self.alive[user]) | set(self.closed[user])  # closed ones too
        assert got.examples == {e for bank in self.banks[user].values() for e in bank}

    # -- reasoning banks -----------------------------------------------------------------------------
    def own_examples(self, user: str, bank: str, found: Found) -> None:
        """What a bank read returned is all of ``user``'s bank ``bank`` and nothing of anyone else's."""
        assert {i.id for i in found.items} == set(self.banks[user][bank])
        for item in found.items:
            assert item.text == self.banks[user][bank][item.id]
        texts = found.text + "".join(i.text for i in found.items)
        assert all(marker(u) not in texts for u in self.users if u != user), texts[:200]

    @rule(data=st.data(), naming=NAMING, bank=BANKS, words=st.lists(WORDS, min_size=1, max_size=4))
    def bank_add(self, data, naming, bank, words):
        user, face, name, other = self.caller(data, naming, among=BANK_PATHS)
        problem = self.text(user, words)
        if other:
            with refused(ForbiddenScopeError):
                face.bank_add(bank, problem, name)
            return
        (example_id,) = face.bank_add(bank, problem, name)
        self.banks[user].setdefault(bank, {})[example_id] = problem
        self.example_owner[example_id] = user

    @rule(data=st.data(), naming=NAMING, bank=BANKS, op=st.sampled_from(["list", "retrieve"]),
          words=st.lists(WORDS, min_size=1, max_size=3))
    def bank_read(self, data, naming, bank, op, words):
        user, face, name, other = self.caller(data, naming, among=BANK_PATHS)
        if op == "list":
            if other:
                with refused(UnknownScopeError):
                    face.bank_list(name)
                return
            assert sorted(face.bank_list(name)) == [(b, user) for b in sorted(self.banks[user])]
            return
        query = " ".join([data.draw(st.sampled_from([marker(u) for u in self.users])), *words])
        if other or bank not in self.banks[user]:
            with refused(UnknownBankError) as e:
                face.bank_retrieve(bank, query, name)
            assert all(marker(u) not in str(e.error) for u in self.users)
            return
        self.own_examples(user, bank, face.bank_retrieve(bank, query, name))

    @rule(data=st.data(), naming=NAMING, bank=BANKS, op=st.sampled_from(["example", "bank"]))
    def bank_delete(self, data, naming, bank, op):
        user, face, name, other = self.caller(data, naming, among=BANK_PATHS)
        example_id = data.draw(st.sampled_from([*self.example_owner, "no-such-id"]))
        call = (lambda: face.bank_delete_example(bank, example_id, name)) if op == "example" else (lambda: face.bank_delete(bank, name))
        if other:
            with refused(ForbiddenScopeError):
                call()
            return
        held = self.banks[user].get(bank)
        if held is None:
            with refused(UnknownBankError):
                call()
            return
        if op == "bank":
            assert call() == len(held)
            del self.banks[user][bank]
            return
        if example_id not in held:
            with refused(RecordNotFoundError):
                call()
            return
        call()
        del held[example_id]
        if not held:  # a bank left empty goes
            del self.banks[user][bank]

    # -- what must hold after every step --------------------------------------------------------------
    @invariant()
    def the_store_holds_exactly_what_each_tenant_owns(self):
        for user in self.users:
            records = self.served.memory.get_all(scope=Scope(user_id=user))
            assert {r.id: r.embed_text() for r in records} == self.alive[user]
            # long metadata (stored once, memdesk.store.shared_metadata) comes back to its own tenant only
            assert all(marker(u) not in str(r.metadata) for r in records for u in self.users if u != user)
            every = self.served.memory.get_all(scope=Scope(user_id=user), filters={"include_superseded": True})
            assert {r.id for r in every} == set(self.alive[user]) | set(self.closed[user])  # closed ones are its own too
            assert self.served.memory.store.usage(Scope(user_id=user)).records == len(every)  # quotas count its own

    @invariant()
    def the_store_holds_exactly_each_tenants_banks(self):
        store = self.served.memory.store
        for user in self.users:
            for bank in ("b1", "b2"):
                stored = MemoryBank(store, bank_collection(Scope(user_id=user), bank))
                assert {e.id: e.problem for e in stored.all()} == self.banks[user].get(bank, {})
                assert (stored.manifest() is not None) == (bank in self.banks[user])

    def teardown(self) -> None:
        for face in self.faces.values():
            face.close()
        self.held.restore()


def test_no_tenant_ever_sees_changes_or_deletes_anothers_data(served):
    IsolationMachine.served = served
    run_state_machine_as_test(
        IsolationMachine,
        settings=settings(max_examples=20, stateful_step_count=20, deadline=None, suppress_health_check=list(HealthCheck)),
    )
