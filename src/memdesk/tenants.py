"""Tenants, callers and API keys: who may touch which scope.

A **tenant** is a ``user_id`` (optionally narrowed to one ``agent_id``). An API key bound to a tenant
(``memdesk keys create --user ana``) only ever reaches that tenant's scopes: the server fills the tenant's
ids into a request that omits them, and a request naming another tenant is answered exactly as if that
tenant had no data (404) for reads and by-id calls, or refused (403) for writes. Keys from
``MEMDESK_API_KEYS`` are **admin** keys and reach every scope, as in-process callers do.

A key is shown once when created; the database keeps only its SHA-256 digest (a key is 256 random bits,
so a fast digest is enough), with its name, tenant and created / last-used times.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime
from typing import ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from .errors import ForbiddenScopeError, RecordNotFoundError, UnknownBankError, UnknownScopeError
from .records import Scope
from .scope import ScopeIds

KEY_PREFIX = "mdk_"

Access = Literal["read", "write", "record"]
"""What a request does with the scope it names: ``read`` (search, list, messages), ``write`` (add, delete
under a scope, forget), ``record`` (a by-id call: get, update, delete, history)."""


class Tenant(ScopeIds):
    """The scope an API key is bound to: one user, optionally one agent of that user."""

    what: ClassVar[str] = "tenant"

    user_id: str
    agent_id: str | None = None

    def __init__(self, **data: object) -> None:
        super().__init__(**data)
        self.scope()  # the ids follow the scope rules (InvalidScopeError otherwise)

    def scope(self) -> Scope:
        """The tenant as a (wildcard) scope: every run (and agent, if unbound) of the user."""
        return Scope(user_id=self.user_id, agent_id=self.agent_id)


class Caller(BaseModel):
    """Who is calling: a tenant, or an admin (``tenant=None``: an admin key, a keyless loopback server,
    an in-process caller)."""

    model_config = ConfigDict(frozen=True)

    tenant: Tenant | None = None

    @property
    def is_admin(self) -> bool:
        return self.tenant is None

    def scope(
        self,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        *,
        access: Access,
        record_id: str | None = None,
    ) -> Scope:
        """The scope a request may use. An admin gets the scope it names (at least one id). A tenant gets its
        own ids filled in where the request leaves them out; naming another user (or, for an agent-bound
        key, another agent) raises, whether or not that tenant has data, ``UnknownScopeError`` for a ``read``,
        ``RecordNotFoundError`` (the very error of a missing id) for a ``record`` call, both 404, and
        ``ForbiddenScopeError`` (403) for a ``write``."""
        values = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
        bound: dict[str, str] = {}
        if self.tenant is not None:
            bound = {"user_id": self.tenant.user_id}
            if self.tenant.agent_id is not None:
                bound["agent_id"] = self.tenant.agent_id
            for field, value in bound.items():
                if values[field] is None:
                    values[field] = value
        scope = Scope(**values)  # a bad id is a 422 before anything is compared
        if any(getattr(scope, field) != value for field, value in bound.items()):
            raise self._outside(scope, access, record_id)
        return scope

    def bank_owner(
        self, user_id: str | None = None, agent_id: str | None = None, *, access: Access, bank: str | None = None
    ) -> Scope:
        """The scope whose reasoning banks a request may use: :meth:`scope` with no run (a bank belongs to a
        user and/or agent). Naming another tenant is a 404 for a read (a read of one bank by name, ``bank``,
        reads exactly as a missing bank: ``UnknownBankError``) and a 403 for a write (adding or deleting)."""
        try:
            return self.scope(user_id, agent_id, None, access=access)
        except UnknownScopeError:
            if bank is None:
                raise
            named = ",".join(f"{k}={v}" for k, v in (("user", user_id), ("agent", agent_id)) if v)
            raise UnknownBankError.under(bank, named) from None

    @staticmethod
    def _outside(scope: Scope, access: Access, record_id: str | None) -> Exception:
        if access == "write":
            return ForbiddenScopeError(f"this API key may not write under scope {scope}")
        if access == "record":
            return RecordNotFoundError.under(record_id, scope)
        return UnknownScopeError(f"no memories under scope {scope}")


class ApiKeyInfo(BaseModel):
    """A stored tenant key, without the key itself."""

    key_id: str = Field(description="The key's public id (for `memdesk keys revoke`).")
    name: str | None = None
    tenant: Tenant
    created_at: datetime
    last_used_at: datetime | None = None


class NewApiKey(BaseModel):
    """A key just created: ``key`` is shown this once and never stored."""

    key: str
    info: ApiKeyInfo


@runtime_checkable
class TenantKeys(Protocol):
    """Where tenant keys are looked up (the database's key table)."""

    def find_key(self, key_hash: str) -> ApiKeyInfo | None:
        """The key whose digest is ``key_hash`` (and note that it was used), or None."""
        ...

    def has_keys(self) -> bool:
        """Whether any tenant key exists."""
        ...


def new_key() -> tuple[str, str]:
    """A fresh random key and its public id: ``(key, key_id)``."""
    key_id = secrets.token_hex(6)
    return f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}", key_id


def hash_key(key: str) -> str:
    """The digest under which a key is stored and looked up."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
