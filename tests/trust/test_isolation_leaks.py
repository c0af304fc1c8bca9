"""The isolation machine can fail: each test runs it (``test_isolation.py``) over paths with a leak patched in
(a by-id read that ignores the scope, a bank listing that ignores the owner, a worker that processes pending
messages into the wrong scope) and expects the property to catch it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from memdesk.conversation import ingest
from memdesk.errors import RecordNotFoundError
from memdesk.reasoning.bank import MemoryBank

from .test_isolation import IsolationMachine


def assert_caught(machine: type[IsolationMachine], served) -> None:
    """``machine`` (an IsolationMachine over a leaking path) fails: the property test would catch the leak."""
    machine.served = served
    with pytest.raises(AssertionError):
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=100, stateful_step_count=25, deadline=None, suppress_health_check=list(HealthCheck),
                database=None, phases=[Phase.generate],  # finding it is the point: no time spent shrinking
                derandomize=True,  # the same examples every run: whether it is caught does not depend on luck
            ),
        )


def test_the_machine_catches_a_leak(served, monkeypatch):
    """The property can fail: a by-id read that ignores the scope is caught (in process and over HTTP)."""
    from memdesk.conversation.memory import Memory

    def leaky_get(self, record_id, *, scope):
        record = self.store.get(record_id)
        if record is None:
            raise RecordNotFoundError.under(record_id, scope)
        return record

    monkeypatch.setattr(Memory, "get", leaky_get)

    class Leaky(IsolationMachine):
        paths = ["memory", "http"]

        # the memory rules only (the bank rules have their own leak test below): plain methods are no rules
        def bank_add(self, *args, **kwargs): ...
        def bank_read(self, *args, **kwargs): ...
        def bank_delete(self, *args, **kwargs): ...

    assert_caught(Leaky, served)


def test_the_machine_catches_a_bank_leak(served, monkeypatch):
    """The bank rules can fail too: a listing that ignores the owner is caught."""
    from memdesk.reasoning import ownership, service

    tenants: list[str] = []  # the example's: earlier examples' banks would make a replayed example fail sooner

    def every_bank(store, scope, wildcard=True):  # the owner ignored (among the example's tenants)
        found = [(c, MemoryBank(store, c).manifest()) for c in store.collections() if c.startswith(ownership.PREFIX)]
        return [(c, m) for c, m in found if m is not None and "::" not in c and m.owner and m.owner.user_id in tenants]

    monkeypatch.setattr(service, "owned_banks", every_bank)

    class Leaky(IsolationMachine):
        paths = ["memory", "http"]

        def __init__(self) -> None:
            super().__init__()
            tenants[:] = self.users

        # the bank rules and the memory rules that feed them: the export and session rules are tested above
        def export(self, *args, **kwargs): ...
        def ride_another_tenants_session(self, *args, **kwargs): ...

    assert_caught(Leaky, served)


def test_the_machine_catches_a_worker_that_processes_into_the_wrong_scope(served, monkeypatch):
    """The worker rules can fail too: a `memdesk worker` pass that batches every pending message under the first
    pending scope (another tenant's, another run) is caught."""

    def one_batch(memory):
        scopes = memory.store.pending_scopes()
        raws = [m for s in scopes for m in memory.store.pending_messages(s) if m.scope == s]
        if raws:
            utterances = [u.model_copy(update={"scope": scopes[0]}) for u in ingest._utterances(memory, raws)]
            ingest.ingest(memory, scopes[0], utterances, ids=[r.id for r in raws])
        return ingest.PendingPass(scopes=len(scopes), messages=len(raws), records=len(raws))

    monkeypatch.setattr(ingest, "process_pending", one_batch)

    class Leaky(IsolationMachine):
        paths = ["memory", "http"]
        works = ["worker"]

        def bank_add(self, *args, **kwargs): ...
        def bank_read(self, *args, **kwargs): ...
        def bank_delete(self, *args, **kwargs): ...

    assert_caught(Leaky, served)


def test_the_machine_catches_a_bank_page_that_shows_anothers_examples(served, monkeypatch):
    """The memory browser's bank page is held to the bank rules: a page that also lists the examples of the other
    tenants' banks of the same name is caught."""
    from memdesk.reasoning.ownership import bank_collection
    from memdesk.reasoning.service import ReasoningBanks
    from memdesk.records import Scope

    tenants: list[str] = []
    honest = ReasoningBanks.list_examples

    def every_owners(self, bank, *, scope, offset=0, limit=50):
        got = honest(self, bank, scope=scope, offset=offset, limit=limit)
        others = [e for u in tenants if u != scope.user_id for e in MemoryBank(self.store, bank_collection(Scope(user_id=u), bank)).all()]
        return got.model_copy(update={"examples": got.examples + others})

    monkeypatch.setattr(ReasoningBanks, "list_examples", every_owners)

    class Leaky(IsolationMachine):
        paths = ["ui"]  # its bank writes go through the HTTP API (inherited), its reads through the pages

        def __init__(self) -> None:
            super().__init__()
            tenants[:] = self.users

        # the bank rules only, so that tenants' banks of one name meet often: plain methods are no rules
        def add(self, *args, **kwargs): ...
        def read(self, *args, **kwargs): ...
        def get_all(self, *args, **kwargs): ...
        def by_id(self, *args, **kwargs): ...
        def forget(self, *args, **kwargs): ...
        def work(self, *args, **kwargs): ...
        def log(self, *args, **kwargs): ...
        def add_later(self, *args, **kwargs): ...
        def export(self, *args, **kwargs): ...
        def ride_another_tenants_session(self, *args, **kwargs): ...

    assert_caught(Leaky, served)
