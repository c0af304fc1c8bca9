"""Whose a reasoning bank is: banks made through the API belong to a tenant scope.

A bank named ``NAME`` owned by the scope ``S`` (a ``user_id``, optionally an ``agent_id``; never a run) lives in
the store collection ``tenant:<digest of S>/NAME`` (:func:`bank_collection`), and its manifest names ``S``
(``BankManifest.owner``). Two tenants' banks of one name are two collections, so a call that names a bank under
its own scope cannot reach another tenant's. :func:`owned_banks` finds the banks under a scope (for listing, and
for :meth:`~memdesk.Memory.forget`, which erases them with the scope's memories); :func:`bank_tables` names
everything a bank keeps in the store.
"""

from __future__ import annotations

import hashlib
import re

from ..errors import InvalidInputError, InvalidScopeError
from ..records import Scope
from ..store.base import Store
from .bank import BankManifest, MemoryBank

PREFIX = "tenant:"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def check_bank_name(name: object) -> str:
    """A bank name as the API takes it: 1-128 letters, digits, ``.``, ``_``, ``-``, starting with a letter or digit."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidInputError(
            f"invalid bank name {name!r}: 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return name


def check_owner(scope: Scope) -> Scope:
    """The exact scope a bank belongs to: a user and/or agent, no run."""
    if not isinstance(scope, Scope):
        raise InvalidScopeError(f"expected a Scope, got {type(scope).__name__}")
    if scope.run_id is not None:
        raise InvalidScopeError("a reasoning bank belongs to a user_id and/or agent_id, not to a run: leave run_id out")
    return scope


def bank_collection(owner: Scope, name: str) -> str:
    """The store collection of bank ``name`` owned by ``owner``."""
    digest = hashlib.sha256(check_owner(owner).key().encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{PREFIX}{digest}/{check_bank_name(name)}"


def bank_name(collection: str) -> str:
    """The name a caller uses for the bank stored in ``collection``."""
    return collection.split("/", 1)[1] if collection.startswith(PREFIX) and "/" in collection else collection


def bank_tables(store: Store, collection: str) -> list[str]:
    """The collection and the document sets a bank keeps (its entries, manifest and rejected items)."""
    return MemoryBank(store, collection).tables()


def owned_banks(store: Store, scope: Scope | None, *, wildcard: bool = True) -> list[tuple[str, BankManifest]]:
    """(collection, manifest) of the banks owned by ``scope`` (``wildcard``: by any scope under it, as reads treat
    unset ids; else by exactly ``scope``; None: every owned bank, an admin's view), by name, then owner (a user's
    own bank before its agents')."""
    out = []
    for collection in store.collections():
        if not collection.startswith(PREFIX) or "::" in collection:
            continue
        manifest = MemoryBank(store, collection).manifest()
        if manifest is None or manifest.owner is None:
            continue
        if scope is None or (scope.matches(manifest.owner) if wildcard else manifest.owner == scope):
            out.append((collection, manifest))
    return sorted(out, key=lambda cm: (bank_name(cm[0]), cm[1].owner.user_id or "", cm[1].owner.agent_id or ""))  # type: ignore[union-attr]
