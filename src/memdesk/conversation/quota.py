"""Optional storage quotas per tenant: an add by a tenant at or past its quota is refused, nothing else changes.

A tenant is the fairness unit of :func:`~memdesk.conversation.worker.tenant_of` (a scope's user, else its agent,
else its run); its usage is what every scope under it stores (:meth:`SQLStore.usage
<memdesk.store.sqlstore.SQLStore.usage>`: current records, and the bytes of records, versions, messages and
metadata). :meth:`StorageQuota.check` runs at the start of :meth:`Memory.add <memdesk.Memory.add>`, before
anything is logged: at or past either bound it raises :class:`~memdesk.errors.QuotaExceededError` (HTTP 413),
so the add stores nothing. Reads, updates, deletes and forget are never refused: a tenant frees room by deleting
or forgetting. The check is made before the add, so one add may take a tenant past its quota by what it stores
(at most the server's per-request bounds).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError, QuotaExceededError
from ..records import Scope


def tenant_scope(scope: Scope) -> Scope:
    """The wildcard scope of ``scope``'s tenant (as :func:`~memdesk.conversation.worker.tenant_of` names it)."""
    if scope.user_id is not None:
        return Scope(user_id=scope.user_id)
    return Scope(agent_id=scope.agent_id) if scope.agent_id is not None else Scope(run_id=scope.run_id)


class StorageQuota(BaseModel):
    """The most one tenant may store (None: no bound)."""

    model_config = ConfigDict(frozen=True)

    max_records: int | None = Field(default=None, ge=1)
    max_bytes: int | None = Field(default=None, ge=1)

    @property
    def enabled(self) -> bool:
        return self.max_records is not None or self.max_bytes is not None

    def usable_with(self, store: Any) -> None:
        """ConfigError unless ``store`` can say what a tenant stores (the SQL stores can)."""
        if self.enabled and not callable(getattr(store, "usage", None)):
            raise ConfigError(f"storage quotas need a store that reports usage; {type(store).__name__} does not")

    def check(self, store: Any, scope: Scope) -> None:
        """Raise :class:`QuotaExceededError` if ``scope``'s tenant is at or past a bound."""
        if not self.enabled:
            return
        tenant = tenant_scope(scope)
        used = store.usage(tenant)
        if self.max_records is not None and used.records >= self.max_records:
            raise QuotaExceededError(
                f"this tenant stores {used.records:,} records; its quota is {self.max_records:,}: "
                "delete or forget what it no longer needs before adding more"
            )
        if self.max_bytes is not None and used.bytes >= self.max_bytes:
            raise QuotaExceededError(
                f"this tenant stores {used.bytes:,} bytes; its quota is {self.max_bytes:,}: "
                "delete or forget what it no longer needs before adding more"
            )


__all__ = ["StorageQuota", "tenant_scope"]
