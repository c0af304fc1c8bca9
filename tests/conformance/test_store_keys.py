"""The tenant key table (``KeyStore``), on every backend: hashed at rest, found by digest, listed, revoked."""

from __future__ import annotations

import pytest

from memdesk.errors import InvalidInputError, InvalidScopeError
from memdesk.records import Scope
from memdesk.store.base import Store
from memdesk.tenants import Tenant, hash_key

from .helpers import native_for


def test_keys_are_created_found_listed_and_revoked(store: Store) -> None:
    assert not store.has_keys() and store.keys() == []
    ana = store.create_key(Tenant(user_id="ana"), name="laptop")
    bot = store.create_key(Tenant(user_id="ana", agent_id="bot"))
    ben = store.create_key(Tenant(user_id="ben"))
    assert store.has_keys() and len({ana.key, bot.key, ben.key}) == 3
    assert ana.info.name == "laptop" and ana.info.last_used_at is None
    text = native_for(store).rows_text(store)
    assert ana.key not in text and hash_key(ana.key) in text  # the digest is stored, never the key

    found = store.find_key(hash_key(bot.key))
    assert found is not None and found.tenant == Tenant(user_id="ana", agent_id="bot") and found.last_used_at
    assert store.find_key(hash_key(bot.key[:-1])) is None and store.find_key("") is None
    assert [k.key_id for k in store.keys()] == [ana.info.key_id, bot.info.key_id, ben.info.key_id]
    assert [k.key_id for k in store.keys("ana")] == [ana.info.key_id, bot.info.key_id]
    listed = {k.key_id: k for k in store.keys()}
    assert listed[bot.info.key_id].last_used_at is not None and listed[ana.info.key_id].last_used_at is None

    assert store.revoke_key(ana.info.key_id) is True
    assert store.revoke_key(ana.info.key_id) is False
    assert store.find_key(hash_key(ana.key)) is None
    assert [k.key_id for k in store.keys("ana")] == [bot.info.key_id]


def test_bad_key_arguments_are_memdesk_errors(store: Store) -> None:
    with pytest.raises(InvalidScopeError):
        Tenant(user_id="")
    with pytest.raises(InvalidInputError):
        store.create_key("ana")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        store.create_key(Tenant(user_id="ana"), name=" ")
    with pytest.raises(InvalidInputError):
        store.revoke_key("\ud800")
    assert not store.has_keys()


def test_forget_revokes_the_keys_bound_to_the_forgotten_scope(store: Store) -> None:
    """A key for Tenant(user, agent) reaches Scope(user, agent) and its runs: an exact forget of that scope, or a
    wildcard forget covering it, revokes it; a forget of less than the key reaches (a run, one agent) does not."""
    ana, ana_bot = store.create_key(Tenant(user_id="ana")), store.create_key(Tenant(user_id="ana", agent_id="bot"))
    ben, ben_bot = store.create_key(Tenant(user_id="ben")), store.create_key(Tenant(user_id="ben", agent_id="bot"))
    assert store.forget(Scope(user_id="ana", run_id="r1"), wildcard=True).keys == 0
    assert store.forget(Scope(user_id="ana", agent_id="bot")).keys == 1  # that agent's key only
    assert store.find_key(hash_key(ana_bot.key)) is None and store.find_key(hash_key(ana.key)) is not None
    assert store.forget(Scope(user_id="ana")).keys == 1
    again = store.create_key(Tenant(user_id="ana", agent_id="bot"))
    assert store.forget(Scope(user_id="ana"), wildcard=True).keys == 1  # every agent of ana's
    assert store.find_key(hash_key(again.key)) is None
    assert store.forget(Scope(agent_id="bot"), wildcard=True).keys == 1  # an admin's: every user's bot key
    assert [k.key_id for k in store.keys()] == [ben.info.key_id]  # ben's own key reaches more: it stays
    text = native_for(store).rows_text(store)
    assert all(hash_key(k.key) not in text for k in (ana, ana_bot, again, ben_bot)) and hash_key(ben.key) in text
